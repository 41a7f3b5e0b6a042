"""The tick engine and its world: one registered WorldSource, one ExecutionBatch per batch."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from django.test.utils import CaptureQueriesContext

from agents.autonomy.sources import register_world, world_source
from agents.autonomy.tick import run_tick
from core.models import EventLog
from tests.agents.fixtures import city, decisions, endpoint, resident  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db


def test_the_city_registers_the_tick_world_at_startup():
    from city.autonomy import CityWorld
    from city.autonomy.prompt import ACTIONS

    source = world_source()
    assert isinstance(source, CityWorld)
    assert source.actions is ACTIONS


def test_a_second_world_is_refused():
    with pytest.raises(ImproperlyConfigured):
        register_world(object())
    assert register_world(world_source()) is world_source()


def test_a_batchs_events_from_tools_and_tick_are_stored_in_one_write_in_order(
    endpoint, resident, django_capture_on_commit_callbacks
):
    alice, bob = resident("Alice"), resident("Bob")
    endpoint.reply(decisions(
        {"agent_id": alice.pk, "action": "chat", "params": {"content": "早上好"}},
        {"agent_id": bob.pk, "action": "chat", "params": {"content": "你好"}},
    ))
    table = EventLog._meta.db_table
    before = EventLog.objects.order_by("-seq").values_list("seq", flat=True).first() or 0  # the grants' own events
    with CaptureQueriesContext(connection) as queries, django_capture_on_commit_callbacks(execute=True):
        run_tick(batch_size=10)
    inserts = [q["sql"] for q in queries if q["sql"].startswith(f'INSERT INTO "{table}"')]
    # The batch's events in one write inside its transaction (the outbox on PostgreSQL, the log on
    # SQLite), then the world's own tick_finished.
    assert len(inserts) == 2
    rows = list(EventLog.objects.filter(seq__gt=before).order_by("seq").values_list("event", "data__agent_id"))
    assert rows == [
        ("city_chat", alice.pk), ("agent_action", alice.pk), ("city_chat", bob.pk), ("agent_action", bob.pk), ("tick_finished", None)
    ]
