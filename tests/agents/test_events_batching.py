"""EventBatch: the events one transaction commits written in one statement inside it, with broadcast's guarantees."""

from __future__ import annotations

from contextlib import suppress

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer
from channels.testing import WebsocketCommunicator
from django.db import connection, transaction

from config.asgi import application
from core.events import EventBatch, _group_send, broadcast
from core.models import EventLog
from tests.agents.test_events import session_headers

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def fresh_channel_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def test_events_committed_inside_are_stored_in_order_and_rolled_back_ones_never():
    with transaction.atomic():
        events = EventBatch()
        for step in range(3):
            with suppress(RuntimeError), transaction.atomic():
                broadcast("agent_action", step=step)
                if step == 1:
                    raise RuntimeError("this action failed")
        assert events.seal() == 2
        # Written inside the transaction: SQLite into the log, PostgreSQL into the outbox the relay empties.
        assert EventLog.objects.count() == (2 if connection.vendor == "sqlite" else 0)
    assert list(EventLog.objects.order_by("seq").values_list("data__step", flat=True)) == [0, 2]


def test_many_events_cost_one_write():
    from django.test.utils import CaptureQueriesContext

    def commit_fifty(collected: bool) -> int:
        with CaptureQueriesContext(connection) as queries:
            with transaction.atomic():
                events = EventBatch() if collected else None
                for step in range(50):
                    broadcast("agent_action", step=step)
                if events is not None:
                    events.seal()
        return sum(query["sql"].startswith("INSERT") for query in queries)

    assert commit_fifty(collected=False) == 50  # one insert per event
    assert commit_fifty(collected=True) == 1  # one insert for the lot
    steps = list(EventLog.objects.order_by("seq").values_list("data__step", flat=True))
    assert steps == list(range(50)) * 2


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite writes the log itself, no relay")
def test_on_sqlite_events_are_stored_with_their_change_and_sent_after_it_commits_in_one_message(monkeypatch):
    sent = []
    monkeypatch.setattr("core.events._group_send", lambda group, message: sent.append(message))
    with transaction.atomic():
        events = EventBatch()
        for step in range(3):
            broadcast("agent_action", step=step)
        assert EventLog.objects.count() == 0  # waiting for seal(): one write for the lot
        assert events.seal() == 3
        assert EventLog.objects.count() == 3 and sent == []  # written inside the transaction, not sent yet
    [message] = sent
    assert [seq for seq, _, _ in message["events"]] == list(EventLog.objects.order_by("seq").values_list("seq", flat=True))


def test_collected_events_reach_connected_clients_in_seq_order(staff_user):
    headers = session_headers(staff_user)

    def commit_three():
        with transaction.atomic():
            events = EventBatch()
            for step in range(3):
                broadcast("agent_action", step=step)
            events.seal()

    async def scenario():
        communicator = WebsocketCommunicator(application, "/ws/events/", headers=headers)
        assert (await communicator.connect())[0]
        await database_sync_to_async(commit_three)()
        messages = [await communicator.receive_json_from(timeout=3) for _ in range(3)]
        await communicator.disconnect()
        return messages

    messages = async_to_sync(scenario)()
    assert [m["data"]["step"] for m in messages] == [0, 1, 2]
    assert [m["data"]["seq"] for m in messages] == sorted(m["data"]["seq"] for m in messages)


def test_a_batch_leaves_other_commit_hooks_and_earlier_events_in_place():
    ran = []
    with transaction.atomic():
        broadcast("agent_action", step="before")
        events = EventBatch()
        broadcast("agent_action", step=0)
        transaction.on_commit(lambda: ran.append("hook"))
        broadcast("agent_action", step=1)
        assert events.seal() == 2
    assert ran == ["hook"]
    assert list(EventLog.objects.order_by("seq").values_list("data__step", flat=True)) == ["before", 0, 1]


def test_a_batch_is_opened_inside_a_transaction():
    with pytest.raises(transaction.TransactionManagementError):
        EventBatch()


def test_in_memory_send_is_skipped_when_nobody_in_this_process_listens(monkeypatch):
    sent = []

    async def record(self, group, message):
        sent.append(group)

    monkeypatch.setattr(InMemoryChannelLayer, "group_send", record)
    _group_send("events", {"type": "event.send"})
    assert sent == []


def test_a_batch_whose_savepoint_rolled_back_no_longer_holds_events_back():
    with transaction.atomic():
        with suppress(RuntimeError), transaction.atomic():
            EventBatch()
            raise RuntimeError("the work failed before seal()")
        broadcast("agent_action", step="after")
        # Written at once, as without a batch: the dropped batch is not waiting to seal it.
        assert EventLog.objects.count() == (1 if connection.vendor == "sqlite" else 0)
    assert list(EventLog.objects.values_list("data__step", flat=True)) == ["after"]


def test_a_batch_never_sealed_still_publishes_its_events_after_the_commit():
    with transaction.atomic():
        EventBatch()
        broadcast("agent_action", step=0)
    assert list(EventLog.objects.values_list("data__step", flat=True)) == [0]


def test_sealing_a_batch_after_its_savepoint_rolled_back_is_an_error():
    with transaction.atomic():
        with suppress(RuntimeError), transaction.atomic():
            events = EventBatch()
            raise RuntimeError
        with pytest.raises(transaction.TransactionManagementError):
            events.seal()
