"""A hypothesis state machine over the real services of the economy, on the real database.

Rules call city, bounties and funds services with arguments drawn by hypothesis, invalid ones
included. An ApplicationError is an allowed outcome that must change nothing; any other
exception is a bug. A model of the economy, updated only from successful calls, is compared
with the database after every step (see the invariants below).

``run_economy_machine`` runs it in the current Django process; each example is one
transaction rolled back at its end, so the database is left as it was found.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Count, Sum
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from agents.models import Agent
from bounties import services as bounties
from bounties.models import Bounty
from city import services as city
from city.models import (
    AgentResource,
    MarketOrder,
    Purchase,
    ResourceTransfer,
    ResourceType,
    ShopItem,
)
from core.errors import ApplicationError
from funds import services as funds
from funds.models import Fund

AGENTS = 4
START_CREDITS = 60
START_STOCK = {"flour": 12, "wood": 6, "bread": 3}
SHOP = {"bread": (5, 2), "wood": (7, 3)}  # resource: (price, quantity per bundle)
FUNDS = 2

# Fixed, so that `make test` is reproducible and bounded (~30-60 s on SQLite).
PROFILE = settings(
    max_examples=20,
    stateful_step_count=30,
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=False,
    # No explain phase: its line tracing makes a failing run minutes long on Python 3.11.
    phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@dataclass(frozen=True)
class Slot:
    """The n-th row the machine made (agent, order, bounty, fund), resolved to its id at call time."""

    index: int


# Well-formed arguments: refusals come from the state of the economy (stock, credits, statuses).
agents = st.integers(0, AGENTS - 1).map(Slot)
rows = st.integers(0, 5).map(Slot)
slugs = st.sampled_from(list(START_STOCK))
quantities = st.integers(1, 8)
prices = st.integers(1, 60)
rewards = st.integers(1, 40)
# Anything a caller could pass: ``malformed_call`` draws from these.
# Ids past every row, in range for the database (callers hand services at most 2**63 - 1).
MISSING_IDS = st.sampled_from([0, -1, 2**63 - 1])
# city services accept any Python value as an id and refuse what is not a whole number.
NOT_IDS = st.sampled_from(["1", None, True, 1.5, [1]])
any_agents = st.one_of(agents, MISSING_IDS)
any_rows = st.one_of(rows, MISSING_IDS)
any_city_agents = st.one_of(agents, MISSING_IDS, NOT_IDS)
any_city_rows = st.one_of(rows, MISSING_IDS, NOT_IDS)
any_slugs = st.one_of(slugs, st.sampled_from([" Flour ", "unobtainium", "", None, 3]))
any_quantities = st.one_of(quantities, st.sampled_from([0, -2, city.MAX_AMOUNT, city.MAX_AMOUNT + 1, True, "3", 2.0, None]))
any_prices = st.one_of(prices, st.sampled_from([0, -1, city.MAX_AMOUNT + 1, False, "5"]))
any_rewards = st.one_of(rewards, st.sampled_from([0, -1, bounties.MAX_REWARD, bounties.MAX_REWARD + 1, True, "5"]))
# The arguments of each rule that ``malformed_call`` runs on anything.
MALFORMED = {
    "transfer": {"sender": any_city_agents, "receiver": any_city_agents, "slug": any_slugs, "quantity": any_quantities},
    "sell": {"seller": any_city_agents, "slug": any_slugs, "quantity": any_quantities, "price": any_prices},
    "accept": {"buyer": any_city_agents, "order": any_city_rows},
    "cancel": {"seller": any_city_agents, "order": any_city_rows},
    "purchase": {"buyer": any_city_agents, "item": any_city_rows, "count": any_quantities},
    "post_bounty": {"reward": any_rewards, "title": st.sampled_from(["Fix the well", "  ", "t" * 201, None])},
    "claim": {"agent": any_agents, "bounty": any_rows},
    "complete": {"agent": any_agents, "bounty": any_rows},
    "cancel_bounty": {"bounty": any_rows},
}
fund_names = st.one_of(st.none(), st.sampled_from(["Alpha", "Beta", " alpha ", "Gamma", "", "x" * 101, 5]))
fund_remarks = st.one_of(st.none(), st.sampled_from(["", "note", "y" * 501, 7]))
fund_statuses = st.one_of(st.none(), st.sampled_from([*Fund.ActiveStatus.values, "PAUSED"]))
# Which version a fund write names: the current one, one already superseded, or one never issued.
version_ages = st.sampled_from(["current", "current", "stale", "future"])


def snapshot() -> dict[str, Any]:
    """Every row the rules can change, to prove that a refused call changed nothing."""
    return {
        "agents": sorted(Agent.objects.values_list("pk", "credits")),
        "stock": sorted(AgentResource.objects.values_list("agent_id", "resource_type_id", "quantity")),
        "ledger": ResourceTransfer.objects.count(),
        "purchases": Purchase.objects.count(),
        "orders": sorted(MarketOrder.objects.values_list("pk", "status", "buyer_id")),
        "bounties": sorted(Bounty.objects.values_list("pk", "status", "claimed_by_id")),
        "funds": sorted(Fund.objects.values_list("pk", "fund_name", "remarks", "active_status", "version")),
    }


class EconomyMachine(RuleBasedStateMachine):
    steps = 0
    examples = 0
    outcomes: Counter[str] = Counter()

    def __init__(self) -> None:
        super().__init__()
        self.orders: list[dict] = []
        self.bounties: list[dict] = []
        type(self).examples += 1
        self._example = transaction.atomic()
        self._example.__enter__()

    def teardown(self) -> None:
        transaction.set_rollback(True)
        self._example.__exit__(None, None, None)

    @initialize()
    def world(self) -> None:
        self.kinds = {slug: ResourceType.objects.create(slug=slug, name=slug) for slug in START_STOCK}
        self.agent_ids = [Agent.objects.create(name=f"resident-{n}", credits=START_CREDITS).pk for n in range(AGENTS)]
        AgentResource.objects.bulk_create(
            AgentResource(agent_id=agent_id, resource_type=self.kinds[slug], quantity=quantity)
            for agent_id in self.agent_ids
            for slug, quantity in START_STOCK.items()
        )
        self.items = {
            ShopItem.objects.create(name=slug, price=price, resource_type=self.kinds[slug], quantity=bundle).pk: (slug, price, bundle)
            for slug, (price, bundle) in SHOP.items()
        }
        closed = ShopItem.objects.create(name="closed", price=1, resource_type=self.kinds["flour"], is_available=False)
        self.item_ids = [*self.items, closed.pk]
        self.fund_ids = [funds.create_fund(fund_name=f"Fund {n}").pk for n in range(FUNDS)]
        # The model: what the database must hold, moved only by calls that succeeded.
        self.credits = dict.fromkeys(self.agent_ids, START_CREDITS)
        self.stock = {(agent_id, slug): quantity for agent_id in self.agent_ids for slug, quantity in START_STOCK.items()}
        self.ledger_net: Counter[tuple[int, str]] = Counter()
        self.shop_credits = 0  # credits paid to the shop
        self.shop_goods: Counter[str] = Counter()  # goods the shop sold into the economy
        self.rewards_paid = 0  # credits bounties created
        self.versions = {fund_id: 1 for fund_id in self.fund_ids}

    # ------------------------------------------------------------------ calling

    def _id(self, ref: Any, ids: list[int]) -> Any:
        if not isinstance(ref, Slot):
            return ref
        # Before the first row is made, a slot names a row that does not exist.
        return ids[ref.index % len(ids)] if ids else 2**62 + ref.index

    def _call(self, name: str, service: Any, **arguments: Any) -> Any:
        """The service's result, or None when it refused (its code in ``self.refused``); a refusal changes nothing."""
        type(self).steps += 1
        self.refused = None
        before = snapshot()
        try:
            result = service(**arguments)
        except ApplicationError as refusal:
            self.refused = refusal.code
            type(self).outcomes[f"{name}:{refusal.code}"] += 1
            assert snapshot() == before, f"{name}({arguments}) refused with {refusal.code} but changed rows"
            return None
        type(self).outcomes[f"{name}:ok"] += 1
        return result

    # ------------------------------------------------------------------ city

    @rule(sender=agents, receiver=agents, slug=slugs, quantity=quantities)
    def transfer(self, sender: Any, receiver: Any, slug: Any, quantity: Any) -> None:
        sender, receiver = self._id(sender, self.agent_ids), self._id(receiver, self.agent_ids)
        done = self._call(
            "transfer", city.transfer_resource,
            from_agent_id=sender, to_agent_id=receiver, resource_type=slug, quantity=quantity, source="api",
        )
        if done is None:
            return
        kind = done.resource_type.slug
        self.stock[sender, kind] -= quantity
        self.stock[receiver, kind] = self.stock.get((receiver, kind), 0) + quantity
        self.ledger_net[sender, kind] -= quantity
        self.ledger_net[receiver, kind] += quantity

    @rule(seller=agents, slug=slugs, quantity=quantities, price=prices)
    def sell(self, seller: Any, slug: Any, quantity: Any, price: Any) -> None:
        seller = self._id(seller, self.agent_ids)
        order = self._call("sell", city.create_market_order, agent_id=seller, resource_type=slug, quantity=quantity, price=price)
        if order is None:
            return
        kind = order.resource_type.slug
        self.stock[seller, kind] -= quantity
        self.orders.append({"id": order.pk, "seller": seller, "slug": kind, "quantity": quantity, "price": price, "status": "open"})

    @precondition(lambda self: self.orders)
    @rule(buyer=agents, order=rows)
    def accept(self, buyer: Any, order: Any) -> None:
        buyer, order_id = self._id(buyer, self.agent_ids), self._id(order, [o["id"] for o in self.orders])
        if self._call("accept", city.accept_market_order, agent_id=buyer, order_id=order_id) is None:
            return
        placed = next(o for o in self.orders if o["id"] == order_id)
        assert placed["status"] == "open" and placed["seller"] != buyer
        placed["status"] = "filled"
        self.credits[buyer] -= placed["price"]
        self.credits[placed["seller"]] += placed["price"]
        self.stock[buyer, placed["slug"]] = self.stock.get((buyer, placed["slug"]), 0) + placed["quantity"]

    @precondition(lambda self: self.orders)
    @rule(seller=agents, order=rows)
    def cancel(self, seller: Any, order: Any) -> None:
        seller, order_id = self._id(seller, self.agent_ids), self._id(order, [o["id"] for o in self.orders])
        if self._call("cancel", city.cancel_market_order, agent_id=seller, order_id=order_id) is None:
            return
        placed = next(o for o in self.orders if o["id"] == order_id)
        assert placed["status"] == "open" and placed["seller"] == seller
        placed["status"] = "cancelled"
        self.stock[seller, placed["slug"]] += placed["quantity"]

    @rule(buyer=agents, item=rows, count=quantities)
    def purchase(self, buyer: Any, item: Any, count: Any) -> None:
        buyer, item_id = self._id(buyer, self.agent_ids), self._id(item, self.item_ids)
        if self._call("purchase", city.purchase, agent_id=buyer, item_id=item_id, quantity=count) is None:
            return
        slug, price, bundle = self.items[item_id]
        self.credits[buyer] -= price * count
        self.stock[buyer, slug] += bundle * count
        self.shop_credits += price * count
        self.shop_goods[slug] += bundle * count

    # ------------------------------------------------------------------ bounties

    def _bounty_call(self, name: str, service: Any, **arguments: Any) -> Any:
        # Bounty services leave the transaction to their caller, as the API and the executor own it.
        def in_transaction(**kwargs: Any) -> Any:
            with transaction.atomic():
                return service(**kwargs)

        return self._call(name, in_transaction, **arguments)

    @rule(reward=rewards, title=st.just("Fix the well"))
    def post_bounty(self, reward: Any, title: str) -> None:
        bounty = self._bounty_call("post_bounty", bounties.create_bounty, title=title, reward=reward)
        if bounty is not None:
            self.bounties.append({"id": bounty.pk, "reward": reward, "status": "open", "claimer": None})

    @precondition(lambda self: self.bounties)
    @rule(agent=agents, bounty=rows)
    def claim(self, agent: Any, bounty: Any) -> None:
        agent, bounty_id = self._id(agent, self.agent_ids), self._id(bounty, [b["id"] for b in self.bounties])
        if self._bounty_call("claim", bounties.claim_bounty, agent_id=agent, bounty_id=bounty_id) is None:
            return
        posted = next(b for b in self.bounties if b["id"] == bounty_id)
        assert posted["status"] == "open"
        assert not any(b["status"] == "claimed" and b["claimer"] == agent for b in self.bounties), "second active bounty"
        posted.update(status="claimed", claimer=agent)

    @precondition(lambda self: self.bounties)
    @rule(agent=agents, bounty=rows)
    def complete(self, agent: Any, bounty: Any) -> None:
        agent, bounty_id = self._id(agent, self.agent_ids), self._id(bounty, [b["id"] for b in self.bounties])
        if self._bounty_call("complete", bounties.complete_bounty, agent_id=agent, bounty_id=bounty_id) is None:
            return
        posted = next(b for b in self.bounties if b["id"] == bounty_id)
        assert posted["status"] == "claimed" and posted["claimer"] == agent
        posted["status"] = "completed"
        self.credits[agent] += posted["reward"]
        self.rewards_paid += posted["reward"]

    @precondition(lambda self: self.bounties)
    @rule(bounty=rows)
    def cancel_bounty(self, bounty: Any) -> None:
        bounty_id = self._id(bounty, [b["id"] for b in self.bounties])
        if self._bounty_call("cancel_bounty", bounties.cancel_bounty, bounty_id=bounty_id) is None:
            return
        posted = next(b for b in self.bounties if b["id"] == bounty_id)
        assert posted["status"] == "open"
        posted["status"] = "cancelled"

    # ------------------------------------------------------------------ funds

    def _version(self, fund_id: Any, age: str) -> int:
        current = self.versions.get(fund_id, 1)
        return {"current": current, "stale": current - 1, "future": current + 1}[age]

    def _fund_written(self, fund_id: Any, version: int, fund: Fund | None) -> None:
        if fund_id in self.versions and version != self.versions[fund_id]:
            assert fund is None, f"a write naming version {version} (current {self.versions[fund_id]}) succeeded"
        if fund is not None:
            assert fund.version > self.versions[fund_id], "a successful write did not raise the version"
            self.versions[fund_id] = fund.version

    @rule(fund=rows, age=version_ages, name=fund_names, remarks=fund_remarks, status=fund_statuses)
    def update_fund(self, fund: Any, age: str, name: Any, remarks: Any, status: Any) -> None:
        fund_id = self._id(fund, self.fund_ids)
        version = self._version(fund_id, age)
        written = self._call(
            "update_fund", funds.update_fund,
            fund_id=fund_id, version=version, fund_name=name, remarks=remarks, active_status=status,
        )
        self._fund_written(fund_id, version, written)

    @rule(fund=st.integers(0, FUNDS - 1), age=st.sampled_from(["stale", "future"]), remarks=st.sampled_from(["a", "b"]))
    def stale_fund_update(self, fund: int, age: str, remarks: str) -> None:
        """A valid edit naming a version that is not the current one: version_conflict, whatever else holds."""
        fund_id = self.fund_ids[fund]
        version = self._version(fund_id, age)
        written = self._call("stale_fund_update", funds.update_fund, fund_id=fund_id, version=version, remarks=remarks)
        assert written is None and self.refused == "version_conflict", self.refused

    @rule(fund=rows, age=version_ages, enable=st.booleans())
    def switch_fund(self, fund: Any, age: str, enable: bool) -> None:
        fund_id = self._id(fund, self.fund_ids)
        version = self._version(fund_id, age)
        stale = fund_id in self.versions and version != self.versions[fund_id]
        service = funds.enable_fund if enable else funds.disable_fund
        written = self._call("switch_fund", service, fund_id=fund_id, version=version)
        self._fund_written(fund_id, version, written)
        if stale:  # enabling and disabling check the version before anything else
            assert self.refused == "version_conflict", self.refused

    # ------------------------------------------------------------------ malformed calls

    @rule(data=st.data(), name=st.sampled_from(sorted(MALFORMED)))
    def malformed_call(self, data: st.DataObject, name: str) -> None:
        """One of the rules above on arguments of any shape (missing rows, wrong types, out of range)."""
        getattr(self, name)(**{argument: data.draw(strategy, label=argument) for argument, strategy in MALFORMED[name].items()})

    # ------------------------------------------------------------------ invariants

    @invariant()
    def conserved(self) -> None:
        if not hasattr(self, "agent_ids"):
            return
        credits = Agent.objects.filter(pk__in=self.agent_ids).aggregate(total=Sum("credits"))["total"]
        assert credits == AGENTS * START_CREDITS - self.shop_credits + self.rewards_paid
        held = dict(AgentResource.objects.values("resource_type__slug").annotate(n=Sum("quantity")).values_list("resource_type__slug", "n"))
        reserved = dict(
            MarketOrder.objects.filter(status=MarketOrder.Status.OPEN)
            .values("resource_type__slug").annotate(n=Sum("quantity")).values_list("resource_type__slug", "n")
        )
        for slug, start in START_STOCK.items():
            total = held.get(slug, 0) + reserved.get(slug, 0)
            assert total == AGENTS * start + self.shop_goods[slug], f"{slug}: {total} held and reserved"

    @invariant()
    def balances_match_the_model(self) -> None:
        if not hasattr(self, "agent_ids"):
            return
        assert dict(Agent.objects.filter(pk__in=self.agent_ids).values_list("pk", "credits")) == self.credits
        held = {
            (agent_id, slug): quantity
            for agent_id, slug, quantity in AgentResource.objects.values_list("agent_id", "resource_type__slug", "quantity")
        }
        assert {key: n for key, n in held.items() if n} == {key: n for key, n in self.stock.items() if n}

    @invariant()
    def nothing_negative(self) -> None:
        assert not AgentResource.objects.filter(quantity__lt=0).exists()
        assert not Agent.objects.filter(credits__lt=0).exists()

    @invariant()
    def one_active_bounty_per_agent(self) -> None:
        claimed = Bounty.objects.filter(status=Bounty.Status.CLAIMED).values("claimed_by").annotate(n=Count("pk"))
        assert all(row["n"] == 1 for row in claimed)
        expected = {b["id"]: b["claimer"] for b in getattr(self, "bounties", []) if b["status"] == "claimed"}
        assert dict(Bounty.objects.filter(status=Bounty.Status.CLAIMED).values_list("pk", "claimed_by_id")) == expected

    @invariant()
    def ledger_explains_transfers(self) -> None:
        if not hasattr(self, "agent_ids"):
            return
        net: Counter[tuple[int, str]] = Counter()
        for sender, receiver, slug, quantity in ResourceTransfer.objects.values_list(
            "from_agent_id", "to_agent_id", "resource_type__slug", "quantity"
        ):
            net[sender, slug] -= quantity
            net[receiver, slug] += quantity
        # Unary + and - drop zero entries: equal gains and equal losses, whatever rows are empty.
        assert +net == +self.ledger_net and -net == -self.ledger_net
        # Every holding is its start, plus the ledger, purchases and market orders: nothing else moved goods.
        rebuilt = Counter({key: n for key, n in self.stock.items()})
        rebuilt.subtract({(a, slug): n for a in self.agent_ids for slug, n in START_STOCK.items()})
        rebuilt.subtract(net)
        for buyer, slug, quantity in Purchase.objects.values_list("agent_id", "resource_type__slug", "quantity"):
            rebuilt[buyer, slug] -= quantity
        for seller, buyer, slug, quantity, status in MarketOrder.objects.values_list(
            "seller_id", "buyer_id", "resource_type__slug", "quantity", "status"
        ):
            if status != MarketOrder.Status.CANCELLED:
                rebuilt[seller, slug] += quantity
            if status == MarketOrder.Status.FILLED:
                rebuilt[buyer, slug] -= quantity
        assert not any(rebuilt.values()), {key: n for key, n in rebuilt.items() if n}

    @invariant()
    def fund_versions_never_go_back(self) -> None:
        if not hasattr(self, "versions"):
            return
        assert dict(Fund.objects.filter(pk__in=self.fund_ids).values_list("pk", "version")) == self.versions


def run_economy_machine(max_examples: int = PROFILE.max_examples) -> dict[str, Any]:
    """Run the machine under ``PROFILE``; how many examples and service calls it made, by outcome."""
    EconomyMachine.steps = EconomyMachine.examples = 0
    EconomyMachine.outcomes = Counter()
    run_state_machine_as_test(EconomyMachine, settings=settings(PROFILE, max_examples=max_examples))
    return {"examples": EconomyMachine.examples, "steps": EconomyMachine.steps, "outcomes": dict(EconomyMachine.outcomes)}
