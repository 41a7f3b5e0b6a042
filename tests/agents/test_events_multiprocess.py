"""Live events across real processes: Redis channel layer, two Daphne servers, a real client.

Each test gets a migrated database file (or PostgreSQL database) shared by its child
processes; the WebSocket side is the ``websockets`` library, not the test communicator.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import pytest
import websockets

from tests.agents.event_scenarios import create_bounty_over_http
from tests.support.django_process import DaphneServer, DatabaseKind, run_django
from tests.support.services import RedisServer

ChildDatabase = Callable[[DatabaseKind], str]


def redis_database(server: RedisServer, number: int) -> str:
    # A Redis database of its own per test: groups of earlier tests' servers stay out.
    return server.url.rsplit("/", 1)[0] + f"/{number}"


def stream_url(server: DaphneServer, since: int | None = None) -> str:
    query = "" if since is None else f"?since={since}"
    return f"ws://127.0.0.1:{server.port}/ws/events/{query}"


async def next_event(ws: websockets.ClientConnection, timeout: float = 15) -> dict:
    message = json.loads(await asyncio.wait_for(ws.recv(), timeout))
    assert message["type"] == "system_event", message
    return message["data"]


def test_commit_order_follows_seq_order_under_concurrent_writers(django_child: ChildDatabase, database_kind: DatabaseKind):
    result = run_django(django_child(database_kind), "tests.agents.event_scenarios:event_log_commit_order", writers=6, events_per_writer=60)
    assert result["stored"] == 360
    assert result["snapshots"] > 10  # the reader really ran beside the writers
    assert result["snapshots_with_gaps"] == 0, result["first_gap"]


def test_event_caused_by_a_request_to_server_a_reaches_a_real_client_on_server_b(
    redis_server: RedisServer, django_child: ChildDatabase
):
    database = django_child("sqlite")
    env = {"REDIS_URL": redis_database(redis_server, 1)}
    key = run_django(database, "tests.agents.event_scenarios:create_staff_token", username="script")
    headers = {"Authorization": f"Token {key}"}

    with DaphneServer(database, env) as server_a, DaphneServer(database, env) as server_b:

        async def scenario() -> tuple[dict, dict, dict]:
            async with websockets.connect(stream_url(server_a), additional_headers=headers) as on_a, websockets.connect(
                stream_url(server_b), additional_headers=headers
            ) as on_b:
                # Idle past the Redis layer's 5 s blocking read: connections must survive it.
                await asyncio.sleep(6)
                bounty = await asyncio.to_thread(create_bounty_over_http, server_a.url, key, "修路")
                return bounty, await next_event(on_b), await next_event(on_a)

        bounty, received_b, received_a = asyncio.run(scenario())
    assert received_a == received_b
    assert (received_b["event"], received_b["bounty_id"], received_b["title"]) == ("bounty_created", bounty["id"], "修路")


def test_event_from_a_process_without_a_server_reaches_clients(redis_server: RedisServer, django_child: ChildDatabase):
    # The autonomy loop and management commands broadcast from processes that serve nothing.
    database = django_child("sqlite")
    env = {"REDIS_URL": redis_database(redis_server, 4)}
    key = run_django(database, "tests.agents.event_scenarios:create_staff_token", username="script")

    with DaphneServer(database, env) as server:

        async def scenario() -> tuple[list[int], dict]:
            async with websockets.connect(stream_url(server), additional_headers={"Authorization": f"Token {key}"}) as ws:
                seqs = await asyncio.to_thread(run_django, database, "tests.agents.event_scenarios:broadcast_events", env=env, count=1)
                return seqs, await next_event(ws)

        seqs, received = asyncio.run(scenario())
    assert (received["seq"], received["event"], received["title"]) == (seqs[-1], "bounty_created", "悬赏 1")


def test_client_joining_mid_stream_gets_every_event_once_in_order(
    redis_server: RedisServer, django_child: ChildDatabase, database_kind: DatabaseKind
):
    database = django_child(database_kind)
    env = {"REDIS_URL": redis_database(redis_server, 2)}
    key = run_django(database, "tests.agents.event_scenarios:create_staff_token", username="script")
    headers = {"Authorization": f"Token {key}"}
    total = 100

    with DaphneServer(database, env) as server_a, DaphneServer(database, env) as server_b:

        async def scenario() -> tuple[list[int], list[int], list[int]]:
            async with websockets.connect(stream_url(server_a), additional_headers=headers) as watcher:
                producer = asyncio.create_task(
                    asyncio.to_thread(
                        run_django, database, "tests.agents.event_scenarios:broadcast_events", env=env, count=total, interval=0.05
                    )
                )
                seen = [(await next_event(watcher, timeout=60))["seq"] for _ in range(10)]
                # Joins on the other server while events keep coming: replay, then live.
                async with websockets.connect(stream_url(server_b, since=0), additional_headers=headers) as joiner:
                    assert not producer.done()
                    seen += [(await next_event(watcher))["seq"] for _ in range(total - 10)]
                    joined = [(await next_event(joiner))["seq"] for _ in range(total)]
                    stored = await producer
                    with pytest.raises(TimeoutError):
                        await asyncio.wait_for(joiner.recv(), 1)  # and nothing twice
            return seen, joined, stored

        seen, joined, stored = asyncio.run(scenario())
    assert len(stored) == total
    assert joined == stored
    assert seen == stored


def test_many_pages_connecting_and_leaving_at_once_on_redis(redis_server: RedisServer, django_child: ChildDatabase):
    # Each page joins and leaves its user group: a burst of more Redis commands than
    # redis-py's default pool (100 connections) allows at once.
    database = django_child("sqlite")
    env = {"REDIS_URL": redis_database(redis_server, 3)}
    key = run_django(database, "tests.agents.event_scenarios:create_staff_token", username="script")
    headers = {"Authorization": f"Token {key}"}
    pages = 150

    # What is tested is that the burst breaks nothing, not how fast 150 handshakes go: on a loaded
    # 2-core CI machine some waited past Daphne's 5 s and were dropped unanswered (stop 36).
    with DaphneServer(database, env, handshake_timeout=60) as server:

        async def scenario() -> list[int]:
            connections = await asyncio.gather(*(websockets.connect(stream_url(server), additional_headers=headers, open_timeout=60) for _ in range(pages)))
            await asyncio.gather(*(connection.close() for connection in connections))
            async with websockets.connect(stream_url(server), additional_headers=headers) as survivor:
                seqs = await asyncio.to_thread(run_django, database, "tests.agents.event_scenarios:broadcast_events", env=env, count=1)
                return [(await next_event(survivor))["seq"], seqs[-1]]

        received, stored = asyncio.run(scenario())
        output = server.output()
    assert received == stored
    assert "Exception inside application" not in output, output[-3000:]
