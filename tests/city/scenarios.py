"""Concurrency scenarios of the city economy, run in a child Django process on a fresh migrated
database (file SQLite or PostgreSQL) by ``tests.support.django_process.run_django``.

Every worker thread has its own database connection; each service call is its own
transaction, as in the API views and the tool executor. Results come back as JSON.
"""

from __future__ import annotations

import random
import threading
from collections import Counter

from django.db.models import Min, Sum
from rest_framework.test import APIClient

from agents.models import Agent
from city import services
from city.models import AgentResource, MarketOrder, Purchase, ResourceTransfer, ResourceType, ShopItem
from tests.support.staff import create_staff
from tests.support.threads import outcome as attempt
from tests.support.threads import run_threads

START_CREDITS = 1000
START_STOCK = {"flour": 60, "wood": 40, "bread": 10}

def api_attempt(client: APIClient, url: str, body: dict) -> str:
    """The same through the HTTP API (in-process): "success", "<status> <code>", or "unexpected: …"."""
    try:
        response = client.post(url, body, format="json")
    except Exception as exc:
        return f"unexpected: {exc!r}"
    if response.status_code == 200:
        return "success"
    if response.status_code >= 500:
        return f"unexpected: HTTP {response.status_code}"
    return response.json()["code"]

def staff_client(username: str) -> APIClient:
    user = create_staff(username)
    client = APIClient(HTTP_HOST="localhost")
    client.force_authenticate(user)
    return client

def make_world(agent_count: int) -> tuple[list[int], dict[str, ResourceType], list[int]]:
    kinds = {
        slug: ResourceType.objects.create(slug=slug, name=slug, edible=slug == "bread", satiety_gain=20 if slug == "bread" else 0)
        for slug in START_STOCK
    }
    agent_ids = []
    for i in range(agent_count):
        agent = Agent.objects.create(name=f"resident-{i}", credits=START_CREDITS)
        AgentResource.objects.bulk_create(
            AgentResource(agent=agent, resource_type=kinds[slug], quantity=quantity) for slug, quantity in START_STOCK.items()
        )
        agent_ids.append(agent.pk)
    items = [
        ShopItem.objects.create(name="bread", price=3, resource_type=kinds["bread"], quantity=1).pk,
        ShopItem.objects.create(name="wood bundle", price=7, resource_type=kinds["wood"], quantity=2).pk,
    ]
    return agent_ids, kinds, items

def expected_balances(agent_ids: list[int]) -> tuple[dict, dict]:
    """Each agent's stock and credits rebuilt from the records alone (ledger, purchases, orders)."""
    stock: dict[tuple[int, str], int] = {(a, slug): quantity for a in agent_ids for slug, quantity in START_STOCK.items()}
    credits = {a: START_CREDITS for a in agent_ids}
    for sender, receiver, slug, quantity in ResourceTransfer.objects.values_list(
        "from_agent_id", "to_agent_id", "resource_type__slug", "quantity"
    ):
        stock[sender, slug] -= quantity
        stock[receiver, slug] += quantity
    for buyer, slug, quantity, price in Purchase.objects.values_list("agent_id", "resource_type__slug", "quantity", "total_price"):
        stock[buyer, slug] += quantity
        credits[buyer] -= price
    for seller, buyer, slug, quantity, price, status in MarketOrder.objects.values_list(
        "seller_id", "buyer_id", "resource_type__slug", "quantity", "price", "status"
    ):
        if status != MarketOrder.Status.CANCELLED:
            stock[seller, slug] -= quantity  # reserved while open, the buyer's once filled
        if status == MarketOrder.Status.FILLED:
            stock[buyer, slug] += quantity
            credits[seller] += price
            credits[buyer] -= price
    return stock, credits

