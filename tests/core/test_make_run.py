"""`make run` as a person uses it: it serves on the HOST/PORT given, the loop ticks beside
the server, and Ctrl-C stops both cleanly (no traceback, no crash message, nothing left)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.support.services import free_port, wait_for_port

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # it runs make, a migration and two servers


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """The committed tree in a folder of its own, sharing this checkout's virtualenv."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.split(b"\0")
    for name in filter(None, files):
        source = ROOT / name.decode()
        if source.is_file():
            target = tmp_path / name.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    return tmp_path


def test_make_run_serves_ticks_and_stops_cleanly_on_ctrl_c(clone: Path):
    if not (ROOT / ".venv" / ".installed").exists():
        pytest.skip("make run needs the virtualenv `make install` made")
    (ROOT / ".venv" / ".installed").touch()  # the copied requirements are newer: no reinstall
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_", "REDIS_", "AGENT"))}
    process = subprocess.Popen(
        ["make", "run", f"PORT={port}", "AUTONOMY_INTERVAL=1"],
        cwd=clone, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job has
    )
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 240
        while not any(line.startswith("tick #") for line in lines):
            assert time.monotonic() < deadline, "".join(lines[-40:])
            line = process.stdout.readline()
            assert line or process.poll() is None, "".join(lines[-40:])
            lines.append(line)
        wait_for_port("127.0.0.1", port, timeout=120)  # the loop may tick before Daphne listens
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tools/", timeout=10)
        assert refused.value.code == 401  # the API answers: our server, on the port we gave
    finally:
        os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        output, _ = process.communicate(timeout=60)
        lines.append(output)
    text = "".join(lines)
    assert f"http://127.0.0.1:{port}/" in text and "Staff login: admin / " in text
    assert "Stopped." in text
    assert "Traceback" not in text and "Segmentation fault" not in text and "***" not in text
    assert (clone / ".env").stat().st_mode & 0o777 == 0o600
    leftover = subprocess.run(["pgrep", "-g", str(process.pid)], capture_output=True, text=True).stdout.split()
    assert leftover == []
