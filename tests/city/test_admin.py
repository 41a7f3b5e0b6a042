"""City admin: every page loads, the ledgers are read-only, admin transfers and corrections go through the services."""

import pytest
from django.contrib.admin import helpers
from django.contrib.auth.models import Permission
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse, reverse_lazy

from agents.models import Agent
from city import services
from city.models import (
    AgentResource,
    Building,
    BuildingKind,
    CheckIn,
    CityChatMessage,
    CreditEntry,
    MarketOrder,
    Purchase,
    ResourceTransfer,
    ResourceType,
    ShopItem,
    StockAdjustment,
)
from tests.agents.test_i18n import untranslated

from .conftest import holding

pytestmark = pytest.mark.django_db

CITY_MODELS = [
    ResourceType, BuildingKind, Building, ShopItem, MarketOrder, ResourceTransfer, Purchase, CheckIn, CityChatMessage,
    CreditEntry, StockAdjustment,
]


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
    services.grant_credits(agent_id=alice.pk, amount=5, source="admin", reason="补发")
    services.adjust_stock(agent_id=bob.pk, resource_type="wood", quantity=2, reason="盘点")


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
    assert "面粉 不足，当前 3，需要 5" in response.content.decode()
    assert not ResourceTransfer.objects.exists()


def test_agent_admin_shows_credits_needs_and_resources_read_only(admin_client, alice, stock):
    stock(alice, flour=3)
    url = reverse("admin:agents_agent_change", args=[alice.pk])
    html = admin_client.get(url).content.decode()
    assert "resources-TOTAL_FORMS" in html and "employment-TOTAL_FORMS" in html
    assert 'name="credits"' not in html and 'name="resources-0-quantity"' not in html
    row = AgentResource.objects.get(agent=alice)
    data = {
        "name": "Alice", "kind": "resident", "persona": "", "model": "", "credits": 999, "satiety": 1, "energy": 1, "is_active": "on",
        "resources-TOTAL_FORMS": 1, "resources-INITIAL_FORMS": 1, "resources-MIN_NUM_FORMS": 0, "resources-MAX_NUM_FORMS": 1000,
        "resources-0-id": row.pk, "resources-0-agent": alice.pk, "resources-0-resource_type": row.resource_type_id,
        "resources-0-quantity": 8,
        "employment-TOTAL_FORMS": 0, "employment-INITIAL_FORMS": 0, "employment-MIN_NUM_FORMS": 0, "employment-MAX_NUM_FORMS": 1,
    }
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    alice.refresh_from_db()
    assert (alice.credits, alice.satiety, alice.energy, holding(alice, "flour")) == (100, 80, 80, 3)


AGENTS_URL = reverse_lazy("admin:agents_agent_changelist")


def run_action(client, action, agents, **fields):
    """Post an agent action from the change list; with ``fields`` (the form's input), apply it."""
    data = {"action": action, helpers.ACTION_CHECKBOX_NAME: [agent.pk for agent in agents]}
    if fields:
        data.update(fields, apply="1")
    return client.post(AGENTS_URL, data)


