"""The scale-out setup on loopback, for ``bench.load`` and ``bench.faults``: PostgreSQL, Redis and N
Daphne processes (or the embedded default: one Daphne on a SQLite file), plus the ways to break it
and the CPU each part used.

    with Cluster(database="postgres", daphnes=2) as cluster:
        cluster.urls                      # ["http://127.0.0.1:PORT", ...]
        cluster.run("bench.load:prepare", residents=50)   # a function in a Django child process
        cluster.kill_daphne(1)            # kill -9
        cluster.restart_redis(); cluster.restart_postgres(); cluster.terminate_backends()

Everything is started from the test-support classes and stopped on exit.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import ExitStack, closing
from pathlib import Path
from typing import Any, Literal

from tests.support.django_process import PROJECT_ROOT, DaphneServer, django_environment, migrated_database, run_django
from tests.support.services import PostgresServer, RedisServer, postgres_available, redis_available

DatabaseKind = Literal["postgres", "sqlite"]
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# Settings every process of the bench shares: quiet logs, and the per-user API throttle out of
# the way (the bench drives every virtual user with one superuser's token).
BENCH_ENV = {"LOG_LEVEL": "WARNING", "API_THROTTLE_USER": "1000000/minute"}


def cpu_seconds(pid: int, *, children: bool = True) -> float:
    """User + system CPU seconds of one process and, with ``children``, of its children that ended
    (0 once it is gone): PostgreSQL forks a backend per connection, and the postmaster collects
    their time. The bench's own process must not count its children: it reaps the tick when it
    stops it, and the tick's whole CPU would show twice, as the tick's and as the generator's."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return 0.0
    return sum(int(value) for value in fields[11 : 15 if children else 13]) / CLOCK_TICKS


def children_of(parent: int) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == parent:
                    pids.append(int(entry.name))
            except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
                continue
    return pids


def machine_busy_seconds() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot, all cores."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    return (sum(values) - idle) / CLOCK_TICKS, sum(values) / CLOCK_TICKS


def stop_on_sigterm() -> None:
    """SIGTERM unwinds like Ctrl-C, so every server this run started is stopped."""
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


