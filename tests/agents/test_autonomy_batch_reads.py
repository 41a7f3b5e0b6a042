"""A tick batch reads its look-ups once (``city.tick_lookups``), and they stay true while it runs.

The residents' rows, the buildings their job decisions name, the staff counts, where the
residents checking in work and whether they did today, resource types and shop items are read
once per batch, not once per decision: the statements a batch runs grow with
its writes only. What a decision changes is seen by the decisions after it in the same batch, and
what a rolled-back decision touched is read again from the database.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from agents.autonomy.tick import run_tick
from agents.models import AgentActionLog
from city.models import Employment, MarketOrder
from tests.agents.fixtures import city, decisions, endpoint, resident  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db


def outcomes() -> dict[int, tuple[str, str]]:
    return {row.agent_id: (row.status, row.error_code) for row in AgentActionLog.objects.all()}


def reads_and_writes(sqls: list[str]) -> tuple[int, int]:
    """SELECTs, and statements that change rows (savepoints and transaction control not counted)."""
    reads = sum(1 for sql in sqls if sql.startswith("SELECT"))
    writes = sum(1 for sql in sqls if sql.startswith(("INSERT", "UPDATE", "DELETE")))
    return reads, writes


@pytest.mark.parametrize("action", ["rest", "assign_building", "purchase", "chat", "checkin"])
def test_a_batch_reads_the_same_number_of_rows_whatever_its_size(endpoint, resident, city, settings, action):
    """Reads per batch are bounded independent of its size; each decision adds only its own writes."""
    settings.CITY_ENERGY_DECAY = settings.CITY_SATIETY_DECAY = 0
    city.mill.job_slots = 100
    city.mill.save()
    params = {
        "rest": {}, "assign_building": {"building_id": city.mill.pk},
        "purchase": {"item_id": city.bread_item.pk}, "chat": {"content": "早"}, "checkin": {},
    }[action]
    job = city.mill if action == "checkin" else None
    counted = {}
    for size in (3, 12):
        group = [resident(f"{action}-{size}-{i}", credits=100, energy=80, job=job) for i in range(size)]
        endpoint.reply(decisions(*({"agent_id": r.pk, "action": action, "params": params} for r in group)))
        with CaptureQueriesContext(connection) as queries:
            result = run_tick(agent_ids=[r.pk for r in group], batch_size=size)
        assert (result.stats["batches"], result.stats["success"]) == (1, size)
        counted[size] = reads_and_writes([query["sql"] for query in queries])
    (small_reads, small_writes), (big_reads, big_writes) = counted[3], counted[12]
    assert big_reads == small_reads
    # rest and chat: one write each; a hire: its row; a purchase: credits, the holding (UPDATE, then
    # INSERT when the buyer held none) and its row; a check-in: the resident, the holding, its row.
    assert (big_writes - small_writes) / 9 <= {"rest": 1, "assign_building": 1, "purchase": 4, "chat": 1, "checkin": 4}[action]


def test_a_job_freed_earlier_in_the_batch_can_be_taken_later_in_it(endpoint, resident, city, settings):
    settings.CITY_ENERGY_DECAY = settings.CITY_SATIETY_DECAY = 0
    leaver = resident("Leaver", job=city.mill)
    resident("Worker", job=city.mill)  # the mill's two slots are taken
    seeker = resident("Seeker")
    late = resident("Late")
    endpoint.reply(decisions(
        {"agent_id": leaver.pk, "action": "unassign_building"},
        {"agent_id": seeker.pk, "action": "assign_building", "params": {"building_id": city.mill.pk}},
        {"agent_id": late.pk, "action": "assign_building", "params": {"building_id": city.mill.pk}},
    ))
    run_tick(agent_ids=[leaver.pk, seeker.pk, late.pk], batch_size=3)

    assert outcomes() == {
        leaver.pk: ("success", ""), seeker.pk: ("success", ""), late.pk: ("failed", "no_vacancy"),
    }
    assert Employment.objects.filter(building=city.mill).count() == 2


def test_credits_paid_to_a_resident_earlier_in_the_batch_are_not_lost_by_its_own_decision(endpoint, resident, city, settings):
    """The buyer pays the seller by UPDATE; the seller's check-in then writes its credits back from
    its row, which must be the database's, not the one the batch read when it opened."""
    settings.CITY_ENERGY_DECAY = settings.CITY_SATIETY_DECAY = 0
    buyer = resident("Buyer", credits=100)
    seller = resident("Seller", credits=10, energy=80, job=city.mill)
    order = MarketOrder.objects.create(seller=seller, resource_type=city.flour, quantity=1, price=30)
    endpoint.reply(decisions(
        {"agent_id": buyer.pk, "action": "accept_market_order", "params": {"order_id": order.pk}},
        {"agent_id": seller.pk, "action": "checkin"},
    ))
    run_tick(batch_size=2)

    assert outcomes() == {buyer.pk: ("success", ""), seller.pk: ("success", "")}
    buyer.refresh_from_db(), seller.refresh_from_db()
    assert (buyer.credits, seller.credits) == (70, 10 + 30 + city.mill.wage)


def test_a_hire_rolled_back_with_its_savepoint_frees_the_slot_for_the_next_decision(
    endpoint, resident, city, settings, monkeypatch
):
    """Alice's hire succeeds, then her decision's savepoint is rolled back (the database refuses a
    later statement of hers): the batch's staff count must forget it, so Bob gets the last slot."""
    from agents.autonomy import execution

    settings.CITY_ENERGY_DECAY = settings.CITY_SATIETY_DECAY = 0
    resident("Worker", job=city.mill)  # one of two slots left
    alice, bob = resident("Alice"), resident("Bob")
    real_execute = execution.execute

    def refused_after_alices_hire(name, arguments, context, *, batch=None):
        result = real_execute(name, arguments, context, batch=batch)
        if context.agent.pk == alice.pk:
            with connection.cursor() as cursor:
                cursor.execute("INSERT INTO no_such_table VALUES (1)")
        return result

    monkeypatch.setattr(execution, "execute", refused_after_alices_hire)
    job = {"action": "assign_building", "params": {"building_id": city.mill.pk}}
    endpoint.reply(decisions({"agent_id": alice.pk, **job}, {"agent_id": bob.pk, **job}))
    run_tick(agent_ids=[alice.pk, bob.pk], batch_size=2)

    assert outcomes() == {alice.pk: ("failed", "database_error"), bob.pk: ("success", "")}
    assert set(Employment.objects.filter(building=city.mill).values_list("agent__name", flat=True)) == {"Worker", "Bob"}


def test_outside_a_batch_the_services_read_the_database(resident, city):
    from city import services, tick_lookups

    assert tick_lookups.current() is None
    alice = resident("Alice", credits=50)
    with tick_lookups.batch_lookups([alice.pk]):
        assert tick_lookups.current() is not None
    assert tick_lookups.current() is None
    assert services.purchase(agent_id=alice.pk, item_id=city.bread_item.pk).total_price == city.bread_item.price
