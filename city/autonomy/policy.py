"""The city's offline autonomy policy (``AGENT_PROVIDER=rules``).

A needs-based utility policy over the structured world: every resident scores what it
could do (eat when hungry and holding food, rest when tired, find a job, check in, claim a
bounty (leaving the last one open), share surplus food with a resident who has none, sell surplus, build, chat) and
takes the best option among the actions it was granted, never the one that failed for it
last tick with the same arguments (the round log said why). It answers a batch with the same
thing a model does, the text of a JSON decision array, which then goes through the same
parsing, validation and execution. It is deterministic for a given seed.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from agents.autonomy.policy import Answer
from city.services import WORK_ENERGY_COST

from .prompt import HUNGRY, TIRED
from .world import BuildingInfo, Resident, World

SURPLUS_FOOD = 6  # food units a resident keeps before sharing
SURPLUS_GOODS = 10  # units of a non-food resource worth selling
DEFAULT_UNIT_PRICE = 2  # credits per unit when the shop gives no reference price
# Residents leave this many open bounties on the board for others (staff watching, people
# chatting, newcomers): without it the demo board showed "Open 0" within three ticks.
BOUNTIES_LEFT_OPEN = 1
CHAT_LINES = (
    "今天天气不错，大家加油！",
    "有人需要帮忙吗？",
    "市场上有什么好东西？",
    "工作使我快乐。",
    "谁有多余的面粉？",
    "悬赏板上又有新任务了。",
)


@dataclass
class _Claims:
    """What earlier residents of this tick already took, so later ones choose something else."""

    bounties: set[int] = field(default_factory=set)
    orders: set[int] = field(default_factory=set)
    helped: set[int] = field(default_factory=set)
    jobs: Counter = field(default_factory=Counter)
    _vacancy: tuple[int, BuildingInfo | None] | None = None  # (jobs taken when found, the building)

    def vacancy(self, world: World) -> BuildingInfo | None:
        """The best-paid building (then the oldest) with a job left after this tick's claims. Looked
        for again only once a resident took a job: every jobless resident scanned every building."""
        taken = self.jobs.total()
        if self._vacancy is None or self._vacancy[0] != taken:
            free = [b for b in world.buildings if b.vacancies - self.jobs[b.id] > 0]
            self._vacancy = (taken, max(free, key=lambda b: (b.wage, -b.id)) if free else None)
        return self._vacancy[1]


class _Plan:
    """One tick's decisions, made in resident order as far as the batch asked for needs: the first
    batch of a tick on the workers goes out once its own residents are decided, not the whole city
    (20,000 residents took the coordinator 0.25-0.5 s before any worker could start). Whatever
    order the batches are asked in, each resident is decided after every earlier one, so the plan
    is the same."""

    def __init__(self, policy: RulesPolicy, world: World) -> None:
        self.policy = policy
        self.world = world
        self.claims = _Claims()
        self.decided: dict[int, dict] = {}
        self.waiting = iter(world.residents.values())

    def decisions(self, batch: list[int]) -> list[dict]:
        return [self.decided[agent_id] for agent_id in batch if self._reach(agent_id)]

    def everyone(self) -> dict[int, dict]:
        self._reach(None)
        return self.decided

    def _reach(self, agent_id: int | None) -> bool:
        """Decide residents in order until ``agent_id`` is decided (None: all of them); whether it is a resident."""
        while agent_id not in self.decided:
            resident = next(self.waiting, None)
            if resident is None:
                return False
            self.decided[resident.id] = self.policy.decide(resident, self.world, self.claims)
        return True


class RulesPolicy:
    """The offline autonomy policy: needs first, then work, bounties, sharing, trade, chat."""

    name = "rules"
    model = ""
    uses_prompt = False

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self._plan: _Plan | None = None  # the last tick's

    async def answer(self, world: World, batch: list[int], prompt: str) -> Answer:
        return Answer(json.dumps(self._plan_of(world).decisions(batch), ensure_ascii=False))

    def plan(self, world: World) -> dict[int, dict]:
        """Every resident's decision, decided once in resident order (whatever order batches run in)."""
        return self._plan_of(world).everyone()

    def _plan_of(self, world: World) -> _Plan:
        if self._plan is None or self._plan.world is not world:
            self._plan = _Plan(self, world)
        return self._plan

    def decide(self, r: Resident, world: World, claims: _Claims) -> dict:
        # A pure function of the seed and the resident's state: the same world gives the same
        # plan, and the plan still varies from tick to tick as the state changes.
        last = r.last.action if r.last else ""
        rng = random.Random(f"{self.seed}:{r.id}:{r.credits}:{r.satiety}:{r.energy}:{last}")
        options: list[tuple[float, str, dict, str, Any]] = []
        # What just failed would fail again on the same arguments: the round log already said why.
        failed = (r.last.action, r.last.params) if r.last is not None and r.last.failed else None

        def offer(utility: float, action: str, params: dict, reason: str, claim: Any = None) -> None:
            if action in r.granted and (action, params) != failed:
                options.append((utility, action, params, reason, claim))

        self._needs(r, world, claims, offer)
        self._work(r, world, claims, offer)
        self._bounty(r, world, claims, offer)
        self._share_and_trade(r, world, claims, offer)
        # With nothing pressing, chatting and resting compete; which wins varies with the state.
        offer(12 + rng.random() * 10, "chat", {"content": rng.choice(CHAT_LINES)}, "和邻居聊聊天")
        offer(12 + (100 - r.energy) / 8 + rng.random() * 8, "rest", {}, "没有要紧的事，休息一下")
        if not options:
            return {"agent_id": r.id, "action": "rest", "params": {}, "reason": "没有可做的事"}
        utility, action, params, reason, claim = max(options, key=lambda option: option[0])
        if claim is not None:
            kind, key = claim
            if kind == "jobs":
                claims.jobs[key] += 1
            else:
                getattr(claims, kind).add(key)
        return {"agent_id": r.id, "action": action, "params": params, "reason": reason}

    @staticmethod
    def _needs(r: Resident, world: World, claims: _Claims, offer) -> None:
        food = world.food(r.holdings)
        if r.satiety < HUNGRY:
            urgency = 100 - r.satiety
            if food:
                best = max(food, key=lambda slug: (world.resources[slug].satiety_gain, slug))
                offer(urgency + 40, "eat", {"resource_type": best}, f"饱食度只有 {r.satiety}，吃 {best}")
            else:
                edible_items = [
                    i for i in world.shop if i.price <= r.credits and world.resources.get(i.resource) and world.resources[i.resource].edible
                ]
                if edible_items:
                    item = min(edible_items, key=lambda i: (i.price, i.id))
                    offer(urgency + 30, "purchase", {"item_id": item.id, "quantity": 1}, f"饿了又没有食物，去商店买{item.name}")
                market_food = [
                    o for o in world.market
                    if o.seller_id != r.id and o.id not in claims.orders and o.price <= r.credits
                    and world.resources.get(o.resource) and world.resources[o.resource].edible
                ]
                if market_food:
                    order = min(market_food, key=lambda o: (o.price / o.quantity, o.id))
                    offer(urgency + 25, "accept_market_order", {"order_id": order.id},
                          f"饿了，买下挂单#{order.id} 的 {order.resource}", ("orders", order.id))
                own_food = [o for o in r.open_orders if world.resources.get(o.resource) and world.resources[o.resource].edible]
                if own_food:
                    offer(urgency + 35, "cancel_market_order", {"order_id": own_food[0].id}, "自己都饿了，撤回挂单的食物")
        if r.energy < TIRED:
            offer(100 - r.energy + 30, "rest", {}, f"精力只有 {r.energy}，需要休息")

    @staticmethod
    def _work(r: Resident, world: World, claims: _Claims, offer) -> None:
        if r.job is not None and not r.checked_in_today and r.energy >= WORK_ENERGY_COST:
            offer(70, "checkin", {}, f"去{r.job.name}上班打卡，领工资")
        if r.job is None:
            building = claims.vacancy(world)
            if building is not None:
                offer(60, "assign_building", {"building_id": building.id},
                      f"没有工作，去{building.name}应聘（日薪 {building.wage}）", ("jobs", building.id))
        for blueprint in world.blueprints:
            has_materials = all(r.holdings.get(slug, 0) >= qty for slug, qty in blueprint.materials.items())
            if has_materials and r.credits >= blueprint.credit_cost + 50:
                name = world.free_building_name(f"{r.name}的{blueprint.name}{world.day:%m%d}")
                offer(35, "construct_building", {"kind": blueprint.slug, "name": name}, f"有钱有材料，建一座{blueprint.name}")
                break

    @staticmethod
    def _bounty(r: Resident, world: World, claims: _Claims, offer) -> None:
        if r.bounty is not None or world.open_bounty_total - len(claims.bounties) <= BOUNTIES_LEFT_OPEN:
            return
        available = [b for b in world.open_bounties if b.id not in claims.bounties]
        if available:
            bounty = max(available, key=lambda b: (b.reward, -b.id))
            offer(45 + min(bounty.reward, 100) / 10, "claim_bounty", {"bounty_id": bounty.id},
                  f"悬赏#{bounty.id}「{bounty.title}」奖励 {bounty.reward}，去接取", ("bounties", bounty.id))

    @staticmethod
    def _share_and_trade(r: Resident, world: World, claims: _Claims, offer) -> None:
        food = world.food(r.holdings)
        surplus = {slug: qty for slug, qty in food.items() if qty >= SURPLUS_FOOD}
        if surplus:
            needy = [n for n in world.needy if n.id != r.id and n.id not in claims.helped]
            if needy:
                slug = max(surplus, key=lambda s: (surplus[s], s))
                quantity = max(1, min(3, surplus[slug] // 3))
                neighbour = needy[0]
                offer(40, "transfer_resource", {"to_agent_id": neighbour.id, "resource_type": slug, "quantity": quantity},
                      f"{neighbour.name} 没有食物，分给 TA {quantity} {slug}", ("helped", neighbour.id))
        selling = {o.resource for o in r.open_orders}
        for slug, qty in sorted(r.holdings.items()):
            kind = world.resources.get(slug)
            if kind is None or kind.edible or qty < SURPLUS_GOODS or slug in selling:
                continue
            unit = next((i.price / i.quantity for i in world.shop if i.resource == slug), DEFAULT_UNIT_PRICE)
            quantity = qty // 2
            offer(30, "create_market_order",
                  {"resource_type": slug, "quantity": quantity, "price": max(1, round(unit * quantity))},
                  f"{slug} 有 {qty}，挂单卖掉一半")
            break

