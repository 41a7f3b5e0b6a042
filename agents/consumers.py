"""``/ws/events/``: the live event stream of staff pages and scripts (DESIGN §10).

Events reach a process once: an ``EventHub`` per process (per event loop) is the only
member of the ``events`` group there and offers each event to every connected consumer.
With one channel-layer member per process instead of one per page, an event costs one
layer message per process, not one per client (see ``bench/event_fanout.py``), and the
events of one write (a tick's thousands) share a few messages. The hub offers events in
seq order, each once: when a message skips seqs (the layer dropped one, or two writers'
sends crossed) it reads the missing ones from the log once, for all its consumers. UI
actions still travel through each consumer's own channel (group ``user.<id>``): they are
rare and meant for one person.

A layer that cannot cross processes (the embedded default, in-memory) would leave pages
blind to what the autonomy loop, a management command or a second server commits. There
the hub also tails the event log: one indexed query (``seq > last seen``) per
``TAIL_INTERVAL`` per process, whatever the number of clients, and only while someone
listens. An event that arrives both ways is sent once: consumers drop a seq they sent.

On PostgreSQL the hub also sweeps the event outbox (``core.events.relay_events``) every
``RELAY_SWEEP_SECONDS``, for the rare event whose writer died between its commit and its relay.
"""

from __future__ import annotations

import asyncio
import logging
from urllib.parse import parse_qs
from weakref import WeakKeyDictionary

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import InMemoryChannelLayer

from core.auth import is_active_staff
from core.events import (
    EVENTS_GROUP,
    RELAY_SWEEP_SECONDS,
    REPLAY_LIMIT,
    events_are_relayed,
    hidden_frame,
    latest_event_seq,
    relay_events,
    stored_events,
    user_group,
    visible_events,
)

from .socket_auth import current_staff

logger = logging.getLogger(__name__)

# Events a consumer may have waiting; beyond that its copies are dropped and the next
# event it does get pulls the missing ones from the log.
BACKLOG_SIZE = REPLAY_LIMIT
# Channel layers forget a group member after a day (group_expiry); the hub rejoins well before.
REJOIN_SECONDS = 3600
# How often a hub on a process-local layer reads events other processes committed.
TAIL_INTERVAL = 0.25
# How often an open socket checks that its user may still see events (token revoked, staff removed).
RECHECK_SECONDS = 30
# How long the hub waits before it tries the channel layer again after a failure.
RETRY_SECONDS = 1.0
# Events the hub offers each consumer before it lets the process's other work run: a socket gets
# them in one write (one frame each), yet a burst holds the event loop up only briefly.
OFFER_SLICE = 10
# A stored event as the hub offers it: (seq, event name, WebSocket frame).
Event = tuple[int, str, str]


def replay_start(scope) -> int | None:
    """The ``?since=SEQ`` of the handshake: None when absent; ValueError when malformed."""
    values = parse_qs(scope.get("query_string", b"").decode("latin1")).get("since")
    if not values:
        return None
    since = int(values[-1])
    if since < 0:
        raise ValueError("since must not be negative")
    return since


