"""City admin: every page loads, the ledger is read-only, an admin transfer goes through the service."""

import pytest
from django.test import Client
from django.urls import reverse

from city import services
from city.models import (
    AgentResource,
    Building,
    BuildingKind,
    CheckIn,
    CityChatMessage,
    MarketOrder,
    Purchase,
    ResourceTransfer,
    ResourceType,
    ShopItem,
)

from .conftest import holding

pytestmark = pytest.mark.django_db

CITY_MODELS = [ResourceType, BuildingKind, Building, ShopItem, MarketOrder, ResourceTransfer, Purchase, CheckIn, CityChatMessage]


@pytest.fixture
def admin_client(django_user_model):
    client = Client()
    client.force_login(django_user_model.objects.create_superuser("root", "root@example.com", "pw"))
    return client


@pytest.fixture
def city(alice, bob, stock, farm, bread_item):
    stock(alice, flour=10, wood=3)
    services.transfer_resource(from_agent_id=alice.pk, to_agent_id=bob.pk, resource_type="flour", quantity=2, source="api")
    services.create_market_order(agent_id=alice.pk, resource_type="flour", quantity=3, price=9)
    services.purchase(agent_id=bob.pk, item_id=bread_item.pk)
    services.post_city_chat(agent_id=bob.pk, content="hello")
    services.assign_building(agent_id=bob.pk, building_id=farm.pk)
    services.checkin(agent_id=bob.pk)


@pytest.mark.parametrize("model", CITY_MODELS, ids=lambda m: m.__name__)
def test_changelist_and_change_pages_load(admin_client, city, model):
    opts = model._meta
    assert admin_client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")).status_code == 200
    obj = model.objects.first()
    assert admin_client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])).status_code == 200


def test_ledger_filters_load(admin_client, city):
    url = reverse("admin:city_resourcetransfer_changelist")
    assert admin_client.get(url, {"source__exact": "api", "resource_type__id__exact": ResourceType.objects.get(slug="flour").pk}).status_code == 200


def test_ledger_rows_can_be_neither_changed_nor_deleted(admin_client, city):
    row = ResourceTransfer.objects.get()
    change = admin_client.post(
        reverse("admin:city_resourcetransfer_change", args=[row.pk]),
        {"from_agent": row.to_agent_id, "to_agent": row.from_agent_id, "resource_type": row.resource_type_id, "quantity": 99},
    )
    assert change.status_code == 403
    delete = admin_client.post(reverse("admin:city_resourcetransfer_delete", args=[row.pk]), {"post": "yes"})
    assert delete.status_code == 403
    row.refresh_from_db()
    assert (row.quantity, row.from_agent.name) == (2, "Alice")


def test_adding_a_ledger_row_is_a_real_transfer_audited_as_admin(admin_client, alice, bob, stock):
    stock(alice, flour=10)
    flour = ResourceType.objects.get(slug="flour")
    response = admin_client.post(
        reverse("admin:city_resourcetransfer_add"),
        {"from_agent": alice.pk, "to_agent": bob.pk, "resource_type": flour.pk, "quantity": 4},
    )
    assert response.status_code == 302
    row = ResourceTransfer.objects.get()
    assert (row.source, row.user.username, row.quantity) == ("admin", "root", 4)
    assert (holding(alice, "flour"), holding(bob, "flour")) == (6, 4)


def test_an_admin_transfer_the_service_refuses_shows_its_error(admin_client, alice, bob, stock):
    stock(alice, flour=3)
    flour = ResourceType.objects.get(slug="flour")
    response = admin_client.post(
        reverse("admin:city_resourcetransfer_add"),
        {"from_agent": alice.pk, "to_agent": bob.pk, "resource_type": flour.pk, "quantity": 5},
    )
    assert response.status_code == 200
    assert "flour 不足，当前 3，需要 5" in response.content.decode()
    assert not ResourceTransfer.objects.exists()


def test_agent_admin_shows_and_edits_resources_inline(admin_client, alice, stock):
    stock(alice, flour=3)
    url = reverse("admin:agents_agent_change", args=[alice.pk])
    html = admin_client.get(url).content.decode()
    assert "resources-TOTAL_FORMS" in html and "employment-TOTAL_FORMS" in html
    row = AgentResource.objects.get(agent=alice)
    data = {
        "name": "Alice", "persona": "", "model": "", "credits": 100, "satiety": 80, "energy": 80, "is_active": "on",
        "resources-TOTAL_FORMS": 1, "resources-INITIAL_FORMS": 1, "resources-MIN_NUM_FORMS": 0, "resources-MAX_NUM_FORMS": 1000,
        "resources-0-id": row.pk, "resources-0-agent": alice.pk, "resources-0-resource_type": row.resource_type_id,
        "resources-0-quantity": 8,
        "employment-TOTAL_FORMS": 0, "employment-INITIAL_FORMS": 0, "employment-MIN_NUM_FORMS": 0, "employment-MAX_NUM_FORMS": 1,
    }
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert holding(alice, "flour") == 8


def test_cancelling_market_orders_from_the_admin_returns_the_goods(admin_client, alice, stock):
    stock(alice, flour=10)
    order = services.create_market_order(agent_id=alice.pk, resource_type="flour", quantity=4, price=9)
    response = admin_client.post(
        reverse("admin:city_marketorder_changelist"), {"action": "cancel_orders", "_selected_action": [order.pk]}
    )
    assert response.status_code == 302
    order.refresh_from_db()
    assert (order.status, order.closed_by.username, holding(alice, "flour")) == ("cancelled", "root", 10)
