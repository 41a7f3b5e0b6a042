"""The statements of a resource transfer that the ORM would build too slowly, written once in SQL.

``transfer_resource`` is held to 2.0× the same statements in hand-written SQL
(``bench/transfers.py``). For these one-row statements Django spends longer composing the
SQL than PostgreSQL spends running it, so the ones where ``bench.transfers`` measured the
difference are composed here once, from the models' metadata, and run inside the caller's
transaction. Every rule stays in ``city.services``. The autonomy tick runs the same services a
thousand times a tick, so the credit moves are here too (a purchase's, a market order's; issue 29).

Figures: ``bench.transfers --transfers 1000``, 1 thread, CPU of the Django process per
transfer, 2026-11-23 on a shared 2-core machine (load 9-13): every statement through the
ORM 6.8 ms, all in SQL 2.3 ms; the ledger INSERT in SQL saved nothing measurable (7.0 ms).

Each statement runs on the connection the ORM would write its model to
(``router.db_for_write``); the SQL is cached per alias, since quoting and the row-lock
clause depend on the backend behind it. On PostgreSQL each is prepared once per connection
(``core.database.prepared_cursor``): parsed and planned again per run, they cost the server
twice the baseline's CPU.
"""

from __future__ import annotations

from functools import cache

from typing import Any

from django.db import connections, router
from django.db.models import Model
from django.utils import timezone

from agents.models import Agent
from core import rows
from core.database import prepared_cursor

from .models import AgentResource, ResourceTransfer, ResourceType

_RESOURCE_TYPE_FIELDS = tuple(field.attname for field in ResourceType._meta.concrete_fields)
_LEDGER_FIELDS = ("from_agent_id", "to_agent_id", "resource_type_id", "quantity", "source", "user_id", "created_at")


def _quoted(alias: str, model: type[Model], field: str | None = None) -> str:
    """The quoted table name of ``model``, or of one of its columns."""
    meta = model._meta
    return connections[alias].ops.quote_name(meta.db_table if field is None else meta.get_field(field).column)


@cache
def _statements(alias: str) -> dict[str, str]:
    """Every statement in the SQL of the database behind ``alias``, built once per alias."""
    features, lock = connections[alias].features, ""
    if features.has_select_for_update:  # SQLite's IMMEDIATE transactions serialize writers instead
        lock = " " + connections[alias].ops.for_update_sql(no_key=features.has_select_for_no_key_update)
    agents, agent_id, name = _quoted(alias, Agent), _quoted(alias, Agent, "id"), _quoted(alias, Agent, "name")
    credits = _quoted(alias, Agent, "credits")
    holdings = _quoted(alias, AgentResource)
    holder, kind, quantity = (_quoted(alias, AgentResource, field) for field in ("agent", "resource_type", "quantity"))
    kinds, slug = _quoted(alias, ResourceType), _quoted(alias, ResourceType, "slug")
    kind_columns = ", ".join(_quoted(alias, ResourceType, field.name) for field in ResourceType._meta.concrete_fields)
    ledger = _quoted(alias, ResourceTransfer)
    ledger_columns = ", ".join(_quoted(alias, ResourceTransfer, name.removesuffix("_id")) for name in _LEDGER_FIELDS)
    # The transfer's own statements: the lock also reads the resource type (one round trip), and
    # one UPDATE moves the goods, RETURNING which holdings it changed.
    transfer_lock = ""
    if features.has_select_for_update:
        transfer_lock = " " + connections[alias].ops.for_update_sql(no_key=features.has_select_for_no_key_update, of=(agents,))
    kind_of_row = ", ".join(f"{kinds}.{_quoted(alias, ResourceType, field.name)}" for field in ResourceType._meta.concrete_fields)
    return {
        "lock_transfer": f"SELECT {agents}.{agent_id}, {agents}.{name}, {kind_of_row} FROM {agents} "
        f"LEFT JOIN {kinds} ON {kinds}.{slug} = %s WHERE {agents}.{agent_id} IN ({{ids}}) "
        f"ORDER BY {agents}.{agent_id}{transfer_lock}",
        "move": f"UPDATE {holdings} SET {quantity} = CASE WHEN {holder} = %s THEN {quantity} - %s ELSE {quantity} + %s END "
        f"WHERE {kind} = %s AND (({holder} = %s AND {quantity} >= %s) OR {holder} = %s) RETURNING {holder}",
        "resource_type": f"SELECT {kind_columns} FROM {kinds} WHERE {slug} = %s",
        "record_transfer": f"INSERT INTO {ledger} ({ledger_columns}) VALUES ({', '.join(['%s'] * len(_LEDGER_FIELDS))}) "
        f"RETURNING {_quoted(alias, ResourceTransfer, 'id')}",
        "lock_agents": f"SELECT {agent_id}, {name} FROM {agents} WHERE {agent_id} IN ({{ids}}) ORDER BY {agent_id}{lock}",
        "take": f"UPDATE {holdings} SET {quantity} = {quantity} - %s "
        f"WHERE {holder} = %s AND {kind} = %s AND {quantity} >= %s",
        "give": f"UPDATE {holdings} SET {quantity} = {quantity} + %s WHERE {holder} = %s AND {kind} = %s",
        "take_credits": f"UPDATE {agents} SET {credits} = {credits} - %s WHERE {agent_id} = %s AND {credits} >= %s",
        "give_credits": f"UPDATE {agents} SET {credits} = {credits} + %s WHERE {agent_id} = %s",
    }


