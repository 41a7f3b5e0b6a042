"""How far the machine itself scales: the ceiling for ``bench.autonomy_tick --workers``.

    .venv/bin/python -m bench.machine [--workers 1,2,4,8,16] [--seconds 2]

For each N, N processes start together (a barrier) and each does the same fixed work; the ratio
to linear is ``t(1) / t(N)`` (N times the work in the time one took = 1.00). Two kinds of work:

- **python**: pure-Python work of the tick's shape (dicts, JSON, string formatting), no I/O;
- **postgres**: transactions of the batch's shape on a throwaway PostgreSQL (the test cluster's
  settings: fsync off), each process on its own rows, so nothing waits on a lock:
  ``SELECT … FOR UPDATE`` of a row, an ``UPDATE`` of it, an ``INSERT`` into one shared table, commit.

Neither shares anything the tick's work could avoid sharing, so a ratio well under 1.00 here is
the machine's (cores that aren't free, a sandbox's system calls) and bounds the tick's own ratio.
Each is sized at one process to take about ``--seconds``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import time

PYTHON_UNIT = 2_000
POSTGRES_UNIT = 50


def python_work(units: int) -> None:
    for unit in range(units):
        residents = [{"id": i, "name": f"resident {i}", "needs": {"hunger": i % 100, "energy": 50}} for i in range(20)]
        for resident in residents:
            resident["action"] = "eat" if resident["needs"]["hunger"] > 50 else "rest"
        json.loads(json.dumps(residents))
        ", ".join(f"{r['name']}: {r['action']}" for r in residents)


def postgres_work(units: int, url: str, worker: int) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=False) as connection:
        for unit in range(units):
            with connection.transaction():
                for step in range(10):
                    row = worker * 10 + step
                    connection.execute("SELECT credits FROM probe_account WHERE id = %s FOR UPDATE", (row,))
                    connection.execute("UPDATE probe_account SET credits = credits + 1 WHERE id = %s", (row,))
                    connection.execute("INSERT INTO probe_ledger (account_id, amount) VALUES (%s, 1)", (row,))


def _run(kind: str, units: int, url: str, worker: int, barrier, results) -> None:
    barrier.wait()
    started = time.perf_counter()
    if kind == "python":
        python_work(units)
    else:
        postgres_work(units, url, worker)
    results.put(time.perf_counter() - started)


def together(kind: str, n: int, units: int, url: str = "") -> float:
    """Wall time, from the barrier to the last process done, of ``n`` processes doing ``units`` each."""
    context = multiprocessing.get_context("fork")
    barrier, results = context.Barrier(n + 1), context.Queue()
    processes = [context.Process(target=_run, args=(kind, units, url, worker, barrier, results)) for worker in range(n)]
    for process in processes:
        process.start()
    barrier.wait()
    started = time.perf_counter()
    for _ in processes:
        results.get()
    elapsed = time.perf_counter() - started
    for process in processes:
        process.join()
    return elapsed


def sized(kind: str, unit: int, seconds: float, url: str = "") -> int:
    """How many units one process does in about ``seconds``."""
    probe = together(kind, 1, unit, url)
    return max(unit, int(unit * seconds / max(probe, 1e-6)))


def prepare_postgres(url: str, workers: int) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("DROP TABLE IF EXISTS probe_ledger, probe_account")
        connection.execute("CREATE TABLE probe_account (id integer PRIMARY KEY, credits integer NOT NULL)")
        connection.execute("CREATE TABLE probe_ledger (id bigserial PRIMARY KEY, account_id integer NOT NULL, amount integer NOT NULL)")
        connection.execute("INSERT INTO probe_account SELECT g, 0 FROM generate_series(0, %s) AS g", (workers * 10,))


def report(kind: str, counts: list[int], units: int, url: str = "") -> None:
    first = None
    for n in counts:
        elapsed = together(kind, n, units, url)
        first = first or elapsed
        print(f"  {kind:8} {n:3} processes: {elapsed:6.2f} s   {first / elapsed:.2f} × linear")


def main() -> None:
    from tests.support.services import PostgresServer

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", default="1,2,4,8,16", help="comma-separated process counts")
    parser.add_argument("--seconds", type=float, default=2.0, help="the work of one process, in seconds at N = 1")
    args = parser.parse_args()
    counts = [int(n) for n in args.workers.split(",")]

    print(f"the machine's own scaling: N processes of the same work each ({os.cpu_count()} cores)")
    report("python", counts, sized("python", PYTHON_UNIT, args.seconds))
    with PostgresServer() as postgres:
        prepare_postgres(postgres.url, max(counts))
        report("postgres", counts, sized("postgres", POSTGRES_UNIT, args.seconds, postgres.url), postgres.url)


if __name__ == "__main__":
    main()
