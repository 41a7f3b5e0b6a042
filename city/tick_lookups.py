"""What a tick batch reads once instead of once per decision (issue 29 §4).

The tick executes a batch of decisions in one transaction (``agents.autonomy.execution``). Most
of its time went into reading the same rows again for every decision: the acting resident's
row, the resource type, the shop item, the building, who works there. While a batch runs, the
city's world (``CityWorld.open_batch``) holds a ``BatchLookups`` and the services read through
it (``current()``); anywhere else (chat, API, admin) ``current()`` is ``None`` and nothing
changes. Every rule stays in ``city.services``; this holds rows, never decides.

What it holds, and why it stays true for the batch:

- the batch's residents, locked once in ascending id order when the batch opens (the services'
  lock order; on SQLite the batch's IMMEDIATE transaction already holds the write lock). A
  service that changes a cached row through the object (``save``) keeps it current; one that
  changes credits by UPDATE (``credits_changed``) drops the row, so the next read goes to the
  database.
- the buildings the batch's ``assign_building`` decisions name, locked after the residents (the
  services' order: agent, then building), with their employee counts, and the residents' jobs.
- the resource types and shop items, read on first use. A staff change to one of them meanwhile
  applies from the next batch (a batch lasts milliseconds), as for grants (``ExecutionBatch``).
- a resident's needs and credits changed by a service are written back by one statement composed
  once (``save``).
- a tool call that fails is rolled back to its savepoint: ``end_call(ok=False)`` (and a
  savepoint discarded later, ``discard_call``) forgets every cached row that call touched.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from typing import Any

from django.db import connections, router
from django.db.models import Count
from django.utils import timezone

from agents.models import Agent
from core import rows
from core.database import statement_cursor

from .models import Building, CheckIn, Employment, ResourceType, ShopItem

AGENT_FIELDS = ("name", "credits", "satiety", "energy")  # what the services read of an agent (``_lock_agent``)
_LOCKED_FIELDS = ("id", *AGENT_FIELDS)
UNKNOWN = object()  # not held here: ask the database

_current: ContextVar[BatchLookups | None] = ContextVar("city_batch_lookups", default=None)


def current() -> BatchLookups | None:
    """The open batch's look-ups, or None outside a tick batch."""
    return _current.get()


