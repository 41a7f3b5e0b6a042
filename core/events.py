"""Live events: one helper every app uses to tell open pages and scripts what changed.

``broadcast`` stores the event in ``EventLog`` (its ``seq`` lets a reconnecting client
replay what it missed) and, after the surrounding transaction commits, sends it to the
``events`` group (the events one write stores travel together, ``stored_message``); nothing
is sent for a rolled-back change. On SQLite the event is stored inside the change's own
transaction (an outbox: SQLite has one writer at a time anyway, so this costs no
concurrency): the change and its event commit together or not at all, and a store that
fails, a full disk say, fails the change. On PostgreSQL it is stored after the commit, in a
short transaction of its own (below); a failed store there is logged. A failed send is
logged, never raised into the business call.

Ordering: event-log rows are written one transaction at a time, each holding a lock until
it commits (on SQLite the change's own transaction, which holds the only write lock; on
PostgreSQL a short transaction of their own under an advisory lock), so seqs become visible
in seq order. A reader that sees seq N therefore already sees every
stored seq below N; the consumer relies on this to fill a gap from the log. An
``EventBatch`` sends the events of one transaction together (on PostgreSQL, stored in one
such write).
"""

from __future__ import annotations

import json
import logging
from datetime import timedelta
from functools import partial
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.core.serializers.json import DjangoJSONEncoder
from django.db import InterfaceError, OperationalError, connection, transaction
from django.db.models import Max
from django.db.transaction import TransactionManagementError
from django.utils import timezone

from .models import EventLog

logger = logging.getLogger(__name__)

EVENTS_GROUP = "events"
# How many missed events one (re)connection replays at most; older ones are skipped and
# the client, seeing the seq jump, re-syncs from the database.
REPLAY_LIMIT = 1000
# Key of the PostgreSQL advisory lock that serialises event-log commits ("deskev").
EVENT_LOG_LOCK_KEY = 0x6465736B6576
RESERVED_KEYS = frozenset({"event", "timestamp", "seq"})
# Events per channel-layer message: a tick's thousands of events travel as a few messages, not
# thousands (a layer drops what overflows a channel's capacity, and expires what waits too long).
LAYER_MESSAGE_EVENTS = 200
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


def _jsonable(data: dict) -> dict:
    return json.loads(json.dumps(data, cls=DjangoJSONEncoder))


def broadcast(event: str, **data: Any) -> None:
    """Queue ``event`` for every connected staff client, after the current transaction commits.

    Call it from synchronous code (services). ``data`` is captured now, as JSON.
    """
    clash = RESERVED_KEYS & data.keys()
    if clash:
        raise ValueError(f"event data must not use the reserved keys {sorted(clash)}")
    if _stored_with_the_change():
        transaction.on_commit(partial(_send, [_insert_one(event, _jsonable(data))]), robust=True)
    else:
        transaction.on_commit(partial(_store_and_send, event, _jsonable(data)), robust=True)


def _stored_with_the_change() -> bool:
    """SQLite inside a transaction: it holds the only write lock already, so seqs follow commit order."""
    return connection.vendor == "sqlite" and connection.in_atomic_block


def send_ui_action(user: Any, action: str, **data: Any) -> None:
    """Deliver a UI instruction to one staff member's open pages only, after commit.

    UI actions are not stored: they only matter to a page that is open right now.
    """
    text = json.dumps({"type": "ui_action", "data": {"action": action, **_jsonable(data)}}, ensure_ascii=False)
    transaction.on_commit(partial(_group_send, user_group(user.pk), {"type": "event.send", "seq": None, "text": text}), robust=True)


