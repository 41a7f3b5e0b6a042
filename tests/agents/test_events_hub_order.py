"""The event hub puts crossed sends back in seq order without reading the log, and reads the log
only for a seq that does not come (``EventHub.deliver``)."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.db import transaction

from agents import consumers
from config.asgi import application
from core import events
from core.events import EVENTS_GROUP, broadcast
from tests.agents.test_events import token_headers

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def pushed_layer(settings):
    # Not an InMemoryChannelLayer: the hub relies on pushes alone (no tail of the log), as with Redis.
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "tests.agents.test_events_layer_restart.ForgetfulLayer"}}


@pytest.fixture
def log_reads(monkeypatch) -> list[dict]:
    reads: list[dict] = []
    stored = consumers.stored_events

    def counted(**kwargs):
        reads.append(kwargs)
        return stored(**kwargs)

    monkeypatch.setattr(consumers, "stored_events", counted)
    return reads


def commit_unsent(count: int) -> list[dict]:
    """``count`` events, each committed alone; the layer messages their commits would send, unsent."""
    held: list[dict] = []
    send = events._group_send
    events._group_send = lambda group, message: held.append(message)
    try:
        for number in range(count):
            with transaction.atomic():
                broadcast("bounty_created", bounty_id=number)
    finally:
        events._group_send = send
    return held


def received_seqs(staff_user, order: list[int], count: int) -> list[int]:
    """Connect, commit ``count`` events, push the messages of those in ``order``; the seqs received."""

    headers = token_headers(staff_user)
    commit_unsent(1)  # the hub starts after the newest logged seq (an empty log: 0)

    async def scenario() -> list[int]:
        communicator = WebsocketCommunicator(application, "/ws/events/", headers=headers)
        assert (await communicator.connect())[0]
        held = await database_sync_to_async(commit_unsent)(count)
        layer = get_channel_layer()
        for index in order:
            await layer.group_send(EVENTS_GROUP, held[index])
            await asyncio.sleep(0.01)  # two writers' sends, one after the other
        seqs = [(await communicator.receive_json_from(timeout=3))["data"]["seq"] for _ in range(count)]
        await communicator.disconnect()
        return seqs

    return async_to_sync(scenario)()


def test_sends_that_crossed_are_delivered_in_seq_order_without_a_log_read(staff_user, log_reads):
    seqs = received_seqs(staff_user, order=[1, 2, 0], count=3)

    assert seqs == sorted(seqs) and seqs[-1] - seqs[0] == 2
    assert log_reads == []


def test_a_seq_that_never_comes_is_read_from_the_log_once(staff_user, log_reads, monkeypatch):
    monkeypatch.setattr(consumers, "REORDER_SECONDS", 0.05)

    seqs = received_seqs(staff_user, order=[2], count=3)  # the first two writers' sends were lost

    assert seqs == sorted(seqs) and seqs[-1] - seqs[0] == 2
    assert len(log_reads) == 1
