"""On the embedded default (no Redis), an event any process commits reaches every open
WebSocket client within a second: the autonomy loop and management commands run in
processes of their own, beside the Daphne that serves the pages."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import time

import pytest
import websockets

from tests.support.django_process import PROJECT_ROOT, DaphneServer, django_environment, run_django


def autonomy_tick_once(database: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "autonomy_tick", "--count", "1"],
        cwd=PROJECT_ROOT, env=django_environment(database), capture_output=True, text=True, timeout=120,
    )


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_tick_run_by_hand_reaches_a_client_of_the_server(django_child, kind, tmp_path):
    database = django_child(kind)
    run_django(database, "tests.agents.event_scenarios:seed_demo", credentials_file=str(tmp_path / "login"))
    key = run_django(database, "tests.agents.event_scenarios:create_staff_token", username="script")

    with DaphneServer(database) as server:  # no REDIS_URL: the in-memory layer, as make run has it

        async def scenario() -> tuple[int, list[dict]]:
            url = f"ws://127.0.0.1:{server.port}/ws/events/"
            async with websockets.connect(url, additional_headers={"Authorization": f"Token {key}"}) as ws:
                await asyncio.sleep(0.5)  # the hub is subscribed
                tick = await asyncio.to_thread(autonomy_tick_once, database)
                assert tick.returncode == 0, tick.stderr
                # Every action that went through is announced (a failed one is only logged).
                acted = sum(int(n) for n in re.findall(r"(?:success|pending) (\d+)", tick.stdout))
                received = []
                while sum(e["event"] == "agent_action" for e in received) < acted:
                    received.append(json.loads(await asyncio.wait_for(ws.recv(), 5))["data"])
                return acted, received

        acted, received = asyncio.run(scenario())
    actions = [e for e in received if e["event"] == "agent_action"]
    assert acted >= 3 and len(actions) == acted and all(e["agent_name"] for e in actions)
    seqs = [e["seq"] for e in received]
    assert seqs == sorted(set(seqs))  # each event once, in order


def test_an_event_committed_elsewhere_arrives_within_a_second_and_once(django_child):
    database = django_child("sqlite")
    key = run_django(database, "tests.agents.event_scenarios:create_staff_token", username="script")

    with DaphneServer(database) as server:

        async def scenario() -> tuple[list[float], list[int]]:
            url = f"ws://127.0.0.1:{server.port}/ws/events/"
            async with websockets.connect(url, additional_headers={"Authorization": f"Token {key}"}) as ws:
                await asyncio.sleep(0.5)
                latencies, seqs = [], []
                for n in range(5):
                    sent = time.monotonic()
                    await asyncio.to_thread(run_django, database, "tests.agents.event_scenarios:broadcast_events", count=1, first=n)
                    # the child's start-up is not delivery: time from its exit to arrival
                    done = time.monotonic()
                    data = json.loads(await asyncio.wait_for(ws.recv(), 5))["data"]
                    latencies.append(time.monotonic() - done)
                    seqs.append(data["seq"])
                    assert sent <= done
                with pytest.raises(TimeoutError):
                    await asyncio.wait_for(ws.recv(), 1)  # nothing arrives twice
                return latencies, seqs

        latencies, seqs = asyncio.run(scenario())
    assert max(latencies) < 1.0, latencies
    assert seqs == sorted(set(seqs)) and len(seqs) == 5


