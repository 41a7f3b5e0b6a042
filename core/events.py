"""Live events: one helper every app uses to tell open pages and scripts what changed.

``broadcast`` writes the event inside the change's own transaction (an outbox, on both
databases): the change and its event commit together or not at all, and a write that fails,
a full disk say, fails the change. After the commit the event reaches the ``events`` group
(the events of one write travel together, ``stored_message``); nothing is sent for a
rolled-back change, and a failed send is logged, never raised into the business call. Every
stored event has a ``seq`` in ``EventLog``, so a reconnecting client replays what it missed
(``stored_events``).

Ordering. A replay reads "every seq after N" once, so a seq must never become visible after a
greater one: a reader that sees seq N already sees every stored seq below N (the consumer
fills a gap from the log on this promise). How each database keeps it without a lock that
unrelated writers share:

- SQLite has one writer at a time (a transaction takes the write lock at BEGIN IMMEDIATE), so
  the change writes its ``EventLog`` row directly: seqs become visible in seq order at no cost.
- PostgreSQL: the change writes an ``EventOutbox`` row (a plain insert, nothing to wait on).
  Only the relay writes ``EventLog``: one short transaction at a time, holding
  ``pg_try_advisory_xact_lock(EVENT_RELAY_LOCK_KEY)``, moves the committed outbox rows into the
  log, where they get their seq, then sends them (``relay_events``); the lock and the move are one
  statement (``RELAY_SQL``), so that transaction is one round trip. The public order is the
  order in which events become visible to the relay, so a change that commits late gets its
  seq when it commits, after those that committed before it, and a replay can never have read
  past it. Every writer relays after its own commit, and nobody waits for the lock: a writer
  that finds it taken leaves its row to the holder, which looks at the outbox again after its
  own commit and goes on while rows are there (the holder's look comes after that writer's
  commit, so the row is seen), for ``RELAY_ROUNDS`` transactions at most: a request never relays
  for everyone while writes keep coming (then the next writer's relay takes the rest). ``pg_locks``
  shows that one granted lock, never a waiter.
  Should a writer die between its commit and its relay, its row waits for the next relay: the
  next write's, or the sweep every ``RELAY_SWEEP_SECONDS`` of each server process's event hub.

A high-water mark (readers stop below ``pg_snapshot_xmin``) would need no relay, but it would
hold every page's events back behind the oldest open transaction of the whole cluster (a
tick's batch, a session idle in transaction), and its order would be transaction ids, not
seqs. The relay costs each write one short transaction after its commit, as the lock did.

An ``EventBatch`` writes the events of one transaction in one statement, inside it, and
publishes them together after it commits (the autonomy tick's thousands).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
from datetime import timedelta
from functools import partial
from typing import Any
from weakref import WeakKeyDictionary

from asgiref.sync import async_to_sync
from channels import DEFAULT_CHANNEL_LAYER
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import DEFAULT_DB_ALIAS, InterfaceError, OperationalError, connection, connections, transaction
from django.db.models import Max
from django.db.transaction import TransactionManagementError
from django.utils import timezone

from . import rows
from .database import prepared_cursor
from .models import EventLog, EventOutbox

logger = logging.getLogger(__name__)

EVENTS_GROUP = "events"
# The channel layer that brings stored events to the server processes' hubs, where settings name one
# (Redis pub/sub); else the default layer.
EVENTS_LAYER = "events"
# How many missed events one (re)connection replays at most; older ones are skipped and
# the client, seeing the seq jump, re-syncs from the database.
REPLAY_LIMIT = 1000
# Key of the PostgreSQL advisory lock the relay holds while it numbers events ("deskrl"); only
# ever taken with a try-lock.
EVENT_RELAY_LOCK_KEY = 0x6465736B726C
# Outbox rows one relay transaction moves at most (it goes on while more are waiting).
RELAY_BATCH = 1000
# Relay transactions one caller runs at most: under a steady stream of writes the outbox never
# empties, and a request must not relay for everyone forever; what is left goes with the next
# writer's relay (rows kept coming, so writers are at work) or with the hub's sweep.
RELAY_ROUNDS = 8
# How often each server process's event hub relays what no writer did (one died after its commit).
RELAY_SWEEP_SECONDS = 1.0
RESERVED_KEYS = frozenset({"event", "timestamp", "seq"})
# Events per channel-layer message: a tick's thousands of events travel as a few messages, not
# thousands (a layer drops what overflows a channel's capacity, and expires what waits too long).
LAYER_MESSAGE_EVENTS = 200
# How long a send to the channel layer may take before it is logged as failed.
SEND_TIMEOUT = 10.0
_DATA = EventLog._meta.get_field("data")
_INSERTED = ("event", "data", "created_at")


# Who may receive an event: the Django permission to view what it is about. Apps declare their
# events in AppConfig.ready(); an event nobody declared reaches superusers only.
_EVENT_PERMISSIONS: dict[str, str] = {}


def declare_events(**permissions: str) -> None:
    """``declare_events(fund_changed="funds.view_fund")``: the permission each event needs."""
    _EVENT_PERMISSIONS.update(permissions)


def visible_events(user: Any) -> frozenset[str] | None:
    """The events ``user`` may receive; None for all of them (a superuser)."""
    if user.is_superuser:
        return None
    granted = user.get_all_permissions()
    return frozenset(event for event, permission in _EVENT_PERMISSIONS.items() if permission in granted)


def hidden_frame(seq: int) -> str:
    """Tells a client that events up to ``seq`` were not for it, so the gap is no reason to re-sync."""
    return json.dumps({"type": "events_hidden", "data": {"through": seq}})


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


_SCALARS = (str, int, float, bool, type(None))


def _jsonable(data: dict) -> dict:
    if all(type(value) in _SCALARS for value in data.values()):
        return dict(data)  # already what JSON gives back (most events: a tick sends thousands)
    return json.loads(json.dumps(data, cls=DjangoJSONEncoder))


def broadcast(event: str, **data: Any) -> None:
    """Write ``event`` with the current transaction; it reaches connected clients once that commits.

    Call it from synchronous code (services). ``data`` is captured now, as JSON.
    """
    clash = RESERVED_KEYS & data.keys()
    if clash:
        raise ValueError(f"event data must not use the reserved keys {sorted(clash)}")
    item = (event, _jsonable(data))
    db = connections[DEFAULT_DB_ALIAS]  # ``connection``, looked up once (a transfer's CPU, bench.transfers)
    if not db.in_atomic_block:
        _write_and_publish(*item)  # autocommit: the change has committed already
    elif _open_batch(db) is not None:
        db.on_commit(partial(_write_and_publish, *item), robust=True)  # the batch's seal() writes it
    else:
        written = _write([item], db)
        if not (_relayed(db) and _relay_after_commit(db)):
            db.on_commit(partial(_publish, written), robust=True)


def send_ui_action(user: Any, action: str, **data: Any) -> None:
    """Deliver a UI instruction to one staff member's open pages only, after commit.

    UI actions are not stored: they only matter to a page that is open right now.
    """
    text = json.dumps({"type": "ui_action", "data": {"action": action, **_jsonable(data)}}, ensure_ascii=False)
    transaction.on_commit(partial(_group_send, user_group(user.pk), {"type": "event.send", "seq": None, "text": text}), robust=True)


_SYSTEM_EVENT = '{"type": "system_event", "data": '


def event_text(row: EventLog) -> str:
    """The WebSocket frame of a stored event (DESIGN §10), encoded once for every client."""
    return _frame(row.seq, row.event, row.data, row.created_at)


def _frame(seq: int, event: str, data: dict, created_at: Any) -> str:
    data = {"event": event, "timestamp": created_at.isoformat(), "seq": seq, **data}
    return _SYSTEM_EVENT + json.dumps(data, ensure_ascii=False) + "}"


def events_frame(*, after: int, through: int, texts: list[str]) -> str:
    """One frame for many events (``?batch=1``): the ``system_event`` frames ``texts``, which
    cover every seq in ``after < seq <= through`` this client may see.

    Built by splicing the frames' encoded data, not by encoding the events again."""
    events = ",".join(text[len(_SYSTEM_EVENT) : -1] for text in texts)
    return f'{{"type": "system_events", "data": {{"after": {after}, "through": {through}, "events": [{events}]}}}}'


