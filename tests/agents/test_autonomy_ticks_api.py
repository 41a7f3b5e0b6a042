"""Ticks and the audit over the API, and a decision recorded once per (tick, resident)."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from rest_framework.test import APIClient

from agents.autonomy.decisions import validate_decisions
from agents.autonomy.execution import BatchOrigin, apply_batch
from agents.autonomy.tick import run_tick
from agents.models import AgentActionLog, AutonomyRound, ToolCall
from tests.agents.fixtures import city, decisions, endpoint, resident  # noqa: F401  (fixtures)
from tests.support.staff import create_staff

pytestmark = pytest.mark.django_db


def client_of(*permissions: str) -> APIClient:
    client = APIClient()
    client.force_authenticate(create_staff("reader", *permissions))
    return client


def test_a_batch_applied_twice_applies_its_decisions_once(resident, settings):
    settings.CITY_ENERGY_DECAY = 0
    alice = resident("Alice", energy=50)
    tick = AutonomyRound.objects.create(provider="rules")
    decided = validate_decisions([{"agent_id": alice.pk, "action": "rest"}], [alice.pk])
    first = apply_batch(decided, {alice.pk: alice}, BatchOrigin(tick.pk, 0, "worker-a"))
    again = apply_batch(decided, {alice.pk: alice}, BatchOrigin(tick.pk, 0, "worker-b"))

    alice.refresh_from_db()
    assert (len(first), again) == (1, [])
    assert alice.energy == 70
    assert list(AgentActionLog.objects.values_list("worker", flat=True)) == ["worker-a"]
    assert ToolCall.objects.get().round_id == tick.pk


def test_the_database_refuses_a_second_decision_for_the_same_tick_and_resident(resident):
    alice = resident("Alice")
    tick = AutonomyRound.objects.create(provider="rules")
    AgentActionLog.objects.create(round=tick, agent=alice, action="rest", status="success")
    with pytest.raises(IntegrityError), transaction.atomic():
        AgentActionLog.objects.create(round=tick, agent=alice, action="chat", status="success")


def test_ticks_list_their_stats_and_workers(endpoint, resident):
    alice = resident("Alice")
    endpoint.reply(decisions({"agent_id": alice.pk, "action": "rest"}))
    result = run_tick()

    response = client_of("agents.view_autonomyround").get("/api/autonomy/ticks/")
    assert response.status_code == 200
    [tick] = response.json()["results"]
    assert (tick["id"], tick["provider"], tick["workers"]) == (result.round_id, "openai", ["in-process"])
    assert tick["stats"]["success"] == 1 and tick["finished_at"]


def test_a_tick_shows_one_decision_per_resident(endpoint, resident):
    alice, bob = resident("Alice"), resident("Bob")
    endpoint.reply(decisions(
        {"agent_id": alice.pk, "action": "rest", "reason": "累了"},
        {"agent_id": bob.pk, "action": "claim_bounty", "params": {"bounty_id": 999}},
    ))
    result = run_tick(batch_size=2)

    body = client_of("agents.view_autonomyround").get(f"/api/autonomy/ticks/{result.round_id}/").json()
    by_agent = {d["agent_id"]: d for d in body["decisions"]}
    assert set(by_agent) == {alice.pk, bob.pk}
    assert by_agent[alice.pk] | {"worker": None} == {
        "agent_id": alice.pk, "agent_name": "Alice", "action": "rest", "params": {}, "reason": "累了",
        "outcome": "success", "error": None, "batch": 0, "worker": None, "fallback": False,
    }
    assert by_agent[bob.pk]["outcome"] == "failed" and by_agent[bob.pk]["error"]["code"] == "bounty_not_found"


def test_an_unknown_tick_is_a_404_with_its_code():
    response = client_of("agents.view_autonomyround").get("/api/autonomy/ticks/999999/")
    assert (response.status_code, response.json()["code"]) == (404, "tick_not_found")


def test_ticks_need_their_view_permission():
    assert client_of("agents.view_toolcall").get("/api/autonomy/ticks/").status_code == 403


def test_the_audit_filters_by_source_tick_and_agent(endpoint, resident):
    alice, bob = resident("Alice"), resident("Bob")
    endpoint.reply(decisions({"agent_id": alice.pk, "action": "rest"}, {"agent_id": bob.pk, "action": "rest"}))
    first = run_tick(batch_size=2)
    endpoint.reply(decisions({"agent_id": alice.pk, "action": "rest"}, {"agent_id": bob.pk, "action": "rest"}))
    run_tick(batch_size=2)
    ToolCall.objects.create(agent=alice, tool_name="agent_status", status="success", source="chat")
    client = client_of("agents.view_toolcall")

    assert client.get("/api/tool-calls/").json()["count"] == 5
    autonomy = client.get("/api/tool-calls/", {"source": "autonomy"}).json()
    assert autonomy["count"] == 4
    tick_calls = client.get("/api/tool-calls/", {"tick": first.round_id}).json()["results"]
    assert {(c["tick"], c["agent_name"]) for c in tick_calls} == {(first.round_id, "Alice"), (first.round_id, "Bob")}
    mine = client.get("/api/tool-calls/", {"tick": first.round_id, "agent": alice.pk}).json()["results"]
    assert [(c["tool_name"], c["source"], c["status"]) for c in mine] == [("rest", "autonomy", "success")]


@pytest.mark.parametrize("query", [{"source": "nowhere"}, {"source": ""}, {"tick": "abc"}, {"agent": "0"}, {"tick": str(2**70)}])
def test_a_bad_audit_filter_is_a_400(query):
    response = client_of("agents.view_toolcall").get("/api/tool-calls/", query)
    assert response.status_code == 400 and response.json()["ok"] is False


def test_the_audit_is_the_auditors(db):
    from agents.roles import AUDITOR, role_permissions

    auditor = create_staff("auditor")
    auditor.user_permissions.set(role_permissions(AUDITOR))
    client = APIClient()
    client.force_authenticate(auditor)
    assert client.get("/api/tool-calls/").status_code == 200
    assert client_of("agents.view_agent").get("/api/tool-calls/").status_code == 403


def test_batches_applied_together_share_one_transaction_and_keep_their_own_origin(resident, settings):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from agents.autonomy.execution import apply_batches

    settings.CITY_ENERGY_DECAY = 0
    alice, bob = resident("Alice", energy=50), resident("Bob", energy=10)
    tick = AutonomyRound.objects.create(provider="rules")
    first = validate_decisions([{"agent_id": alice.pk, "action": "rest"}], [alice.pk])
    second = validate_decisions([], [bob.pk])  # the answer left Bob out: the tick's fallback rest
    with CaptureQueriesContext(connection) as queries:
        outcomes = apply_batches(
            [(first, BatchOrigin(tick.pk, 0, "in-process")), (second, BatchOrigin(tick.pk, 1, "in-process", omitted=frozenset({bob.pk})))],
            {alice.pk: alice, bob.pk: bob},
        )

    assert len(outcomes) == 2
    logs = [q["sql"] for q in queries if q["sql"].startswith('INSERT INTO "agents_agentactionlog"')]
    assert len(logs) == 1  # one insert of both batches' round-log rows
    rows = dict(AgentActionLog.objects.values_list("agent_id", "batch"))
    assert rows == {alice.pk: 0, bob.pk: 1}
    assert list(AgentActionLog.objects.filter(fallback=True).values_list("agent_id", flat=True)) == [bob.pk]
    assert ToolCall.objects.filter(round=tick).count() == 2
