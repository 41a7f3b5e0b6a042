"""Faults under load: each breaks one part of the setup while ``bench.load`` runs a smaller load,
then the same reconciliation must find nothing lost.

    .venv/bin/python -m bench.faults                          # every fault
    .venv/bin/python -m bench.faults --only kill_daphne,restart_redis
    .venv/bin/python -m bench.faults --json faults.json

The faults (each on a fresh cluster, ``--at`` s into a ``--duration`` s run):

- ``kill_daphne``: kill -9 one of the two Daphne processes. The split stops sending it requests
  once it refuses connections; its WebSocket clients reconnect to the other with ``?since=``.
- ``restart_redis``: stop redis-server (no persistence: groups and queued messages are gone) and
  start it again 2 s later on its port. Events must resume live, and nothing leaves the log.
- ``restart_postgres``: ``pg_ctl restart -m fast``. Requests in flight get a clean 503 JSON error.
- ``terminate_backends``: ``pg_terminate_backend`` on every connection, twice, 3 s apart, with
  ``DATABASE_CONN_MAX_AGE=60`` (kept connections: the health checks must replace them).
- ``model_drop``: one model-driven tick (the scripted OpenAI-compatible server, 2 batches at a time)
  whose endpoint goes away after its third request, answered or not. The tick finishes; the
  batches it could not ask are reported as fallback; every resident has exactly one action.
- ``sqlite_disk_full``: the embedded default (SQLite, 1 Daphne); the files of the Daphne process
  and of the tick loop may not grow past 256 KiB for 8 s (RLIMIT_FSIZE, what a full disk does to
  a write), then the limit goes. Writes get a clean 503; the database passes ``integrity_check``.

Per fault: requests, outcomes by class, 5xx, what happened after the fault (requests served,
errors other than documented ones and clean 503s), the reconciliation anomalies and undelivered
events (what was lost: must be nothing).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.load import error_classes, print_report, run_level

FAULTS = ("kill_daphne", "restart_redis", "restart_postgres", "terminate_backends", "model_drop", "sqlite_disk_full")
RECOVERY_SECONDS = 3  # after the fault's action returned, the answers counted as "after"
DISK_LIMIT_BYTES = 256 * 1024


def integrity() -> str:
    """Child process: SQLite's own check of the database file."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("PRAGMA integrity_check")
        return ", ".join(row[0] for row in cursor.fetchall())


def tick_outcome(*, round_id: int, agent_ids: list[int]) -> dict[str, Any]:
    """Child process: the model tick's round, checked: finished, one action per resident, the
    residents of failed batches rested, and its stats agree with its rows."""
    from django.db.models import Count

    from agents.models import AgentActionLog, AutonomyRound

    found = []
    tick = AutonomyRound.objects.get(pk=round_id)
    if tick.finished_at is None:
        found.append("the round never finished")
    per_agent = Counter(dict(AgentActionLog.objects.filter(round=tick).values("agent").annotate(n=Count("pk")).values_list("agent", "n")))
    if set(per_agent) != set(agent_ids) or any(n != 1 for n in per_agent.values()):
        found.append(f"{len(per_agent)} residents logged for {len(agent_ids)}, repeated {[a for a, n in per_agent.items() if n > 1][:5]}")
    failed = {agent for error in tick.errors for agent in error["agent_ids"]}
    actions = dict(AgentActionLog.objects.filter(round=tick, agent_id__in=failed).values_list("agent_id", "action"))
    if any(action != "rest" for action in actions.values()):
        found.append("a resident of a failed batch did something other than rest")
    stats = tick.stats
    if stats.get("fallback") != len(failed):
        found.append(f"stats fallback {stats.get('fallback')} != {len(failed)} residents of failed batches")
    return {"anomalies": found, "failed_batches": len(tick.errors), "fallback": stats.get("fallback"),
            "success": stats.get("success"), "agents": tick.agent_count, "errors": [e["error"][:80] for e in tick.errors[:2]]}


def after_fault(report: dict[str, Any]) -> dict[str, int]:
    """Outcomes from RECOVERY_SECONDS after the fault's action returned to the end of the run."""
    marks = [t for t, outcome in report["timeline"] if outcome == "FAULT_END"]
    if not marks:
        return {}
    since = marks[-1] + RECOVERY_SECONDS
    return error_classes(Counter(outcome for t, outcome in report["timeline"] if t >= since and not outcome.startswith("FAULT")))


