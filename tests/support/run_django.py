"""Child entry point of ``tests.support.django_process.run_django``.

Usage: ``python -m tests.support.run_django package.module:function`` with the keyword
arguments as a JSON object on stdin. Prints ``RESULT_MARKER`` + the JSON return value as
the last stdout line.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import sys

RESULT_MARKER = "@@agentdesk-run-django-result@@ "


def main(target: str) -> None:
    import django

    kwargs = json.loads(sys.stdin.read() or "{}")
    django.setup()
    module_name, _, function_name = target.partition(":")
    function = getattr(importlib.import_module(module_name), function_name)
    result = function(**kwargs)
    if inspect.iscoroutine(result):
        result = asyncio.run(result)
    # Close connections so SQLite checkpoints its WAL and PostgreSQL sees us leave now.
    from django.db import connections

    connections.close_all()
    print(RESULT_MARKER + json.dumps(result), flush=True)


if __name__ == "__main__":
    if len(sys.argv) != 2 or ":" not in sys.argv[1]:
        sys.exit("usage: python -m tests.support.run_django package.module:function  (kwargs as JSON on stdin)")
    main(sys.argv[1])