def stored_events(*, after: int, before: int | None = None, limit: int = REPLAY_LIMIT) -> list[tuple[int, str, str]]:
    """``(seq, event, frame)`` of stored events with ``after < seq < before``, oldest first.

    At most the newest ``limit`` of them: a client that missed more re-syncs instead.
    """
    rows = EventLog.objects.filter(seq__gt=after)
    if before is not None:
        rows = rows.filter(seq__lt=before)
    newest = list(rows.order_by("-seq")[:limit])
    return [(row.seq, row.event, event_text(row)) for row in reversed(newest)]


def latest_event_seq() -> int:
    """The seq of the newest stored event (0 when there is none): a page's replay start."""
    return EventLog.objects.aggregate(latest=Max("seq"))["latest"] or 0


def prune_event_log(*, older_than: timedelta) -> int:
    """Delete stored events older than ``older_than``; returns how many were deleted.

    The newest event always stays: ``latest_event_seq`` must not fall back below a seq
    that pages have already seen.
    """
    old = EventLog.objects.filter(created_at__lt=timezone.now() - older_than).exclude(seq=latest_event_seq())
    deleted, _ = old.delete()
    return deleted


class EventBatch:
    """The events one transaction commits, written in one statement inside it, published together.

    For loops that commit many events (the autonomy tick): create it inside the transaction
    before the work, ``seal()`` it after the work, still inside. Every ``broadcast`` made in
    between, by the caller or by the services it calls (which know nothing of the batch),
    waits as a commit hook, so one whose savepoint rolls back goes with it; ``seal()`` writes
    the survivors in broadcast order (one insert, still in the transaction: they commit with
    it or not at all) and leaves one hook publishing the lot. The same guarantees as one
    ``broadcast`` at a time, one write instead of one per event.
    """

    def __init__(self, using: str | None = None) -> None:
        self._connection = transaction.get_connection(using)
        if not self._connection.in_atomic_block:
            raise TransactionManagementError("an EventBatch gathers the events of a transaction: open one first")
        # Commit hooks are (savepoint ids, callable, robust) in registration order; a rolled-back
        # savepoint drops its own, all registered after this point, so this index stays valid.
        self._first_hook = len(self._connection.run_on_commit)
        # Marks where the batch began: gone with the savepoint or transaction that held it.
        self._opened = partial(_batch_opened)
        transaction.on_commit(self._opened, using=self._connection.alias)
        _batches[self._connection] = self

    def is_open(self) -> bool:
        hooks = self._connection.run_on_commit
        return len(hooks) > self._first_hook and hooks[self._first_hook][1] is self._opened

    def seal(self) -> int:
        """Write the events broadcast since the batch began, in one statement; returns how many."""
        if not self.is_open():
            raise TransactionManagementError("this EventBatch's transaction or savepoint is over")
        if _batches.get(self._connection) is self:
            del _batches[self._connection]
        hooks = self._connection.run_on_commit
        ours = hooks[self._first_hook + 1 :]
        waiting = [hook[1].args for hook in ours if _is_event(hook[1], _write_and_publish)]
        written = [row for hook in ours if _is_event(hook[1], _publish) for row in hook[1].args[0]]
        hooks[self._first_hook :] = [hook for hook in ours if not _is_event(hook[1], _write_and_publish, _publish)]
        if waiting:
            written += _write(waiting)
        if written:
            transaction.on_commit(partial(_publish, written), using=self._connection.alias, robust=True)
        return len(written)