def run_fault(name: str, args: argparse.Namespace, postgres) -> dict[str, Any]:
    from bench.cluster import Cluster

    sqlite = name == "sqlite_disk_full"
    env = {"DATABASE_CONN_MAX_AGE": "60"} if name == "terminate_backends" else {}
    extra: dict[str, Any] = {}
    marks: dict[str, Any] = {}
    with Cluster(
        database="sqlite" if sqlite else "postgres", daphnes=1 if sqlite else 2, redis=not sqlite, env=env, postgres=postgres
    ) as cluster:
        faults = [(args.at, lambda: _break(name, cluster, marks, extra, args))]
        report = run_level(
            cluster, users=args.users, duration=args.duration, think=args.think, clients=args.clients,
            residents=args.residents, tick_interval=args.tick_interval, faults=faults, marks=marks,
            tick_loop=name != "model_drop",
        )
        if sqlite:
            extra["integrity_check"] = cluster.run("bench.faults:integrity")
            if extra["integrity_check"] != "ok":
                report["anomalies"].append(f"integrity_check: {extra['integrity_check']}")
        if name == "model_drop" and "round_id" in extra:
            outcome = cluster.run("bench.faults:tick_outcome", round_id=extra["round_id"], agent_ids=marks["world"]["resident_ids"])
            report["anomalies"] += outcome.pop("anomalies")
            extra.update(outcome)
    report["fault"] = name
    report["after"] = after_fault(report)
    report["extra"] = extra
    problems = _fault_problems(name, report)
    report["anomalies"] += problems
    return report


