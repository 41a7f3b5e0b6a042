"""Server time of the overview page (``/``) at 1,000 residents with 1,000 stored ticks, against the
trade page (``/trade/``, every resident's stock and the ledger) on the same database as a baseline.

    .venv/bin/python -m bench.overview [--residents 1000] [--ticks 1000] [--repeat 15]

Runs in a child Django process on a fresh migrated SQLite file. Each page is requested through
Django's test client (the whole request: middleware, views, queries, templates), once to warm
up and then ``--repeat`` times; the median and the best count, and the median CPU time of the
process (SQLite runs in it: on a shared, busy machine that is the page's own cost). Target: < 300 ms.
The city: residents with needs, credits, stock, jobs, bounties; ``--ticks`` rounds, each with its
stats and its city sample, a minute apart; action logs and tool calls of the last 10 ticks.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

RECENT_TICKS = 10


def populate(*, residents: int, ticks: int) -> None:
    """A city of ``residents`` and ``ticks`` stored ticks, made with bulk inserts (not measured)."""
    from datetime import timedelta

    from django.utils import timezone

    from agents.models import Agent, AgentActionLog, AutonomyRound, PendingAction, ToolCall
    from bounties.models import Bounty
    from city.models import AgentResource, Building, BuildingKind, CitySample, Employment, ResourceType

    kinds = [ResourceType.objects.create(slug=slug, name=slug, edible=slug in ("bread", "apple")) for slug in ("apple", "bread", "flour", "stone", "wheat", "wood")]
    mill = BuildingKind.objects.create(slug="mill", name="磨坊", job_slots=500, wage=12)
    buildings = [Building.objects.create(name=f"磨坊{i}", kind=mill, job_slots=500, wage=12) for i in range(4)]
    agents = Agent.objects.bulk_create(
        Agent(name=f"bench-{i:05d}", credits=(i * 37) % 500, satiety=(i * 13) % 101, energy=(i * 29) % 101) for i in range(residents)
    )
    AgentResource.objects.bulk_create(
        AgentResource(agent=a, resource_type=kinds[(i + k) % len(kinds)], quantity=1 + (i * k) % 20)
        for i, a in enumerate(agents) for k in (0, 3)
    )
    Employment.objects.bulk_create(Employment(agent=a, building=buildings[i % 4]) for i, a in enumerate(agents) if i % 3)
    Bounty.objects.bulk_create(Bounty(title=f"任务{i}", reward=10, status="claimed", claimed_by=a) for i, a in enumerate(agents[:100]))
    now = timezone.now()
    rounds = AutonomyRound.objects.bulk_create(
        AutonomyRound(
            provider="openai", agent_count=residents, finished_at=now,
            stats={"duration_s": 2.5, "decided": residents, "success": residents - 40, "failed": 30, "pending": 10,
                   "fallback": 5, "tokens": 180 * residents, "by_action": {"rest": residents}},
        )
        for _ in range(ticks)
    )
    for age, round_ in enumerate(reversed(rounds)):
        round_.started_at = now - timedelta(minutes=age)
    AutonomyRound.objects.bulk_update(rounds, ["started_at"], batch_size=500)
    stock = {kind.slug: 1000 for kind in kinds}
    samples = CitySample.objects.bulk_create(
        CitySample(round=r, residents=residents, total_credits=250 * residents, stock=stock, transfers=20, transferred=60) for r in rounds
    )
    for sample, round_ in zip(samples, rounds, strict=True):
        sample.created_at = round_.started_at
    CitySample.objects.bulk_update(samples, ["created_at"], batch_size=500)
    for round_ in rounds[-RECENT_TICKS:]:
        AgentActionLog.objects.bulk_create(
            AgentActionLog(round=round_, agent=a, action="rest", status="failed" if i % 25 == 0 else "success") for i, a in enumerate(agents)
        )
        ToolCall.objects.bulk_create(
            ToolCall(agent=a, tool_name=("rest", "eat", "checkin", "claim_bounty")[i % 4], source="autonomy",
                     status="error" if i % 25 == 0 else "success", error_code="no_food" if i % 25 == 0 else "")
            for i, a in enumerate(agents)
        )
    PendingAction.objects.bulk_create(
        PendingAction(tool_name="transfer_resource", agent=a, mode="standalone", expires_at=now + timedelta(hours=1)) for a in agents[:50]
    )


def measure(*, residents: int, ticks: int, repeat: int) -> dict:
    """Child process: populate, then time both pages through the test client."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    populate(residents=residents, ticks=ticks)
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(get_user_model().objects.create_superuser("bench", password="bench-password"))
    figures = {}
    for path in ("/", "/trade/"):
        assert client.get(path).status_code == 200, path
        with CaptureQueriesContext(connection) as captured:
            response = client.get(path)
        queries = len(captured.captured_queries)  # read now: the next request clears the log
        times, cpu = [], []
        for _ in range(repeat):
            started, started_cpu = time.perf_counter(), time.process_time()
            client.get(path)
            times.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
        figures[path] = {"median_ms": 1000 * statistics.median(times), "best_ms": 1000 * min(times),
                         "cpu_median_ms": 1000 * statistics.median(cpu),
                         "queries": queries, "bytes": len(response.content)}
    return figures


def main() -> None:
    from tests.support.django_process import migrated_database, run_django

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--residents", type=int, default=1000)
    parser.add_argument("--ticks", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-overview-") as workdir:
        figures = run_django(
            migrated_database("sqlite", workdir), "bench.overview:measure", timeout=1800,
            residents=args.residents, ticks=args.ticks, repeat=args.repeat,
        )
    print(f"overview page: {args.residents} residents, {args.ticks} stored ticks (SQLite file, test client, {args.repeat} runs)")
    for path, label in (("/", "overview /"), ("/trade/", "baseline /trade/")):
        f = figures[path]
        print(f"  {label:<18} median {f['median_ms']:7.1f} ms  best {f['best_ms']:7.1f} ms  CPU median {f['cpu_median_ms']:7.1f} ms  "
              f"{f['queries']} queries  {f['bytes'] / 1024:.0f} KiB")
    ratio = figures["/"]["median_ms"] / figures["/trade/"]["median_ms"]
    print(f"  overview median {figures['/']['median_ms']:.1f} ms, CPU {figures['/']['cpu_median_ms']:.1f} ms "
          f"(target < 300 ms), ×{ratio:.2f} the trade page")


if __name__ == "__main__":
    main()
