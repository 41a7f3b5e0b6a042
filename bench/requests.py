"""Daphne CPU per request of the API's dearest endpoints, beside a bare authenticated DRF view,
without the load: the part of ``bench.load --cpu-probe`` that can be repeated quickly, and a
profiler for one endpoint.

    .venv/bin/python -m bench.requests                            # 3 rounds of 100 requests per endpoint
    .venv/bin/python -m bench.requests --rounds 5 --requests 200
    .venv/bin/python -m bench.requests --baseline ../main         # before/after: that checkout's code beside this one's
    .venv/bin/python -m bench.requests --profile agent_list       # cProfile of 200 requests, in-process
    .venv/bin/python -m bench.requests --queries                  # SQL statements per request

The world is ``bench.load``'s (``--residents`` tick residents, 50 traders, funds, 1,000
bounties) on a throwaway PostgreSQL with the Redis channel layer. The measurement is
``bench.load``'s probe: requests in a row from one client to one Daphne process serving
``bench.asgi``, the process's CPU (``/proc``) over them; each round measures every endpoint
once, the bare view first. ``confirm`` (pending ``create_fund`` proposals confirmed, each
adding a fund) runs in rounds of its own after the others, beside the bare view again, so the
funds list reads the same five funds throughout. Printed: CPU ms per request and × bare per
round, then the median and spread (min–max) over the rounds. Target (issue 28): every endpoint
≤ 2× bare.

``--baseline DIR`` starts a second Daphne from another checkout's code (a worktree of main) on
the same database and measures both in every round, endpoint by endpoint, alternating which goes
first: on a machine whose load comes and goes, the pairs see the same load, which separate runs
would not. Both checkouts need the same migrations.

``--profile`` and ``--queries`` run the same requests through Django's test client inside a
Django child process instead (no Daphne, no ASGI): the view's own work.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bench.load import CPU_PROBES

TARGET_X_BARE = 2.0
# bench.load's probes plus the ledger and a confirm of a pending action (``{action}``: a fresh one per request).
PROBES = {**CPU_PROBES, "transfers": ("GET", "/api/transfers/")}
CONFIRM = ("POST", "/api/pending-actions/{action}/confirm/")
WARM_UP = 3  # untimed requests per endpoint and measurement: code loaded, connections open


def _request(name: str, world: dict[str, Any], number: int) -> tuple[str, str, dict | None]:
    """(method, path, body) of the ``number``-th request of probe ``name``."""
    sender, receiver = world["trader_ids"][:2]
    if name == "confirm":
        return CONFIRM[0], CONFIRM[1].format(action=world["pending_ids"].pop()), {}
    method, path = PROBES[name]
    body = None
    if method == "POST":
        pair = (sender, receiver) if number % 2 else (receiver, sender)  # back and forth: stock stays
        body = {"from_agent_id": pair[0], "to_agent_id": pair[1], "resource_type": "ore", "quantity": 1}
    return method, path.format(agent=sender), body


def _client_call(client: Any, world: dict[str, Any], name: str, number: int) -> Any:
    method, path, body = _request(name, world, number)
    if method == "POST":
        response = client.post(path, body, content_type="application/json")
    else:
        response = client.get(path)
    if response.status_code != 200:
        raise RuntimeError(f"{name}: {response.status_code} {response.content[:200]!r}")
    return response


def in_process(*, world: dict[str, Any], name: str, requests: int, mode: str) -> dict[str, Any]:
    """Child-process side of ``--profile`` / ``--queries``: the requests through Django's test client."""
    from django.conf import settings
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import clear_url_caches

    settings.ROOT_URLCONF = "bench.urls"
    clear_url_caches()
    settings.ALLOWED_HOSTS = ["*"]
    client = Client(HTTP_AUTHORIZATION=f"Token {world['token']}")
    if name == "transfers":
        for number in range(60):
            _client_call(client, world, "transfer", number)  # a full page of the ledger, as the probes read it
    for number in range(WARM_UP):
        _client_call(client, world, name, number)  # code loaded, caches warm
    if mode == "queries":
        with CaptureQueriesContext(connection) as captured:
            _client_call(client, world, name, 0)
        return {"queries": [query["sql"][:300] for query in captured.captured_queries]}
    profiler = cProfile.Profile(time.process_time)  # CPU, not wall: the database's own time is not the view's
    profiler.enable()
    for number in range(requests):
        _client_call(client, world, name, number)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("cumulative").print_stats(45)
    stats.sort_stats("tottime").print_stats(30)
    return {"profile": out.getvalue()}


def cpu_ms(http: Any, server: Any, world: dict[str, Any], name: str, requests: int) -> float:
    """Daphne CPU ms per request of probe ``name``: ``requests`` in a row to ``server``."""
    from bench.cluster import cpu_seconds

    def call(number: int) -> None:
        method, path, body = _request(name, world, number)
        response = http.request(method, server.url + path, json=body)
        if response.status_code != 200:
            raise RuntimeError(f"{name}: {response.status_code} {response.text[:200]}")

    for number in range(WARM_UP):
        call(number)
    before = cpu_seconds(server.process.pid)
    for number in range(requests):
        call(number)
    return (cpu_seconds(server.process.pid) - before) * 1000 / requests