def _break(name: str, cluster, marks: dict[str, Any], extra: dict[str, Any], args: argparse.Namespace) -> None:
    if name == "kill_daphne":
        cluster.kill_daphne(1)
    elif name == "restart_redis":
        cluster.restart_redis(2)
        marks["after_seq"] = cluster.latest_seq()
    elif name == "restart_postgres":
        cluster.restart_postgres()
    elif name == "terminate_backends":
        extra["terminated"] = [cluster.terminate_backends()]
        time.sleep(3)
        extra["terminated"].append(cluster.terminate_backends())
    elif name == "model_drop":
        _model_tick(cluster, marks["world"]["resident_ids"], extra)
    elif name == "sqlite_disk_full":
        pids = [server.process.pid for server in cluster.daphnes] + [p.pid for p in cluster.background if p.poll() is None]
        # The soft limit only: lowering the hard one could not be undone without CAP_SYS_RESOURCE.
        for pid in pids:
            resource.prlimit(pid, resource.RLIMIT_FSIZE, (DISK_LIMIT_BYTES, resource.RLIM_INFINITY))
        time.sleep(8)
        for pid in pids:
            resource.prlimit(pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        extra["limited_pids"] = len(pids)


def _model_tick(cluster, resident_ids: list[int], extra: dict[str, Any]) -> None:
    """A model tick whose endpoint disappears after its third request."""
    from bench.autonomy_tick import decide_rest_or_chat
    from tests.support.scripted_openai import ScriptedOpenAI

    server = ScriptedOpenAI().__enter__()
    try:
        server.respond_with(decide_rest_or_chat, delay=0.5)
        env = {
            "AGENT_PROVIDER": "openai", "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "bench",
            "AUTONOMY_TOKEN_BUDGET": "0", "AGENT_MODEL_TIMEOUT": "10",
        }
        ids = ",".join(str(pk) for pk in resident_ids)
        tick = cluster.manage("autonomy_tick", "--count", "1", "--agents", ids, "--batch-size", "20", "--concurrency", "2", env=env)
        deadline = time.monotonic() + 120
        while len(server.requests) < 3 and tick.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        server.__exit__(None, None, None)  # in-flight answers are dropped, new connections refused
    tick.wait(timeout=180)
    output = cluster.stop(tick)
    extra["tick_exit"] = tick.returncode
    extra["tick_line"] = next((line for line in output.splitlines() if line.startswith("tick #")), output[-300:])
    if extra["tick_line"].startswith("tick #"):
        extra["round_id"] = int(extra["tick_line"].split()[1].lstrip("#"))


def _fault_problems(name: str, report: dict[str, Any]) -> list[str]:
    """What each fault must additionally show."""
    problems = []
    after = report["after"]
    # The API does not need the model: a model tick may outlast the load.
    if not after.get("ok") and name != "model_drop":
        problems.append("no request succeeded after the fault")
    if after.get("other") or after.get("clean_503"):
        problems.append(f"after recovery: {after.get('other', 0)} other errors, {after.get('clean_503', 0)} 503s")
    if report["errors"].get("other"):
        problems.append(f"{report['errors']['other']} answers that are neither documented nor a clean 503")
    # Only a killed process leaves requests without an answer (their outcome is reconciled as unknown).
    if name != "kill_daphne" and report["errors"].get("lost_in_flight"):
        problems.append(f"{report['errors']['lost_in_flight']} requests got no answer")
    ws = report["websocket"]
    if name == "kill_daphne" and ws.get("delivered_before_catch_up") != ws.get("expected"):
        problems.append(f"clients of the killed process missed events: {ws.get('delivered_before_catch_up')}/{ws.get('expected')} before catch-up")
    if name == "restart_redis" and ws.get("delivered_after_mark_before_catch_up") != ws.get("expected_after_mark"):
        problems.append(
            f"events did not resume live after the restart: {ws.get('delivered_after_mark_before_catch_up')}/{ws.get('expected_after_mark')}"
        )
    if name == "model_drop":
        extra = report["extra"]
        if "round_id" not in extra:
            problems.append(f"the tick did not finish: {extra.get('tick_line')}")
        elif not extra.get("failed_batches"):
            problems.append("the endpoint drop failed no batch (the fault missed)")
    if name == "sqlite_disk_full" and not report["errors"].get("clean_503"):
        problems.append("no write met the full disk (the fault missed)")
    return problems


def lost(report: dict[str, Any]) -> str:
    ws = report["websocket"]
    missing = (ws.get("expected") or 0) - (ws.get("delivered") or 0)
    data = [a for a in report["anomalies"] if not a.startswith("events not delivered")]
    parts = []
    if missing:
        parts.append(f"{missing} event deliveries")
    if data:
        parts.append(f"{len(data)} data anomalies")
    return ", ".join(parts) or "nothing"


def print_fault(report: dict[str, Any], verbose: bool) -> None:
    from bench.cluster import load_average

    if verbose:
        print_report(report)
    errors, after, ws = report["errors"], report["after"], report["websocket"]
    print(
        f"\n{report['fault']}: {report['requests']} requests: ok {errors.get('ok', 0)}, documented 4xx {errors.get('documented_4xx', 0)}, "
        f"clean 503 {errors.get('clean_503', 0)}, no answer {errors.get('lost_in_flight', 0)}, other {errors.get('other', 0)}; "
        f"5xx {errors.get('5xx', 0)}; "
        f"after recovery: ok {after.get('ok', 0)}, other {after.get('other', 0)}; "
        f"ws delivered {ws.get('delivered_before_catch_up')}/{ws.get('expected')} live, {ws.get('delivered')}/{ws.get('expected')} with catch-up, "
        f"reconnects {ws.get('reconnects')} {ws.get('reconnect_causes') or ''}; {report['extra'] or ''}; "
        f"load average {load_average()}; {report['seconds']} s"
    )
    for anomaly in report["anomalies"]:
        print(f"   - {anomaly}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.faults", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(FAULTS), help=f"comma-separated faults (default all: {','.join(FAULTS)})")
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--duration", type=float, default=35)
    parser.add_argument("--at", type=float, default=8, help="seconds into the run when the fault starts (default 8)")
    parser.add_argument("--think", type=float, default=0.5)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--residents", type=int, default=200)
    parser.add_argument("--tick-interval", type=float, default=5)
    parser.add_argument("--verbose", action="store_true", help="also print each run's full load report")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = set(names) - set(FAULTS)
    if unknown:
        parser.error(f"unknown faults: {', '.join(sorted(unknown))}")

    from contextlib import ExitStack

    from bench.cluster import stop_on_sigterm
    from tests.support.services import PostgresServer

    stop_on_sigterm()
    print(f"$ python -m bench.faults {' '.join(argv if argv is not None else sys.argv[1:])}".rstrip())
    reports = []
    with ExitStack() as stack:
        # One PostgreSQL server for every fault (each gets its own database): initdb and migrate once.
        postgres = stack.enter_context(PostgresServer()) if set(names) - {"sqlite_disk_full"} else None
        for name in names:
            started = time.monotonic()
            report = run_fault(name, args, postgres)
            report["seconds"] = round(time.monotonic() - started)
            reports.append(report)
            print_fault(report, args.verbose)
    print(f"\n| fault | requests | ok | documented 4xx | clean 503 | no answer | other | 5xx | anomalies | lost |\n|{'---|' * 10}")
    for r in reports:
        e = r["errors"]
        print(
            f"| {r['fault']} | {r['requests']} | {e.get('ok', 0)} | {e.get('documented_4xx', 0)} | {e.get('clean_503', 0)} | "
            f"{e.get('lost_in_flight', 0)} | "
            f"{e.get('other', 0)} | {e.get('5xx', 0)} | {len(r['anomalies'])} | {lost(r)} |"
        )
    if args.json:
        Path(args.json).write_text(json.dumps([{k: v for k, v in r.items() if k != "timeline"} for r in reports], indent=2))
    return 1 if any(r["anomalies"] for r in reports) else 0


if __name__ == "__main__":
    sys.exit(main())
