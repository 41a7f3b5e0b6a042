"""The version of the database's names: one cheap query that says whether the lexicon changed.

The offline chat reads the names the domain apps list (``@entities``, ``@vocabulary``) at every
message, so a name created a second ago is understood. Reading them is some ten queries and the
Python to build thousands of surfaces, per message. A source that declares the columns it reads
(``reads={Model: ("field", ...)}``) lets both be cached: the version is a digest of exactly those columns
of every row (primary key included), which the database gathers in one statement. Any
change to them, committed or not, in this transaction or another, rolled back to a savepoint or
not, changes the digest, so a cached lexicon is never stale, only cheaper.

Caching holds only when every registered source declared what it reads and the database is
PostgreSQL or SQLite; otherwise ``version`` is None and the names are read every time, as before.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

# What a source reads: {model: (field name, ...)}; None for a source that did not say.
Reads = dict[Any, tuple[str, ...]] | None


def version(reads: Iterable[Reads]) -> str | None:
    """A digest of every row's declared columns, per database, or None when it cannot be had."""
    from django.db import connections, router

    tables: dict[str, dict[Any, set[str]]] = {}
    for declared in reads:
        if declared is None:
            return None  # a source that reads what nobody knows: read every time
        for model, fields in declared.items():
            alias = router.db_for_read(model)
            tables.setdefault(alias, {}).setdefault(model, set()).update(fields)
    digests = []
    for alias, models in sorted(tables.items()):
        connection = connections[alias]
        if connection.vendor not in ("postgresql", "sqlite"):
            return None
        quote = connection.ops.quote_name
        sep, null = ("chr", "coalesce") if connection.vendor == "postgresql" else ("char", "ifnull")
        parts = []
        for model, fields in sorted(models.items(), key=lambda item: item[0]._meta.db_table):
            pk, table = quote(model._meta.pk.column), quote(model._meta.db_table)
            columns = [pk, *(quote(model._meta.get_field(name).column) for name in sorted(fields))]
            # Character 31 between columns, 30 between rows, 29 between tables; a NULL column is written as character 1.
            row = f" || {sep}(31) || ".join(f"{null}(CAST({c} AS TEXT), {sep}(1))" for c in columns)
            if connection.vendor == "postgresql":
                rows = f"(SELECT string_agg({row}, chr(30) ORDER BY {pk}) FROM {table})"
            else:
                rows = f"(SELECT group_concat(r, char(30)) FROM (SELECT {row} AS r FROM {table} ORDER BY {pk}))"
            parts.append(f"{null}({rows}, '')")
        with connection.cursor() as cursor:
            cursor.execute("SELECT " + f" || {sep}(29) || ".join(parts))
            text = cursor.fetchone()[0] or ""
        digests.append(f"{alias}:{hashlib.blake2b(text.encode(), digest_size=16).hexdigest()}")
    return "|".join(digests)
