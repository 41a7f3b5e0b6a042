"""A tick batch runs without savepoints; only a decision that fails having written gets one (issue 29 §4).

Two savepoints a decision (the executor's and the service's) cost more than most decisions' own
statements. A batch therefore runs first with none: a refusal that wrote nothing (a service's
check) is simply forgotten; a decision that fails after writing rolls the batch back, and the
batch runs again with a savepoint around that decision and the later ones. Either way a failed
decision leaves no row but its audit row and its round-log row, and every other decision applies
exactly once.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from agents.autonomy.tick import run_tick
from agents.models import AgentActionLog, ToolCall
from city.models import AgentResource, ResourceTransfer
from core.models import EventLog
from tests.agents.fixtures import city, decisions, endpoint, resident  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db


def outcomes() -> dict[int, tuple[str, str]]:
    return {row.agent_id: (row.status, row.error_code) for row in AgentActionLog.objects.all()}


def savepoints(queries) -> int:
    """SAVEPOINTs taken while the batch executed: from its read of what the tick recorded to its
    round-log rows (the test's own transaction makes every other atomic block one too)."""
    sqls = [query["sql"] for query in queries]
    first = next(i for i, sql in enumerate(sqls) if sql.startswith('SELECT "agent_id" FROM "agents_agentactionlog"'))
    last = max(i for i, sql in enumerate(sqls) if sql.startswith('INSERT INTO "agents_agentactionlog"'))
    return sum(1 for sql in sqls[first:last] if sql.startswith("SAVEPOINT"))


def holding(agent, slug: str) -> int:
    return AgentResource.objects.filter(agent=agent, resource_type__slug=slug).values_list("quantity", flat=True).first() or 0


@pytest.fixture(autouse=True)
def no_decay(settings):
    settings.CITY_ENERGY_DECAY = settings.CITY_SATIETY_DECAY = 0


def test_a_batch_whose_decisions_succeed_takes_no_savepoint(endpoint, resident, city):
    group = [resident(f"r{i}", credits=50, energy=10) for i in range(6)]
    endpoint.reply(decisions(*(
        {"agent_id": r.pk, "action": "purchase" if i % 2 else "rest", "params": {"item_id": city.bread_item.pk} if i % 2 else {}}
        for i, r in enumerate(group)
    )))
    with CaptureQueriesContext(connection) as queries:
        result = run_tick(agent_ids=[r.pk for r in group], batch_size=6)

    assert result.stats["success"] == 6
    assert savepoints(queries) == 0
    assert ToolCall.objects.filter(source="autonomy").count() == 6


def test_a_refusal_that_wrote_nothing_is_forgotten_without_a_savepoint(endpoint, resident, city):
    broke, rester = resident("Broke", credits=0), resident("Rester", energy=10)
    endpoint.reply(decisions(
        {"agent_id": broke.pk, "action": "purchase", "params": {"item_id": city.bread_item.pk}},
        {"agent_id": rester.pk, "action": "rest"},
    ))
    with CaptureQueriesContext(connection) as queries:
        run_tick(agent_ids=[broke.pk, rester.pk], batch_size=2)

    assert outcomes() == {broke.pk: ("failed", "insufficient_credits"), rester.pk: ("success", "")}
    assert savepoints(queries) == 0
    rester.refresh_from_db()
    assert rester.energy == 30
    audit = dict(ToolCall.objects.values_list("agent_id", "error_code"))
    assert audit == {broke.pk: "insufficient_credits", rester.pk: ""}


def test_a_decision_that_fails_after_writing_leaves_only_its_audit_and_the_batch_applies_once(endpoint, resident, city):
    """A transfer from a stock too small first adds to the receiver's holding, then refuses: that
    write must go, the decisions before and after it must apply once, and the refusal is audited."""
    before, after = resident("Before", energy=10), resident("After", energy=10)
    giver, taker = resident("Giver", holdings={"flour": 2}), resident("Taker", holdings={"flour": 7})
    endpoint.reply(decisions(
        {"agent_id": before.pk, "action": "rest"},
        {"agent_id": giver.pk, "action": "transfer_resource",
         "params": {"to_agent_id": taker.pk, "resource_type": "flour", "quantity": 5}},
        {"agent_id": taker.pk, "action": "chat", "params": {"content": "谢谢"}},
        {"agent_id": after.pk, "action": "rest"},
    ))
    with CaptureQueriesContext(connection) as queries:
        run_tick(agent_ids=[before.pk, giver.pk, taker.pk, after.pk], batch_size=4)

    assert outcomes() == {
        before.pk: ("success", ""), giver.pk: ("failed", "insufficient_resource"),
        taker.pk: ("success", ""), after.pk: ("success", ""),
    }
    assert (holding(giver, "flour"), holding(taker, "flour")) == (2, 7)
    assert not ResourceTransfer.objects.exists()
    before.refresh_from_db(), after.refresh_from_db()
    assert (before.energy, after.energy) == (30, 30)  # rested once, though the batch ran twice
    assert savepoints(queries) > 0  # the second run: a savepoint from the failing decision on
    calls = list(ToolCall.objects.order_by("id").values_list("agent_id", "tool_name", "status", "error_code"))
    assert sorted(calls) == sorted([
        (before.pk, "rest", "success", ""), (giver.pk, "transfer_resource", "error", "insufficient_resource"),
        (taker.pk, "chat", "success", ""), (after.pk, "rest", "success", ""),
    ])
    assert not EventLog.objects.filter(event="resource_transferred").exists()
    assert EventLog.objects.filter(event="agent_action").count() == 3
