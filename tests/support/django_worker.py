"""A Django child process that runs many calls: ``run_django`` without a start-up per call.

Setting Django up costs seconds in a child; a test that reads the database after every
step it drives (a server's writes, say) pays that once per worker instead of once per read:

    with DjangoWorker(database_url) as worker:
        worker("tests.support.mcp_scenarios:stock", agent_id=1)

Calls travel as JSON lines; each runs in autocommit, so it sees what other processes committed.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import tempfile
import traceback
from typing import IO, Any

from tests.support.django_process import PROJECT_ROOT, _tail, django_environment
from tests.support.run_django import RESULT_MARKER


class DjangoWorker:
    def __init__(self, database_url: str, env: dict[str, str] | None = None) -> None:
        self.database_url = database_url
        self.env = env
        self.process: subprocess.Popen[str] | None = None
        self.log: IO[str] | None = None

    def __enter__(self) -> DjangoWorker:
        self.log = tempfile.TemporaryFile("w+")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.support.django_worker"],
            cwd=PROJECT_ROOT,
            env=django_environment(self.database_url, self.env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
        )
        return self

    def __call__(self, target: str, /, **kwargs: Any) -> Any:
        """Call ``target`` ("package.module:function") with ``kwargs`` in the worker; its return value."""
        assert self.process is not None and self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"target": target, "kwargs": kwargs}) + "\n")
        self.process.stdin.flush()
        for line in self.process.stdout:
            if line.startswith(RESULT_MARKER):
                reply = json.loads(line[len(RESULT_MARKER) :])
                if "error" in reply:
                    raise AssertionError(f"{target} failed in the worker:\n{reply['error']}")
                return reply["result"]
        raise AssertionError(f"the worker exited during {target}; stderr:\n{_tail(self.stderr())}")

    def stderr(self) -> str:
        if self.log is None:
            return ""
        self.log.seek(0)
        return self.log.read()

    def __exit__(self, *exc_info: object) -> None:
        if self.process is not None:
            if self.process.stdin is not None:
                self.process.stdin.close()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.log is not None:
            self.log.close()


def serve() -> None:
    import django

    django.setup()
    from django.db import connections

    for line in sys.stdin:
        request = json.loads(line)
        module_name, _, function_name = request["target"].partition(":")
        try:
            function = getattr(importlib.import_module(module_name), function_name)
            reply = {"result": function(**request["kwargs"])}
        except Exception:
            reply = {"error": traceback.format_exc()}
        print(RESULT_MARKER + json.dumps(reply), flush=True)
    connections.close_all()


if __name__ == "__main__":
    serve()