def event_text(row: EventLog) -> str:
    """The WebSocket frame of a stored event (DESIGN §10)."""
    data = {"event": row.event, "timestamp": row.created_at.isoformat(), "seq": row.seq, **row.data}
    return json.dumps({"type": "system_event", "data": data}, ensure_ascii=False)


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
    """The events one transaction commits, stored in one write after it commits (on SQLite,
    stored as they come, inside it), then sent together.

    For loops that commit many events (the autonomy tick): create it inside the transaction
    before the work, ``seal()`` it after the work, still inside. Every ``broadcast`` made in
    between, by the caller or by the services it calls (which know nothing of the batch),
    that survived its savepoint leaves the transaction's commit hooks and joins one hook
    storing (or, on SQLite, sending) the lot in broadcast order. The same guarantees as one
    ``broadcast`` at a time (only committed events, seq in commit order), one transaction
    instead of one per event.
    """

    def __init__(self, using: str | None = None) -> None:
        self._connection = transaction.get_connection(using)
        if not self._connection.in_atomic_block:
            raise TransactionManagementError("an EventBatch gathers the events of a transaction: open one first")
        # Commit hooks are (savepoint ids, callable, robust) in registration order; a rolled-back
        # savepoint drops its own, all registered after this point, so this index stays valid.
        self._first_hook = len(self._connection.run_on_commit)

    def seal(self) -> int:
        """Gather the events broadcast since the batch began into one commit hook; returns how many."""
        hooks = self._connection.run_on_commit
        ours = hooks[self._first_hook :]
        to_store = [hook[1].args for hook in ours if _is_event(hook[1], _store_and_send)]
        stored = [row for hook in ours if _is_event(hook[1], _send) for row in hook[1].args[0]]
        hooks[self._first_hook :] = [hook for hook in ours if not _is_event(hook[1], _store_and_send, _send)]
        alias = self._connection.alias
        if to_store:
            transaction.on_commit(partial(_store_and_send_all, to_store), using=alias, robust=True)
        if stored:
            transaction.on_commit(partial(_send, stored), using=alias, robust=True)
        return len(to_store) + len(stored)


def _is_event(hook: Any, *kinds: Any) -> bool:
    return isinstance(hook, partial) and hook.func in kinds


def _store_and_send(event: str, data: dict) -> None:
    _store_and_send_all([(event, data)])


def _store_and_send_all(events: list[tuple[str, dict]]) -> None:
    try:
        rows = _store_on_a_live_connection(events)
    except Exception:
        logger.exception("could not store events %s", ", ".join(sorted({event for event, _ in events})))
        return
    _send(rows)


def _send(rows: list[EventLog]) -> None:
    for start in range(0, len(rows), LAYER_MESSAGE_EVENTS):
        _group_send(EVENTS_GROUP, stored_message(rows[start : start + LAYER_MESSAGE_EVENTS]))


def stored_message(rows: list[EventLog]) -> dict:
    """The channel-layer message that brings stored events to every process's hub, in seq order."""
    return {"type": "events.stored", "events": [(row.seq, row.event, event_text(row)) for row in rows]}


def _store_on_a_live_connection(events: list[tuple[str, dict]]) -> list[EventLog]:
    """Store the events of a committed change; a connection lost since the commit (PostgreSQL
    restarted, its backend terminated) is replaced once, so the change does not lose its events."""
    try:
        return _store(events)
    except (OperationalError, InterfaceError):
        if connection.in_atomic_block:
            raise  # inside someone's transaction: not ours to reconnect
        connection.close()
        return _store(events)


def _store(events: list[tuple[str, dict]]) -> list[EventLog]:
    with transaction.atomic():
        if connection.vendor == "postgresql":
            # Without it two writers could commit seq 11 before seq 10, and a replay
            # reading between the two commits would skip 10 for good.
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [EVENT_LOG_LOCK_KEY])
        if len(events) == 1:
            return [_insert_one(*events[0])]
        return EventLog.objects.bulk_create(EventLog(event=event, data=data) for event, data in events)


def _insert_one(event: str, data: dict) -> EventLog:
    """One event-log row in one statement: the common case (a service's single event), where
    the ORM's insert cost more than the database's work."""
    now = timezone.now()
    quote = connection.ops.quote_name
    table, seq = quote(EventLog._meta.db_table), quote(EventLog._meta.pk.column)
    columns = ", ".join(quote(EventLog._meta.get_field(name).column) for name in _INSERTED)
    values = [event, _DATA.get_db_prep_save(data, connection), connection.ops.adapt_datetimefield_value(now)]
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO {table} ({columns}) VALUES (%s, %s, %s) RETURNING {seq}", values)
        (pk,) = cursor.fetchone()
    return EventLog.from_db(connection.alias, ("seq", *_INSERTED), (pk, event, data, now))


def _has_listeners(layer, group: str) -> bool:
    """An in-memory layer only reaches this process: with nobody here in the group, a send
    would only cost an event loop. Any other layer may have listeners elsewhere."""
    return not isinstance(layer, InMemoryChannelLayer) or bool(layer.groups.get(group))


def _group_send(group: str, message: dict) -> None:
    try:
        layer = get_channel_layer()
        if layer is not None and _has_listeners(layer, group):
            async_to_sync(layer.group_send)(group, message)
    except Exception:
        logger.exception("could not send to channel group %s", group)
