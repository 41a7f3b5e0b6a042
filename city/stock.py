"""The statements every movement of goods and credits runs, written out once in SQL.

Transfers, meals, purchases, the market, check-ins and construction all lock agents, look a
resource type up by slug and move stock or credits; a transfer also writes its ledger row. Built by the ORM on every call, each of these one-row
statements costs two to four times in Python what the database spends running it (about
0.2–0.3 ms of query compilation here), and the transfer is held to 2.5× hand-written SQL
(``bench/transfers.py``). So they are composed here once, from the models' metadata, and
run on Django's connection inside the caller's transaction. Every rule stays in
``city.services``; this module only says how the rows are read and written.
"""

from __future__ import annotations

from functools import cache

from django.db import connection
from django.db.models import Model
from django.utils import timezone

from agents.models import Agent

from .models import AgentResource, ResourceTransfer, ResourceType


def _table(model: type[Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _column(model: type[Model], field: str) -> str:
    return connection.ops.quote_name(model._meta.get_field(field).column)


RESOURCE_TYPE_FIELDS = ("id", "slug", "name", "edible", "satiety_gain")


@cache
def _resource_type_sql() -> str:
    columns = ", ".join(_column(ResourceType, name) for name in RESOURCE_TYPE_FIELDS)
    return f"SELECT {columns} FROM {_table(ResourceType)} WHERE {_column(ResourceType, 'slug')} = %s"


@cache
def _stock_sql() -> dict[str, str]:
    table, agent, kind, quantity = (
        _table(AgentResource),
        _column(AgentResource, "agent"),
        _column(AgentResource, "resource_type"),
        _column(AgentResource, "quantity"),
    )
    return {
        "take": f"UPDATE {table} SET {quantity} = {quantity} - %s WHERE {agent} = %s AND {kind} = %s AND {quantity} >= %s",
        "give": f"UPDATE {table} SET {quantity} = {quantity} + %s WHERE {agent} = %s AND {kind} = %s",
        "add": f"INSERT INTO {table} ({agent}, {kind}, {quantity}) VALUES (%s, %s, %s)",
    }


LEDGER_FIELDS = ("from_agent_id", "to_agent_id", "resource_type_id", "quantity", "source", "user_id", "created_at")


@cache
def _ledger_sql() -> str:
    columns = ", ".join(_column(ResourceTransfer, name.removesuffix("_id")) for name in LEDGER_FIELDS)
    values = ", ".join(["%s"] * len(LEDGER_FIELDS))
    pk = _column(ResourceTransfer, "id")
    return f"INSERT INTO {_table(ResourceTransfer)} ({columns}) VALUES ({values}) RETURNING {pk}"


def _for_update() -> str:
    """``FOR NO KEY UPDATE`` where the database has row locks; SQLite's IMMEDIATE
    transactions serialize writers instead."""
    if not connection.features.has_select_for_update:
        return ""
    return " " + connection.ops.for_update_sql(no_key=connection.features.has_select_for_no_key_update)


def lock_agents(agent_ids: list[int]) -> dict[int, str]:
    """Lock the agents' rows in ascending id order; the names of those that exist, by id."""
    wanted = sorted(set(agent_ids))
    if not wanted:
        return {}
    pk, name = _column(Agent, "id"), _column(Agent, "name")
    placeholders = ", ".join(["%s"] * len(wanted))
    sql = f"SELECT {pk}, {name} FROM {_table(Agent)} WHERE {pk} IN ({placeholders}) ORDER BY {pk}{_for_update()}"
    with connection.cursor() as cursor:
        cursor.execute(sql, wanted)
        return dict(cursor.fetchall())


# What the services read of a locked agent; its other fields load on first access.
LOCKED_AGENT_FIELDS = ("id", "name", "credits", "satiety", "energy")


def lock_agent(agent_id: int) -> Agent | None:
    """Lock one agent's row and read its needs and credits; None if there is no such agent."""
    columns = ", ".join(_column(Agent, name) for name in LOCKED_AGENT_FIELDS)
    sql = f"SELECT {columns} FROM {_table(Agent)} WHERE {_column(Agent, 'id')} = %s{_for_update()}"
    with connection.cursor() as cursor:
        cursor.execute(sql, [agent_id])
        row = cursor.fetchone()
    return Agent.from_db(connection.alias, LOCKED_AGENT_FIELDS, row) if row else None


@cache
def _credits_sql() -> dict[str, str]:
    table, pk, credits = _table(Agent), _column(Agent, "id"), _column(Agent, "credits")
    return {
        "take": f"UPDATE {table} SET {credits} = {credits} - %s WHERE {pk} = %s AND {credits} >= %s",
        "give": f"UPDATE {table} SET {credits} = {credits} + %s WHERE {pk} = %s",
    }


def take_credits(agent_id: int, amount: int) -> bool:
    """Debit an agent holding at least ``amount`` credits; False (nothing changed) otherwise."""
    with connection.cursor() as cursor:
        cursor.execute(_credits_sql()["take"], [amount, agent_id, amount])
        return cursor.rowcount == 1


def give_credits(agent_id: int, amount: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute(_credits_sql()["give"], [amount, agent_id])


def resource_type(slug: str) -> ResourceType | None:
    """The resource type with this slug, or None."""
    with connection.cursor() as cursor:
        cursor.execute(_resource_type_sql(), [slug])
        row = cursor.fetchone()
    if row is None:
        return None
    pk, slug, name, edible, satiety_gain = row
    # bool(): SQLite hands booleans back as 0/1.
    return ResourceType.from_db(connection.alias, RESOURCE_TYPE_FIELDS, (pk, slug, name, bool(edible), satiety_gain))


def take(agent_id: int, resource_type_id: int, quantity: int) -> bool:
    """Remove goods from a stock holding at least ``quantity``; False (nothing changed) otherwise."""
    with connection.cursor() as cursor:
        cursor.execute(_stock_sql()["take"], [quantity, agent_id, resource_type_id, quantity])
        return cursor.rowcount == 1


def give(agent_id: int, resource_type_id: int, quantity: int) -> None:
    """Add goods to an agent's stock, creating the holding if it has none.

    The caller holds the agent's lock, so the insert cannot race another one.
    """
    sql = _stock_sql()
    with connection.cursor() as cursor:
        cursor.execute(sql["give"], [quantity, agent_id, resource_type_id])
        if cursor.rowcount == 0:
            cursor.execute(sql["add"], [agent_id, resource_type_id, quantity])


def record_transfer(
    *, from_agent_id: int, to_agent_id: int, resource_type: ResourceType, quantity: int, source: str, user: Model | None
) -> ResourceTransfer:
    """Write a transfer's ledger row; returns it as saved."""
    values = (from_agent_id, to_agent_id, resource_type.pk, quantity, source, user.pk if user else None, timezone.now())
    adapted = [*values[:-1], connection.ops.adapt_datetimefield_value(values[-1])]
    with connection.cursor() as cursor:
        cursor.execute(_ledger_sql(), adapted)
        (pk,) = cursor.fetchone()
    transfer = ResourceTransfer.from_db(connection.alias, ("id", *LEDGER_FIELDS), (pk, *values))
    transfer.resource_type, transfer.user = resource_type, user
    return transfer
