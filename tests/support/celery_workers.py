"""Celery worker processes (``celery -A config worker``) and other Django children for the tick's
tests and ``bench.autonomy_tick --workers``: each in a session of its own, its output in a file."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.django_process import PROJECT_ROOT, django_environment


class Process:
    """A Django child (worker, command) in a session of its own, its output in a file."""

    def __init__(self, args: list[str], database_url: str, env: dict[str, str], log: Path) -> None:
        self.log = log
        self.handle = open(log, "w")
        self.popen = subprocess.Popen(
            args, cwd=PROJECT_ROOT, env=django_environment(database_url, env), stdout=self.handle,
            stderr=subprocess.STDOUT, start_new_session=True,
        )

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_for(self, pattern: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.output()):
            if self.popen.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"no {pattern!r} in the output of {self.popen.args}:\n{self.output()[-3000:]}")
            time.sleep(0.1)

    def exit_code(self, timeout: float) -> int:
        """The process's exit status once it ends; a test failure showing its output if it runs past ``timeout``."""
        try:
            return self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.stop(signal.SIGKILL)
            raise AssertionError(f"{self.popen.args} still running after {timeout:.0f} s:\n{self.output()[-3000:]}") from None

    def kill(self) -> None:
        """SIGKILL the whole process group: the worker and its pool, with no chance to hand anything back."""
        if self.popen.poll() is None:
            os.killpg(self.popen.pid, signal.SIGKILL)
        self.popen.wait(timeout=30)
        self.handle.close()

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30) -> int:
        if self.popen.poll() is None:
            os.killpg(self.popen.pid, sig)
            try:
                self.popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.popen.pid, signal.SIGKILL)
                self.popen.wait()
        self.handle.close()
        return self.popen.returncode


def worker(name: str, database_url: str, env: dict[str, str], tmp_path: Path, *, concurrency: int = 2) -> Process:
    """A started Celery worker of the tick, ready to take batches."""
    [process] = workers([name], database_url, env, tmp_path, concurrency=concurrency)
    return process


def workers(names: list[str], database_url: str, env: dict[str, str], tmp_path: Path, *, concurrency: int = 2) -> list[Process]:
    """Celery workers of the tick started together (they boot in parallel), each ready to take batches."""
    return ready(start_workers(names, database_url, env, tmp_path, concurrency=concurrency))


def start_workers(names: list[str], database_url: str, env: dict[str, str], tmp_path: Path, *, concurrency: int = 2) -> list[Process]:
    """Celery workers of the tick, started and still booting: a test prepares its data meanwhile, then calls ``ready``."""
    started = []
    for name in names:
        args = [
            sys.executable, "-m", "celery", "-A", "config", "worker", "-n", f"{name}@%h", "-c", str(concurrency), "-P", "prefork",
            "--without-gossip", "--without-mingle", "--without-heartbeat", "--loglevel", "INFO",
        ]
        started.append(Process(args, database_url, env, tmp_path / f"{name}.log"))
    return started


@contextmanager
def booting(processes: list[Process]) -> Iterator[list[Process]]:
    """Stops the booting workers if what the test does meanwhile fails (``ready`` stops them if they fail)."""
    try:
        yield processes
    except BaseException:
        for process in processes:
            process.stop()
        raise


def ready(started: list[Process]) -> list[Process]:
    """The workers once each is ready to take batches; all stopped if one is not."""
    with booting(started):
        for process in started:
            process.wait_for(r"ready\.", timeout=120)
    return started
