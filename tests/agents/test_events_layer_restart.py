"""A channel layer that loses its state (Redis restarted without persistence) while pages listen:
the event hub joins its groups again, so live events resume without anyone reconnecting."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from channels.testing import WebsocketCommunicator
from django.db import transaction

from agents import consumers
from config.asgi import application
from core.events import broadcast
from core.models import EventLog
from tests.agents.test_events import token_headers

pytestmark = pytest.mark.django_db(transaction=True)


class ForgetfulLayer:
    """An in-memory layer that ``restart`` empties, failing the receive waiting on a channel, as
    channels-redis does when its server goes away. Not an InMemoryChannelLayer: the hub then
    relies on pushes alone, as it does with Redis."""

    extensions = ["groups", "flush"]

    def __init__(self, **kwargs) -> None:
        self.inner = InMemoryChannelLayer()
        self.broken: dict[str, asyncio.Event] = {}

    async def new_channel(self, prefix: str = "specific.") -> str:
        return await self.inner.new_channel(prefix)

    async def send(self, channel: str, message: dict) -> None:
        await self.inner.send(channel, message)

    async def group_add(self, group: str, channel: str) -> None:
        await self.inner.group_add(group, channel)

    async def group_discard(self, group: str, channel: str) -> None:
        await self.inner.group_discard(group, channel)

    async def group_send(self, group: str, message: dict) -> None:
        await self.inner.group_send(group, message)

    async def receive(self, channel: str) -> dict:
        failure = self.broken.setdefault(channel, asyncio.Event())
        getting, failing = asyncio.ensure_future(self.inner.receive(channel)), asyncio.ensure_future(failure.wait())
        done, pending = await asyncio.wait({getting, failing}, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        if getting in done:
            return getting.result()
        del self.broken[channel]
        raise ConnectionError("the channel layer's server went away")

    def restart(self, channel: str) -> None:
        self.inner.groups.clear()
        self.broken.setdefault(channel, asyncio.Event()).set()


@pytest.fixture(autouse=True)
def forgetful_layer(settings, monkeypatch):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": f"{__name__}.ForgetfulLayer"}}
    monkeypatch.setattr(consumers, "RETRY_SECONDS", 0.3)


def commit_event(bounty_id: int) -> int:
    with transaction.atomic():
        broadcast("bounty_created", bounty_id=bounty_id)
    return EventLog.objects.latest("seq").seq


def test_events_resume_and_catch_up_after_the_layer_lost_its_groups(staff_user):
    headers = token_headers(staff_user)

    async def scenario() -> list[int]:
        communicator = WebsocketCommunicator(application, "/ws/events/", headers=headers)
        assert (await communicator.connect())[0]
        await database_sync_to_async(commit_event)(1)
        first = await communicator.receive_json_from(timeout=3)
        layer = get_channel_layer()
        layer.restart(consumers.hub_for(layer).channel)
        # Committed while the hub is away: its push reaches nobody; the log still has it.
        await database_sync_to_async(commit_event)(2)
        during = await communicator.receive_json_from(timeout=3)
        await database_sync_to_async(commit_event)(3)
        after = await communicator.receive_json_from(timeout=3)
        await communicator.disconnect()
        return [message["data"]["bounty_id"] for message in (first, during, after)]

    assert async_to_sync(scenario)() == [1, 2, 3]
