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

from agents.models import Agent

from .models import Building, Employment, ResourceType, ShopItem

AGENT_FIELDS = ("name", "credits", "satiety", "energy")  # what the services read of an agent (``_lock_agent``)
UNKNOWN = object()  # not held here: ask the database

_current: ContextVar[BatchLookups | None] = ContextVar("city_batch_lookups", default=None)


def current() -> BatchLookups | None:
    """The open batch's look-ups, or None outside a tick batch."""
    return _current.get()


class BatchLookups:
    def __init__(self, agent_ids: Iterable[int], building_ids: Iterable[int]) -> None:
        ids = sorted(set(agent_ids))
        locked = Agent.objects.select_for_update(no_key=True).only(*AGENT_FIELDS).filter(pk__in=ids).order_by("pk")
        self._agents: dict[int, Agent] = {agent.pk: agent for agent in locked}
        wanted = sorted({pk for pk in building_ids if isinstance(pk, int) and not isinstance(pk, bool)})
        self._buildings: dict[int, Building] = {}
        self._staff: dict[int, int] = {}
        self._jobs: dict[int, str | None] = {}
        if wanted:
            buildings = Building.objects.select_for_update(no_key=True).filter(pk__in=wanted).order_by("pk")
            self._buildings = {building.pk: building for building in buildings}
            counted = Employment.objects.filter(building_id__in=self._buildings).order_by().values("building_id")
            self._staff = dict.fromkeys(self._buildings, 0) | dict(
                counted.annotate(n=Count("id")).values_list("building_id", "n")
            )
            self._jobs = dict.fromkeys(self._agents, None) | dict(
                Employment.objects.filter(agent_id__in=self._agents).values_list("agent_id", "building__name")
            )
        self._kinds: dict[str, ResourceType] | None = None
        self._items: dict[int, ShopItem] | None = None
        self._touched: list[tuple[dict, Any]] = []

    # ------------------------------------------------------------------ reads

    def agent(self, agent_id: Any) -> Agent | None:
        """The resident's locked row, or None when the batch does not hold it."""
        agent = self._agents.get(agent_id)
        if agent is not None:
            self._touched.append((self._agents, agent_id))  # the caller may change and save it
        return agent

    def building(self, building_id: Any) -> Building | None:
        """A locked building the batch's decisions name, or None."""
        return self._buildings.get(building_id)

    def staff(self, building_id: int) -> int | None:
        """How many work in a held building, or None."""
        return self._staff.get(building_id)

    def job(self, agent_id: int) -> Any:
        """The name of the building the resident works in, None when jobless, ``UNKNOWN`` when not held."""
        return self._jobs.get(agent_id, UNKNOWN)

    def resource_type(self, slug: str) -> ResourceType | None:
        if self._kinds is None:
            self._kinds = {kind.slug: kind for kind in ResourceType.objects.all()}
        return self._kinds.get(slug)

    def shop_item(self, item_id: Any) -> ShopItem | None:
        if self._items is None:
            self._items = {item.pk: item for item in ShopItem.objects.select_related("resource_type")}
        return self._items.get(item_id)

    # ------------------------------------------------------------------ writes

    def save(self, agent: Agent, fields: tuple[str, ...]) -> None:
        """Write these fields of a locked agent's row: ``agent.save(update_fields=fields)``, in one
        statement composed once (the ORM spent longer building it than SQLite running it)."""
        alias = router.db_for_write(Agent)
        with connections[alias].cursor() as cursor:
            cursor.execute(_update_statement(alias, fields), [getattr(agent, field) for field in fields] + [agent.pk])


    def credits_changed(self, agent_id: int) -> None:
        """Credits moved by an UPDATE: the cached row no longer says how many."""
        self._agents.pop(agent_id, None)

    def hired(self, agent_id: int, building: Building) -> None:
        if building.pk in self._staff:
            self._staff[building.pk] += 1
            self._touched.append((self._staff, building.pk))
        self._jobs[agent_id] = building.name
        self._touched.append((self._jobs, agent_id))

    def left(self, agent_id: int, building_id: int) -> None:
        if building_id in self._staff:
            self._staff[building_id] -= 1
            self._touched.append((self._staff, building_id))
        self._jobs[agent_id] = None
        self._touched.append((self._jobs, agent_id))

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


@cache
def _update_statement(alias: str, fields: tuple[str, ...]) -> str:
    quote, meta = connections[alias].ops.quote_name, Agent._meta
    columns = ", ".join(f"{quote(meta.get_field(field).column)} = %s" for field in fields)
    return f"UPDATE {quote(meta.db_table)} SET {columns} WHERE {quote(meta.pk.column)} = %s"


@contextmanager
def batch_lookups(agent_ids: Iterable[int], building_ids: Iterable[int] = ()) -> Iterator[BatchLookups]:
    """Hold the batch's look-ups while it executes (inside its transaction)."""
    lookups = BatchLookups(agent_ids, building_ids)
    token = _current.set(lookups)
    try:
        yield lookups
    finally:
        _current.reset(token)
