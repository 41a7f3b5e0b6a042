"""``/ws/events/``: the live event stream of staff pages and scripts (DESIGN §10).

Events reach a process once: an ``EventHub`` per process (per event loop) is the only
member of the ``events`` group there and offers each event to every connected consumer. The
group lives on ``core.events.events_layer`` (Redis pub/sub where Redis is configured: pushed,
no round trip per message). With one channel-layer member per process instead of one per
page, an event costs one layer message per process, not one per client (see
``bench/event_fanout.py``), and the events of one write (a tick's thousands) share a few
messages. The hub offers events in seq order, each once: when a message skips seqs (the layer
dropped one, or two writers' sends crossed) it waits up to ``REORDER_SECONDS`` for them, then
reads what is still missing from the log once, for all its consumers. UI actions still travel
through each consumer's own channel (group ``user.<id>``, on the default layer): they are rare
and meant for one person.

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
import json
import logging
import re
import time
from dataclasses import dataclass
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
    events_frame,
    events_layer,
    hidden_frame,
    latest_event_seq,
    relay_events,
    stored_events,
    user_group,
    visible_events,
)

from .confirmations import viewable_tool_names
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
# How long the hub offers events to its consumers before it lets the process's other work run. Each
# pause is a turn of the event loop, on a busy machine behind the request threads for the GIL: one
# per consumer per event (50 turns an event for 50 pages) was a third of the hub's lag under load.
OFFER_SLICE_SECONDS = 0.005
# How long the hub waits for a seq that another writer's send has not brought yet before it reads the
# log for it (see ``EventHub.deliver``).
REORDER_SECONDS = 0.1
# Events one coalesced frame carries at most (``?batch=1``): a tick's thousand, in a few frames.
FRAME_EVENTS = 200
# The shortest time between two offers of the hub: events that arrive sooner after the last offer
# wait for the rest of it and go out together, one frame per batching page instead of one each. An
# event after a quiet spell goes out at once. Under ``bench.load --users 50`` the pages' frames were
# nearly all single events of requests (transfers, patches: 24 a second, each to every page), and a
# frame costs Daphne the same whatever it carries: 15 % of its CPU was sending them.
GATHER_SECONDS = 0.05
TOPIC = re.compile(r"[a-z][a-z0-9_]{0,63}")
# A stored event as the hub offers it: (seq, event name, WebSocket frame).
Event = tuple[int, str, str]


def query_values(scope, name: str) -> list[str]:
    return parse_qs(scope.get("query_string", b"").decode("latin1")).get(name, [])


def replay_start(scope) -> int | None:
    """The ``?since=SEQ`` of the handshake: None when absent; ValueError when malformed."""
    values = query_values(scope, "since")
    if not values:
        return None
    since = int(values[-1])
    if since < 0:
        raise ValueError("since must not be negative")
    return since


def requested_topics(scope) -> frozenset[str] | None:
    """The ``?topics=a,b`` of the handshake: the only events the client wants (None: all of
    them); ValueError when a name is malformed."""
    values = query_values(scope, "topics")
    if not values:
        return None
    topics = frozenset(name.strip() for name in values[-1].split(",") if name.strip())
    if not all(TOPIC.fullmatch(name) for name in topics):
        raise ValueError("topics are event names separated by commas")
    return topics


def wants_batches(scope) -> bool:
    """``?batch=1``: coalesced ``system_events`` frames instead of one ``system_event`` per event."""
    values = query_values(scope, "batch")
    return bool(values) and values[-1] in {"1", "true"}


def narrowed(visible: frozenset[str] | None, topics: frozenset[str] | None) -> frozenset[str] | None:
    """The events a client receives: those its user may see, among the topics it asked for."""
    if topics is None:
        return visible
    return topics if visible is None else visible & topics


@dataclass(frozen=True)
class Visibility:
    """What one client receives: event names (None: all), and of the ``pending_action`` events
    those of proposals its user may see (``confirmations.visible_pending_actions``'s rule: the
    tools in ``proposals``; None: all, a superuser)."""

    events: frozenset[str] | None
    proposals: frozenset[str] | None = None

    def sees(self, event: str, text: str) -> bool:
        if self.events is not None and event not in self.events:
            return False
        if event == "pending_action" and self.proposals is not None:
            return proposal_tool(text) in self.proposals
        return True


NOTHING = Visibility(events=frozenset(), proposals=frozenset())


def proposal_tool(text: str) -> str | None:
    """The tool of a ``pending_action`` frame (a proposal's domain is its tool's)."""
    try:
        return json.loads(text)["data"].get("tool")
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def visibility(user, topics: frozenset[str] | None) -> Visibility:
    """What ``user``'s client receives, among ``topics``; read once per connection and re-check."""
    events = narrowed(visible_events(user), topics)
    proposals = None if user.is_superuser else frozenset(viewable_tool_names(user))
    return Visibility(events=events, proposals=proposals)


