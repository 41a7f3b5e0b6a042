"""Read-only queries of the city: a fixed number of queries whatever the number of agents."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db.models import Count, Prefetch, Q, QuerySet
from django.utils.translation import gettext as _

from agents.models import Agent, PendingAction
from agents.selectors import residents
from core.errors import NotFound
from core.text import join_items

from .models import (
    AgentResource,
    Building,
    BuildingKind,
    Employment,
    MarketOrder,
    ResourceTransfer,
    ResourceType,
    ShopItem,
)

HISTORY_LIMIT = 50


def is_resident(*, agent_id: int) -> bool:
    """A resident lives in the city (``Agent.kind``); the assistants (fund, front desk) do not."""
    return residents().filter(pk=agent_id).exists()


def with_city_state(agents: QuerySet[Agent]) -> QuerySet[Agent]:
    """Agents with their stock and job loaded in two extra queries (for ``resources_of`` / ``job_of``)."""
    holdings = AgentResource.objects.filter(quantity__gt=0).select_related("resource_type").order_by("resource_type__slug")
    return agents.select_related("employment__building").prefetch_related(
        Prefetch("resources", queryset=holdings, to_attr="city_holdings")
    )


def resources_of(agent: Agent) -> dict[str, int]:
    """``{slug: quantity}`` of what an agent holds (zero stock left out), from ``with_city_state``."""
    holdings = getattr(agent, "city_holdings", None)
    if holdings is None:
        return agent_resources(agent_id=agent.pk)
    return {holding.resource_type.slug: holding.quantity for holding in holdings}


def job_of(agent: Agent) -> dict[str, Any] | None:
    """The agent's job as ``{building_id, building_name, wage}``, or None."""
    try:
        building = agent.employment.building
    except Employment.DoesNotExist:
        return None
    return {"building_id": building.pk, "building_name": building.name, "wage": building.wage}


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
