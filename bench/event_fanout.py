"""Event fan-out benchmark: WebSocket clients on one Daphne process, events broadcast inside it.

    .venv/bin/python -m bench.event_fanout                      # 200 clients, 1,000 events
    .venv/bin/python -m bench.event_fanout --layer redis        # the same through a local redis-server
    .venv/bin/python -m bench.event_fanout --clients 50 --events 200 --rate 100
    .venv/bin/python -m bench.event_fanout --batch --layer redis  # coalesced frames, as pages ask

One Daphne process serves ``/ws/events/`` on a fresh migrated SQLite file; N real
``websockets`` clients connect with a staff token. A bench-only HTTP path on that process
emits the events with ``broadcast`` (each from its own committed transaction, as a service
does) at a steady rate, stamping ``sent_at``; latency is a client's receive time minus
``sent_at`` (same machine, same clock): event-log write, channel layer, consumer, socket
and the client's JSON parse. Clients missing an event afterwards reconnect with
``?since=`` (replay) to show the delivered count with replay. The baseline, measured in
the same run, is one client receiving a shorter stream at the same rate.

CPU: the Daphne process's CPU (``/proc``) from the first emit to the last delivery, per event,
in each phase; the fan-out's CPU per event per client is (fan-out - baseline) / (clients - 1):
what each further open page costs the server for each event (the emit, the log write and the
hub's work per event are in both phases). ``--batch``: clients ask for coalesced
``system_events`` frames (``?batch=1``), as the pages do.

Everything is bounded: each phase has a deadline, and Daphne (and Redis) are stopped on exit.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.support.django_process import DaphneServer

BENCH_APPLICATION = "bench.event_fanout:application"
EMIT_PATH = "/bench/emit/"


# --- inside the Daphne process -----------------------------------------------------------


def emit_events(count: int, rate: float) -> dict[str, Any]:
    """Broadcast ``count`` events at ``rate`` per second; returns the seq range they got."""
    from django.db import connection, transaction

    from core.events import broadcast, latest_event_seq

    first = latest_event_seq() + 1
    started = time.monotonic()
    try:
        for number in range(count):
            pause = started + number / rate - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            with transaction.atomic():
                broadcast("bench_tick", n=number, sent_at=time.time())
        return {"first": first, "last": latest_event_seq(), "seconds": time.monotonic() - started}
    finally:
        connection.close()


def _bench_application():
    """The project's ASGI application plus ``POST /bench/emit/?count=&rate=`` (this benchmark only)."""
    from urllib.parse import parse_qs

    from asgiref.sync import sync_to_async

    from config.asgi import application as desk

    async def application(scope, receive, send):
        if scope["type"] != "http" or scope["path"] != EMIT_PATH:
            return await desk(scope, receive, send)
        query = parse_qs(scope["query_string"].decode())
        # Not thread-sensitive: the consumers' database calls keep their own thread meanwhile.
        result = await sync_to_async(emit_events, thread_sensitive=False)(int(query["count"][0]), float(query["rate"][0]))
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": json.dumps(result).encode()})

    return application


def __getattr__(name: str):
    # Daphne asks for ``application``; building it sets Django up, which the driver never needs.
    if name == "application":
        return _bench_application()
    raise AttributeError(name)


def create_staff_token() -> str:
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    # A superuser: ``bench_tick`` is declared by no app, and an undeclared event reaches superusers only
    # (core.events.declare_events); a plain staff user got nothing since that rule came.
    user = get_user_model().objects.create_superuser("bench", password="pw-bench-123")
    return Token.objects.create(user=user).key


# --- the driver ---------------------------------------------------------------------------


@dataclass
class Client:
    latencies_ms: dict[int, float] = field(default_factory=dict)  # from the broadcast() call
    from_log_ms: list[float] = field(default_factory=list)  # from the event's timestamp (log write)
    replayed: set[int] = field(default_factory=set)


