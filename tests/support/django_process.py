"""Run Django in child processes against a chosen database.

Concurrency tests need real separate processes on a real database (file SQLite or
PostgreSQL) within one pytest session, so each child gets its own ``DATABASE_URL``:

    url = migrated_database("postgres", tmp_path, postgres_server.url)
    run_django(url, "tests.support.probe:database_vendor")  # -> "postgresql"
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from contextlib import closing
from pathlib import Path
from typing import IO, Any, Literal
from urllib.parse import urlsplit

from tests.support.run_django import RESULT_MARKER
from tests.support.services import free_port

PROJECT_ROOT = Path(__file__).resolve().parents[2]
POSTGRES_TEMPLATE = "agentdesk_template"
# A child talks only to the services its test hands it, never to the developer's own.
SCRUBBED_VARIABLES = {"DATABASE_URL", "REDIS_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENT_PROVIDER"}

DatabaseKind = Literal["sqlite", "postgres"]

_templates: dict[tuple[str, str | None], str] = {}
_templates_lock = threading.Lock()


def django_environment(database_url: str, env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a Django child process: this one's, pointed at ``database_url``."""
    environ = {name: value for name, value in os.environ.items() if name not in SCRUBBED_VARIABLES}
    environ.update(
        DATABASE_URL=database_url,
        DJANGO_SETTINGS_MODULE="config.settings",
        DJANGO_SECRET_KEY="test",
        PYTHONPATH=str(PROJECT_ROOT),
    )
    environ.update(env or {})
    return environ


def _tail(text: str, lines: int = 60) -> str:
    return "\n".join(text.splitlines()[-lines:])


def _migrate(database_url: str) -> None:
    result = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=PROJECT_ROOT,
        env=django_environment(database_url),
        capture_output=True,
        text=True,
        timeout=600,
    )
    if result.returncode != 0:
        output = _tail(result.stdout + result.stderr)
        raise AssertionError(f"migrate of {database_url} failed ({result.returncode}):\n{output}")


def _sqlite_template() -> str:
    directory = Path(tempfile.mkdtemp(prefix="agentdesk-sqlite-template-"))
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    path = directory / "template.sqlite3"
    _migrate(f"sqlite:///{path}")
    # Fold the WAL into the main file; closing the last connection removes -wal/-shm.
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return str(path)


def _postgres_execute(server_url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as connection:
        connection.execute(sql)


def _postgres_url(server_url: str, database: str) -> str:
    return urlsplit(server_url)._replace(path=f"/{database}").geturl()


def _postgres_template(server_url: str) -> str:
    _postgres_execute(server_url, f"DROP DATABASE IF EXISTS {POSTGRES_TEMPLATE}")
    _postgres_execute(server_url, f"CREATE DATABASE {POSTGRES_TEMPLATE}")
    _migrate(_postgres_url(server_url, POSTGRES_TEMPLATE))
    return POSTGRES_TEMPLATE


def migrated_database(kind: DatabaseKind, workdir: Path | str, postgres_url: str | None = None) -> str:
    """The DATABASE_URL of a new, fully migrated database of ``kind``.

    Migrations run once per kind (and PostgreSQL server) per process into a template;
    every call returns an independent copy of it.
    """
    if kind == "sqlite":
        with _templates_lock:
            if ("sqlite", None) not in _templates:
                _templates["sqlite", None] = _sqlite_template()
            template = _templates["sqlite", None]
        path = Path(workdir) / f"agentdesk-{uuid.uuid4().hex}.sqlite3"
        shutil.copyfile(template, path)
        return f"sqlite:///{path.resolve()}"
    if kind == "postgres":
        if not postgres_url:
            raise ValueError("migrated_database('postgres', ...) needs the postgres_url of a server")
        with _templates_lock:
            if ("postgres", postgres_url) not in _templates:
                _templates["postgres", postgres_url] = _postgres_template(postgres_url)
            template = _templates["postgres", postgres_url]
        database = f"agentdesk_{uuid.uuid4().hex}"
        _postgres_execute(postgres_url, f"CREATE DATABASE {database} TEMPLATE {template}")
        return _postgres_url(postgres_url, database)
    raise ValueError(f"unknown database kind {kind!r}; expected 'sqlite' or 'postgres'")


def run_django(
    database_url: str, target: str, /, env: dict[str, str] | None = None, timeout: float = 300, **kwargs: Any
) -> Any:
    """Call ``target`` ("package.module:function") with ``kwargs`` in a fresh Django process.

    Arguments and the return value travel as JSON; an async function is run with
    ``asyncio.run``. A failing child raises AssertionError with the tail of its stderr.
    """
    command = [sys.executable, "-m", "tests.support.run_django", target]
    try:
        result = subprocess.run(
            command,
            cwd=PROJECT_ROOT,
            env=django_environment(database_url, env),
            input=json.dumps(kwargs),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        stderr = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else exc.stderr or ""
        raise AssertionError(f"{target} did not finish within {timeout} s; stderr:\n{_tail(stderr)}") from None
    if result.returncode != 0:
        raise AssertionError(f"{target} exited with {result.returncode}; stderr:\n{_tail(result.stderr)}")
    for line in reversed(result.stdout.splitlines()):
        if line.startswith(RESULT_MARKER):
            return json.loads(line[len(RESULT_MARKER) :])
    raise AssertionError(
        f"{target} printed no result line; stdout:\n{_tail(result.stdout)}\nstderr:\n{_tail(result.stderr)}"
    )


class DaphneServer:
    """``daphne config.asgi:application`` (or ``application``) in a child process on a free 127.0.0.1 port."""

    def __init__(
        self,
        database_url: str,
        env: dict[str, str] | None = None,
        startup_timeout: float = 60,
        application: str = "config.asgi:application",
        handshake_timeout: int = 5,
    ) -> None:
        self.database_url = database_url
        self.handshake_timeout = handshake_timeout  # Daphne's --websocket_connect_timeout (its default: 5 s)
        self.env = env or {}
        self.startup_timeout = startup_timeout
        self.application = application
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None
        self.log: IO[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def output(self) -> str:
        """Everything Daphne has written to stdout and stderr so far."""
        if self.log is None:
            return ""
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def __enter__(self) -> DaphneServer:
        self.port = free_port()
        env = django_environment(self.database_url, {"DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost", **self.env})
        # A file, not a pipe: nobody reads the log while the server runs.
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [
                sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port),
                "--websocket_connect_timeout", str(self.handshake_timeout), self.application,
            ],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + self.startup_timeout
        while not _port_open(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self._stop()
                raise RuntimeError(f"Daphne did not start on port {self.port}:\n{_tail(self.output())}")
            time.sleep(0.05)
        return self

    def _stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __exit__(self, exc_type: type[BaseException] | None, *exc_details: object) -> None:
        self._stop()
        if exc_type is not None:
            # pytest shows captured stderr of a failed test: the server's side of the story.
            print(f"--- Daphne output ({self.url}) ---\n{_tail(self.output(), 200)}", file=sys.stderr)
        if self.log is not None:
            self.log.close()
            self.log = None


def _port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0