class BatchLookups:
    def __init__(self, agent_ids: Iterable[int], building_ids: Iterable[int], workers: Iterable[int] = ()) -> None:
        self._agents: dict[int, Agent] = _lock_agents(sorted(set(agent_ids)))
        self._wanted: list[int] | None = sorted({pk for pk in building_ids if isinstance(pk, int) and not isinstance(pk, bool)})
        self._buildings: dict[int, Building] = {}
        self._staff: dict[int, int] = {}
        self._jobs: dict[int, str | None] = {}
        self._kinds: dict[str, ResourceType] | None = None
        self._items: dict[int, ShopItem] | None = None
        self._touched: list[tuple[dict, Any]] = []
        self._workplaces: dict[int, Building | None] = {}
        self._checked_in: dict[int, bool] = {}
        self._day = timezone.localdate()
        held = sorted(set(workers) & self._agents.keys())
        if held:
            self._read_work(held)

    def _read_work(self, ids: list[int]) -> None:
        """Where these residents work (the building's wage and output) and whether they checked in
        today: what a checkin reads, in two statements for the batch."""
        kinds = {kind.pk: kind for kind in self._resource_types().values()}
        alias = router.db_for_write(Employment)
        connection = connections[alias]
        statements = _work_statements(alias)
        placeholders = ", ".join(["%s"] * len(ids))
        self._workplaces = dict.fromkeys(ids)
        self._checked_in = dict.fromkeys(ids, False)
        with statement_cursor(connection) as cursor:
            cursor.execute(statements["workplaces"].format(ids=placeholders), ids)
            for agent_id, *values in cursor.fetchall():
                building = Building.from_db(alias, _WORKPLACE_FIELDS, values)
                if building.produces_id is not None:
                    building.produces = kinds[building.produces_id]
                self._workplaces[agent_id] = building
            cursor.execute(statements["checked_in"].format(ids=placeholders), [connection.ops.adapt_datefield_value(self._day), *ids])
            for (agent_id,) in cursor.fetchall():
                self._checked_in[agent_id] = True

    def _hold_buildings(self) -> None:
        """Lock the buildings the batch's job decisions name (ascending id, after the residents),
        count their staff and read where the residents work: once, when the first job decision
        runs. The batch runs those last (``CityWorld.contended_actions``): another batch naming
        the same building waits for the end of this one's job decisions, not for all of its work."""
        wanted, self._wanted = self._wanted, None
        if not wanted:
            return
        buildings = Building.objects.select_for_update(no_key=True).filter(pk__in=wanted).order_by("pk")
        self._buildings = {building.pk: building for building in buildings}
        counted = Employment.objects.filter(building_id__in=self._buildings).order_by().values("building_id")
        self._staff = dict.fromkeys(self._buildings, 0) | dict(counted.annotate(n=Count("id")).values_list("building_id", "n"))
        self._jobs = dict.fromkeys(self._agents, None) | dict(
            Employment.objects.filter(agent_id__in=self._agents).values_list("agent_id", "building__name")
        )  # read in the batch's transaction: a job left earlier in the batch is gone already

    # ------------------------------------------------------------------ reads

    def agent(self, agent_id: Any) -> Agent | None:
        """The resident's locked row, or None when the batch does not hold it."""
        agent = self._agents.get(agent_id)
        if agent is not None:
            self._touched.append((self._agents, agent_id))  # the caller may change and save it
        return agent

    def building(self, building_id: Any) -> Building | None:
        """A locked building the batch's decisions name, or None."""
        self._hold_buildings()
        return self._buildings.get(building_id)

    def staff(self, building_id: int) -> int | None:
        """How many work in a held building, or None."""
        self._hold_buildings()
        return self._staff.get(building_id)

    def job(self, agent_id: int) -> Any:
        """The name of the building the resident works in, None when jobless, ``UNKNOWN`` when not held."""
        self._hold_buildings()
        return self._jobs.get(agent_id, UNKNOWN)

    def workplace(self, agent_id: int) -> Any:
        """The building the resident works in (its wage and output), None when jobless, ``UNKNOWN`` when not held."""
        return self._workplaces.get(agent_id, UNKNOWN)

    def checked_in(self, agent_id: int, day: Any) -> Any:
        """Whether the resident checked in on ``day``, or ``UNKNOWN`` when not held."""
        return self._checked_in.get(agent_id, UNKNOWN) if day == self._day else UNKNOWN

    def _resource_types(self) -> dict[str, ResourceType]:
        if self._kinds is None:
            self._kinds = {kind.slug: kind for kind in rows.read_all(ResourceType)}
        return self._kinds

    def resource_type(self, slug: str) -> ResourceType | None:
        return self._resource_types().get(slug)

    def shop_item(self, item_id: Any) -> ShopItem | None:
        if self._items is None:
            kinds = {kind.pk: kind for kind in self._resource_types().values()}
            self._items = {}
            for item in rows.read_all(ShopItem):
                item.resource_type = kinds[item.resource_type_id]
                self._items[item.pk] = item
        return self._items.get(item_id)

    # ------------------------------------------------------------------ writes

    def save(self, agent: Agent, fields: tuple[str, ...]) -> None:
        """Write these fields of a locked agent's row: ``agent.save(update_fields=fields)``, in one
        statement composed once (the ORM spent longer building it than SQLite running it)."""
        alias = router.db_for_write(Agent)
        with statement_cursor(connections[alias]) as cursor:
            cursor.execute(_update_statement(alias, fields), [getattr(agent, field) for field in fields] + [agent.pk])


    def credits_changed(self, agent_id: int) -> None:
        """Credits moved by an UPDATE: the cached row no longer says how many."""
        self._agents.pop(agent_id, None)

    def worked(self, agent_id: int) -> None:
        """The resident checked in today."""
        if agent_id in self._checked_in:
            self._checked_in[agent_id] = True
            self._touched.append((self._checked_in, agent_id))

    def hired(self, agent_id: int, building: Building) -> None:
        if building.pk in self._staff:
            self._staff[building.pk] += 1
            self._touched.append((self._staff, building.pk))
        self._jobs[agent_id] = building.name
        self._touched.append((self._jobs, agent_id))
        self._workplaces.pop(agent_id, None)  # read again from the database should it be asked

    def left(self, agent_id: int, building_id: int) -> None:
        if building_id in self._staff:
            self._staff[building_id] -= 1
            self._touched.append((self._staff, building_id))
        self._jobs[agent_id] = None
        self._touched.append((self._jobs, agent_id))
        self._workplaces.pop(agent_id, None)

    # ------------------------------------------------------------------ the executor's calls

    def begin_call(self) -> None:
        self._touched = []

    def end_call(self, *, ok: bool) -> None:
        if not ok:
            self.discard_call()

    def discard_call(self) -> None:
        """The last call's savepoint was rolled back: forget what it touched."""
        for held, key in self._touched:
            held.pop(key, None)
        self._touched = []