@dataclass
class PhaseResult:
    clients: int
    events: int
    delivered_live: int
    delivered_with_replay: int
    p50_ms: float
    p95_ms: float
    p99_ms: float
    max_ms: float
    from_log_p50_ms: float
    from_log_p95_ms: float
    emit_seconds: float
    daphne_cpu_ms_per_event: float

    @property
    def expected(self) -> int:
        return self.clients * self.events


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def listen(url: str, headers: dict[str, str], client: Client, wanted: range, connected: asyncio.Event) -> None:
    """Record the latency of every wanted event until all arrived (or the task is cancelled)."""
    import websockets

    async with websockets.connect(url, additional_headers=headers, max_queue=None, open_timeout=30) as ws:
        connected.set()
        async for raw in ws:
            received = time.time()
            frame = json.loads(raw)
            events = frame["data"]["events"] if frame["type"] == "system_events" else [frame["data"]]
            for data in events:
                if data.get("seq") in wanted:
                    client.latencies_ms[data["seq"]] = (received - data["sent_at"]) * 1000
                    client.from_log_ms.append((received - datetime.fromisoformat(data["timestamp"]).timestamp()) * 1000)
            if len(client.latencies_ms) == len(wanted):
                return


async def replay_missing(url: str, headers: dict[str, str], client: Client, wanted: range, deadline: float) -> None:
    import websockets

    missing = [seq for seq in wanted if seq not in client.latencies_ms]
    if not missing:
        return
    async with websockets.connect(f"{url}?since={missing[0] - 1}", additional_headers=headers, max_queue=None) as ws:
        while set(missing) - client.replayed and time.monotonic() < deadline:
            try:
                data = json.loads(await asyncio.wait_for(ws.recv(), max(0.1, deadline - time.monotonic())))["data"]
            except TimeoutError:
                return
            client.replayed.add(data["seq"])


async def run_phase(
    server: DaphneServer, token: str, clients: int, events: int, rate: float, timeout: float, batch: bool = False
) -> PhaseResult:
    from bench.cluster import cpu_seconds

    url = f"ws://127.0.0.1:{server.port}/ws/events/"
    live_url = url + "?batch=1" if batch else url
    headers = {"Authorization": f"Token {token}"}
    deadline = time.monotonic() + timeout
    states = [Client() for _ in range(clients)]
    # The seqs this phase will get: the log is written only by this benchmark.
    first = await asyncio.to_thread(latest_seq, server) + 1
    wanted = range(first, first + events)
    connected = [asyncio.Event() for _ in range(clients)]
    listeners = []
    for index, state in enumerate(states):
        listeners.append(asyncio.create_task(listen(live_url, headers, state, wanted, connected[index])))
        if index % 20 == 19:
            await asyncio.wait_for(asyncio.gather(*(event.wait() for event in connected[: index + 1])), 60)
    await asyncio.wait_for(asyncio.gather(*(event.wait() for event in connected)), 60)

    assert server.process is not None
    cpu_before = cpu_seconds(server.process.pid)
    emitted = await asyncio.to_thread(emit, server, events, rate, max(1.0, deadline - time.monotonic()))
    if (emitted["first"], emitted["last"]) != (wanted.start, wanted.stop - 1):
        raise RuntimeError(f"expected seqs {wanted.start}..{wanted.stop - 1}, the server stored {emitted}")
    # Let the tail arrive, then stop listening.
    settle_until = min(deadline, time.monotonic() + 10)
    while time.monotonic() < settle_until and any(len(state.latencies_ms) < events for state in states):
        await asyncio.sleep(0.05)
    daphne_cpu = cpu_seconds(server.process.pid) - cpu_before
    for listener in listeners:
        listener.cancel()
    await asyncio.wait_for(asyncio.gather(*listeners, return_exceptions=True), 30)
    replay_deadline = min(deadline, time.monotonic() + 30)
    await asyncio.gather(*(replay_missing(url, headers, state, wanted, replay_deadline) for state in states))

    latencies = [value for state in states for value in state.latencies_ms.values()]
    from_log = [value for state in states for value in state.from_log_ms]
    live = len(latencies)
    with_replay = live + sum(len(state.replayed - state.latencies_ms.keys()) for state in states)
    return PhaseResult(
        clients=clients,
        events=events,
        delivered_live=live,
        delivered_with_replay=with_replay,
        p50_ms=statistics.median(latencies) if latencies else float("nan"),
        p95_ms=percentile(latencies, 0.95) if latencies else float("nan"),
        p99_ms=percentile(latencies, 0.99) if latencies else float("nan"),
        max_ms=max(latencies) if latencies else float("nan"),
        from_log_p50_ms=statistics.median(from_log) if from_log else float("nan"),
        from_log_p95_ms=percentile(from_log, 0.95) if from_log else float("nan"),
        emit_seconds=emitted["seconds"],
        daphne_cpu_ms_per_event=daphne_cpu * 1000 / events,
    )


