"""The event log without a global lock (core.events): writers that commit out of order, a reader
replaying in between, real clients on a real server; no writer ever waits on an advisory lock.

Each scenario runs in a child Django process with real threads and connections, on file SQLite
and on PostgreSQL (``django_child``); the clients are the ``websockets`` library against Daphne
with the Redis layer, so a live event is pushed, not polled.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
import websockets

from tests.agents.test_events_multiprocess import ChildDatabase, redis_database, stream_url
from tests.support.django_process import DaphneServer, DatabaseKind, run_django
from tests.support.services import RedisServer

SCENARIOS = "tests.agents.event_scenarios"
# A live event reaches an open page within this long after its change commits.
LIVE_WITHIN = 0.1


async def receive(ws: websockets.ClientConnection, count: int, timeout: float = 15) -> list[tuple[dict, float]]:
    """``count`` system events with the wall-clock time each arrived."""
    received = []
    while len(received) < count:
        message = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if message["type"] == "system_event":
            received.append((message["data"], time.time()))
    return received


async def receive_for(ws: websockets.ClientConnection, seconds: float) -> list[dict]:
    received = []
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        try:
            message = json.loads(await asyncio.wait_for(ws.recv(), left))
        except TimeoutError:
            break
        received.append(message["data"])
    return received


async def wait_for_file(path: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        await asyncio.sleep(0.005)


def test_writers_committing_out_of_order_skip_nothing_repeat_nothing_and_arrive_live(
    redis_server: RedisServer, django_child: ChildDatabase, database_kind: DatabaseKind, tmp_path: Path
):
    database = django_child(database_kind)
    env = {"REDIS_URL": redis_database(redis_server, 5 if database_kind == "sqlite" else 6)}
    key = run_django(database, f"{SCENARIOS}:create_staff_token", username="script")
    headers = {"Authorization": f"Token {key}"}
    signals = tmp_path / "signals"
    signals.mkdir()

    with DaphneServer(database, env) as server:

        async def scenario():
            async with websockets.connect(stream_url(server), additional_headers=headers) as live:
                await asyncio.sleep(0.5)  # the hub has joined the events group
                writers = asyncio.create_task(
                    asyncio.to_thread(run_django, database, f"{SCENARIOS}:out_of_order_commits", env=env, signals=str(signals))
                )
                heard = asyncio.create_task(receive(live, 2, timeout=120))  # the child starts Django first
                await wait_for_file(signals / "between")
                # A client (re)connecting now replays what is committed, then follows live.
                async with websockets.connect(stream_url(server, since=0), additional_headers=headers) as replaying:
                    between = await receive_for(replaying, 0.5)
                    (signals / "proceed").touch()
                    result = await writers
                    after = [data for data, _ in await receive(replaying, 2 - len(between))]
                    later = await receive_for(replaying, 1.0) + await receive_for(live, 0.1)
                return result, await heard, between, after, later

        result, heard, between, after, later = asyncio.run(scenario())

    stored = [seq for seq, _ in result["stored"]]
    assert len(stored) == 2
    assert [data["seq"] for data, _ in heard] == stored  # live: each event once, in seq order
    assert [data["seq"] for data in between + after] == stored  # replay, then live: nothing skipped
    assert later == []  # and nothing twice
    assert result["replay_after"] == stored[len(result["replay_between"]) :]
    actions = dict(result["stored"])
    for data, arrived in heard:
        delay = arrived - result["committed"][actions[data["seq"]]]
        assert delay < LIVE_WITHIN, f"{data['action']} arrived {delay * 1000:.0f} ms after its commit ({result})"
    if database_kind == "postgres":
        # A wrote first and committed last: B got the first seq, at its own commit, and the
        # replays in between (in the child and through a client) saw B without skipping A.
        assert [action for _, action in result["stored"]] == ["B", "A"]
        assert [seq for seq, _ in result["replay_between"]] == stored[:1]
        assert [data["seq"] for data in between] == stored[:1]
    else:
        # One writer at a time: B waited for A's commit, and nothing was visible in between.
        assert [action for _, action in result["stored"]] == ["A", "B"]
        assert result["replay_between"] == [] and between == []


def test_no_writer_waits_on_an_advisory_lock(django_child: ChildDatabase):
    result = run_django(django_child("postgres"), f"{SCENARIOS}:no_advisory_lock_waits", writers=8, events_per_writer=80)
    assert result["stored"] == result["distinct"] == 640 and result["left_in_outbox"] == 0
    assert result["taken"] > 50  # the sampler really ran beside the writers
    assert result["advisory_granted"] > 0  # and saw the relay at work
    assert result["advisory_waiting"] == 0, result
    assert set(result["lock_waits"]) <= {"extend"}, result  # at most the table growing, never a logical lock


def test_a_failed_relay_leaves_the_event_for_the_next_one(django_child: ChildDatabase):
    result = run_django(django_child("postgres"), f"{SCENARIOS}:relay_failures")
    # The change committed; its event waits in the outbox, after one attempt on a new connection.
    assert result["after_failure"] == {"log": 0, "outbox": 1, "attempts": 2}
    assert result["after_next"] == ["first", "second"]
    assert result["lost_once_attempts"] == 2  # a connection lost once: replaced, and delivered
    assert result["final"] == ["first", "second", "third"] and result["outbox"] == 0


def test_a_transaction_relays_once_for_all_its_events(django_child: ChildDatabase):
    result = run_django(django_child("postgres"), f"{SCENARIOS}:one_relay_per_commit")
    assert result["three"] == {"relays": 1, "logged": ["a", "b", "c"]}
    # The relay of an event whose savepoint rolled back went with it; the next event has its own.
    assert result["after_undone"] == {"relays": 1, "logged": ["kept"]}
    assert result["before_undone"] == {"relays": 1, "logged": ["first"]}
    assert result["released_then_undone"] == {"relays": 1, "logged": ["released", "last"]}
    assert result["outbox"] == 0


def test_an_event_whose_writer_died_before_relaying_reaches_clients(redis_server: RedisServer, django_child: ChildDatabase):
    database = django_child("postgres")
    env = {"REDIS_URL": redis_database(redis_server, 7)}
    key = run_django(database, f"{SCENARIOS}:create_staff_token", username="script")

    with DaphneServer(database, env) as server:

        async def scenario() -> list[tuple[dict, float]]:
            async with websockets.connect(stream_url(server), additional_headers={"Authorization": f"Token {key}"}) as ws:
                await asyncio.to_thread(run_django, database, f"{SCENARIOS}:orphan_outbox_event", action="orphan")
                return await receive(ws, 1, timeout=10)

        [(data, _)] = asyncio.run(scenario())
    assert (data["seq"], data["action"]) == (1, "orphan")