def _lock_agents(ids: list[int]) -> dict[int, Agent]:
    """Lock the residents' rows in ascending id order and read what the services read of them
    (``Agent.objects.select_for_update(no_key=True).only(*AGENT_FIELDS)``, composed once)."""
    if not ids:
        return {}
    alias = router.db_for_write(Agent)
    with statement_cursor(connections[alias]) as cursor:
        cursor.execute(_lock_statement(alias).format(ids=", ".join(["%s"] * len(ids))), ids)
        return {row[0]: rows.from_db(Agent, alias, _LOCKED_FIELDS, row) for row in cursor.fetchall()}


@cache
def _lock_statement(alias: str) -> str:
    connection, meta = connections[alias], Agent._meta
    quote, features = connection.ops.quote_name, connection.features
    columns = ", ".join(quote(meta.get_field(field).column) for field in ("id", *AGENT_FIELDS))
    lock = ""
    if features.has_select_for_update:  # SQLite's IMMEDIATE transaction already holds the write lock
        lock = " " + connection.ops.for_update_sql(no_key=features.has_select_for_no_key_update)
    key = quote(meta.pk.column)
    return f"SELECT {columns} FROM {quote(meta.db_table)} WHERE {key} IN ({{ids}}) ORDER BY {key}{lock}"


_WORKPLACE_FIELDS = ("id", "name", "wage", "produces_id", "produces_quantity")


@cache
def _work_statements(alias: str) -> dict[str, str]:
    quote = connections[alias].ops.quote_name
    jobs, buildings, checkins = (quote(model._meta.db_table) for model in (Employment, Building, CheckIn))
    job_agent, job_building = (quote(Employment._meta.get_field(name).column) for name in ("agent", "building"))
    columns = ", ".join(f"{buildings}.{quote(Building._meta.get_field(name.removesuffix('_id')).column)}" for name in _WORKPLACE_FIELDS)
    key = quote(Building._meta.pk.column)
    checkin_agent, day = (quote(CheckIn._meta.get_field(name).column) for name in ("agent", "day"))
    return {
        "workplaces": f"SELECT {jobs}.{job_agent}, {columns} FROM {jobs} INNER JOIN {buildings} ON {buildings}.{key} = {jobs}.{job_building} "
        f"WHERE {jobs}.{job_agent} IN ({{ids}})",
        "checked_in": f"SELECT {checkin_agent} FROM {checkins} WHERE {day} = %s AND {checkin_agent} IN ({{ids}})",
    }


@cache
def _update_statement(alias: str, fields: tuple[str, ...]) -> str:
    quote, meta = connections[alias].ops.quote_name, Agent._meta
    columns = ", ".join(f"{quote(meta.get_field(field).column)} = %s" for field in fields)
    return f"UPDATE {quote(meta.db_table)} SET {columns} WHERE {quote(meta.pk.column)} = %s"


@contextmanager
def batch_lookups(agent_ids: Iterable[int], building_ids: Iterable[int] = (), workers: Iterable[int] = ()) -> Iterator[BatchLookups]:
    """Hold the batch's look-ups while it executes (inside its transaction)."""
    lookups = BatchLookups(agent_ids, building_ids, workers)
    token = _current.set(lookups)
    try:
        yield lookups
    finally:
        _current.reset(token)
