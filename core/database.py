"""The database failing under a request (PostgreSQL restarted, a connection killed, SQLite's disk
full): one answer for every surface, a 503 that says so, never a 500 traceback.

Django closes a connection that raised such an error at the end of the request, so the next
request opens a fresh one: nothing needs a restart.

Also ``without_savepoints``: running many calls in one transaction without a savepoint each, and
``reading_before``: reading the database as it was before a write that runs meanwhile.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache, partial
from typing import Any

from django.db import DEFAULT_DB_ALIAS, InterfaceError, OperationalError, connections, transaction
from django.db.transaction import TransactionManagementError
from django.utils.translation import gettext as _

from core.errors import ServiceUnavailable

logger = logging.getLogger(__name__)

# SQLITE_FULL's message: the file (or its WAL) could not grow, the transaction was rolled back.
DISK_FULL_MESSAGE = "database or disk is full"


def database_failure(exc: BaseException) -> ServiceUnavailable | None:
    """The ServiceUnavailable to answer with when ``exc`` is the database failing, else None."""
    if not isinstance(exc, OperationalError | InterfaceError):
        return None
    logger.warning("database failure answered with 503: %s", exc)
    if DISK_FULL_MESSAGE in str(exc):
        return ServiceUnavailable("database_full", _("数据库存储空间已满，这次写入没有保存。请告诉管理员。"))
    return ServiceUnavailable("database_unavailable", _("数据库暂时不可用，什么也没有改变。请稍后再试。"))


class Unguarded:
    """What code run by ``without_savepoints`` did to the transaction: statements that wrote or
    failed, and commit hooks (events) it left."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.writes = 0
        self.failures = 0
        self._hooks = len(connection.run_on_commit)

    def intact(self) -> bool:
        """The code finished and the transaction can go on: no statement failed, no block left it
        marked for rollback."""
        return not self.failures and not self.connection.needs_rollback

    def forget_failure(self) -> bool:
        """The code failed: when it wrote nothing, left no hook and no statement failed, the
        transaction is as it was before, so its mark for rollback is lifted; True then. False:
        only a rollback can undo what it did."""
        if self.writes or self.failures or len(self.connection.run_on_commit) != self._hooks:
            return False
        self.connection.needs_rollback = False
        return True


def _no_savepoint() -> bool:
    return False


def _wrote(sql: str, cursor: Any) -> bool:
    """Whether a statement may have changed a row. A conditional UPDATE or DELETE that matched
    none did not (a refused decrement: the common refusal); anything else but a SELECT may have."""
    verb = sql.lstrip()[:6].upper()
    if verb == "SELECT":
        return False
    if verb in {"UPDATE", "DELETE"} and "RETURNING" not in sql.upper():
        return cursor.rowcount != 0
    return True


@contextmanager
def without_savepoints(using: str | None = None) -> Iterator[Unguarded]:
    """Run code in the current transaction with no savepoint: the atomic blocks it enters take none
    (as on a backend without savepoints), so an exception leaving one marks the whole transaction
    for rollback instead of rolling back to the block's start.

    For a loop of many small calls in one transaction (the autonomy tick's batch), where two
    savepoints a call cost more than the call's own statements: the ``Unguarded`` it yields says
    whether a failed call can simply be forgotten (it wrote nothing) or the transaction must be
    rolled back and the calls run again, each with its savepoint.
    """
    connection = transaction.get_connection(using)
    if not connection.in_atomic_block:
        raise TransactionManagementError("without_savepoints runs inside a transaction: open one first")
    guard = Unguarded(connection)

    def watch(execute, sql, params, many, context):
        try:
            result = execute(sql, params, many, context)
        except Exception:
            guard.failures += 1
            raise
        if _wrote(sql, context["cursor"]):
            guard.writes += 1
        return result

    # What Django's atomic asks before it takes a savepoint (both backends): no, for now. Private,
    # so tests/agents/test_autonomy_savepoints.py counts the savepoints a batch takes.
    connection._savepoint_allowed = _no_savepoint
    try:
        with connection.execute_wrapper(watch):
            yield guard
    finally:
        del connection._savepoint_allowed