def invariants(agent_ids: list[int]) -> dict:
    """Conservation, no negative balance, and every balance equal to what the records say."""
    expected_stock, expected_credits = expected_balances(agent_ids)
    actual_stock = {
        (a, slug): q for a, slug, q in AgentResource.objects.values_list("agent_id", "resource_type__slug", "quantity")
    }
    actual_credits = dict(Agent.objects.filter(pk__in=agent_ids).values_list("pk", "credits"))
    open_orders = MarketOrder.objects.filter(status=MarketOrder.Status.OPEN)
    totals = {}
    for slug, start in START_STOCK.items():
        held = AgentResource.objects.filter(resource_type__slug=slug).aggregate(s=Sum("quantity"))["s"] or 0
        reserved = open_orders.filter(resource_type__slug=slug).aggregate(s=Sum("quantity"))["s"] or 0
        bought = Purchase.objects.filter(resource_type__slug=slug).aggregate(s=Sum("quantity"))["s"] or 0
        totals[slug] = {"held_plus_reserved": held + reserved, "expected": start * len(agent_ids) + bought}
    spent = Purchase.objects.aggregate(s=Sum("total_price"))["s"] or 0
    return {
        "totals": totals,
        "credits": {"held_plus_spent": sum(actual_credits.values()) + spent, "expected": START_CREDITS * len(agent_ids)},
        "min_quantity": AgentResource.objects.aggregate(m=Min("quantity"))["m"],
        "min_credits": min(actual_credits.values()),
        "stock_mismatch": {
            f"{a}:{slug}": [actual_stock.get((a, slug), 0), q]
            for (a, slug), q in expected_stock.items()
            if actual_stock.get((a, slug), 0) != q
        },
        "credits_mismatch": {str(a): [actual_credits[a], c] for a, c in expected_credits.items() if actual_credits[a] != c},
    }

def random_economy(agents: int = 10, threads: int = 8, operations: int = 400, seed: int = 7) -> dict:
    """``threads`` workers make ``operations`` random transfers (service and API), market orders,
    accepts, cancels and purchases among ``agents`` agents."""
    agent_ids, kinds, items = make_world(agents)
    slugs = list(kinds)
    for i, seller in enumerate(agent_ids):
        services.create_market_order(agent_id=seller, resource_type=slugs[i % len(slugs)], quantity=5, price=20)
    clients = [staff_client(f"staff-{i}") for i in range(threads)]
    outcomes: Counter[str] = Counter()
    lock = threading.Lock()
    per_thread = operations // threads

    def worker(index: int) -> None:
        rng = random.Random(seed * 1000 + index)
        client = clients[index]
        for _ in range(per_thread):
            kind = rng.choices(["transfer", "api_transfer", "accept", "purchase", "sell", "cancel"], [30, 15, 20, 15, 12, 8])[0]
            a, b = rng.choice(agent_ids), rng.choice(agent_ids)
            slug = rng.choice(slugs)
            if kind == "transfer":
                outcome = attempt(lambda: services.transfer_resource(
                    from_agent_id=a, to_agent_id=b, resource_type=slug, quantity=rng.randint(1, 25), source="autonomy"))
            elif kind == "api_transfer":
                outcome = api_attempt(client, "/api/agents/transfer-resource/", {
                    "from_agent_id": a, "to_agent_id": b, "resource_type": slug, "quantity": rng.randint(1, 25)})
            elif kind == "accept":
                open_ids = list(MarketOrder.objects.filter(status="open").values_list("pk", flat=True)[:20])
                order_id = rng.choice(open_ids) if open_ids else 0
                outcome = attempt(lambda: services.accept_market_order(agent_id=a, order_id=order_id))
            elif kind == "purchase":
                outcome = attempt(lambda: services.purchase(agent_id=a, item_id=rng.choice(items), quantity=rng.randint(1, 3)))
            elif kind == "sell":
                outcome = attempt(lambda: services.create_market_order(
                    agent_id=a, resource_type=slug, quantity=rng.randint(1, 10), price=rng.randint(1, 40)))
            else:
                order = MarketOrder.objects.filter(status="open").order_by("?").values("pk", "seller_id").first()
                seller = order["seller_id"] if order and rng.random() < 0.8 else a
                outcome = attempt(lambda: services.cancel_market_order(agent_id=seller, order_id=order["pk"] if order else 0))
            with lock:
                outcomes[f"{kind}:{outcome}"] += 1

    run_threads(threads, worker)
    successes = {kind: outcomes.get(f"{kind}:success", 0) for kind in ("transfer", "api_transfer", "accept", "purchase", "sell", "cancel")}
    orders = Counter(MarketOrder.objects.values_list("status", flat=True))
    return {
        "operations": sum(outcomes.values()),
        "outcomes": dict(outcomes),
        "unexpected": [key for key in outcomes if "unexpected" in key],
        "ledger_rows": ResourceTransfer.objects.count(),
        "successful_transfers": successes["transfer"] + successes["api_transfer"],
        "purchases": Purchase.objects.count(),
        "successful_purchases": successes["purchase"],
        "filled": orders["filled"],
        "successful_accepts": successes["accept"],
        "cancelled": orders["cancelled"],
        "successful_cancels": successes["cancel"],
        "orders": sum(orders.values()),
        "successful_sells": successes["sell"] + agents,
        **invariants(agent_ids),
    }

