"""Only one autonomy loop ticks at a time: two loops started by mistake would tick the city twice.

``single_loop`` holds a lock for as long as a loop (``manage.py autonomy_tick``) runs; a second
loop waits for it, and says so once. The lock is the database's where it has one that outlives
a crash (a PostgreSQL session advisory lock, on a connection of its own, so that the loop's
connection housekeeping cannot drop it), else a Redis lock with expiry (renewed while held,
so a loop that died frees it within ``REDIS_LOCK_TTL``), else a file lock beside the SQLite
database (one machine).
"""

from __future__ import annotations

import fcntl
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import connection

logger = logging.getLogger(__name__)

ADVISORY_KEY = 0x4147_4454_4C4F_4F50  # "AGDTLOOP": one bigint key for the whole database
REDIS_KEY = "agentdesk:autonomy-loop"
REDIS_LOCK_TTL = 30  # seconds; renewed every third of it while the loop runs

Say = Callable[[str], None]


@contextmanager
def single_loop(say: Say) -> Iterator[str]:
    """Hold the autonomy loop's lock while the block runs; yields which kind of lock it is."""
    if connection.vendor == "postgresql":
        with _advisory_lock(say):
            yield "postgresql advisory lock"
    elif url := settings.CELERY_BROKER_URL or settings.REDIS_URL:
        with _redis_lock(url, say):
            yield "redis lock"
    else:
        with _file_lock(f"{connection.settings_dict['NAME']}.autonomy-loop.lock", say):
            yield "file lock"


def _waiting(say: Say, where: str) -> None:
    say(f"another autonomy loop is ticking ({where}); waiting until it stops")


@contextmanager
def _advisory_lock(say: Say) -> Iterator[None]:
    import psycopg

    params = {k: v for k, v in connection.get_connection_params().items() if k not in {"cursor_factory", "context"}}
    with psycopg.connect(**params, autocommit=True) as own:
        if not own.execute("SELECT pg_try_advisory_lock(%s)", [ADVISORY_KEY]).fetchone()[0]:
            _waiting(say, "PostgreSQL advisory lock")
            own.execute("SELECT pg_advisory_lock(%s)", [ADVISORY_KEY])
        try:
            yield
        finally:
            own.execute("SELECT pg_advisory_unlock(%s)", [ADVISORY_KEY])


@contextmanager
def _redis_lock(url: str, say: Say) -> Iterator[None]:
    import redis

    client = redis.Redis.from_url(url)
    lock = client.lock(REDIS_KEY, timeout=REDIS_LOCK_TTL, thread_local=False)
    if not lock.acquire(blocking=False):
        _waiting(say, f"Redis lock {REDIS_KEY}")
        lock.acquire(blocking=True)
    done = threading.Event()

    def renew() -> None:
        while not done.wait(REDIS_LOCK_TTL / 3):
            try:
                lock.reacquire()
            except redis.RedisError:
                logger.exception("could not renew the autonomy loop's Redis lock")

    renewer = threading.Thread(target=renew, name="autonomy-loop-lock", daemon=True)
    renewer.start()
    try:
        yield
    finally:
        done.set()
        renewer.join()
        try:
            lock.release()
        except redis.RedisError:
            logger.warning("the autonomy loop's Redis lock had expired before its release")
        client.close()


@contextmanager
def _file_lock(path: str, say: Say) -> Iterator[None]:
    with open(path, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            _waiting(say, f"file lock {path}")
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