# ---------------------------------------------------------------------------- a read beside a write


def can_read_before(using: str = DEFAULT_DB_ALIAS) -> bool:
    """Whether ``reading_before`` can run its write beside the read: on PostgreSQL (one snapshot for
    the read, a second connection for the write), outside a transaction (which the write's own
    connection would not see, and whose locks it could wait on)."""
    connection = connections[using]
    return connection.vendor == "postgresql" and not connection.in_atomic_block


@contextmanager
def reading_before(write: Callable[[], object], using: str = DEFAULT_DB_ALIAS) -> Iterator[None]:
    """Run ``write`` (its own transaction) on a connection of its own, in a thread, while the block
    reads the database as it was before ``write``: one REPEATABLE READ snapshot, taken before ``write``
    starts, so nothing ``write`` does is seen in the block, whenever it commits. Leaves once ``write``
    has ended; re-raises what it raised. Only where ``can_read_before``.

    What the block reads of the rows ``write`` changes is as they were: it works out itself what they
    become (``city.services.decayed_needs`` for the tick's decay)."""
    if not can_read_before(using):
        raise TransactionManagementError("reading_before needs PostgreSQL, outside a transaction")
    failed: list[BaseException] = []

    def run() -> None:
        try:
            write()
        except BaseException as exc:  # re-raised on the reading thread
            failed.append(exc)
        finally:
            connections.close_all()  # this thread's connections only

    with transaction.atomic(using=using):
        with connections[using].cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            cursor.execute("SELECT 1")  # the transaction's snapshot is taken by its first query
        writer = threading.Thread(target=run, name="write-beside-read", daemon=True)
        writer.start()
        try:
            yield
        finally:
            writer.join()
    if failed:
        raise failed[0]


# ---------------------------------------------------------------------------- prepared statements


def prepared_cursor(db: Any) -> Any:
    """A cursor of ``db`` for the statements composed once and sent thousands of times (a transfer's,
    the event relay's): on PostgreSQL each is bound on the server and prepared once per connection,
    as psycopg does by default for the raw-SQL baseline of ``bench.transfers``; elsewhere, and
    while queries are logged, ``db.cursor()``.

    Django binds parameters on the client and prepares nothing (``prepare_threshold`` None), so
    PostgreSQL parsed and planned every one of these statements again: 1.7-2.3 ms of server CPU
    per transfer against 0.8-1.5 ms prepared (``bench.transfers``, 2026-11-25). The cursor is
    Django's wrapper all the same: an error is Django's (``IntegrityError``, ``OperationalError``).
    Prepared statements live in the server session, which a transaction-mode pooler in front of
    PostgreSQL (pgbouncer before 1.21) does not keep: such a deployment must not use this (none
    does here: ``DATABASE_POOL_SIZE`` is psycopg's own pool, one session per connection).
    """
    if db.vendor != "postgresql" or db.queries_logged:
        # Logging wants the statement with its values, which psycopg keeps only for one it did not
        # prepare: under DEBUG or CaptureQueriesContext the statements run unprepared, as before.
        return statement_cursor(db)
    from django.db.backends.postgresql.base import ServerBindingCursor

    db.close_if_health_check_failed()
    db.ensure_connection()
    with db.wrap_database_errors:
        connection = db.connection
        # Django leaves psycopg's threshold at None, which prepares nothing, not even on request.
        # Only server-binding cursors (these) read it: Django's own client-binding ones never prepare.
        if connection.prepare_threshold is None:
            connection.prepare_threshold = 0  # prepared on the first run
        cursor = ServerBindingCursor(connection)
        _match_time_zone(db, cursor)
        return db._prepare_cursor(cursor)  # Django's own wrapping of a cursor it created (``BaseDatabaseWrapper._cursor``)


def _match_time_zone(db: Any, cursor: Any) -> None:
    """Read times in the connection's zone, as ``DatabaseWrapper.create_cursor`` does for its own cursors."""
    from django.db.backends.postgresql.base import TIMESTAMPTZ_OID
    from django.db.backends.postgresql.psycopg_any import register_tzloader
    from psycopg.pq import Format

    if db.timezone != db.connection.adapters.get_loader(TIMESTAMPTZ_OID, Format.TEXT).timezone:
        register_tzloader(db.timezone, cursor)