def bursts(events: list[Event]) -> list[list[Event]]:
    """``events`` (in seq order) cut into runs of consecutive seqs, ``FRAME_EVENTS`` at most each.

    A coalesced frame covers the seqs from its first event to its last, so a seq the log does not
    hold (pruned, or never committed) starts a new frame: the page sees the gap, as it would
    with one frame per event."""
    cut: list[list[Event]] = []
    for item in events:
        if cut and len(cut[-1]) < FRAME_EVENTS and item[0] == cut[-1][-1][0] + 1:
            cut[-1].append(item)
        else:
            cut.append([item])
    return cut


class SharedFrames:
    """The coalesced frames of one burst, built once per set of visible events (not per client)."""

    def __init__(self, burst: list[Event]) -> None:
        self.after, self.burst = burst[0][0] - 1, burst
        self.frames: dict[Visibility, str | None] = {}

    def frame(self, visible: Visibility) -> str | None:
        """The frame for clients that see ``visible``; None when nothing in the burst is for them."""
        if visible not in self.frames:
            texts = [text for _, event, text in self.burst if visible.sees(event, text)]
            through = self.burst[-1][0]
            self.frames[visible] = events_frame(after=self.after, through=through, texts=texts) if texts else None
        return self.frames[visible]


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
        self.arrived: dict[int, Event] = {}  # pushed, not yet offered (by seq)
        self.arrival = asyncio.Event()

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
                self.arrived.clear()
                self.tasks = [
                    asyncio.create_task(self.pump()), asyncio.create_task(self.deliver()), asyncio.create_task(self.stay_joined()),
                ]
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
            self.receive_events(message["events"])

    def receive_events(self, events: list[Event]) -> None:
        """Keep what the layer (or the tail) brought for ``deliver``; the pump goes straight back to the layer."""
        fresh = [item for item in events if item[0] > self.last_seen and item[0] not in self.arrived]
        for item in fresh:
            self.arrived[item[0]] = item
        if fresh:
            self.arrival.set()

    async def deliver(self) -> None:
        """Offer what arrived in seq order, at most once per ``GATHER_SECONDS``. Two writers' sends
        cross (each relay sends its own events after its commit), so a missing seq is usually on its
        way: wait up to ``REORDER_SECONDS`` for it before reading it from the log. A log read per crossing, through the process's one thread
        for the database and a new connection, held the whole stream up behind it under load."""
        loop = asyncio.get_running_loop()
        offered = -GATHER_SECONDS
        while True:
            await self.arrival.wait()
            gather = offered + GATHER_SECONDS - loop.time()
            if gather > 0:
                await asyncio.sleep(gather)  # what else arrives meanwhile goes in the same frames
            self.arrival.clear()
            deadline = loop.time() + REORDER_SECONDS
            while self.arrived and not self.in_order() and loop.time() < deadline:
                try:
                    await asyncio.wait_for(self.arrival.wait(), deadline - loop.time())
                except TimeoutError:
                    break
                self.arrival.clear()
            events = [self.arrived.pop(seq) for seq in sorted(self.arrived)]
            offered = loop.time()
            try:
                await self.offer(events)
            except Exception:
                logger.exception("the event hub could not offer events; the next ones fill the gap")

    def in_order(self) -> bool:
        """Whether the events that arrived follow the last one offered without a gap."""
        seqs = sorted(self.arrived)
        return seqs[0] <= self.last_seen + 1 and seqs[-1] - seqs[0] == len(seqs) - 1

    async def rejoin(self) -> bool:
        """Join the events group again, and each consumer its own group, then offer what the log
        got meanwhile (pushes to nobody while the layer was away). False while the layer still fails."""
        try:
            await self.layer.group_add(EVENTS_GROUP, self.channel)
            for consumer in list(self.consumers):
                if consumer.own_group:
                    await consumer.channel_layer.group_add(consumer.own_group, consumer.channel_name)
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
            if events and events[-1][0] - self.last_seen != len(events):
                # Seqs missing before or between them: one log read for all of them.
                try:
                    stored = await database_sync_to_async(stored_events)(after=self.last_seen, before=events[-1][0])
                    events = sorted({item[0]: item for item in [*stored, *events]}.values(), key=lambda item: item[0])
                except Exception:
                    logger.exception("the event hub could not read the event log; each consumer fills the gap")
            began = time.perf_counter()
            for burst in bursts(events):
                frames = SharedFrames(burst)
                self.last_seen = burst[-1][0]
                for consumer in list(self.consumers):
                    try:
                        await consumer.offer_burst(burst, frames)
                    except Exception:
                        logger.exception("could not offer events %s-%s to a consumer", burst[0][0], burst[-1][0])
                    if time.perf_counter() - began >= OFFER_SLICE_SECONDS:
                        await asyncio.sleep(0)  # a tick's thousands of events must not hold up HTTP requests here
                        began = time.perf_counter()

    async def tail(self) -> None:
        """Bring the events other processes committed (the in-memory layer never brings them) to
        ``deliver``, like a push: they are gathered and offered with the rest, never around it."""
        while True:
            await asyncio.sleep(TAIL_INTERVAL)
            try:
                self.receive_events(await database_sync_to_async(stored_events)(after=self.last_seen))
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


