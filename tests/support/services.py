"""Throwaway external services for tests: PostgreSQL, Redis and a Chromium path.

Each service has an ``*_available()`` probe; tests call ``require_service`` with it so
that a missing service skips the test locally and fails it in CI
(``AGENTDESK_REQUIRE_SERVICES=1``).
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-quic",
    "--no-first-run",
    "--disable-sync",
]


def services_required() -> bool:
    return os.environ.get("AGENTDESK_REQUIRE_SERVICES", "").strip() == "1"


def require_service(name: str, available: bool, reason: str) -> None:
    """Skip the calling test when a service is missing, or fail it when CI requires it."""
    if available:
        return
    message = f"{name} is not available: {reason}"
    if services_required():
        pytest.fail(f"{message} (AGENTDESK_REQUIRE_SERVICES=1)", pytrace=False)
    pytest.skip(message)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for_port(host: str, port: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection((host, port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"nothing listens on {host}:{port} after {timeout:.0f} s") from None
            time.sleep(0.05)


def _tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        return ""


def _version_key(bin_dir: Path) -> list[int]:
    # Numeric, so that 9.6 < 15 < 16.
    return [int(part) for part in re.findall(r"\d+", bin_dir.parent.name)]


def postgres_bin_dir() -> Path | None:
    """``AGENTDESK_PG_BIN`` when set (a folder with initdb and pg_ctl, e.g. a packaged build's),
    else the newest /usr/lib/postgresql/<version>/bin that has them."""
    configured = os.environ.get("AGENTDESK_PG_BIN", "").strip()
    if configured:
        folder = Path(configured)
        return folder if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file() else None
    candidates = [p.parent for p in Path("/usr/lib/postgresql").glob("*/bin/initdb") if (p.parent / "pg_ctl").exists()]
    return max(candidates, key=_version_key, default=None)


def postgres_available() -> tuple[bool, str]:
    if postgres_bin_dir() is None:
        configured = os.environ.get("AGENTDESK_PG_BIN", "").strip()
        if configured:
            return False, f"AGENTDESK_PG_BIN={configured} has no initdb and pg_ctl"
        return False, "no /usr/lib/postgresql/*/bin/initdb (apt-get install postgresql, or set AGENTDESK_PG_BIN)"
    if os.geteuid() == 0:
        # initdb and postgres refuse to run as root, so we run them as the postgres user.
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return False, "running as root and there is no 'postgres' OS user to run the server as"
    return True, ""


def server_user() -> dict[str, object]:
    """``subprocess`` arguments that run a PostgreSQL program as the postgres user when we are root.

    The switch is the child's own setuid (no ``runuser``, so no PAM session, which a bare
    container may lack)."""
    if os.geteuid() != 0:
        return {}
    user = pwd.getpwnam("postgres")
    return {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": [], "env": {**os.environ, "HOME": user.pw_dir}}


class PostgresServer:
    """A throwaway PostgreSQL cluster on a free 127.0.0.1 port, trust auth, fsync off."""

    def __init__(self) -> None:
        bin_dir = postgres_bin_dir()
        if bin_dir is None:
            raise RuntimeError(f"PostgreSQL server binaries not found: {postgres_available()[1]}")
        self.bin_dir = bin_dir
        self.port = 0
        self.root = Path()

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def log_file(self) -> Path:
        return self.root / "postgres.log"

    def _run(self, *args: str) -> None:
        command = [str(self.bin_dir / args[0]), *args[1:]]
        result = subprocess.run(command, cwd=self.root, capture_output=True, text=True, timeout=120, **server_user())
        if result.returncode != 0:
            raise RuntimeError(
                f"{args[0]} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}\n{_tail(self.log_file)}"
            )

    def __enter__(self) -> PostgresServer:
        self.root = Path(tempfile.mkdtemp(prefix="agentdesk-pg-"))
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.root, user.pw_uid, user.pw_gid)
        try:
            data = str(self.data_dir)
            self._run("initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync")
            self.port = free_port()
            options = (
                f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
                "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
            )
            self._run("pg_ctl", "-D", data, "-l", str(self.log_file), "-o", options, "-w", "-t", "60", "start")
        except BaseException:
            shutil.rmtree(self.root, ignore_errors=True)
            raise
        return self

    def restart(self) -> None:
        """Stop (disconnecting every client) and start again on the same port and data."""
        self._run("pg_ctl", "-D", str(self.data_dir), "-l", str(self.log_file), "-m", "fast", "-w", "-t", "60", "restart")

    def __exit__(self, *exc_info: object) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data_dir), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def redis_available() -> tuple[bool, str]:
    if shutil.which("redis-server") is None:
        return False, "redis-server is not on PATH (apt-get install redis-server)"
    return True, ""


def redis_ping(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


class RedisServer:
    """A throwaway redis-server on 127.0.0.1 without persistence, on ``port`` or a free one."""

    def __init__(self, port: int = 0) -> None:
        self.port = port
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def __enter__(self) -> RedisServer:
        executable = shutil.which("redis-server")
        if executable is None:
            raise RuntimeError("redis-server is not on PATH")
        self.port = self.port or free_port()
        # A file, not a pipe: nobody reads the log while the server runs.
        log = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [executable, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        with log:
            deadline = time.monotonic() + 20
            while not redis_ping("127.0.0.1", self.port):
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.process.kill()
                    self.process.wait()
                    log.seek(0)
                    output = log.read().decode(errors="replace")
                    raise RuntimeError(f"redis-server did not answer PING on port {self.port}:\n{output[-4000:]}")
                time.sleep(0.05)
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def chromium_executable() -> str | None:
    """``CHROMIUM_PATH`` when set, else Debian's /usr/bin/chromium or /usr/bin/chromium-browser."""
    configured = os.environ.get("CHROMIUM_PATH", "").strip()
    candidates = [configured] if configured else ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
    for candidate in candidates:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def chromium_available() -> tuple[bool, str]:
    if chromium_executable() is not None:
        return True, ""
    configured = os.environ.get("CHROMIUM_PATH", "").strip()
    if configured:
        return False, f"CHROMIUM_PATH={configured} is not an executable file"
    return False, "no /usr/bin/chromium or /usr/bin/chromium-browser (apt-get install chromium, or set CHROMIUM_PATH)"
