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
