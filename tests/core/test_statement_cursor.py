"""``core.database.statement_cursor``: on SQLite inside a transaction, one kept cursor runs the
statements composed once (a tick batch's), with what Django's cursor gives a caller kept: the
connection's execute wrappers (``without_savepoints``' guard), errors as Django's, a broken
transaction refused, queries logged through Django's cursor, and the transaction able to commit."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext

from agents.models import Agent
from city.models import CityChatMessage
from core.database import KeptCursor, statement_cursor, without_savepoints

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "sqlite", reason="the kept cursor is SQLite's"),
]

AGENTS = f'"{Agent._meta.db_table}"'
CREDITS = f"UPDATE {AGENTS} SET \"credits\" = \"credits\" - %s WHERE \"id\" = %s AND \"credits\" >= %s"
SAY = (
    f'INSERT INTO "{CityChatMessage._meta.db_table}" ("agent_id", "content", "created_at") '
    'VALUES (%s, %s, %s) RETURNING "id"'
)


def test_statements_of_a_transaction_share_one_kept_cursor(make_agent):
    alice = make_agent("Alice", credits=10)
    with transaction.atomic():
        with statement_cursor(connection) as first:
            first.execute(CREDITS, [1, alice.pk, 1])
        with statement_cursor(connection) as second:
            second.execute(CREDITS, [2, alice.pk, 2])
            assert second.rowcount == 1
    assert isinstance(first, KeptCursor) and second is first
    alice.refresh_from_db()
    assert alice.credits == 7


def test_outside_a_transaction_it_is_djangos_cursor(make_agent):
    with statement_cursor(connection) as cursor:
        assert not isinstance(cursor, KeptCursor)


def test_a_statement_run_inside_another_ones_block_gets_a_cursor_of_its_own(make_agent):
    make_agent("Alice")
    make_agent("Bob")
    with transaction.atomic(), statement_cursor(connection) as outer:
        outer.execute(f"SELECT \"name\" FROM {AGENTS} ORDER BY \"id\"")
        with statement_cursor(connection) as inner:
            inner.execute(f"SELECT COUNT(*) FROM {AGENTS}")
            assert inner.fetchone() == (2,)
        assert inner is not outer
        assert outer.fetchall() == [("Alice",), ("Bob",)]  # not lost to the inner statement


def test_the_guard_of_without_savepoints_sees_its_writes_and_failures(make_agent):
    alice = make_agent("Alice", credits=3)
    with transaction.atomic():
        with without_savepoints() as guard, statement_cursor(connection) as cursor:
            cursor.execute(CREDITS, [10, alice.pk, 10])  # refused: matched nothing, wrote nothing
            assert (guard.writes, guard.failures) == (0, 0)
            cursor.execute(CREDITS, [1, alice.pk, 1])
            assert (guard.writes, guard.failures) == (1, 0)
            with pytest.raises(IntegrityError):  # Django's, from sqlite3's NOT NULL
                cursor.execute(f"UPDATE {AGENTS} SET \"name\" = NULL WHERE \"id\" = %s", [alice.pk])
            assert guard.failures == 1
        transaction.set_rollback(True)


def test_a_broken_transaction_is_refused(make_agent):
    alice = make_agent("Alice", credits=3)
    with transaction.atomic():
        transaction.set_rollback(True)
        with pytest.raises(TransactionManagementError), statement_cursor(connection) as cursor:
            cursor.execute(CREDITS, [1, alice.pk, 1])


def test_while_queries_are_logged_they_go_through_djangos_cursor(make_agent):
    alice = make_agent("Alice", credits=3)
    with transaction.atomic(), CaptureQueriesContext(connection) as queries, statement_cursor(connection) as cursor:
        cursor.execute(CREDITS, [1, alice.pk, 1])
    assert not isinstance(cursor, KeptCursor)
    assert [q["sql"] for q in queries if "UPDATE" in q["sql"]]


def test_an_insert_whose_returned_key_was_not_read_lets_the_transaction_commit(make_agent):
    alice = make_agent("Alice")
    with transaction.atomic(), statement_cursor(connection) as cursor:
        cursor.execute(SAY, [alice.pk, "你好", "2026-01-01 00:00:00"])  # its RETURNING row never read
    assert CityChatMessage.objects.filter(agent=alice).count() == 1


def test_a_new_connection_gets_a_new_cursor(make_agent):
    make_agent("Alice")
    with transaction.atomic(), statement_cursor(connection) as before:
        before.execute(f"SELECT COUNT(*) FROM {AGENTS}")
    connection.close()
    with transaction.atomic(), statement_cursor(connection) as after:
        after.execute(f"SELECT COUNT(*) FROM {AGENTS}")
        assert after.fetchone() == (1,)
    assert after is not before