class EventHub:
    """This process's single subscription to the ``events`` group, offered to every consumer."""

    def __init__(self, layer) -> None:
        self.layer = layer
        self.consumers: set[EventsConsumer] = set()
        self.lock = asyncio.Lock()
        self.offering = asyncio.Lock()
        self.channel = ""
        self.tasks: list[asyncio.Task] = []
        self.last_seen = 0  # the newest seq offered to the consumers, pushed or tailed

    async def subscribe(self, consumer: EventsConsumer) -> None:
        """From now on every event reaching this process is offered to ``consumer``."""
        async with self.lock:
            if not self.tasks:
                # The default prefix: channels-redis receives all of a process's specific
                # channels through one shared queue named after it.
                self.channel = await self.layer.new_channel()
                await self.layer.group_add(EVENTS_GROUP, self.channel)
                # Where the log catch-up starts (the tail, or a rejoin after the layer failed).
                self.last_seen = await database_sync_to_async(latest_event_seq)()
                self.tasks = [asyncio.create_task(self.pump()), asyncio.create_task(self.stay_joined())]
                if isinstance(self.layer, InMemoryChannelLayer):
                    self.tasks.append(asyncio.create_task(self.tail()))
                if events_are_relayed():
                    self.tasks.append(asyncio.create_task(self.sweep()))
            self.consumers.add(consumer)

    async def unsubscribe(self, consumer: EventsConsumer) -> None:
        async with self.lock:
            self.consumers.discard(consumer)
            if self.consumers or not self.tasks:
                return
            for task in self.tasks:
                task.cancel()
            self.tasks = []
            await self.layer.group_discard(EVENTS_GROUP, self.channel)

    async def pump(self) -> None:
        joined = True
        while True:
            if not joined:
                joined = await self.rejoin()
                if not joined:
                    await asyncio.sleep(RETRY_SECONDS)
                    continue
            try:
                message = await self.layer.receive(self.channel)
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("the event hub could not receive from the channel layer; retrying")
                # The layer's server may have restarted without its state: every group is gone.
                joined = False
                await asyncio.sleep(RETRY_SECONDS)
                continue
            await self.offer(message["events"])

    async def rejoin(self) -> bool:
        """Join the events group again, and each consumer its own group, then offer what the log
        got meanwhile (pushes to nobody while the layer was away). False while the layer still fails."""
        try:
            await self.layer.group_add(EVENTS_GROUP, self.channel)
            for consumer in list(self.consumers):
                if consumer.own_group:
                    await self.layer.group_add(consumer.own_group, consumer.channel_name)
        except Exception:
            logger.warning("the event hub could not rejoin its channel-layer groups yet", exc_info=True)
            return False
        try:
            await self.offer_stored()
        except Exception:
            logger.exception("the event hub could not read the event log; the next event fills the gap")
        return True

    async def offer_stored(self) -> None:
        """Offer the logged events after the newest one offered so far."""
        await self.offer(await database_sync_to_async(stored_events)(after=self.last_seen))

    async def offer(self, events: list[Event]) -> None:
        """Offer ``events`` (in seq order) to every consumer, after the ones the log holds before
        them that were never offered; skip those already offered."""
        async with self.offering:  # the pump and the tail, one at a time: seqs never go back
            events = [item for item in events if item[0] > self.last_seen]
            if events and events[0][0] > self.last_seen + 1:
                try:
                    events = await database_sync_to_async(stored_events)(after=self.last_seen, before=events[0][0]) + events
                except Exception:
                    logger.exception("the event hub could not read the event log; each consumer fills the gap")
            for start in range(0, len(events), OFFER_SLICE):
                burst = events[start : start + OFFER_SLICE]
                self.last_seen = burst[-1][0]
                for consumer in list(self.consumers):
                    try:
                        for item in burst:
                            await consumer.offer(item)
                    except Exception:
                        logger.exception("could not offer events %s-%s to a consumer", burst[0][0], burst[-1][0])
                await asyncio.sleep(0)  # a tick's thousands of events must not hold up HTTP requests here

    async def tail(self) -> None:
        """Offer the events other processes committed (the in-memory layer never brings them)."""
        while True:
            await asyncio.sleep(TAIL_INTERVAL)
            try:
                await self.offer_stored()
            except Exception:
                logger.exception("the event hub could not read the event log; retrying")

    async def sweep(self) -> None:
        """Relay what a writer left in the outbox (it died between its commit and its relay)."""
        while True:
            try:
                await database_sync_to_async(relay_events)()
            except Exception:
                logger.exception("the event hub could not relay the outbox; retrying")
            await asyncio.sleep(RELAY_SWEEP_SECONDS)

    async def stay_joined(self) -> None:
        while True:
            await asyncio.sleep(REJOIN_SECONDS)
            try:
                await self.layer.group_add(EVENTS_GROUP, self.channel)
            except Exception:
                logger.exception("the event hub could not rejoin the events group")


_hubs: WeakKeyDictionary[asyncio.AbstractEventLoop, EventHub] = WeakKeyDictionary()


def hub_for(layer) -> EventHub:
    loop = asyncio.get_running_loop()
    hub = _hubs.get(loop)
    if hub is None or hub.layer is not layer:
        hub = _hubs[loop] = EventHub(layer)
    return hub


