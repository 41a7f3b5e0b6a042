"""``core.database.prepared_cursor``: a transfer's and the relay's statements prepared once per
PostgreSQL connection (server-side binding, as psycopg's own default), with everything Django's
cursor gives kept: the statements logged, errors as Django's, times in UTC; on SQLite a plain cursor.

Each case runs in a child Django process on a fresh database of each kind (``django_child``).
"""

from __future__ import annotations

from datetime import datetime

from tests.support.django_process import DatabaseKind, run_django


def scenario() -> dict:
    """Child side: three transfers, a refused one, a constraint violation, then one more transfer."""
    from django.db import IntegrityError, connection, transaction
    from django.test.utils import CaptureQueriesContext

    import core.events
    from agents.models import Agent
    from city.models import AgentResource, ResourceTransfer, ResourceType
    from city.services import transfer_resource
    from core.database import prepared_cursor
    from core.errors import ApplicationError
    from core.models import EventLog

    sent: list[dict] = []
    core.events._group_send = lambda group, message: sent.append(message)
    flour = ResourceType.objects.create(slug="flour", name="面粉")
    alice, bob = Agent.objects.create(name="Alice"), Agent.objects.create(name="Bob")
    AgentResource.objects.create(agent=alice, resource_type=flour, quantity=10)
    AgentResource.objects.create(agent=bob, resource_type=flour, quantity=10)

    def transfer(sender, receiver, quantity):
        return transfer_resource(from_agent_id=sender.pk, to_agent_id=receiver.pk, resource_type="flour", quantity=quantity, source="api")

    with CaptureQueriesContext(connection) as first:
        transfer(alice, bob, 1)
    transfer(bob, alice, 2)
    transfer(alice, bob, 3)
    try:
        transfer(alice, bob, 100)
        refused = None
    except ApplicationError as exc:
        refused = exc.code
    try:
        with transaction.atomic(), prepared_cursor(connection) as cursor:
            cursor.execute(f'UPDATE "{AgentResource._meta.db_table}" SET "quantity" = -1 WHERE "agent_id" = %s', [alice.pk])
        violation = None
    except IntegrityError as exc:  # Django's, from the driver's CheckViolation
        violation = type(exc).__module__ + "." + type(exc).__name__
    last = transfer(bob, alice, 4)
    prepared = []
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT statement FROM pg_prepared_statements WHERE NOT from_sql")
            prepared = sorted(" ".join(row[0].split())[:40] for row in cursor.fetchall())
    frames = [event for message in sent for event in message["events"]]
    logged = list(EventLog.objects.order_by("seq").values_list("seq", "event", "data__quantity", "created_at"))
    return {
        "vendor": connection.vendor,
        "statements": [query["sql"][:40] for query in first.captured_queries],
        "refused": refused,
        "violation": violation,
        "ledger": list(ResourceTransfer.objects.order_by("id").values_list("quantity", flat=True)),
        "last_created_at": last.created_at.isoformat(),
        "stock": dict(AgentResource.objects.values_list("agent__name", "quantity")),
        "prepared": prepared,
        "frames": [(seq, event) for seq, event, _text in frames],
        "logged": [(seq, event, quantity, created_at.isoformat()) for seq, event, quantity, created_at in logged],
        "frame_times": [__import__("json").loads(text)["data"]["timestamp"] for _seq, _event, text in frames],
    }


def test_prepared_statements_keep_what_the_orm_cursor_gives(django_child, database_kind: DatabaseKind):
    result = run_django(django_child(database_kind), "tests.core.test_prepared_statements:scenario")
    assert result["refused"] == "insufficient_resource"
    assert result["violation"] == "django.db.utils.IntegrityError"
    # Every transfer that succeeded, before and after the failed transactions, and nothing else.
    assert result["ledger"] == [1, 2, 3, 4]
    assert result["stock"] == {"Alice": 10 - 1 + 2 - 3 + 4, "Bob": 10 + 1 - 2 + 3 - 4}
    assert datetime.fromisoformat(result["last_created_at"]).utcoffset().total_seconds() == 0
    # Each event once, in seq order, live and in the log, with the time the log holds (UTC).
    assert [event for _seq, event, _q, _t in result["logged"]] == ["resource_transferred"] * 4
    assert [quantity for _seq, _e, quantity, _t in result["logged"]] == [1, 2, 3, 4]
    assert result["frames"] == [[seq, event] for seq, event, _q, _t in result["logged"]]
    assert [datetime.fromisoformat(t) for t in result["frame_times"]] == [datetime.fromisoformat(t) for *_x, t in result["logged"]]
    # The statements are Django's logged queries still (a transfer: lock, move, ledger, event, and
    # on PostgreSQL the relay's move and look at the outbox).
    statements = [sql for sql in result["statements"] if sql.split()[0] not in ("BEGIN", "COMMIT")]
    assert len(statements) == (6 if result["vendor"] == "postgresql" else 4), result["statements"]
    if result["vendor"] == "postgresql":
        assert len(result["prepared"]) >= 6, result["prepared"]
        assert any(statement.startswith('INSERT INTO "city_resourcetransfer"') for statement in result["prepared"])
        assert any(statement.startswith("WITH locked AS MATERIALIZED") for statement in result["prepared"])
    else:
        assert result["prepared"] == []
