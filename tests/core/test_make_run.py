"""`make run` as a person uses it: it serves on the HOST/PORT given, the loop ticks beside
the server, and Ctrl-C or SIGTERM stops both cleanly (no traceback, no crash message, one line
saying why, nothing left), also when it was started in the background under `setsid`.

Each test has a `make run` of its own, in a clone of its own, from scratch (a new .env, migrate,
seed_demo, the server and the loop) and stops it its own way. The module starts the selected tests'
`make run`s all at once, so that they migrate, seed and start side by side rather than one after
another (one start is a chain of single-threaded children, which leaves the other core idle); each
test still waits until its own served and ticked, stops only its own, and checks what it said and
that nothing of it is left."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.services import free_port, wait_for_port

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # it runs make, a migration and two servers


def make_clone(tmp_path: Path) -> Path:
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


class MakeRun:
    """A started `make run` in its clone; a thread collects its output as it comes (a pipe nobody read would fill)."""

    def __init__(self, clone: Path, port: int, *, ignore_sigint: bool = False) -> None:
        self.clone, self.port = clone, port
        self.process = start_make_run(clone, port, ignore_sigint=ignore_sigint)
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line)

    def output(self) -> str:
        return "".join(self.lines)

    def kill(self) -> None:
        """Whatever is left of it, SIGKILLed (a test that failed before stopping it)."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        for pid in processes_in(self.clone):
            os.kill(pid, signal.SIGKILL)
        self.process.wait()


# Each test's `make run`: started as from a terminal, or in the background with SIGINT ignored.
STARTS = {
    "test_make_run_serves_ticks_and_stops_cleanly_on_ctrl_c": {},
    "test_make_run_started_in_the_background_stops_on_sigint": {"ignore_sigint": True},
    "test_make_run_stops_on_sigterm_with_one_accurate_message": {},
}


@pytest.fixture(scope="module")
def started(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, MakeRun]]:
    """The `make run` of every selected test of this module, started at once, each in a clone of its own."""
    selected = [item.originalname for item in request.session.items if getattr(item, "module", None) is request.module]
    runs: dict[str, MakeRun] = {}
    ports: set[int] = set()
    try:
        for name in dict.fromkeys(selected):
            port = free_port()
            while port in ports:
                port = free_port()
            ports.add(port)
            runs[name] = MakeRun(make_clone(tmp_path_factory.mktemp("clone")), port, **STARTS[name])
        yield runs
    finally:
        for run in runs.values():
            run.kill()


@pytest.fixture
def make_run(request: pytest.FixtureRequest, started: dict[str, MakeRun]) -> MakeRun:
    """This test's `make run`, started (maybe already serving) and not yet stopped."""
    return started[request.node.originalname]


def read_until_serving(run: MakeRun) -> str:
    """The output up to the first tick, once Daphne listens too."""
    deadline = time.monotonic() + 240
    while not any(line.startswith("tick #") for line in run.lines):
        assert time.monotonic() < deadline, run.output()[-3000:]
        assert run.process.poll() is None or run.reader.is_alive(), run.output()[-3000:]
        time.sleep(0.05)
    wait_for_port("127.0.0.1", run.port, timeout=120)  # the loop may tick before Daphne listens
    return run.output()


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


def stop(run: MakeRun, signum: int, *, group: bool) -> str:
    """Send the signal (to the whole group, as a terminal does, or to make alone); everything it said."""
    process = run.process
    if process.poll() is None:  # it may have failed on its own already
        if group:
            os.killpg(process.pid, signum)
        else:
            process.send_signal(signum)
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        run.kill()
        run.reader.join(timeout=10)
        pytest.fail(f"make run did not stop within 60 s of {signal.Signals(signum).name}:\n{run.output()[-3000:]}")
    run.reader.join(timeout=10)  # the rest of its output
    return run.output()


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


def test_make_run_serves_ticks_and_stops_cleanly_on_ctrl_c(make_run: MakeRun):
    port = make_run.port
    try:
        read_until_serving(make_run)
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tools/", timeout=10)
        assert refused.value.code == 401  # the API answers: our server, on the port we gave
    finally:
        text = stop(make_run, signal.SIGINT, group=True)  # what Ctrl-C in a terminal does
    assert f"http://127.0.0.1:{port}/" in text and "Staff login: admin / " in text
    assert "***" not in text, text[-3000:]
    assert (make_run.clone / ".env").stat().st_mode & 0o777 == 0o600
    assert_stopped_cleanly(make_run.clone, text, "Ctrl-C (SIGINT)")


def test_make_run_started_in_the_background_stops_on_sigint(make_run: MakeRun):
    # `setsid make run &` in a script: every process inherits SIGINT ignored, and the shell's
    # trap and Daphne used to keep ignoring it; the loop, in a session of its own, never saw it.
    try:
        read_until_serving(make_run)
    finally:
        text = stop(make_run, signal.SIGINT, group=True)
    assert_stopped_cleanly(make_run.clone, text, "Ctrl-C (SIGINT)")


def test_make_run_stops_on_sigterm_with_one_accurate_message(make_run: MakeRun):
    try:
        read_until_serving(make_run)
    finally:
        text = stop(make_run, signal.SIGTERM, group=False)  # make passes SIGTERM on to its recipe
    assert_stopped_cleanly(make_run.clone, text, "SIGTERM")