class Cluster:
    def __init__(
        self,
        *,
        database: DatabaseKind = "postgres",
        daphnes: int = 2,
        redis: bool = True,
        env: dict[str, str] | None = None,
        postgres: PostgresServer | None = None,
        application: str = "config.asgi:application",
    ) -> None:
        """``postgres``: a running server to use (runs share it and its migrated template); else one is started.
        ``application``: what the Daphne processes serve."""
        self.application = application
        self.database = database
        self.shared_postgres = postgres
        self.extra_env = env or {}
        self.daphne_count = daphnes
        self.with_redis = redis
        self.stack = ExitStack()
        self.workdir = Path()
        self.postgres: PostgresServer | None = None
        self.redis: RedisServer | None = None
        self.database_url = ""
        self.daphnes: list[DaphneServer] = []
        self.background: list[subprocess.Popen] = []
        self.watched: dict[str, int] = {}  # other processes whose CPU counts (the WebSocket clients)
        self._watcher: Any = None  # the connection that samples pg_stat_activity

    # --- start and stop -------------------------------------------------------------------

    def __enter__(self) -> Cluster:
        if self.database == "postgres":
            available, reason = postgres_available()
            if not available:
                sys.exit(f"PostgreSQL is not available: {reason}")
        if self.with_redis:
            available, reason = redis_available()
            if not available:
                sys.exit(f"Redis is not available: {reason}")
        self.workdir = Path(tempfile.mkdtemp(prefix="agentdesk-load-"))
        self.stack.callback(shutil.rmtree, self.workdir, ignore_errors=True)
        try:
            if self.database == "postgres":
                self.postgres = self.shared_postgres or self.stack.enter_context(PostgresServer())
                self.database_url = migrated_database("postgres", self.workdir, self.postgres.url)
            else:
                self.database_url = migrated_database("sqlite", self.workdir)
            if self.with_redis:
                self.redis = RedisServer()
                self.redis.__enter__()
                self.stack.callback(lambda: self.redis and self.redis.__exit__(None, None, None))
            self.stack.callback(self._stop_background)
        except BaseException:
            self.stack.close()
            raise
        return self

    def start_servers(self) -> None:
        """The Daphne processes; after the data is prepared, so none caches an empty world."""
        for _ in range(self.daphne_count):
            self.daphnes.append(self.stack.enter_context(DaphneServer(self.database_url, self.env, application=self.application)))

    def __exit__(self, *exc_info: object) -> None:
        self.stack.close()

    @property
    def env(self) -> dict[str, str]:
        env = {**BENCH_ENV, **self.extra_env}
        if self.redis is not None:
            env["REDIS_URL"] = self.redis.url
        return env

    @property
    def urls(self) -> list[str]:
        return [server.url for server in self.daphnes]

    def run(self, target: str, /, env: dict[str, str] | None = None, timeout: float = 600, **kwargs: Any) -> Any:
        """``target`` ("module:function") in a Django child process on this cluster's database."""
        return run_django(self.database_url, target, env={**self.env, **(env or {})}, timeout=timeout, **kwargs)

    def manage(self, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
        """``manage.py ARGS`` in the background (stopped with SIGTERM on exit); output in the workdir."""
        log = open(self.workdir / f"manage-{len(self.background)}.log", "wb")  # noqa: SIM115 (closed with the process)
        process = subprocess.Popen(
            [sys.executable, "manage.py", *args],
            cwd=PROJECT_ROOT,
            env=django_environment(self.database_url, {**self.env, **(env or {})}),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        process.log = log  # type: ignore[attr-defined]
        self.background.append(process)
        return process

    def stop(self, process: subprocess.Popen, timeout: float = 60) -> str:
        """SIGTERM (a tick loop finishes its tick), then the process's output."""
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        process.log.close()  # type: ignore[attr-defined]
        return Path(process.log.name).read_text(errors="replace")  # type: ignore[attr-defined]

    def _stop_background(self) -> None:
        for process in self.background:
            if process.poll() is None:
                self.stop(process)

    # --- faults ---------------------------------------------------------------------------

    def kill_daphne(self, index: int) -> None:
        process = self.daphnes[index].process
        assert process is not None
        process.kill()
        process.wait()

    def restart_redis(self, down_seconds: float = 2.0) -> None:
        """Stop redis-server (everything in it is gone: no persistence) and start a new one on its port."""
        assert self.redis is not None
        port = self.redis.port
        self.redis.__exit__(None, None, None)
        time.sleep(down_seconds)
        self.redis = RedisServer(port)
        self.redis.__enter__()

    def restart_postgres(self) -> None:
        assert self.postgres is not None
        self.postgres.restart()

    def terminate_backends(self) -> int:
        """``pg_terminate_backend`` on every connection to the bench database; how many."""
        import psycopg

        assert self.postgres is not None
        database = self.database_url.rsplit("/", 1)[1]
        with psycopg.connect(self.postgres.url, autocommit=True) as connection:
            rows = connection.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                [database],
            ).fetchall()
        return len(rows)

    def latest_seq(self) -> int:
        """The newest event-log seq, read directly (a Django child takes seconds on a busy machine)."""
        query = "SELECT COALESCE(MAX(seq), 0) FROM agents_eventlog"
        if self.postgres is None:
            import sqlite3

            with closing(sqlite3.connect(self.database_url.removeprefix("sqlite:///"), timeout=30)) as connection:
                return int(connection.execute(query).fetchone()[0])
        import psycopg

        with psycopg.connect(self.database_url, autocommit=True) as connection:
            return int(connection.execute(query).fetchone()[0])

    def lock_waits(self) -> int:
        """Connections of the bench database waiting on a lock right now (PostgreSQL)."""
        return sum(1 for wait in self.waits() if wait.startswith("Lock:"))

    def waits(self) -> list[str]:
        """What each busy connection of the bench database waits on right now, as
        ``type:event`` (``Lock:advisory``, ``LWLock:WALWrite``, ``IO:DataFileRead``, ...), plus
        ``idle in transaction after <its last statement>`` for a transaction held open by its client
        (PostgreSQL)."""
        import psycopg

        if self.postgres is None:
            return []
        database = self.database_url.rsplit("/", 1)[1]
        try:
            # One kept connection: a new backend per sample would be load of its own.
            if self._watcher is None or self._watcher.closed:
                self._watcher = psycopg.connect(self.postgres.url, autocommit=True, connect_timeout=2)
                self.stack.callback(self._watcher.close)
            rows = self._watcher.execute(
                # An idle transaction names its last statement: what its client does before the next.
                """SELECT CASE WHEN state = 'idle in transaction'
                               THEN 'idle in transaction after ' || regexp_replace(left(query, 60), '\\s+', ' ', 'g')
                               ELSE wait_event_type || ':' || wait_event END
                   FROM pg_stat_activity
                   WHERE datname = %s AND pid <> pg_backend_pid()
                     AND (state = 'idle in transaction' OR (state = 'active' AND wait_event IS NOT NULL))""",
                [database],
            ).fetchall()
        except psycopg.Error:
            return []
        return [row[0] for row in rows if row[0]]

    # --- what each part used --------------------------------------------------------------

    def processes(self) -> dict[str, list[int]]:
        """The pids of each part, by name; PostgreSQL's are its postmaster's children."""
        parts: dict[str, list[int]] = {}
        for index, server in enumerate(self.daphnes):
            if server.process is not None and server.process.poll() is None:
                parts[f"daphne-{index}"] = [server.process.pid]
        if self.postgres is not None:
            pid_file = self.postgres.data_dir / "postmaster.pid"
            try:
                postmaster = int(pid_file.read_text().split()[0])
                parts["postgres"] = [postmaster, *children_of(postmaster)]
            except (FileNotFoundError, PermissionError, IndexError, ValueError):
                pass
        if self.redis is not None and self.redis.process is not None:
            parts["redis"] = [self.redis.process.pid]
        for index, process in enumerate(self.background):
            if process.poll() is None:
                parts[f"manage-{index}"] = [process.pid]
        parts.update({name: [pid] for name, pid in self.watched.items()})
        parts["generator"] = [os.getpid()]
        return parts


class CpuMeter:
    """CPU used by each part of the cluster between ``start`` and ``stop``, sampled every second
    (processes come and go: a PostgreSQL backend per connection)."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.seen: dict[str, dict[int, tuple[float, float]]] = {}  # part -> pid -> (first, last) CPU s
        self.began = 0.0
        self.machine_start = (0.0, 0.0)
        self.lock_samples: list[int] = []
        self.wait_samples: Counter = Counter()  # "type:event" -> samples that saw a connection waiting on it
        self.samples = 0

    def start(self) -> None:
        self.began = time.monotonic()
        self.machine_start = machine_busy_seconds()
        self.sample()

    def sample(self) -> None:
        for part, pids in self.cluster.processes().items():
            known = self.seen.setdefault(part.split("-")[0] if part.startswith("manage") else part, {})
            for pid in pids:
                used = cpu_seconds(pid, children=part == "postgres")
                first = known.get(pid, (used, used))[0]
                known[pid] = (first, max(used, known.get(pid, (used, used))[1]))
        self.sample_waits()

    def sample_waits(self) -> None:
        """What the database's connections wait on now (cheaper than ``sample``: call it often)."""
        waits = self.cluster.waits()
        self.samples += 1
        self.lock_samples.append(sum(1 for wait in waits if wait.startswith("Lock:")))
        self.wait_samples.update(waits)

    def stop(self) -> dict[str, Any]:
        self.sample()
        elapsed = max(0.001, time.monotonic() - self.began)
        busy, total = machine_busy_seconds()
        machine = (busy - self.machine_start[0]) / max(0.001, total - self.machine_start[1])
        percent = {part: 100 * sum(last - first for first, last in pids.values()) / elapsed for part, pids in self.seen.items()}
        return {
            "cpu_percent": {part: round(value, 1) for part, value in sorted(percent.items(), key=lambda kv: -kv[1])},
            "cpu_seconds": {part: round(sum(last - first for first, last in pids.values()), 2) for part, pids in self.seen.items()},
            "elapsed_s": round(elapsed, 1),
            "machine_busy_percent": round(100 * machine, 1),
            "cores": os.cpu_count(),
            "lock_waits_max": max(self.lock_samples, default=0),
            "lock_waits_mean": round(sum(self.lock_samples) / max(1, len(self.lock_samples)), 2),
            "wait_samples": self.samples,
            "top_waits": dict(self.wait_samples.most_common(8)),
            "advisory_lock_waits": self.wait_samples.get("Lock:advisory", 0),
            # Per process, not per part: one saturated Daphne among idle ones must show.
            "cpu_percent_by_process": {
                f"{part}[{pid}]" if len(pids) > 1 else part: round(100 * (last - first) / elapsed, 1)
                for part, pids in self.seen.items()
                if part != "postgres"
                for pid, (first, last) in pids.items()
            },
        }