def hub_for(layer=None) -> EventHub:
    """This event loop's hub, on ``layer`` (default: ``core.events.events_layer``)."""
    layer = events_layer() if layer is None else layer
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
    visible: Visibility = NOTHING
    hidden_through: int | None = None
    topics: frozenset[str] | None = None  # ?topics=: the events the page shows (None: all)
    batched = False  # ?batch=1: coalesced system_events frames
    live = False  # the replay is done and the backlog task runs
    busy = False  # the backlog task is handling an event

    async def connect(self) -> None:
        user = self.scope.get("user")
        try:
            since = replay_start(self.scope)
            self.topics = requested_topics(self.scope)
        except ValueError:
            await self.close()  # a malformed ?since= or ?topics= is a client bug: refuse, do not guess
            return
        if not is_active_staff(user):
            await self.close()  # before accept: the handshake is refused (HTTP 403)
            return
        self.batched = wants_batches(self.scope)
        # Once per connection (and per re-check), not per event: the set each event is looked up in.
        self.visible = await database_sync_to_async(visibility)(user, self.topics)
        self.own_group = user_group(user.pk)
        await self.channel_layer.group_add(self.own_group, self.channel_name)
        self.backlog = asyncio.Queue(maxsize=BACKLOG_SIZE)
        self.hub = hub_for()
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
                    self.visible = await database_sync_to_async(visibility)(user, self.topics)
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

    async def offer_burst(self, burst: list[Event], frames: SharedFrames) -> None:
        """Called by the hub for each burst of events in seq order; must not wait on the database.

        A batching client that is up to date gets the burst's shared frame; any other client
        takes the events one by one (``offer``)."""
        assert self.backlog is not None
        up_to_date = self.last_seq is None or self.last_seq == frames.after
        if self.batched and self.live and not self.busy and self.backlog.empty() and up_to_date:
            await self.send_frame(frames.frame(self.visible), through=burst[-1][0])
            return
        for item in burst:
            await self.offer(item)

    async def send_frame(self, text: str | None, *, through: int) -> None:
        """Send a coalesced frame (None: nothing in it for this client), which covers up to ``through``."""
        if text is None:
            self.hidden_through = through
        else:
            if self.hidden_through is not None:
                await self.send(text_data=hidden_frame(self.hidden_through))
                self.hidden_through = None
            await self.send(text_data=text)
        self.last_seq = through

    async def offer(self, item: Event) -> None:
        """Called for every event a burst could not bring at once; must not wait on the database."""
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
        stored = await database_sync_to_async(stored_events)(after=after, before=before)
        if not self.batched:
            for seq, event, text in stored:
                await self.deliver(seq, event, text)
            return
        for burst in bursts(stored):
            if self.last_seq is not None and burst[0][0] - 1 < self.last_seq:
                burst = [item for item in burst if item[0] > self.last_seq]
                if not burst:
                    continue
            await self.send_frame(SharedFrames(burst).frame(self.visible), through=burst[-1][0])

    async def deliver(self, seq: int, event: str, text: str) -> None:
        """Send the event if this user may see it; before the next one it may, say what it skipped."""
        if self.visible.sees(event, text):
            if self.hidden_through is not None:
                await self.send(text_data=hidden_frame(self.hidden_through))
                self.hidden_through = None
            await self.send(text_data=text)
        else:
            self.hidden_through = seq
        self.last_seq = seq
