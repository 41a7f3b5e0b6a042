"""The city's demo data: complete, consistent, idempotent."""

import io

import pytest

from agents.models import Agent
from city import demo
from city.models import AgentResource, Building, Employment, MarketOrder, ShopItem

pytestmark = pytest.mark.django_db


def snapshot() -> dict:
    return {
        "agents": sorted(Agent.objects.values_list("name", "credits")),
        "stock": sorted(AgentResource.objects.values_list("agent__name", "resource_type__slug", "quantity")),
        "buildings": Building.objects.count(),
        "jobs": sorted(Employment.objects.values_list("agent__name", "building__name")),
        "shop": ShopItem.objects.count(),
        "orders": sorted(MarketOrder.objects.values_list("seller__name", "resource_type__slug", "quantity", "status")),
    }


def test_demo_city_has_residents_jobs_shop_and_open_orders():
    demo.seed(io.StringIO())
    assert {"Alice", "Bob", "Carol"} <= set(Agent.objects.values_list("name", flat=True))
    assert Building.objects.count() == len(demo.BUILDINGS)
    assert Employment.objects.filter(agent__name="Bob", building__name="城东农田").exists()
    assert MarketOrder.objects.filter(status="open").count() == len(demo.MARKET_ORDERS)
    # The orders' goods were reserved through the service: Carol's 10 wheat minus the 5 on sale.
    assert AgentResource.objects.get(agent__name="Carol", resource_type__slug="wheat").quantity == 5


def test_demo_residents_are_granted_every_city_tool():
    demo.seed(io.StringIO())
    for agent in Agent.objects.filter(name__in=demo.RESIDENTS):
        assert set(agent.tools.values_list("name", flat=True)) >= set(demo.CITY_TOOLS)


def test_seeding_twice_changes_nothing():
    demo.seed(io.StringIO())
    first = snapshot()
    out = io.StringIO()
    demo.seed(out)
    assert snapshot() == first
    assert "City 长安" in out.getvalue()
