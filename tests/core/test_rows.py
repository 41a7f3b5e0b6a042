"""``core.rows``: the tick's inserts and reads composed once, with the ORM's results."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from agents.models import Tool, ToolCall
from city.models import ResourceType
from core import rows
from core.models import EventLog

pytestmark = pytest.mark.django_db


def test_create_saves_the_row_as_the_orm_would(make_agent):
    alice = make_agent("Alice")
    call = rows.create(ToolCall(agent=alice, tool_name="rest", arguments={"a": [1, "二"]}, status="success", source="autonomy"))

    assert call.pk is not None and not call._state.adding
    stored = ToolCall.objects.get(pk=call.pk)
    assert (stored.agent_id, stored.arguments, stored.result, stored.duration_ms) == (alice.pk, {"a": [1, "二"]}, {}, 0)
    assert stored.created_at == call.created_at  # auto_now_add filled in


def test_bulk_create_returns_the_keys_in_the_order_given(settings):
    events = [EventLog(event=f"e{i}", data={"i": i}) for i in range(7)]
    rows.bulk_create(events, returning=True)

    assert [EventLog.objects.get(seq=event.seq).data for event in events] == [{"i": i} for i in range(7)]
    assert [event.seq for event in events] == sorted(event.seq for event in events)


def test_read_all_converts_values_as_the_orm_does():
    ResourceType.objects.create(slug="bread", name="面包", edible=True, satiety_gain=30)
    ResourceType.objects.create(slug="wood", name="木材")
    read = {kind.slug: (kind.edible, kind.satiety_gain) for kind in rows.read_all(ResourceType)}
    assert read == {"bread": (True, 30), "wood": (False, 0)}


def test_a_model_with_save_signal_receivers_is_refused():
    with pytest.raises(TypeError, match="receivers"):
        rows.create(Tool(name="x"))


def test_insert_writes_plain_rows_with_the_fields_defaults(make_agent):
    alice = make_agent("Alice")
    rows.insert(ToolCall, [
        {"agent_id": alice.pk, "tool_name": "rest", "arguments": {"a": [1, "二"]}, "status": "success", "source": "autonomy"},
        {"agent_id": None, "tool_name": "eat", "status": "error", "error_code": "no_food", "source": "chat"},
    ])

    first, second = ToolCall.objects.order_by("id")
    assert (first.agent_id, first.arguments, first.result, first.duration_ms, first.error_code) == (alice.pk, {"a": [1, "二"]}, {}, 0, "")
    assert (second.agent_id, second.tool_name, second.error_code, second.arguments) == (None, "eat", "no_food", {})
    assert first.created_at is not None and first.created_at == second.created_at  # one timestamp for the insert


def test_insert_refuses_a_name_no_column_has():
    with pytest.raises(TypeError, match="no column"):
        rows.insert(ToolCall, [{"tool": "rest", "status": "success", "source": "autonomy"}])


def test_from_db_makes_the_instance_the_orm_makes(make_agent):
    from agents.models import Agent

    alice = make_agent("Alice")
    made = rows.from_db(Agent, "default", ("id", "name", "credits"), (alice.pk, "Alice", 7))
    expected = Agent.from_db("default", ("id", "name", "credits"), (alice.pk, "Alice", 7))

    assert (made.pk, made.name, made.credits) == (expected.pk, expected.name, expected.credits) == (alice.pk, "Alice", 7)
    assert (made._state.adding, made._state.db) == (expected._state.adding, expected._state.db) == (False, "default")
    assert made.get_deferred_fields() == expected.get_deferred_fields()
    assert made.energy == alice.energy  # a deferred field loads on first access
    made.credits = 9
    made.save(update_fields=["credits"])
    assert Agent.objects.get(pk=alice.pk).credits == 9


def test_from_db_goes_through_the_models_own_from_db_when_init_has_receivers(make_agent):
    from django.db.models.signals import post_init

    from agents.models import Agent

    seen = []

    def receiver(sender, instance, **kwargs):
        seen.append(instance.pk)

    post_init.connect(receiver, sender=Agent)
    try:
        rows.from_db(Agent, "default", ("id", "name"), (41, "Bob"))
    finally:
        post_init.disconnect(receiver, sender=Agent)
    assert seen == [41]


def test_one_by_key_reads_what_the_orm_reads_relations_included(make_agent, django_assert_num_queries):
    from agents.models import PendingAction

    alice = make_agent("Alice")
    action = PendingAction.objects.create(
        agent=alice, tool_name="create_fund", arguments={"fund_name": "X"}, expires_at=timezone.now() + timedelta(hours=1)
    )
    one = rows.OneByKey(PendingAction.objects.select_related("agent", "decided_by"))
    expected = PendingAction.objects.select_related("agent", "decided_by").get(pk=action.pk)

    with django_assert_num_queries(1):  # the relations come with the row
        read = one.get(action.pk)
        assert (read.agent.name, read.decided_by) == ("Alice", None)
    fields = [field.attname for field in PendingAction._meta.concrete_fields]
    assert [getattr(read, name) for name in fields] == [getattr(expected, name) for name in fields]
    assert (read._state.adding, read._state.db) == (False, "default")
    assert one.get(action.pk + 1000) is None
    with pytest.raises(ValueError):
        one.get("seven")  # as PendingAction.objects.filter(pk="seven") fails


def _pending(agent, *, expires_in: timedelta):
    from agents.models import PendingAction

    return PendingAction.objects.create(
        agent=agent, tool_name="create_fund", arguments={"fund_name": "X"}, expires_at=timezone.now() + expires_in
    )


def test_one_by_key_works_out_the_converters_once(make_agent, monkeypatch):
    from django.db.models.sql.compiler import SQLCompiler

    from agents.models import PendingAction

    action = _pending(make_agent("Alice"), expires_in=timedelta(hours=1))
    one = rows.OneByKey(PendingAction.objects.select_related("agent"))
    worked_out = []
    get_converters = SQLCompiler.get_converters
    monkeypatch.setattr(SQLCompiler, "get_converters", lambda self, columns: worked_out.append(1) or get_converters(self, columns))

    first, second = one.get(action.pk), one.get(action.pk)
    assert len(worked_out) == 1
    assert (second.arguments, second.agent.is_active) == (first.arguments, True) == ({"fund_name": "X"}, True)  # converted all the same