# The batch each connection has open, if any (a batch left unsealed no longer counts once its
# transaction is over: ``is_open``).
_batches: WeakKeyDictionary[Any, EventBatch] = WeakKeyDictionary()


def _open_batch(db: Any) -> EventBatch | None:
    batch = _batches.get(db)
    if batch is not None and not batch.is_open():
        del _batches[db]
        return None
    return batch


def _batch_opened() -> None:
    """The marker hook of an ``EventBatch``; nothing to do should it ever run."""


def _is_event(hook: Any, *kinds: Any) -> bool:
    return isinstance(hook, partial) and hook.func in kinds


def _relay_after_commit(db: Any) -> bool:
    """A relay already waits for this transaction's commit, and it moves every outbox row the commit
    makes visible, this one too: a second would only find the outbox empty (two round trips).
    It runs whenever this row commits: a hook is dropped only with a savepoint rolled back while
    it was open, and every savepoint still open then is still open now, around this row."""
    return any(_is_event(hook[1], _publish) for hook in db.run_on_commit)


def _relayed(db: Any) -> bool:
    """PostgreSQL writes events to the outbox for the relay; SQLite to the log itself."""
    return db.vendor == "postgresql"


def events_are_relayed() -> bool:
    """Whether events reach the log through the relay (PostgreSQL), which a server process sweeps."""
    return _relayed(connection)


def _write(items: list[tuple[str, dict]], db: Any = None) -> list[EventLog] | list[EventOutbox]:
    """Write events where this database keeps them: the log (SQLite) or the outbox (PostgreSQL)."""
    db = connections[DEFAULT_DB_ALIAS] if db is None else db
    relayed = _relayed(db)
    model = EventOutbox if relayed else EventLog
    if len(items) == 1:
        return [_insert_one(model, *items[0], db=db)]
    # The log's rows need their seq to be sent; the relay numbers the outbox's.
    return rows.bulk_create([model(event=event, data=data) for event, data in items], returning=not relayed)