# ---------------------------------------------------------------------------- a kept SQLite cursor


def statement_cursor(db: Any) -> Any:
    """A cursor of ``db`` for statements composed once and run thousands of times in a transaction
    (a tick batch's inserts and updates, ``core.rows``, ``city.stock``): use it as ``db.cursor()``,
    ``with statement_cursor(db) as cursor: cursor.execute(sql, [params])`` (a list of parameters,
    ``%s`` placeholders), then ``fetchone``/``fetchall``/``rowcount``.

    On SQLite inside a transaction, one SQLite cursor kept per connection (``KeptCursor``): Django
    makes, wraps and closes a cursor for every statement and converts its placeholders again with
    a regular expression, which cost three times what SQLite spends running a one-row statement
    (``bench.autonomy_tick``: 47 against 16 µs a statement, of which SQLite's own 10). Elsewhere,
    outside a transaction, and while queries are logged (DEBUG, ``CaptureQueriesContext``), Django's
    ``db.cursor()``, as before.
    """
    if db.vendor != "sqlite" or db.queries_logged or not db.in_atomic_block or db.connection is None:
        return db.cursor()
    kept = getattr(db, "_kept_cursor", None)
    if kept is not None and kept.busy:
        return KeptCursor(db)  # a statement run while another's cursor is open: a cursor of its own
    if kept is None or kept.connection is not db.connection:  # none yet, or the connection was replaced
        kept = db._kept_cursor = KeptCursor(db)
    return kept


class KeptCursor:
    """What ``db.cursor()`` does for a statement, on one SQLite cursor that stays open.

    The same for a caller as Django's cursor: the connection's execute wrappers run around each
    statement (``without_savepoints``' guard sees every write and failure), a broken transaction
    is refused (``validate_no_broken_transaction``), an error is Django's (``IntegrityError``,
    ``OperationalError``), ``%s`` becomes ``?`` as ``SQLiteCursorWrapper.convert_query`` makes it
    (cached per statement). Leaving the ``with`` block reads what a statement left unread, which
    ends it (an unfinished ``INSERT … RETURNING`` would otherwise stay open until the next one).
    """

    def __init__(self, db: Any) -> None:
        self.db = db
        self.connection = db.connection
        self.cursor = db.connection.cursor()  # sqlite3's own: Django's wrapper would convert again
        self.busy = False

    def __enter__(self) -> KeptCursor:
        self.busy = True
        return self

    def __exit__(self, *exc_info: Any) -> None:
        try:
            if self.cursor.description is not None:
                with self.db.wrap_database_errors:
                    self.cursor.fetchall()
        finally:
            self.busy = False

    @property
    def rowcount(self) -> int:
        return self.cursor.rowcount

    def execute(self, sql: str, params: Any = None) -> Any:
        wrappers = self.db.execute_wrappers
        if not wrappers:
            return self._execute(sql, params, False, None)
        executor = self._execute
        for wrapper in reversed(wrappers):  # as ``CursorWrapper._execute_with_wrappers``
            executor = partial(wrapper, executor)
        return executor(sql, params, False, {"connection": self.db, "cursor": self})

    def _execute(self, sql: str, params: Any, *ignored: Any) -> Any:
        self.db.validate_no_broken_transaction()
        with self.db.wrap_database_errors:
            if params is None:
                return self.cursor.execute(sql)
            return self.cursor.execute(_qmark(sql), params)

    def fetchone(self) -> Any:
        with self.db.wrap_database_errors:
            return self.cursor.fetchone()

    def fetchall(self) -> list:
        with self.db.wrap_database_errors:
            return self.cursor.fetchall()


@lru_cache(maxsize=1024)
def _qmark(sql: str) -> str:
    """``SQLiteCursorWrapper.convert_query`` for positional parameters, once per statement."""
    from django.db.backends.sqlite3.base import FORMAT_QMARK_REGEX

    return FORMAT_QMARK_REGEX.sub("?", sql).replace("%%", "%")