def lock_agents(agent_ids: list[int]) -> dict[int, str]:
    """Lock the agents' rows in ascending id order; the names of those that exist, by id.

    Through the ORM: 6.8 ms per transfer, this statement alone in SQL: 5.5 ms (figures above).
    """
    wanted = sorted(set(agent_ids))
    if not wanted:
        return {}
    alias = router.db_for_write(Agent)
    with prepared_cursor(connections[alias]) as cursor:
        cursor.execute(_statements(alias)["lock_agents"].format(ids=", ".join(["%s"] * len(wanted))), wanted)
        return dict(cursor.fetchall())


def _change_stock(statement: str, params: list) -> int:
    """Run a stock statement; the number of holdings it changed."""
    alias = router.db_for_write(AgentResource)
    with prepared_cursor(connections[alias]) as cursor:
        cursor.execute(_statements(alias)[statement], params)
        return cursor.rowcount


def take(agent_id: int, resource_type_id: int, quantity: int) -> bool:
    """Remove goods from a stock holding at least ``quantity``; False (nothing changed) otherwise.

    Through the ORM: 6.8 ms per transfer, ``take`` and ``give`` in SQL: 4.4 ms (figures above).
    """
    return _change_stock("take", [quantity, agent_id, resource_type_id, quantity]) == 1


def give(agent_id: int, resource_type_id: int, quantity: int) -> None:
    """Add goods to an agent's stock, creating the holding if it has none.

    The caller holds the agent's lock, so the insert cannot race another one (composed once,
    ``core.rows``: a tick gives a thousand residents their first holding).
    """
    if not _change_stock("give", [quantity, agent_id, resource_type_id]):
        rows.create(AgentResource(agent_id=agent_id, resource_type_id=resource_type_id, quantity=quantity))


def _change_credits(statement: str, params: list) -> int:
    alias = router.db_for_write(Agent)
    with prepared_cursor(connections[alias]) as cursor:
        cursor.execute(_statements(alias)[statement], params)
        return cursor.rowcount


def take_credits(agent_id: int, amount: int) -> bool:
    """Take credits from an agent holding at least ``amount``; False (nothing changed) otherwise."""
    return _change_credits("take_credits", [amount, agent_id, amount]) == 1


def give_credits(agent_id: int, amount: int) -> None:
    _change_credits("give_credits", [amount, agent_id])


def resource_type(slug: str) -> ResourceType | None:
    """The resource type of this slug, or None: ``ResourceType.objects.get`` without composing it.

    In ``bench.transfers --profile`` the ORM lookup was a quarter of the service's CPU."""
    alias = router.db_for_read(ResourceType)
    with prepared_cursor(connections[alias]) as cursor:
        cursor.execute(_statements(alias)["resource_type"], [slug])
        row = cursor.fetchone()
    return None if row is None else ResourceType.from_db(alias, _RESOURCE_TYPE_FIELDS, row)


def record_transfer(
    *, from_agent_id: int, to_agent_id: int, kind: ResourceType, quantity: int, source: str, user_id: Any
) -> ResourceTransfer:
    """Write one ledger row; the saved ``ResourceTransfer`` (its resource type attached).

    ``ResourceTransfer.objects.create`` without ``Model.save``'s machinery: in
    ``bench.transfers --profile`` it cost a fifth of the service's CPU. The ledger has no
    signal receivers and no defaults but ``created_at`` (auto_now_add, set here)."""
    alias = router.db_for_write(ResourceTransfer)
    connection = connections[alias]
    now = timezone.now()
    values = [from_agent_id, to_agent_id, kind.pk, quantity, source, user_id, connection.ops.adapt_datetimefield_value(now)]
    with prepared_cursor(connection) as cursor:
        cursor.execute(_statements(alias)["record_transfer"], values)
        (key,) = cursor.fetchone()
    transfer = ResourceTransfer(
        id=key, from_agent_id=from_agent_id, to_agent_id=to_agent_id, resource_type=kind, quantity=quantity,
        source=source, user_id=user_id, created_at=now,
    )
    transfer._state.adding, transfer._state.db = False, alias
    return transfer


def lock_for_transfer(agent_ids: list[int], slug: str) -> tuple[dict[int, str], ResourceType | None]:
    """``lock_agents`` plus the resource type of ``slug`` (None if there is none), in one statement.

    The type is read in the same round trip as the lock (``city.services.transfer_resource``);
    with no agent found there is nothing to read it from, and agent_not_found comes first anyway.
    """
    wanted = sorted(set(agent_ids))
    if not wanted:
        return {}, None
    alias = router.db_for_write(Agent)
    with prepared_cursor(connections[alias]) as cursor:
        cursor.execute(_statements(alias)["lock_transfer"].format(ids=", ".join(["%s"] * len(wanted))), [slug, *wanted])
        rows = cursor.fetchall()
    kind = None
    if rows and rows[0][2] is not None:
        kind = ResourceType.from_db(alias, _RESOURCE_TYPE_FIELDS, rows[0][2:])
    return {row[0]: row[1] for row in rows}, kind


def move(from_agent_id: int, to_agent_id: int, resource_type_id: int, quantity: int) -> tuple[bool, bool]:
    """Take goods from one holding and add them to another in one UPDATE; (taken, given).

    Taken only from a holding of at least ``quantity`` (the database also refuses a negative one).
    A caller that finds nothing taken must roll back (the receiver's holding may have grown: a
    transfer is atomic, and raising insufficient_resource does it); one that finds nothing given
    creates the receiver's holding (``give`` does). The two agents are distinct and locked."""
    alias = router.db_for_write(AgentResource)
    params = [from_agent_id, quantity, quantity, resource_type_id, from_agent_id, quantity, to_agent_id]
    with prepared_cursor(connections[alias]) as cursor:
        cursor.execute(_statements(alias)["move"], params)
        changed = {row[0] for row in cursor.fetchall()}
    return from_agent_id in changed, to_agent_id in changed
