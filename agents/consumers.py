"""``/ws/events/``: the live event stream of staff pages and scripts (DESIGN §10)."""

from __future__ import annotations

from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from .events import EVENTS_GROUP, stored_events, user_group


def is_staff(user) -> bool:
    return bool(user is not None and user.is_authenticated and user.is_active and user.is_staff)


def replay_start(scope) -> int | None:
    """The ``?since=SEQ`` of the handshake: None when absent; ValueError when malformed."""
    values = parse_qs(scope.get("query_string", b"").decode("latin1")).get("since")
    if not values:
        return None
    since = int(values[-1])
    if since < 0:
        raise ValueError("since must not be negative")
    return since


class EventsConsumer(AsyncWebsocketConsumer):
    """Sends every event once, in seq order: replay after ``since``, then live.

    The consumer joins its groups before reading the log, so an event committed during the
    replay arrives live too; ``last_seq`` drops such a copy, and a live event that skips
    seqs (a message lost by the channel layer, or two writers' sends crossing) first pulls
    the missing ones from the log.
    """

    groups_joined: tuple[str, ...] = ()
    last_seq: int | None = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        try:
            since = replay_start(self.scope)
        except ValueError:
            await self.close()  # a malformed ?since= is a client bug: refuse, do not guess
            return
        if not is_staff(user):
            await self.close()  # before accept: the handshake is refused (HTTP 403)
            return
        self.groups_joined = (EVENTS_GROUP, user_group(user.pk))
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()
        if since is not None:
            self.last_seq = since
            await self.send_stored(after=since)

    async def disconnect(self, code: int) -> None:
        for group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Clients only listen; whatever they send is ignored."""

    async def event_send(self, message: dict) -> None:
        seq = message["seq"]
        if seq is None:  # a ui_action: not part of the seq stream
            await self.send(text_data=message["text"])
            return
        if self.last_seq is not None:
            if seq <= self.last_seq:
                return
            if seq > self.last_seq + 1:
                await self.send_stored(after=self.last_seq, before=seq)
        await self.send(text_data=message["text"])
        self.last_seq = seq

    async def send_stored(self, *, after: int, before: int | None = None) -> None:
        for seq, text in await database_sync_to_async(stored_events)(after=after, before=before):
            await self.send(text_data=text)
            self.last_seq = seq