def emit(server: DaphneServer, count: int, rate: float, timeout: float) -> dict[str, Any]:
    request = urllib.request.Request(f"http://127.0.0.1:{server.port}{EMIT_PATH}?count={count}&rate={rate}", method="POST")
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.load(response)


def latest_seq(server: DaphneServer) -> int:
    return emit(server, 0, 1, 30)["first"] - 1


def report(label: str, result: PhaseResult) -> None:
    print(
        f"{label}: {result.clients} clients x {result.events} events (emitted in {result.emit_seconds:.1f} s): "
        f"delivered live {result.delivered_live}/{result.expected} ({100 * result.delivered_live / result.expected:.2f} %), "
        f"with replay {result.delivered_with_replay}/{result.expected} ({100 * result.delivered_with_replay / result.expected:.2f} %); "
        f"latency from broadcast(): p50 {result.p50_ms:.1f} ms, p95 {result.p95_ms:.1f} ms, p99 {result.p99_ms:.1f} ms, "
        f"max {result.max_ms:.1f} ms; from the log write: p50 {result.from_log_p50_ms:.1f} ms, p95 {result.from_log_p95_ms:.1f} ms; "
        f"Daphne CPU {result.daphne_cpu_ms_per_event:.2f} ms per event"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.event_fanout", description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=20.0, help="events per second (default 20)")
    parser.add_argument("--layer", choices=["memory", "redis"], default="memory", help="channel layer (default: in-memory)")
    parser.add_argument("--baseline-events", type=int, default=100, help="events of the one-client baseline")
    parser.add_argument("--timeout", type=float, default=240, help="upper bound of each phase, seconds")
    parser.add_argument("--batch", action="store_true", help="clients ask for coalesced frames (?batch=1), as pages do")
    args = parser.parse_args(argv)

    from contextlib import ExitStack

    from tests.support.django_process import DaphneServer, migrated_database, run_django
    from tests.support.services import RedisServer

    workdir = Path(tempfile.mkdtemp(prefix="agentdesk-bench-"))
    started = time.monotonic()
    try:
        with ExitStack() as stack:
            env: dict[str, str] = {}
            if args.layer == "redis":
                env["REDIS_URL"] = stack.enter_context(RedisServer()).url
            database = migrated_database("sqlite", workdir)
            token = run_django(database, "bench.event_fanout:create_staff_token")
            server = stack.enter_context(DaphneServer(database, {"LOG_LEVEL": "WARNING", **env}, application=BENCH_APPLICATION))
            print(f"command: {' '.join([Path(sys.executable).name, '-m', 'bench.event_fanout', *(argv if argv is not None else sys.argv[1:])])}")
            frames = "coalesced frames (?batch=1)" if args.batch else "one frame per event"
            print(f"setup: one Daphne process, {args.layer} channel layer, SQLite event log, rate {args.rate:g} events/s, {frames}")
            baseline = asyncio.run(run_phase(server, token, 1, args.baseline_events, args.rate, args.timeout, args.batch))
            report("baseline", baseline)
            fanout = asyncio.run(run_phase(server, token, args.clients, args.events, args.rate, args.timeout, args.batch))
            report("fan-out ", fanout)
            per_client = (fanout.daphne_cpu_ms_per_event - baseline.daphne_cpu_ms_per_event) / max(1, args.clients - 1)
            print(f"Daphne CPU per event per further client: {per_client * 1000:.1f} us ((fan-out - baseline) / (clients - 1))")
            print(
                f"ratio fan-out/baseline: p50 {fanout.p50_ms / baseline.p50_ms:.1f}x, p95 {fanout.p95_ms / baseline.p95_ms:.1f}x; "
                f"target p95 <= 100 ms: {'met' if fanout.p95_ms <= 100 else 'NOT met'}; total {time.monotonic() - started:.0f} s"
            )
            errors = [line for line in server.output().splitlines() if "ERROR" in line or "Traceback" in line]
            if errors:
                print(f"Daphne logged {len(errors)} error lines, the first: {errors[0]}")
            return 0 if fanout.delivered_with_replay == fanout.expected and not errors else 1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
