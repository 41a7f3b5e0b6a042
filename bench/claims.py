"""Bounty claims per second under contention, on a throwaway PostgreSQL server.

    .venv/bin/python -m bench.claims [--agents 200] [--bounties 2000] [--threads 16]
                                     [--attempts 4000] [--with-sqlite]

Each workload runs in a child Django process on a fresh migrated database. Worker
threads (one connection each) pick a random agent and claim a bounty, each claim in its
own transaction as the API does; a won claim is completed at once so the agent is free
again. Workloads:

- baseline: one thread, random bounties (no contention), the reference figure;
- spread:   ``--threads`` threads, random bounties (occasional collisions);
- hotspot:  ``--threads`` threads all going for the oldest open bounty (every claim races).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import threading
import time
from collections import Counter


def run_workload(*, mode: str, agents: int, bounties: int, threads: int, attempts: int, seed: int = 1) -> dict:
    """Child-process side: create the data, run the threads, return the figures."""
    from django.db import connection, transaction
    from django.db.models import Count

    from agents.models import Agent
    from bounties.models import Bounty
    from bounties.services import claim_bounty, complete_bounty
    from core.errors import ApplicationError

    agent_ids = [a.pk for a in Agent.objects.bulk_create(Agent(name=f"bench-{i}") for i in range(agents))]
    Bounty.objects.bulk_create(Bounty(title=f"bench {i}", reward=1 + i % 100) for i in range(bounties))
    bounty_ids = list(Bounty.objects.order_by("id").values_list("id", flat=True))
    per_thread = attempts // threads
    outcomes: list[Counter] = [Counter() for _ in range(threads)]
    latencies: list[list[float]] = [[] for _ in range(threads)]
    start = threading.Barrier(threads + 1)

    def worker(index: int) -> None:
        rng = random.Random(seed * 1000 + index)
        try:
            start.wait()
            for _ in range(per_thread):
                agent_id = rng.choice(agent_ids)
                if mode == "hotspot":
                    target = Bounty.objects.filter(status="open").order_by("id").values_list("id", flat=True).first()
                    if target is None:
                        outcomes[index]["board_empty"] += 1
                        continue
                else:
                    target = rng.choice(bounty_ids)
                began = time.perf_counter()
                try:
                    with transaction.atomic():
                        claim_bounty(agent_id=agent_id, bounty_id=target)
                    outcome = "success"
                except ApplicationError as exc:
                    outcome = exc.code
                latencies[index].append(time.perf_counter() - began)
                outcomes[index][outcome] += 1
                if outcome == "success":
                    with transaction.atomic():
                        complete_bounty(agent_id=agent_id, bounty_id=target)
                    if mode != "hotspot":
                        # Reopen the board: a fresh bounty replaces the completed one.
                        with transaction.atomic():
                            bounty_ids.append(Bounty.objects.create(title="bench refill", reward=5).pk)
        finally:
            connection.close()

    workers = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for thread in workers:
        thread.start()
    start.wait()
    began = time.perf_counter()
    for thread in workers:
        thread.join()
    elapsed = time.perf_counter() - began
    total = sum(outcomes, Counter())
    flat = sorted(x for row in latencies for x in row)
    claimed_twice = (
        Bounty.objects.filter(status="claimed").values("claimed_by").order_by().annotate(n=Count("id")).filter(n__gt=1).count()
    )
    return {
        "mode": mode,
        "vendor": connection.vendor,
        "threads": threads,
        "elapsed": elapsed,
        "attempts": sum(total.values()) - total.get("board_empty", 0),
        "outcomes": dict(total),
        "p50_ms": 1000 * statistics.median(flat) if flat else 0.0,
        "p95_ms": 1000 * flat[int(len(flat) * 0.95) - 1] if flat else 0.0,
        "agents_with_two_claims": claimed_twice,
    }


def _print_row(label: str, result: dict, baseline: dict | None) -> None:
    attempts_per_s = result["attempts"] / result["elapsed"]
    wins_per_s = result["outcomes"].get("success", 0) / result["elapsed"]
    ratio = ""
    if baseline is not None:
        base = baseline["attempts"] / baseline["elapsed"]
        ratio = f"  ×{attempts_per_s / base:.2f} vs baseline"
    print(
        f"{label:<22} {result['threads']:>3} thr  {result['attempts']:>6} claims in {result['elapsed']:6.2f} s  "
        f"{attempts_per_s:8.1f} claims/s  {wins_per_s:8.1f} won/s  p50 {result['p50_ms']:6.2f} ms  "
        f"p95 {result['p95_ms']:6.2f} ms{ratio}"
    )
    print(f"{'':<22} outcomes {result['outcomes']}  agents with two claims: {result['agents_with_two_claims']}")


def main() -> None:
    from tests.support.django_process import migrated_database, run_django
    from tests.support.services import PostgresServer, postgres_available

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agents", type=int, default=200)
    parser.add_argument("--bounties", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--attempts", type=int, default=4000, help="claim attempts per contended workload")
    parser.add_argument("--with-sqlite", action="store_true", help="also run the workloads on file SQLite")
    args = parser.parse_args()
    available, reason = postgres_available()
    if not available:
        raise SystemExit(f"PostgreSQL is needed for this benchmark: {reason}")

    def workloads(url_for) -> None:
        common = {"agents": args.agents, "bounties": args.bounties}
        baseline = run_django(url_for(), "bench.claims:run_workload", mode="spread", threads=1,
                              attempts=max(args.attempts // 4, 200), timeout=1800, **common)
        _print_row("baseline (1 thread)", baseline, None)
        for mode in ("spread", "hotspot"):
            result = run_django(url_for(), "bench.claims:run_workload", mode=mode, threads=args.threads,
                                attempts=args.attempts, timeout=1800, **common)
            _print_row(mode, result, baseline)

    with tempfile.TemporaryDirectory(prefix="bench-claims-") as workdir:
        print(f"bounty claims: {args.agents} agents, {args.bounties} bounties, {args.threads} threads")
        with PostgresServer() as server:
            print(f"-- PostgreSQL ({server.bin_dir.parent.name}, fsync off, throwaway cluster)")
            workloads(lambda: migrated_database("postgres", workdir, server.url))
        if args.with_sqlite:
            print("-- SQLite file (WAL, IMMEDIATE transactions)")
            workloads(lambda: migrated_database("sqlite", workdir))


if __name__ == "__main__":
    main()
