"""The lexicon and the domain words are cached under the version of the database's names: never stale, only cheaper."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from agents.providers import understanding, vocabulary
from agents.providers.understanding import entities, lexicon, read
from agents.providers.vocabulary import domain_terms
from funds.models import Fund

from .test_chat_corpus import demo  # noqa: F401

pytestmark = pytest.mark.django_db


def _funds() -> set[str]:
    return {e.surface for e in lexicon() if e.kind == "fund"}


def test_an_unchanged_database_is_read_in_one_query(demo):
    lexicon(), domain_terms()
    with CaptureQueriesContext(connection) as queries:
        again = lexicon()
    assert len(queries) == 1 and again is lexicon()
    with CaptureQueriesContext(connection) as queries:
        domain_terms()
    assert len(queries) == 1


def test_a_new_renamed_or_rolled_back_name_is_read_at_once(demo):
    assert "北极星价值" not in _funds()
    fund = Fund.objects.create(fund_name="北极星价值")
    assert "北极星价值" in _funds() and "北极星价值" in domain_terms()
    fund.fund_name = "北极星成长"
    fund.save()
    assert "北极星成长" in _funds() and "北极星价值" not in _funds()
    with transaction.atomic():
        Fund.objects.create(fund_name="临时基金")
        assert "临时基金" in _funds()
        transaction.set_rollback(True)
    assert "临时基金" not in _funds() and "临时基金" not in domain_terms()
    assert [s.name for s in read("停用北极星成长").of("fund")] == ["北极星成长"]


def test_a_source_that_does_not_say_what_it_reads_is_read_every_time(demo):
    calls = []

    @entities
    def counted():
        calls.append(1)
        return []

    try:
        lexicon(), lexicon()
        assert len(calls) == 2
    finally:
        name = f"{counted.__module__}.{counted.__qualname__}"
        understanding._sources.pop(name)
        understanding._reads.pop(name)
    assert vocabulary._reads and all(r is not None for r in vocabulary._reads.values())


def test_both_databases_version_their_names(django_child, database_kind):
    """On file SQLite and PostgreSQL (the digest is gathered by each one's own SQL), in a fresh process."""
    from tests.support.django_process import run_django

    result = run_django(django_child(database_kind), "tests.agents.names_version_scenarios:cached_names_follow_the_database")
    assert result == {
        "vendor": "postgresql" if database_kind == "postgres" else "sqlite", "version": True, "queries_when_unchanged": 1,
        "created": True, "renamed": True, "inside": True, "rolled_back": True,
    }