def page_messages(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def test_grant_credits_asks_for_the_amount_and_reason_on_a_page_of_its_own(admin_client, alice):
    response = run_action(admin_client, "grant_credits", [alice])
    html = response.content.decode()
    assert response.status_code == 200
    assert 'name="amount"' in html and 'name="reason"' in html and "csrfmiddlewaretoken" in html
    assert 'name="action" value="grant_credits"' in html and f'name="_selected_action" value="{alice.pk}"' in html
    assert (Agent.objects.get(pk=alice.pk).credits, CreditEntry.objects.count()) == (100, 0)


def test_grant_credits_pays_each_selected_agent_and_writes_admin_ledger_rows(admin_client, alice, bob):
    response = run_action(admin_client, "grant_credits", [alice, bob], amount=20, reason="节日奖励")
    assert response.status_code == 302
    assert page_messages(response) == ["2 位居民已调整"]
    assert dict(Agent.objects.values_list("name", "credits")) == {"Alice": 120, "Bob": 120}
    rows = CreditEntry.objects.order_by("agent_id")
    assert [(row.agent, row.amount, row.source, row.reason, row.user.username) for row in rows] == [
        (alice, 20, "admin", "节日奖励", "root"), (bob, 20, "admin", "节日奖励", "root"),
    ]


def test_grant_credits_refuses_a_zero_amount_and_changes_nothing(admin_client, alice):
    response = run_action(admin_client, "grant_credits", [alice], amount=0, reason="测试")
    assert response.status_code == 200
    assert "金额必须是非零整数（负数为扣除），绝对值不超过 1000000" in response.content.decode()
    assert (Agent.objects.get(pk=alice.pk).credits, CreditEntry.objects.count()) == (100, 0)


def test_grant_credits_refuses_taking_more_than_the_agent_holds(admin_client, alice):
    response = run_action(admin_client, "grant_credits", [alice], amount=-150, reason="扣除")
    assert response.status_code == 200
    assert "信用点不足，当前 100，需要 150" in response.content.decode()
    assert (Agent.objects.get(pk=alice.pk).credits, CreditEntry.objects.count()) == (100, 0)


def test_adjust_stock_adds_goods_and_writes_an_admin_ledger_row(admin_client, alice, kinds):
    response = run_action(admin_client, "adjust_stock", [alice], resource_type="flour", quantity=6, reason="盘点补录")
    assert response.status_code == 302
    assert holding(alice, "flour") == 6
    row = StockAdjustment.objects.get()
    assert (row.agent, row.resource_type.slug, row.quantity, row.reason, row.user.username) == (
        alice, "flour", 6, "盘点补录", "root"
    )


def test_adjust_stock_refuses_a_negative_stock_and_changes_nothing(admin_client, alice, stock):
    stock(alice, flour=3)
    response = run_action(admin_client, "adjust_stock", [alice], resource_type="flour", quantity=-5, reason="损耗")
    assert response.status_code == 200
    assert "面粉 不足，当前 3，需要 5" in response.content.decode()
    assert (holding(alice, "flour"), StockAdjustment.objects.count()) == (3, 0)


def test_adjust_stock_names_each_agent_it_refused(admin_client, alice, bob, stock):
    stock(alice, flour=10)
    response = run_action(admin_client, "adjust_stock", [alice, bob], resource_type="flour", quantity=-4, reason="损耗")
    assert response.status_code == 302
    assert page_messages(response) == ["1 位居民已调整", "Bob：面粉 不足，当前 0，需要 4"]
    assert (holding(alice, "flour"), holding(bob, "flour")) == (6, 0)
    assert list(StockAdjustment.objects.values_list("agent__name", "quantity")) == [("Alice", -4)]


def test_agent_actions_need_the_change_permission(client, django_user_model, alice):
    viewer = django_user_model.objects.create_user("viewer", password="pw-viewer-123", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_agent"))
    client.force_login(viewer)
    assert "grant_credits" not in client.get(AGENTS_URL).content.decode()
    response = run_action(client, "grant_credits", [alice], amount=20, reason="越权")
    assert response.status_code == 200  # the change list offers the viewer no action: the post just shows the list
    assert (Agent.objects.get(pk=alice.pk).credits, CreditEntry.objects.count()) == (100, 0)


def test_the_credit_and_stock_ledgers_can_be_neither_changed_nor_deleted(admin_client, alice, kinds):
    entry = services.grant_credits(agent_id=alice.pk, amount=5, source="admin", reason="r")
    adjustment = services.adjust_stock(agent_id=alice.pk, resource_type="flour", quantity=5, reason="r")
    for row in (entry, adjustment):
        opts = row._meta
        change = reverse(f"admin:city_{opts.model_name}_change", args=[row.pk])
        assert admin_client.post(change, {"amount": 99, "quantity": 99, "reason": "x"}).status_code == 403
        delete = reverse(f"admin:city_{opts.model_name}_delete", args=[row.pk])
        assert admin_client.post(delete, {"post": "yes"}).status_code == 403
        assert admin_client.get(reverse(f"admin:city_{opts.model_name}_add")).status_code == 403
    assert (CreditEntry.objects.get().amount, StockAdjustment.objects.get().quantity) == (5, 5)


def test_cancelling_market_orders_from_the_admin_returns_the_goods(admin_client, alice, stock):
    stock(alice, flour=10)
    order = services.create_market_order(agent_id=alice.pk, resource_type="flour", quantity=4, price=9)
    url = reverse("admin:city_marketorder_changelist")
    asked = admin_client.post(url, {"action": "cancel_orders", "_selected_action": [order.pk]})
    assert asked.status_code == 200 and holding(alice, "flour") == 6  # it asks first, with what will happen
    response = admin_client.post(url, {"action": "cancel_orders", "_selected_action": [order.pk], "post": "yes"})
    assert response.status_code == 302
    order.refresh_from_db()
    assert (order.status, order.closed_by.username, holding(alice, "flour")) == ("cancelled", "root", 10)


@pytest.mark.parametrize(
    ("action", "fields", "title"),
    [
        ("grant_credits", {"amount": 0, "reason": "r"}, "Grant or deduct credits"),
        ("adjust_stock", {"resource_type": "flour", "quantity": -5, "reason": "r"}, "Adjust stock"),
    ],
)
def test_a_correction_page_and_its_errors_speak_english(admin_client, alice, stock, action, fields, title):
    stock(alice, flour=1)
    data = {"action": action, helpers.ACTION_CHECKBOX_NAME: [alice.pk], "apply": "1", **fields}
    html = admin_client.post(AGENTS_URL, data, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'class="errorlist"' in html and f'value="{title}"' in html
    content = html[html.index('id="content"'):html.index("</form>")]
    assert untranslated(content.replace("面粉", "")) == []  # 面粉: the resource type's name, data