def _publish(rows: list) -> None:
    """After the commit: send what the log holds (SQLite), or relay the outbox (PostgreSQL)."""
    if _relayed(connections[DEFAULT_DB_ALIAS]):
        try:
            relay_events()
        except Exception:
            logger.exception("could not relay events; they wait in the outbox for the next relay")
    else:
        _send(rows)


def _write_and_publish(event: str, data: dict) -> None:
    """An event no transaction is left to hold (autocommit, or a batch that was never sealed)."""
    try:
        rows = _write([(event, data)])
    except Exception:
        logger.exception("could not store events %s", event)
        return
    _publish(rows)


def relay_events() -> int:
    """Move the committed outbox rows into the log, number them, send them; returns how many.

    PostgreSQL only (elsewhere 0). Never waits: when another connection relays right now, that
    one also moves what this caller committed (see the module docstring). A connection lost
    since the commit is replaced once; should that fail too, the rows wait for the next relay.
    """
    db = connections[DEFAULT_DB_ALIAS]
    if not _relayed(db):
        return 0
    if db.in_atomic_block:
        db.on_commit(relay_events, robust=True)  # the lock must end with the relay's own commit
        return 0
    try:
        return _relay()
    except (OperationalError, InterfaceError):
        db.close()
        return _relay()


def _relay() -> int:
    db, moved = connections[DEFAULT_DB_ALIAS], 0
    with prepared_cursor(db) as cursor:  # one cursor for every statement of the relay
        for _ in range(RELAY_ROUNDS):
            # One statement in autocommit, its own transaction: the try-lock, then the move (see RELAY_SQL).
            cursor.execute(RELAY_SQL, [EVENT_RELAY_LOCK_KEY, RELAY_BATCH])
            result = cursor.fetchall()
            if not result[0][0]:
                return moved  # the holder looks again after its commit, which comes after ours
            # Each moved row as the hubs get it, (seq, event, frame): no model instance per event.
            logged = [
                (seq, event, _frame(seq, event, _DATA.from_db_value(data, None, db), created_at))
                for _got, seq, event, data, created_at in result
                if seq is not None
            ]
            logged.sort(key=lambda item: item[0])
            _send_stored(logged)
            moved += len(logged)
            # After our commit (and unlock): a writer that found the lock taken committed before this.
            cursor.execute(RELAY_WAITING_SQL)
            if cursor.fetchone() is None:
                return moved
    return moved


# The relay's statements on PostgreSQL (bench.transfers' raw baseline runs them too). The seqs
# follow the order in which the relay found the rows visible.
#
# RELAY_SQL is one statement, so in autocommit it is one transaction and one round trip (it was
# BEGIN, the try-lock, the move, COMMIT: a third of a transfer's relay CPU). Its first row says
# whether it got the lock; then the events it logged, if any. No row is deleted or numbered
# before the lock is held: the DELETE's condition reads the lock's CTE (an InitPlan, evaluated
# once before the first row), and the INSERT numbers only what the DELETE returned. Its snapshot
# is taken before the lock: rows another relay moved in between are skipped by the DELETE (READ
# COMMITTED re-checks a row deleted since), and rows committed in between are found by the look
# at the outbox after the commit (RELAY_WAITING_SQL), as before.
RELAY_SQL = f"""
    WITH locked AS MATERIALIZED (SELECT pg_try_advisory_xact_lock(%s) AS got),
    moved AS (
        DELETE FROM "{EventOutbox._meta.db_table}"
        WHERE (SELECT got FROM locked)
          AND id IN (SELECT id FROM "{EventOutbox._meta.db_table}" ORDER BY id LIMIT %s)
        RETURNING id, event, data, created_at
    ),
    logged AS (
        INSERT INTO "{EventLog._meta.db_table}" (event, data, created_at)
        SELECT event, data, created_at FROM moved ORDER BY id
        RETURNING seq, event, data, created_at
    )
    SELECT locked.got, logged.seq, logged.event, logged.data, logged.created_at FROM locked LEFT JOIN logged ON true
"""
RELAY_WAITING_SQL = f'SELECT 1 FROM "{EventOutbox._meta.db_table}" ORDER BY id LIMIT 1'


