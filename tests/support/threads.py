"""Helpers for concurrency scenarios that run threads against a real database."""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.db import connection

from core.errors import ApplicationError


def run_threads(count: int, target: Callable[[int], None]) -> None:
    """Run ``target(i)`` in ``count`` threads, each closing its own connection; a crashed
    thread fails the scenario instead of vanishing."""
    errors: list[BaseException] = []

    def body(index: int) -> None:
        try:
            target(index)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=body, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


def outcome(operation: Callable[[], object]) -> str:
    """Run one call: "success", the business error code, or "unexpected: …" (a would-be 500)."""
    try:
        operation()
        return "success"
    except ApplicationError as exc:
        return exc.code
    except Exception as exc:
        return f"unexpected: {exc!r}"