def baseline_server(cluster: Any, root: Path) -> Any:
    """A Daphne serving ``root``'s code (another checkout) on ``cluster``'s database."""
    from tests.support import django_process

    saved = django_process.PROJECT_ROOT
    django_process.PROJECT_ROOT = root  # its working directory, so ``-m daphne`` imports root's code
    try:
        env = {**cluster.env, "PYTHONPATH": str(root)}
        return cluster.stack.enter_context(django_process.DaphneServer(cluster.database_url, env, application=cluster.application))
    finally:
        django_process.PROJECT_ROOT = saved


def measure_rounds(http: Any, servers: dict[str, Any], world: dict[str, Any], names: list[str], *, rounds: int, requests: int, label: str) -> list[dict[str, dict[str, float]]]:
    """``rounds`` rounds; in each, every probe on every server, the servers' order alternating by round."""
    from bench.cluster import load_average

    results = []
    for number in range(rounds):
        order = list(servers) if number % 2 == 0 else list(servers)[::-1]
        spent: dict[str, dict[str, float]] = {key: {} for key in servers}
        for name in names:
            for key in order:
                spent[key][name] = cpu_ms(http, servers[key], world, name, requests)
        results.append(spent)
        for key in servers:
            bare = spent[key]["bare"]
            figures = ", ".join(f"{name} {ms:.1f} ms ({ms / bare:.2f}x)" for name, ms in spent[key].items())
            print(f"{label} round {number + 1} [{key}]: {figures}   (load {load_average()})", flush=True)
    return results


def summary(results: list[dict[str, dict[str, float]]], servers: list[str]) -> tuple[str, bool]:
    """Per probe and server: the median CPU ms and × bare over the rounds, with their spread."""
    lines, failed = [], False
    names = list(results[0][servers[0]])
    for name in names:
        cells = []
        for key in servers:
            ms = [spent[key][name] for spent in results]
            ratio = [spent[key][name] / spent[key]["bare"] for spent in results]
            cells.append(
                f"{key} {statistics.median(ms):5.1f} ms ({min(ms):.1f}-{max(ms):.1f}) "
                f"{statistics.median(ratio):.2f}x ({min(ratio):.2f}-{max(ratio):.2f})"
            )
            if key == servers[-1] and name != "bare" and statistics.median(ratio) > TARGET_X_BARE:
                failed = True
                cells[-1] += f"  ABOVE {TARGET_X_BARE}x"
        lines.append(f"   {name:13} " + "   ".join(cells))
    return "\n".join(lines), failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=100, help="per endpoint and round")
    parser.add_argument("--residents", type=int, default=100)
    parser.add_argument("--baseline", type=Path, help="another checkout whose code a second Daphne serves, measured beside this one")
    parser.add_argument("--profile", choices=sorted([*PROBES, "confirm"]), help="cProfile this endpoint in-process instead")
    parser.add_argument("--queries", action="store_true", help="print each endpoint's SQL statements instead")
    args = parser.parse_args(argv)

    import httpx2 as httpx

    from bench.cluster import Cluster, load_average

    print("$ python -m bench.requests " + " ".join(argv if argv is not None else sys.argv[1:]))
    servers_count = 2 if args.baseline else 1
    profiled = args.requests * 2 + WARM_UP if args.profile == "confirm" or args.queries else 0
    proposals = max(profiled, servers_count * args.rounds * (args.requests + WARM_UP))
    with Cluster(database="postgres", daphnes=1, application="bench.asgi:application") as cluster:
        world = cluster.run(
            "bench.load:prepare", env={"AGENT_TOOL_CALLS_PER_MINUTE": "1000000"}, residents=args.residents, proposals=proposals
        )
        if args.profile or args.queries:
            for name in [args.profile] if args.profile else [*PROBES, "confirm"]:
                mode = "profile" if args.profile else "queries"
                result = cluster.run("bench.requests:in_process", world=world, name=name, requests=args.requests * 2, mode=mode)
                if mode == "queries":
                    print(f"\n{name}: {len(result['queries'])} statements")
                    for sql in result["queries"]:
                        print("   ", sql)
                else:
                    print(result["profile"])
            return 0
        cluster.start_servers()
        servers = {"this": cluster.daphnes[0]}
        if args.baseline:
            servers = {"baseline": baseline_server(cluster, args.baseline.resolve()), **servers}
        print(f"load average before: {load_average()}")
        with httpx.Client(timeout=30, headers={"Authorization": f"Token {world['token']}"}) as http:
            rounds = dict(rounds=args.rounds, requests=args.requests)
            reads = measure_rounds(http, servers, world, list(PROBES), label="endpoints", **rounds)
            confirms = measure_rounds(http, servers, world, ["bare", "confirm"], label="confirm", **rounds)
        print(f"load average after: {load_average()}")
        print(f"\nmedian (min-max) over {args.rounds} rounds of {args.requests} requests, CPU ms per request and x bare:")
        read_lines, read_failed = summary(reads, list(servers))
        confirm_lines, confirm_failed = summary(confirms, list(servers))
        print(read_lines)
        print("  confirm's own rounds:")
        print(confirm_lines)
    return 1 if read_failed or confirm_failed else 0


if __name__ == "__main__":
    sys.exit(main())
