"""`make run` as a person uses it: it serves on the HOST/PORT given, the loop ticks beside
the server, and Ctrl-C or SIGTERM stops both cleanly (no traceback, no crash message, one line
saying why, nothing left), also when it was started in the background under `setsid`."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
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
    (tmp_path / ".venv").symlink_to(ROOT / ".venv" if (ROOT / ".venv").exists() else Path(sys.executable).parents[1])
    return tmp_path


def start_make_run(clone: Path, port: int, *, ignore_sigint: bool = False) -> subprocess.Popen:
    """`make run` in a process group of its own; with ignore_sigint, as `setsid make run &` in a script starts it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_", "REDIS_", "AGENT"))}

    def ignore():  # a shell's background job inherits SIGINT ignored
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    return subprocess.Popen(
        # -o: the virtualenv is this checkout's, never reinstalled for the copied requirements.
        ["make", "-o", ".venv/.installed", "run", f"PORT={port}", "AUTONOMY_INTERVAL=1"],
        cwd=clone, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job has
        preexec_fn=ignore if ignore_sigint else None,
    )


def read_until_serving(process: subprocess.Popen, port: int) -> list[str]:
    """The output up to the first tick, once Daphne listens too."""
    lines: list[str] = []
    deadline = time.monotonic() + 240
    while not any(line.startswith("tick #") for line in lines):
        assert time.monotonic() < deadline, "".join(lines[-40:])
        line = process.stdout.readline()
        assert line or process.poll() is None, "".join(lines[-40:])
        lines.append(line)
    wait_for_port("127.0.0.1", port, timeout=120)  # the loop may tick before Daphne listens
    return lines


def processes_in(folder: Path) -> list[int]:
    """Processes whose working directory is the folder: whatever make run started and left."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "cwd").resolve() == folder.resolve():
                found.append(int(entry.name))
        except OSError:
            continue  # gone meanwhile, or not ours to read
    return found


def stop(process: subprocess.Popen, clone: Path, signum: int, *, group: bool) -> str:
    """Send the signal (to the whole group, as a terminal does, or to make alone) and collect the rest."""
    if process.poll() is None:  # it may have failed on its own already
        if group:
            os.killpg(process.pid, signum)
        else:
            process.send_signal(signum)
    try:
        output, _ = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        for pid in processes_in(clone):
            os.kill(pid, signal.SIGKILL)
        output, _ = process.communicate()
        pytest.fail(f"make run did not stop within 60 s of {signal.Signals(signum).name}:\n{output[-3000:]}")
    return output


def assert_stopped_cleanly(clone: Path, text: str, said: str) -> None:
    assert "Traceback" not in text and "Segmentation fault" not in text, text[-3000:]
    assert text.count("stopping the server and the autonomy loop") == 1, text[-3000:]
    assert "stopping after this tick" not in text, text[-3000:]  # the loop does not say it a second time
    assert f"{said}: stopping" in text and "Stopped." in text, text[-3000:]
    after_start = text.split("autonomy loop every", 1)[1].split("\n", 1)[1]
    if said == "SIGTERM":
        assert "Ctrl-C" not in after_start, text[-3000:]  # nobody pressed it
    time.sleep(0.5)
    assert processes_in(clone) == []


def test_make_run_serves_ticks_and_stops_cleanly_on_ctrl_c(clone: Path):
    port = free_port()
    process = start_make_run(clone, port)
    lines: list[str] = []
    try:
        lines = read_until_serving(process, port)
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tools/", timeout=10)
        assert refused.value.code == 401  # the API answers: our server, on the port we gave
    finally:
        lines.append(stop(process, clone, signal.SIGINT, group=True))  # what Ctrl-C in a terminal does
    text = "".join(lines)
    assert f"http://127.0.0.1:{port}/" in text and "Staff login: admin / " in text
    assert "***" not in text, text[-3000:]
    assert (clone / ".env").stat().st_mode & 0o777 == 0o600
    assert_stopped_cleanly(clone, text, "Ctrl-C (SIGINT)")


def test_make_run_started_in_the_background_stops_on_sigint(clone: Path):
    # `setsid make run &` in a script: every process inherits SIGINT ignored, and the shell's
    # trap and Daphne used to keep ignoring it; the loop, in a session of its own, never saw it.
    port = free_port()
    process = start_make_run(clone, port, ignore_sigint=True)
    lines: list[str] = []
    try:
        lines = read_until_serving(process, port)
    finally:
        lines.append(stop(process, clone, signal.SIGINT, group=True))
    assert_stopped_cleanly(clone, "".join(lines), "Ctrl-C (SIGINT)")


def test_make_run_stops_on_sigterm_with_one_accurate_message(clone: Path):
    port = free_port()
    process = start_make_run(clone, port)
    lines: list[str] = []
    try:
        lines = read_until_serving(process, port)
    finally:
        lines.append(stop(process, clone, signal.SIGTERM, group=False))  # make passes SIGTERM on to its recipe
    assert_stopped_cleanly(clone, "".join(lines), "SIGTERM")
