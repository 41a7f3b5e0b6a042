"""Daphne CPU per request of the API's dearest endpoints, beside a bare authenticated DRF view,
without the load: the part of ``bench.load --cpu-probe`` that can be repeated quickly, and a
profiler for one endpoint.

    .venv/bin/python -m bench.requests                            # 3 rounds of 100 requests per endpoint
    .venv/bin/python -m bench.requests --rounds 5 --requests 200
    .venv/bin/python -m bench.requests --profile agent_list       # cProfile of 200 requests, in-process
    .venv/bin/python -m bench.requests --queries                  # SQL statements per request

The world is ``bench.load``'s (``--residents`` tick residents, 50 traders, funds, 1,000
bounties) on a throwaway PostgreSQL with the Redis channel layer. The measurement is
``bench.load``'s probe: requests in a row from one client to one Daphne process serving
``bench.asgi``, the process's CPU (``/proc``) over them; each round measures every endpoint
once, the bare view first. Printed: CPU ms per request and × bare per round, then the spread
(min–max) over the rounds. Target (issue 28): every endpoint ≤ 2× bare.

``--profile`` and ``--queries`` run the same requests through Django's test client inside a
Django child process instead (no Daphne, no ASGI): the view's own work.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
from typing import Any

from bench.load import CPU_PROBES, Backends, Load, cpu_per_request

TARGET_X_BARE = 2.0


def _client_call(client: Any, world: dict[str, Any], name: str, number: int) -> Any:
    method, path = CPU_PROBES[name]
    sender, receiver = world["trader_ids"][:2]
    path = path.format(agent=sender)
    if method == "POST":
        pair = (sender, receiver) if number % 2 else (receiver, sender)
        body = {"from_agent_id": pair[0], "to_agent_id": pair[1], "resource_type": "ore", "quantity": 1}
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
    for number in range(3):
        _client_call(client, world, name, number)  # code loaded, caches warm
    if mode == "queries":
        with CaptureQueriesContext(connection) as captured:
            _client_call(client, world, name, 0)
        return {"queries": [query["sql"][:300] for query in captured.captured_queries]}
    profiler = cProfile.Profile()
    profiler.enable()
    for number in range(requests):
        _client_call(client, world, name, number)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("cumulative").print_stats(45)
    stats.sort_stats("tottime").print_stats(30)
    return {"profile": out.getvalue()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=100, help="per endpoint and round")
    parser.add_argument("--residents", type=int, default=100)
    parser.add_argument("--profile", choices=sorted(CPU_PROBES), help="cProfile this endpoint in-process instead")
    parser.add_argument("--queries", action="store_true", help="print each endpoint's SQL statements instead")
    args = parser.parse_args(argv)

    from bench.cluster import Cluster, load_average

    print("$ python -m bench.requests " + " ".join(argv if argv is not None else sys.argv[1:]))
    with Cluster(database="postgres", daphnes=1, application="bench.asgi:application") as cluster:
        world = cluster.run(
            "bench.load:prepare", env={"AGENT_TOOL_CALLS_PER_MINUTE": "1000000"}, residents=args.residents, proposals=0
        )
        if args.profile or args.queries:
            for name in [args.profile] if args.profile else list(CPU_PROBES):
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
        load = Load(world=world, backends=Backends(cluster.urls), http=None)
        print(f"load average before: {load_average()}")
        rounds = []
        for number in range(args.rounds):
            figures = cpu_per_request(cluster, load, args.requests)
            rounds.append(figures)
            print(f"round {number + 1}: " + ", ".join(f"{name} {f['cpu_ms']:.1f} ms ({f['x_bare']:.2f}x)" for name, f in figures.items()))
        print(f"load average after: {load_average()}")
        print("\nspread over the rounds (min-max):")
        failed = False
        for name in CPU_PROBES:
            ms = [r[name]["cpu_ms"] for r in rounds]
            ratio = [r[name]["x_bare"] for r in rounds]
            within = max(ratio) <= TARGET_X_BARE
            failed |= name != "bare" and not within
            mark = "" if name == "bare" else ("  ok" if within else f"  ABOVE {TARGET_X_BARE}x")
            print(f"   {name:13} {min(ms):6.1f}-{max(ms):6.1f} ms   {min(ratio):.2f}-{max(ratio):.2f}x bare{mark}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