def events_layer() -> Any:
    """The channel layer of the ``events`` group: ``CHANNEL_LAYERS["events"]`` when set, else the default."""
    return get_channel_layer(EVENTS_LAYER if EVENTS_LAYER in settings.CHANNEL_LAYERS else DEFAULT_CHANNEL_LAYER)


def _send(rows: list[EventLog]) -> None:
    _send_stored([(row.seq, row.event, event_text(row)) for row in rows])


def _send_stored(events: list[tuple[int, str, str]]) -> None:
    """Send ``(seq, event, frame)`` of stored events to the hubs, ``LAYER_MESSAGE_EVENTS`` a message."""
    for start in range(0, len(events), LAYER_MESSAGE_EVENTS):
        _group_send(EVENTS_GROUP, {"type": "events.stored", "events": events[start : start + LAYER_MESSAGE_EVENTS]})


def stored_message(rows: list[EventLog]) -> dict:
    """The channel-layer message that brings stored events to every process's hub, in seq order."""
    return {"type": "events.stored", "events": [(row.seq, row.event, event_text(row)) for row in rows]}


# The INSERT of one event row, by (database vendor, model): composed once.
_INSERT_ONE: dict[tuple[str, Any], str] = {}


def _insert_one_sql(db: Any, model: Any) -> str:
    sql = _INSERT_ONE.get((db.vendor, model))
    if sql is None:
        quote = db.ops.quote_name
        columns = ", ".join(quote(model._meta.get_field(name).column) for name in _INSERTED)
        sql = f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES (%s, %s, %s) RETURNING {quote(model._meta.pk.column)}"
        _INSERT_ONE[db.vendor, model] = sql
    return sql


def _insert_one(model: Any, event: str, data: dict, db: Any = None) -> Any:
    """One event row in one statement: the common case (a service's single event), where the
    ORM's insert cost more than the database's work."""
    db = connections[DEFAULT_DB_ALIAS] if db is None else db
    now = timezone.now()
    values = [event, _DATA.get_db_prep_save(data, db), db.ops.adapt_datetimefield_value(now)]
    with prepared_cursor(db) as cursor:
        cursor.execute(_insert_one_sql(db, model), values)
        (key,) = cursor.fetchone()
    return model.from_db(db.alias, (model._meta.pk.attname, *_INSERTED), (key, event, data, now))


def _has_listeners(layer, group: str) -> bool:
    """An in-memory layer only reaches this process: with nobody here in the group, a send
    would only cost an event loop. Any other layer may have listeners elsewhere."""
    return not isinstance(layer, InMemoryChannelLayer) or bool(layer.groups.get(group))


def _group_send(group: str, message: dict) -> None:
    try:
        layer = events_layer() if group == EVENTS_GROUP else get_channel_layer()
        if layer is None or not _has_listeners(layer, group):
            return
        if isinstance(layer, InMemoryChannelLayer):
            async_to_sync(layer.group_send)(group, message)  # its queues live on the listeners' loop
        else:
            asyncio.run_coroutine_threadsafe(layer.group_send(group, message), _sender_loop()).result(SEND_TIMEOUT)
    except Exception:
        logger.exception("could not send to channel group %s", group)


def prepare_sending() -> None:
    """Get this process ready to send events before its first write: the events layer created (its
    backend imported) and the sender loop started. A process that writes events in bulk (the
    autonomy tick) calls it once at its start; else its first batch's events wait, after their
    commit, for that set-up (channels-redis, redis.asyncio and msgpack imported: 0.3-0.45 s on a
    busy 2-core machine, 1.2 s seen in ``bench.load``). Never raises: the first send tries again."""
    try:
        layer = events_layer()
        if layer is not None and not isinstance(layer, InMemoryChannelLayer):
            _sender_loop()  # an in-memory layer sends on the listeners' loop, not this one
    except Exception:
        logger.exception("could not prepare the events layer; the first send will try again")


_sender: tuple[int, asyncio.AbstractEventLoop] | None = None
_sender_lock = threading.Lock()


def _sender_loop() -> asyncio.AbstractEventLoop:
    """This process's event loop for sends from synchronous code, in a thread of its own.

    ``async_to_sync`` outside an event loop starts a new loop per call, and a Redis layer opens a
    new connection per loop: tens of milliseconds per send on a busy machine. One loop per
    process keeps the layer's connection.
    """
    global _sender
    with _sender_lock:
        if _sender is None or _sender[0] != os.getpid():  # a forked child has the loop but not its thread
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="event-sender", daemon=True).start()
            _sender = (os.getpid(), loop)
        return _sender[1]
