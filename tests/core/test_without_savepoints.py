"""``core.database.without_savepoints``: no savepoint inside, and it tells a failure that wrote
nothing (forgotten, the transaction goes on) from one that wrote (only a rollback undoes it)."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from agents.models import Agent
from core.database import without_savepoints

pytestmark = pytest.mark.django_db


def test_atomic_blocks_inside_take_no_savepoint(make_agent):
    alice = make_agent("Alice")
    with transaction.atomic(), without_savepoints(), CaptureQueriesContext(connection) as queries:
        with transaction.atomic():
            Agent.objects.filter(pk=alice.pk).update(credits=7)
    assert not [q for q in queries if "SAVEPOINT" in q["sql"]]


def test_a_failure_that_wrote_nothing_is_forgotten_and_the_transaction_goes_on(make_agent):
    alice = make_agent("Alice", credits=3)
    with transaction.atomic():
        with without_savepoints() as guard:
            with pytest.raises(RuntimeError), transaction.atomic():
                Agent.objects.filter(pk=alice.pk, credits__gte=10).update(credits=0)  # matched nothing
                raise RuntimeError("refused")
            assert guard.forget_failure()
        Agent.objects.filter(pk=alice.pk).update(credits=4)
    alice.refresh_from_db()
    assert alice.credits == 4


def test_a_failure_after_a_write_needs_the_rollback(make_agent):
    alice = make_agent("Alice", credits=3)
    with transaction.atomic():
        with without_savepoints() as guard:
            with pytest.raises(RuntimeError), transaction.atomic():
                Agent.objects.filter(pk=alice.pk).update(credits=0)
                raise RuntimeError("failed after its write")
            assert not guard.forget_failure()
            assert transaction.get_rollback()
    alice.refresh_from_db()
    assert alice.credits == 3
