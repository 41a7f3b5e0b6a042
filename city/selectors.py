"""Read-only queries of the city: a fixed number of queries whatever the number of agents."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.utils.translation import gettext as _

from agents.models import Agent, PendingAction
from agents.selectors import residents
from core.errors import NotFound
from core.text import join_items

from .models import (
    AgentResource,
    Building,
    BuildingKind,
    MarketOrder,
    ResourceTransfer,
    ResourceType,
    ShopItem,
)

HISTORY_LIMIT = 50


def is_resident(*, agent_id: int) -> bool:
    """A resident lives in the city (``Agent.kind``); the assistants (fund, front desk) do not."""
    return residents().filter(pk=agent_id).exists()


# What the API shows of an agent (DESIGN §11), in its order; ``agent_cards`` adds job, resources and tools.
AGENT_CARD_FIELDS = ("id", "name", "persona", "model", "credits", "satiety", "energy", "is_active")
_JOB_FIELDS = ("employment__building_id", "employment__building__name", "employment__building__wage")


def agent_rows(agents: QuerySet[Agent]) -> QuerySet:
    """The agents' own fields and their job's, as dicts: page it, then give the page to ``agent_cards``."""
    return agents.values(*AGENT_CARD_FIELDS, *_JOB_FIELDS)


def agent_cards(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Agents as the API shows them, from ``agent_rows``: two more queries for any number of them
    (the tools' names, by name; the stock held, by slug, zeros left out).

    Plain values, not model instances: a page of 50 residents granted 8 tools each was 500 model
    instances (each tool's JSON schema decoded) and DRF's fields per value; the API's dearest read.
    """
    rows = list(rows)
    owned = _agent_ids(row["id"] for row in rows)
    tools: dict[int, list[str]] = defaultdict(list)
    grants = Agent.tools.through.objects.filter(owned).order_by("tool__name", "tool_id")
    for agent_id, name in grants.values_list("agent_id", "tool__name"):
        tools[agent_id].append(name)
    resources: dict[int, dict[str, int]] = defaultdict(dict)
    holdings = AgentResource.objects.filter(owned, quantity__gt=0).order_by("resource_type__slug")
    for agent_id, slug, quantity in holdings.values_list("agent_id", "resource_type__slug", "quantity"):
        resources[agent_id][slug] = quantity
    cards = []
    for row in rows:
        building_id, building_name, wage = (row.pop(field) for field in _JOB_FIELDS)
        job = None if building_id is None else {"building_id": building_id, "building_name": building_name, "wage": wage}
        cards.append({**row, "job": job, "resources": resources.get(row["id"], {}), "tools": tools.get(row["id"], [])})
    return cards


def _agent_ids(ids: Iterable[int]) -> Q:
    """``agent_id`` among ``ids``: as the range they fill when they are consecutive (a page of agents
    by id, as a rule), two parameters instead of one per agent, whose preparation cost more than
    the query (0.5 ms of each of ``agent_cards``' two); else as the list."""
    ids = sorted(ids)
    if ids and ids[-1] - ids[0] + 1 == len(ids):
        return Q(agent_id__gte=ids[0], agent_id__lte=ids[-1])
    return Q(agent_id__in=ids)


def agent_resources(*, agent_id: int) -> dict[str, int]:
    rows = (
        AgentResource.objects.filter(agent_id=agent_id, quantity__gt=0)
        .order_by("resource_type__slug")
        .values_list("resource_type__slug", "quantity")
    )
    return dict(rows)


def find_agents(*, name: str) -> list[Agent]:
    """Agents whose name is ``name`` (any case) first, else those whose name contains it."""
    cleaned = name.strip()
    if not cleaned:
        return []
    exact = list(Agent.objects.filter(name__iexact=cleaned).order_by("id"))
    return exact or list(Agent.objects.filter(name__icontains=cleaned).order_by("id")[:10])


def agent_by_name(*, name: str) -> Agent:
    """The one agent called ``name`` (any case) or whose name alone contains it; else agent_not_found."""
    matches = find_agents(name=name)
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise NotFound("agent_not_found", _("找不到名为「%(name)s」的居民") % {"name": name.strip()}, field="name")
    names = join_items(agent.name for agent in matches)
    raise NotFound(
        "agent_not_found",
        _("有多个居民的名字包含「%(name)s」：%(names)s，请说出全名") % {"name": name.strip(), "names": names},
        field="name",
    )


def transfer_history(*, agent_id: int | None = None) -> QuerySet[ResourceTransfer]:
    """The ledger, newest first; with ``agent_id`` only the transfers it sent or received."""
    transfers = ResourceTransfer.objects.select_related("from_agent", "to_agent", "resource_type", "user").order_by("-id")
    if agent_id is not None:
        transfers = transfers.filter(Q(from_agent_id=agent_id) | Q(to_agent_id=agent_id))
    return transfers


# A ledger row as plain values (``transfer_rows``), in the API's order.
TRANSFER_ROW_FIELDS = (
    "id", "from_agent_id", "from_agent__name", "to_agent_id", "to_agent__name",
    "resource_type__slug", "quantity", "source", "user__username", "created_at",
)


def transfer_rows(*, agent_id: int | None = None) -> QuerySet:
    """``transfer_history`` as dicts of ``TRANSFER_ROW_FIELDS``: the names come with the row, not
    whole agents, resource type and user (a page of 50 was 250 model instances)."""
    return transfer_history(agent_id=agent_id).values(*TRANSFER_ROW_FIELDS)


def resource_table() -> tuple[list[ResourceType], list[tuple[Agent, list[int]]]]:
    """Every resident's stock as a table: the resource types (columns) and one row per resident."""
    types = list(ResourceType.objects.order_by("slug"))
    stock: dict[int, dict[int, int]] = defaultdict(dict)
    for agent_id, type_id, quantity in AgentResource.objects.values_list("agent_id", "resource_type_id", "quantity"):
        stock[agent_id][type_id] = quantity
    rows = [
        (agent, [stock[agent.pk].get(kind.pk, 0) for kind in types])
        for agent in residents().order_by("name")
    ]
    return types, rows


def shop_items() -> QuerySet[ShopItem]:
    return ShopItem.objects.filter(is_available=True).select_related("resource_type").order_by("id")


def buildings() -> QuerySet[Building]:
    """Every building with how many of its slots are taken (``workers``)."""
    return (
        Building.objects.select_related("kind", "produces")
        .annotate(workers=Count("employments"))
        .order_by("id")
    )


def building_kinds() -> QuerySet[BuildingKind]:
    return BuildingKind.objects.select_related("produces").prefetch_related("materials__resource_type").order_by("slug")


def market_orders(*, status: str | None = MarketOrder.Status.OPEN) -> QuerySet[MarketOrder]:
    orders = MarketOrder.objects.select_related("seller", "buyer", "resource_type").order_by("-id")
    return orders.filter(status=status) if status else orders


def market_order_seller_id(*, order_id: int) -> int:
    """The seller of an order (staff cancel on the seller's behalf), or order_not_found."""
    seller_id = MarketOrder.objects.filter(pk=order_id).values_list("seller_id", flat=True).first()
    if seller_id is None:
        raise order_not_found(order_id)
    return seller_id


def order_not_found(order_id: object) -> NotFound:
    return NotFound("order_not_found", _("挂单 #%(id)s 不存在") % {"id": order_id}, field="order_id")


def pending_transfers() -> QuerySet[PendingAction]:
    """Agents' transfers waiting for a staff member's confirmation (when staff require it)."""
    return (
        PendingAction.objects.open().filter(tool_name="transfer_resource")
        .select_related("agent")
        .order_by("-id")
    )