class EventsConsumer(AsyncWebsocketConsumer):
    """Sends every event once, in seq order: replay after ``since``, then live.

    The consumer subscribes before reading the log, so an event committed during the
    replay waits in its backlog; ``last_seq`` then drops that copy. A live event that
    skips seqs (a copy dropped by the channel layer or a full backlog, or two writers'
    sends crossing) first pulls the missing ones from the log, which holds every seq
    below it (see ``core.events``). An event that needs no log read and finds nothing
    waiting is sent at once, by the hub; anything else goes through the backlog, in order.
    """

    hub: EventHub | None = None
    backlog: asyncio.Queue | None = None
    delivery: asyncio.Task | None = None
    recheck: asyncio.Task | None = None
    own_group = ""
    last_seq: int | None = None
    # The events this user may receive (None: all, a superuser), and the newest seq it was not sent.
    visible: frozenset[str] | None = frozenset()
    hidden_through: int | None = None
    live = False  # the replay is done and the backlog task runs
    busy = False  # the backlog task is handling an event

    async def connect(self) -> None:
        user = self.scope.get("user")
        try:
            since = replay_start(self.scope)
        except ValueError:
            await self.close()  # a malformed ?since= is a client bug: refuse, do not guess
            return
        if not is_active_staff(user):
            await self.close()  # before accept: the handshake is refused (HTTP 403)
            return
        self.visible = await database_sync_to_async(visible_events)(user)
        self.own_group = user_group(user.pk)
        await self.channel_layer.group_add(self.own_group, self.channel_name)
        self.backlog = asyncio.Queue(maxsize=BACKLOG_SIZE)
        self.hub = hub_for(self.channel_layer)
        await self.hub.subscribe(self)
        await self.accept()
        if since is not None:
            self.last_seq = since
            await self.send_stored(after=since)
        self.delivery = asyncio.create_task(self.deliver_backlog())
        self.recheck = asyncio.create_task(self.keep_checking_the_user())
        self.live = True

    async def disconnect(self, code: int) -> None:
        self.live = False
        for task in (self.delivery, self.recheck):
            if task is not None:
                task.cancel()
        if self.hub is not None:
            await self.hub.unsubscribe(self)
        if self.own_group:
            await self.channel_layer.group_discard(self.own_group, self.channel_name)

    async def keep_checking_the_user(self) -> None:
        """Close the socket once its token is deleted, its session ends or its user stops being
        staff; follow changes of the user's permissions."""
        while True:
            await asyncio.sleep(RECHECK_SECONDS)
            try:
                user = await current_staff(self.scope)
                if user is not None:
                    self.visible = await database_sync_to_async(visible_events)(user)
            except Exception:
                logger.exception("could not re-check the user of an events socket")
                continue
            if user is None:
                self.live = False
                await self.close(code=4403)
                return

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Clients only listen; whatever they send is ignored."""

    async def event_send(self, message: dict) -> None:
        """A ui_action for this staff member (not part of the seq stream)."""
        await self.send(text_data=message["text"])

    async def offer(self, item: Event) -> None:
        """Called by the hub for every event; must not wait on the database."""
        assert self.backlog is not None
        next_in_line = self.last_seq is None or item[0] <= self.last_seq + 1
        if self.live and not self.busy and self.backlog.empty() and next_in_line:
            await self.send_event(item)
            return
        try:
            self.backlog.put_nowait(item)
        except asyncio.QueueFull:
            pass  # it is in the log: the next event this consumer sends pulls it from there

    async def deliver_backlog(self) -> None:
        assert self.backlog is not None
        try:
            while True:
                item = await self.backlog.get()
                self.busy = True
                await self.send_event(item)
                self.busy = False
        except asyncio.CancelledError:
            raise
        except Exception:
            # The client reconnects with ?since= and misses nothing.
            logger.exception("live event delivery failed; closing the connection")
            self.live = False
            await self.close(code=1011)

    async def send_event(self, item: Event) -> None:
        seq = item[0]
        if self.last_seq is not None:
            if seq <= self.last_seq:
                return
            if seq > self.last_seq + 1:
                await self.send_stored(after=self.last_seq, before=seq)
        await self.deliver(*item)

    async def send_stored(self, *, after: int, before: int | None = None) -> None:
        for seq, event, text in await database_sync_to_async(stored_events)(after=after, before=before):
            await self.deliver(seq, event, text)

    async def deliver(self, seq: int, event: str, text: str) -> None:
        """Send the event if this user may see it; before the next one it may, say what it skipped."""
        if self.visible is None or event in self.visible:
            if self.hidden_through is not None:
                await self.send(text_data=hidden_frame(self.hidden_through))
                self.hidden_through = None
            await self.send(text_data=text)
        else:
            self.hidden_through = seq
        self.last_seq = seq
