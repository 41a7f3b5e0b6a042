"""Live-event scenarios that tests run in Django child processes via ``run_django``, and
the HTTP call that causes an event on a running server."""

from __future__ import annotations

import json
import threading
import time
import urllib.request

from tests.support.threads import run_threads


def create_bounty_over_http(base_url: str, token: str, title: str) -> dict:
    """``POST /api/bounties/`` as a script would; the server broadcasts ``bounty_created``."""
    request = urllib.request.Request(
        f"{base_url}/api/bounties/",
        data=json.dumps({"title": title, "description": "", "reward": 5}).encode(),
        method="POST",
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 201
        return json.loads(response.read())


def create_staff_token(username: str) -> str:
    """A staff user with a DRF token; returns the key for ``Authorization: Token <key>``."""
    from rest_framework.authtoken.models import Token

    from tests.support.staff import create_staff

    user = create_staff(username, password="pw-staff-123")
    return Token.objects.create(user=user).key


def broadcast_events(count: int, interval: float = 0.0, first: int = 1) -> list[int]:
    """Broadcast ``count`` bounty_created events, each from its own committed transaction."""
    from django.db import transaction

    from core.events import broadcast
    from core.models import EventLog

    for number in range(first, first + count):
        with transaction.atomic():
            broadcast("bounty_created", bounty_id=number, title=f"悬赏 {number}")
        if interval:
            time.sleep(interval)
    return list(EventLog.objects.order_by("seq").values_list("seq", flat=True))


def event_log_commit_order(writers: int, events_per_writer: int) -> dict:
    """Writers broadcast concurrently while a reader keeps listing the stored seqs.

    A replay reads "every seq after N" once; that read is only complete if no smaller seq
    can still appear later, i.e. if every snapshot of the log is gap-free.
    """
    from django.db import transaction

    from core.events import broadcast
    from core.models import EventLog

    start = threading.Barrier(writers + 1)
    writers_left = [writers]
    lock = threading.Lock()
    snapshots_with_gaps: list[list[int]] = []
    snapshot_count = 0

    def write(writer: int) -> None:
        try:
            for number in range(events_per_writer):
                with transaction.atomic():
                    broadcast("agent_action", agent_id=writer, action=f"step {number}")
        finally:
            with lock:
                writers_left[0] -= 1  # a crashed writer must not keep the reader looping

    def read() -> None:
        nonlocal snapshot_count
        while writers_left[0]:
            seqs = list(EventLog.objects.order_by("seq").values_list("seq", flat=True))
            snapshot_count += 1
            if seqs != list(range(1, len(seqs) + 1)):
                snapshots_with_gaps.append(seqs)

    def role(index: int) -> None:
        start.wait()
        if index < writers:
            write(index)
        else:
            read()

    run_threads(writers + 1, role)
    return {
        "stored": EventLog.objects.count(),
        "snapshots": snapshot_count,
        "snapshots_with_gaps": len(snapshots_with_gaps),
        "first_gap": snapshots_with_gaps[0][-5:] if snapshots_with_gaps else None,
    }


def seed_demo(credentials_file: str) -> int:
    """The demo city, as ``make run`` loads it; returns how many residents it has."""
    from io import StringIO
    from pathlib import Path

    from django.core.management import call_command

    from agents import demo
    from agents.models import Agent

    demo.CREDENTIALS_FILE = Path(credentials_file)
    call_command("seed_demo", stdout=StringIO())
    return Agent.objects.filter(is_active=True).count()


def out_of_order_commits(signals: str) -> dict:
    """Writer A writes its event first but commits last; writer B commits in between.

    ``signals`` is a directory shared with the test: this child creates ``between`` once B has
    committed and A has not (on SQLite, which has one writer at a time, once B waits for A's
    write lock), and A commits only when the test has created ``proceed`` (the test replays
    through a real client meanwhile). An in-process reader replays in between too. Returns the
    wall-clock time each writer committed and each seq was sent to the channel layer.
    """
    from pathlib import Path

    from django.db import transaction

    import core.events
    from core.events import broadcast, stored_events
    from core.models import EventLog

    directory = Path(signals)
    a_written, b_committed, replayed = threading.Event(), threading.Event(), threading.Event()
    committed: dict[str, float] = {}
    sent: dict[int, float] = {}
    send = core.events._group_send

    def timed_send(group: str, message: dict) -> None:
        started = time.time()
        send(group, message)
        for seq, _, _ in message.get("events", ()):
            sent[seq] = (started, time.time())

    core.events._group_send = timed_send
    # Start-up is not delivery: the channel layer's first use imports and connects it.
    core.events._group_send("warm.up", {"type": "warm.up"})

    def commit(writer: str, wait: threading.Event | None) -> None:
        with transaction.atomic():
            # Registered before the event's own hook, so it runs first: the moment of the commit.
            transaction.on_commit(lambda: committed.__setitem__(writer, time.time()))
            broadcast("agent_action", agent_id=0, action=writer)
            if wait is None:
                return
            a_written.set()
            wait.wait(timeout=30)
            deadline = time.monotonic() + 30
            while not (directory / "proceed").exists() and time.monotonic() < deadline:
                time.sleep(0.01)

    between: dict[str, list] = {}

    def role(index: int) -> None:
        if index == 0:
            commit("A", replayed)
        elif index == 1:
            a_written.wait(timeout=30)
            commit("B", None)
            b_committed.set()
        else:
            a_written.wait(timeout=30)
            # PostgreSQL: B commits at once. SQLite: B waits for A's write lock; a second is enough.
            b_committed.wait(timeout=1.0)
            between["replay"] = [(seq, event) for seq, event, _ in stored_events(after=0)]
            (directory / "between").touch()
            replayed.set()

    run_threads(3, role)
    core.events._group_send = send
    last = between["replay"][-1][0] if between["replay"] else 0
    return {
        "replay_between": between["replay"],
        "replay_after": [seq for seq, _, _ in stored_events(after=last)],
        "stored": list(EventLog.objects.order_by("seq").values_list("seq", "data__action")),
        "committed": committed,
        "sent": sent,
    }


def no_advisory_lock_waits(writers: int, events_per_writer: int) -> dict:
    """Writers broadcast concurrently while a sampler reads ``pg_locks`` and ``pg_stat_activity``."""
    from django.db import connection, transaction

    from core.events import broadcast, relay_events
    from core.models import EventLog, EventOutbox

    start = threading.Barrier(writers + 1)
    writers_left = [writers]
    lock = threading.Lock()
    samples = {"taken": 0, "advisory_waiting": 0, "advisory_granted": 0}
    lock_waits: dict[str, int] = {}

    def write(writer: int) -> None:
        try:
            for number in range(events_per_writer):
                with transaction.atomic():
                    broadcast("agent_action", agent_id=writer, action=f"step {number}")
        finally:
            with lock:
                writers_left[0] -= 1

    def sample() -> None:
        with connection.cursor() as cursor:
            while writers_left[0]:
                cursor.execute(
                    """SELECT count(*) FILTER (WHERE NOT granted), count(*) FILTER (WHERE granted)
                       FROM pg_locks WHERE locktype = 'advisory'"""
                )
                waiting, granted = cursor.fetchone()
                cursor.execute(
                    "SELECT wait_event FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
                )
                samples["taken"] += 1
                samples["advisory_waiting"] += bool(waiting)
                samples["advisory_granted"] += bool(granted)
                for (wait_event,) in cursor.fetchall():
                    lock_waits[wait_event] = lock_waits.get(wait_event, 0) + 1

    def role(index: int) -> None:
        start.wait()
        if index < writers:
            write(index)
        else:
            sample()

    run_threads(writers + 1, role)
    # A relay stops after RELAY_ROUNDS while writes keep coming; a server's hub sweeps the rest.
    left_to_the_sweep = EventOutbox.objects.count()
    relay_events()
    seqs = list(EventLog.objects.order_by("seq").values_list("seq", flat=True))
    return {**samples, "lock_waits": lock_waits, "left_to_the_sweep": left_to_the_sweep, "stored": len(seqs), "distinct": len(set(seqs)), "left_in_outbox": EventOutbox.objects.count()}


def relay_failures() -> dict:
    """A relay that fails after the commit (twice: the connection is replaced once) leaves the
    event in the outbox; the next relay moves it, before the newer event, in order. A relay
    whose connection was lost once still delivers."""
    from unittest import mock

    from django.db import OperationalError, transaction

    import core.events
    from core.events import broadcast
    from core.models import EventLog, EventOutbox

    real_relay, attempts = core.events._relay, []

    def failing(times: int):
        def relay() -> int:
            attempts.append(len(attempts))
            if len(attempts) <= times:
                raise OperationalError("terminating connection due to administrator command")
            return real_relay()

        return relay

    with mock.patch("core.events._relay", side_effect=failing(2)):
        with transaction.atomic():
            broadcast("agent_action", agent_id=1, action="first")
    after_failure = {"log": EventLog.objects.count(), "outbox": EventOutbox.objects.count(), "attempts": len(attempts)}
    with transaction.atomic():
        broadcast("agent_action", agent_id=1, action="second")
    after_next = list(EventLog.objects.order_by("seq").values_list("data__action", flat=True))
    attempts.clear()
    with mock.patch("core.events._relay", side_effect=failing(1)):
        with transaction.atomic():
            broadcast("agent_action", agent_id=1, action="third")
    return {
        "after_failure": after_failure,
        "after_next": after_next,
        "lost_once_attempts": len(attempts),
        "final": list(EventLog.objects.order_by("seq").values_list("data__action", flat=True)),
        "outbox": EventOutbox.objects.count(),
    }


def one_relay_per_commit() -> dict:
    """Transactions with several events relay once after their commit, and a relay waiting on a
    savepoint that rolls back does not stand in for the events that stay: per transaction, the
    relays run and the events the log got, in order."""
    from unittest import mock

    from django.db import transaction

    import core.events
    from core.events import broadcast
    from core.models import EventLog, EventOutbox

    class Undone(Exception):
        pass

    def run(body) -> dict:
        before = EventLog.objects.count()
        with mock.patch("core.events._relay", side_effect=core.events._relay) as relay:
            with transaction.atomic():
                body()
        logged = EventLog.objects.order_by("seq").values_list("data__action", flat=True)[before:]
        return {"relays": relay.call_count, "logged": list(logged)}

    def undone(action: str) -> None:
        try:
            with transaction.atomic():
                broadcast("agent_action", agent_id=1, action=action)
                raise Undone
        except Undone:
            pass

    def three_with_a_savepoint() -> None:
        broadcast("agent_action", agent_id=1, action="a")
        with transaction.atomic():
            broadcast("agent_action", agent_id=1, action="b")
        broadcast("agent_action", agent_id=1, action="c")

    def after_an_undone_one() -> None:
        undone("undone")
        broadcast("agent_action", agent_id=1, action="kept")

    def before_an_undone_one() -> None:
        broadcast("agent_action", agent_id=1, action="first")
        undone("undone")

    def released_then_undone() -> None:
        with transaction.atomic():
            broadcast("agent_action", agent_id=1, action="released")
        undone("undone")
        broadcast("agent_action", agent_id=1, action="last")

    return {
        "three": run(three_with_a_savepoint),
        "after_undone": run(after_an_undone_one),
        "before_undone": run(before_an_undone_one),
        "released_then_undone": run(released_then_undone),
        "outbox": EventOutbox.objects.count(),
    }


def orphan_outbox_event(action: str) -> int:
    """An event whose writer committed it to the outbox and died before relaying it."""
    from core.models import EventOutbox

    return EventOutbox.objects.create(event="agent_action", data={"agent_id": 0, "action": action}).pk


def role_tokens(roles: list[str]) -> dict[str, str]:
    """One staff member per demo role (``agents.roles``), each with a DRF token; role -> key."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from agents.roles import apply_roles

    groups = apply_roles()
    keys = {}
    for role in roles:
        user = get_user_model().objects.create_user(role.replace(" ", "-"), is_staff=True)
        user.groups.set([groups[role]])
        keys[role] = Token.objects.create(user=user).key
    return keys


def propose(tool_names: list[str]) -> list[int]:
    """A proposal of each tool, each announced from its own committed transaction, in order."""
    from datetime import timedelta

    from django.db import transaction
    from django.utils import timezone

    from agents.models import Agent, PendingAction
    from agents.proposals import announce

    agent, _created = Agent.objects.get_or_create(name="Desk")
    ids = []
    for name in tool_names:
        with transaction.atomic():
            action = PendingAction.objects.create(
                tool_name=name, agent=agent, arguments={}, summary=name, expires_at=timezone.now() + timedelta(minutes=30)
            )
            announce(action)
        ids.append(action.pk)
    return ids


def create_superuser_token(username: str) -> str:
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    user = get_user_model().objects.create_superuser(username, password="pw-root-123")
    return Token.objects.create(user=user).key
