"""``python -m bench.machine``: N processes really do the same work, together, on their own rows."""

from __future__ import annotations

import psycopg
from bench import machine


def test_every_process_does_its_transactions_on_its_own_rows(postgres_server):
    machine.prepare_postgres(postgres_server.url, workers=3)
    elapsed = machine.together("postgres", 3, 2, postgres_server.url)
    with psycopg.connect(postgres_server.url) as connection:
        ledger = connection.execute("SELECT account_id, count(*) FROM probe_ledger GROUP BY account_id ORDER BY 1").fetchall()
        credits = connection.execute("SELECT sum(credits) FROM probe_account").fetchone()[0]
    assert elapsed > 0
    assert ledger == [(row, 2) for row in range(30)]  # 3 processes × their 10 rows, 2 units each
    assert credits == 60

