"""The statements every movement of goods and credits runs, written out once in SQL.

Transfers, meals, rest, purchases, the market, check-ins and construction all lock agents,
look a resource type up by slug, move stock or credits and write needs back; a transfer
also writes its ledger row.
Built by the ORM on every call, each of these one-row statements cost two to four times in
Python what the database spent running it (0.2–0.3 ms of query compilation here), and the
transfer is held to 2.5× hand-written SQL (``bench/transfers.py``). So they are composed
here once, from the models' metadata, and run on Django's connection inside the caller's
transaction. Every rule stays in ``city.services``; this module only reads and writes rows.
"""

from __future__ import annotations

from functools import cache

from django.db import connection
from django.db.models import Model
from django.utils import timezone

from agents.models import Agent

from .models import AgentResource, ResourceTransfer, ResourceType

# What the services read of a locked agent; its other fields load on first access.
LOCKED_AGENT_FIELDS = ("id", "name", "credits", "satiety", "energy")
RESOURCE_TYPE_FIELDS = ("id", "slug", "name", "edible", "satiety_gain")
LEDGER_FIELDS = ("from_agent_id", "to_agent_id", "resource_type_id", "quantity", "source", "user_id", "created_at")


def _table(model: type[Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _columns(model: type[Model], *fields: str) -> str:
    return ", ".join(connection.ops.quote_name(model._meta.get_field(field).column) for field in fields)


@cache
def _sql() -> dict[str, str]:
    """Every statement, built once per process (one database per process)."""
    lock = ""
    if connection.features.has_select_for_update:  # SQLite's IMMEDIATE transactions serialize writers instead
        lock = " " + connection.ops.for_update_sql(no_key=connection.features.has_select_for_no_key_update)
    agents, agent_id, credits = _table(Agent), _columns(Agent, "id"), _columns(Agent, "credits")
    holdings, holder, kind, quantity = (
        _table(AgentResource),
        *(_columns(AgentResource, field) for field in ("agent", "resource_type", "quantity")),
    )
    ledger_columns = _columns(ResourceTransfer, *(name.removesuffix("_id") for name in LEDGER_FIELDS))
    return {
        "lock_agents": f"SELECT {agent_id}, {_columns(Agent, 'name')} FROM {agents} WHERE {agent_id} IN ({{ids}}) "
        f"ORDER BY {agent_id}{lock}",
        "lock_agent": f"SELECT {_columns(Agent, *LOCKED_AGENT_FIELDS)} FROM {agents} WHERE {agent_id} = %s{lock}",
        "take_credits": f"UPDATE {agents} SET {credits} = {credits} - %s WHERE {agent_id} = %s AND {credits} >= %s",
        "give_credits": f"UPDATE {agents} SET {credits} = {credits} + %s WHERE {agent_id} = %s",
        "resource_type": f"SELECT {_columns(ResourceType, *RESOURCE_TYPE_FIELDS)} FROM {_table(ResourceType)} "
        f"WHERE {_columns(ResourceType, 'slug')} = %s",
        "take": f"UPDATE {holdings} SET {quantity} = {quantity} - %s "
        f"WHERE {holder} = %s AND {kind} = %s AND {quantity} >= %s",
        "give": f"UPDATE {holdings} SET {quantity} = {quantity} + %s WHERE {holder} = %s AND {kind} = %s",
        "add": f"INSERT INTO {holdings} ({holder}, {kind}, {quantity}) VALUES (%s, %s, %s)",
        "record_transfer": f"INSERT INTO {_table(ResourceTransfer)} ({ledger_columns}) "
        f"VALUES ({', '.join(['%s'] * len(LEDGER_FIELDS))}) RETURNING {_columns(ResourceTransfer, 'id')}",
    }


def _execute(statement: str, params: list) -> tuple[int, tuple | None]:
    """Run a statement; its row count and first row (None when it returns no row)."""
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        return cursor.rowcount, cursor.fetchone() if cursor.description else None


# ---------------------------------------------------------------------------- agents


def lock_agents(agent_ids: list[int]) -> dict[int, str]:
    """Lock the agents' rows in ascending id order; the names of those that exist, by id."""
    wanted = sorted(set(agent_ids))
    if not wanted:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(_sql()["lock_agents"].format(ids=", ".join(["%s"] * len(wanted))), wanted)
        return dict(cursor.fetchall())


def lock_agent(agent_id: int) -> Agent | None:
    """Lock one agent's row and read its needs and credits; None if there is no such agent."""
    _, row = _execute(_sql()["lock_agent"], [agent_id])
    return Agent.from_db(connection.alias, LOCKED_AGENT_FIELDS, row) if row else None


@cache
def _update_agent_sql(fields: tuple[str, ...]) -> str:
    assignments = ", ".join(f"{_columns(Agent, field)} = %s" for field in fields)
    return f"UPDATE {_table(Agent)} SET {assignments} WHERE {_columns(Agent, 'id')} = %s"


def update_agent(agent: Agent, *fields: str) -> None:
    """Write back what a service changed on an agent it holds locked (``save(update_fields=…)``
    without the ORM's query building)."""
    _execute(_update_agent_sql(fields), [*(getattr(agent, field) for field in fields), agent.pk])


def take_credits(agent_id: int, amount: int) -> bool:
    """Debit an agent holding at least ``amount`` credits; False (nothing changed) otherwise."""
    taken, _ = _execute(_sql()["take_credits"], [amount, agent_id, amount])
    return taken == 1


def give_credits(agent_id: int, amount: int) -> None:
    _execute(_sql()["give_credits"], [amount, agent_id])


# ---------------------------------------------------------------------------- goods


def resource_type(slug: str) -> ResourceType | None:
    """The resource type with this slug, or None."""
    _, row = _execute(_sql()["resource_type"], [slug])
    if row is None:
        return None
    pk, slug, name, edible, satiety_gain = row
    # bool(): SQLite hands booleans back as 0/1.
    return ResourceType.from_db(connection.alias, RESOURCE_TYPE_FIELDS, (pk, slug, name, bool(edible), satiety_gain))


def take(agent_id: int, resource_type_id: int, quantity: int) -> bool:
    """Remove goods from a stock holding at least ``quantity``; False (nothing changed) otherwise."""
    taken, _ = _execute(_sql()["take"], [quantity, agent_id, resource_type_id, quantity])
    return taken == 1


def give(agent_id: int, resource_type_id: int, quantity: int) -> None:
    """Add goods to an agent's stock, creating the holding if it has none.

    The caller holds the agent's lock, so the insert cannot race another one.
    """
    added, _ = _execute(_sql()["give"], [quantity, agent_id, resource_type_id])
    if not added:
        _execute(_sql()["add"], [agent_id, resource_type_id, quantity])


def record_transfer(
    *, from_agent_id: int, to_agent_id: int, resource_type: ResourceType, quantity: int, source: str, user: Model | None
) -> ResourceTransfer:
    """Write a transfer's ledger row; returns it as saved."""
    values = (from_agent_id, to_agent_id, resource_type.pk, quantity, source, user.pk if user else None, timezone.now())
    _, (pk,) = _execute(_sql()["record_transfer"], [*values[:-1], connection.ops.adapt_datetimefield_value(values[-1])])
    transfer = ResourceTransfer.from_db(connection.alias, ("id", *LEDGER_FIELDS), (pk, *values))
    transfer.resource_type, transfer.user = resource_type, user
    return transfer