def hot_pair(threads: int = 8, per_thread: int = 60) -> dict:
    """Every thread moves flour back and forth between the same two agents: the hottest rows."""
    agent_ids, _, _ = make_world(2)
    a, b = agent_ids
    moved = Counter()
    lock = threading.Lock()

    def worker(index: int) -> None:
        rng = random.Random(index)
        for step in range(per_thread):
            sender, receiver = (a, b) if (index + step) % 2 else (b, a)
            quantity = rng.randint(1, 30)
            outcome = attempt(lambda: services.transfer_resource(
                from_agent_id=sender, to_agent_id=receiver, resource_type="flour", quantity=quantity, source="api"))
            with lock:
                moved[f"{sender}->{receiver}" if outcome == "success" else outcome] += quantity if outcome == "success" else 1

    run_threads(threads, worker)
    flour = dict(AgentResource.objects.filter(resource_type__slug="flour").values_list("agent_id", "quantity"))
    start = START_STOCK["flour"]
    return {
        "outcomes": dict(moved),
        "flour": [flour[a], flour[b]],
        "expected": [start - moved[f"{a}->{b}"] + moved[f"{b}->{a}"], start + moved[f"{a}->{b}"] - moved[f"{b}->{a}"]],
        "ledger_quantity": ResourceTransfer.objects.aggregate(s=Sum("quantity"))["s"] or 0,
        "moved": moved[f"{a}->{b}"] + moved[f"{b}->{a}"],
    }

def two_staff_accept_one_order(rounds: int = 25) -> dict:
    """Each round, two staff members accept the same new order for two different buyers at once (API)."""
    agent_ids, _, _ = make_world(3)
    seller, *buyers = agent_ids
    clients = [staff_client("staff-a"), staff_client("staff-b")]
    start, finish = threading.Barrier(3), threading.Barrier(3)
    current: dict[str, int] = {}
    results: list[list[str]] = [["", ""] for _ in range(rounds)]

    def buyer(index: int) -> None:
        for round_no in range(rounds):
            start.wait()
            url = f"/api/market-orders/{current['order_id']}/accept/"
            results[round_no][index] = api_attempt(clients[index], url, {"agent_id": buyers[index]})
            finish.wait()

    def coordinate() -> None:
        for _ in range(rounds):
            current["order_id"] = services.create_market_order(agent_id=seller, resource_type="flour", quantity=2, price=10).pk
            start.wait()
            finish.wait()

    run_threads(3, lambda index: coordinate() if index == 2 else buyer(index))
    winners = []
    for order in MarketOrder.objects.order_by("pk"):
        winners.append([order.status, buyers.index(order.buyer_id) if order.buyer_id else None, order.closed_by.username])
    staff = ["staff-a", "staff-b"]
    return {
        "rounds": [sorted(pair) for pair in results],
        # The buyer and the staff member recorded on the order are the ones whose call succeeded.
        "winner_matches": [
            "success" in pair and winners[i][1] == pair.index("success") and winners[i][2] == staff[pair.index("success")]
            for i, pair in enumerate(results)
        ],
        "statuses": Counter(w[0] for w in winners),
        "seller_credits": Agent.objects.get(pk=seller).credits,
        "seller_flour": AgentResource.objects.get(agent_id=seller, resource_type__slug="flour").quantity,
        **invariants(agent_ids),
    }
