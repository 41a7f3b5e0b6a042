"""Run in a child Django process on a fresh database (``test_names_version``): the names' version on both databases."""

from __future__ import annotations


def cached_names_follow_the_database() -> dict:
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    from agents.providers.names_version import version
    from agents.providers.understanding import _reads, lexicon
    from funds.models import Fund

    def funds() -> set[str]:
        return {e.surface for e in lexicon() if e.kind == "fund"}

    out = {"vendor": connection.vendor, "version": version(_reads.values()) is not None}
    lexicon()
    with CaptureQueriesContext(connection) as queries:
        lexicon()
    out["queries_when_unchanged"] = len(queries)
    fund = Fund.objects.create(fund_name="Northstar Value")
    out["created"] = "Northstar Value" in funds()
    fund.fund_name = "Northstar Growth"
    fund.save()
    out["renamed"] = "Northstar Growth" in funds() and "Northstar Value" not in funds()
    with transaction.atomic():
        Fund.objects.create(fund_name="Scratch Fund")
        out["inside"] = "Scratch Fund" in funds()
        transaction.set_rollback(True)
    out["rolled_back"] = "Scratch Fund" not in funds()
    return out
