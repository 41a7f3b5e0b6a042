"""The trade page: stock table, transfer form with inline errors, ledger, agents' proposals."""

import re

import pytest
from django.test import Client

from agents.executor import execute
from agents.models import PendingAction, Tool
from agents.registry import ToolContext
from city import services
from city.models import ResourceTransfer

from .conftest import holding

pytestmark = pytest.mark.django_db

URL = "/trade/"


@pytest.fixture
def staff_client(staff_user):
    client = Client()
    client.force_login(staff_user)
    return client


def form(alice, bob, quantity="5", **extra):
    return {"from_agent_id": alice.pk, "to_agent_id": bob.pk, "resource_type": "flour", "quantity": quantity, "transfer": "1", **extra}


def history_ids(html: str) -> list[int]:
    return [int(i) for i in re.findall(r'id="transfer-(\d+)"', html)]


def test_page_needs_a_staff_member(client, db):
    response = client.get(URL)
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_page_shows_every_agents_stock_and_the_history(staff_client, alice, bob, stock):
    stock(alice, flour=7, bread=2)
    stock(bob, flour=1)
    services.transfer_resource(from_agent_id=alice.pk, to_agent_id=bob.pk, resource_type="flour", quantity=2, source="api")
    html = staff_client.get(URL).content.decode()
    assert 'hx-trigger="desk:resource_transferred from:body' in html
    row = re.search(rf'<tr id="resources-{alice.pk}">(.*?)</tr>', html, re.S).group(1)
    # columns: name, credits, then apple bread flour stone wheat wood
    assert re.findall(r"<td>(.*?)</td>", row) == ["Alice", "100", "0", "2", "5", "0", "0", "0"]
    assert len(history_ids(html)) == 1


def test_history_is_newest_first_and_limited_to_50(staff_client, alice, bob, stock):
    stock(alice, flour=100)
    for _ in range(55):
        services.transfer_resource(from_agent_id=alice.pk, to_agent_id=bob.pk, resource_type="flour", quantity=1, source="api")
    ids = history_ids(staff_client.get(URL + "?part=history").content.decode())
    newest = list(ResourceTransfer.objects.order_by("-id").values_list("pk", flat=True)[:50])
    assert ids == newest


def test_history_part_renders_only_the_history(staff_client, db):
    html = staff_client.get(URL + "?part=history", HTTP_HX_REQUEST="true").content.decode()
    assert html.lstrip().startswith('<section id="transfer-history"')
    assert "<html" not in html


def test_unknown_part_is_400(staff_client, db):
    assert staff_client.get(URL + "?part=secret", HTTP_HX_REQUEST="true").status_code == 400


def test_without_htmx_a_part_request_gets_the_whole_page(staff_client, db):
    html = staff_client.get(URL + "?part=history").content.decode()
    assert "<html" in html and 'id="transfer-history"' in html


def test_posting_the_form_transfers_and_redirects(staff_client, alice, bob, stock, staff_user):
    stock(alice, flour=10)
    response = staff_client.post(URL, form(alice, bob))
    assert (response.status_code, response["Location"]) == (302, URL)
    row = ResourceTransfer.objects.get()
    assert (row.source, row.user, row.quantity) == ("page", staff_user, 5)
    assert (holding(alice, "flour"), holding(bob, "flour")) == (5, 5)
    page = staff_client.get(URL).content.decode()
    assert "Alice → Bob：转移 5 面粉 成功" in page
    assert history_ids(page) == [row.pk]


def test_htmx_post_answers_with_a_fresh_form_and_a_refresh_trigger(staff_client, alice, bob, stock):
    stock(alice, flour=10)
    response = staff_client.post(URL, form(alice, bob), HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert response["HX-Trigger"] == "city-changed"
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="transfer-form"')
    assert "转移 5 面粉 成功" in html
    assert 'name="quantity"' in html and 'value="5"' not in html


@pytest.mark.parametrize(
    ("quantity", "message"),
    [("0", "数量必须是 1 到 1000000 之间的整数"), ("-3", "数量必须是 1 到 1000000 之间的整数"), ("50", "面粉 不足，当前 10，需要 50")],
)
def test_service_errors_show_inline_next_to_the_quantity(staff_client, alice, bob, stock, quantity, message):
    stock(alice, flour=10)
    response = staff_client.post(URL, form(alice, bob, quantity=quantity), HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200 and "HX-Trigger" not in response
    quantity_label = re.search(r"<label>数量.*?</label>", html, re.S).group(0)
    assert message in quantity_label
    assert not ResourceTransfer.objects.exists()


def test_same_agent_error_shows_next_to_the_receiver(staff_client, alice, stock):
    stock(alice, flour=10)
    html = staff_client.post(URL, form(alice, alice)).content.decode()
    receiver_label = re.search(r"<label>接收方.*?</label>", html, re.S).group(0)
    assert "不能转赠给自己" in receiver_label


def test_without_javascript_an_error_renders_the_whole_page(staff_client, alice, bob, stock):
    stock(alice, flour=10)
    response = staff_client.post(URL, form(alice, bob, quantity="abc"))
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" in html and 'id="transfer-history"' in html
    assert 'class="errorlist' in html


def test_page_in_english(staff_client, alice, bob, stock):
    stock(alice, flour=3)
    staff_client.cookies["django_language"] = "en"
    html = staff_client.post(URL, form(alice, bob), HTTP_HX_REQUEST="true", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Not enough flour: have 3, need 5" in html
    page = staff_client.get(URL, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Transfer history" in page and "转赠记录" not in page


@pytest.fixture
def proposal(make_agent, stock):
    """Alice proposed (by tool) to give Bob 4 flour; staff require confirmation for transfers."""
    Tool.objects.filter(name="transfer_resource").update(requires_confirmation=True, confirmation_set_by_staff=True)
    alice = make_agent("Alice", tools=("transfer_resource",))
    bob = make_agent("Bob")
    stock(alice, flour=10)
    result = execute("transfer_resource", {"to_agent_id": bob.pk, "resource_type": "flour", "quantity": 4}, ToolContext(agent=alice))
    return PendingAction.objects.get(pk=result["pending_action_id"]), alice, bob


def test_an_agents_proposed_transfer_opens_as_a_prefilled_form(staff_client, proposal):
    action, alice, bob = proposal
    html = staff_client.get(URL).content.decode()
    assert f"?pending={action.pk}" in html and "即将把 4 面粉 从 Alice 转给 Bob" in html
    html = staff_client.get(f"{URL}?pending={action.pk}").content.decode()
    assert "确认 Alice 提议的转赠" in html
    assert re.search(rf'<option value="{bob.pk}" selected>Bob</option>', html)
    assert 'name="quantity" value="4"' in html


def test_confirming_a_proposal_with_an_edited_quantity_runs_it_as_the_staff_member(staff_client, proposal, staff_user):
    action, alice, bob = proposal
    response = staff_client.post(URL, form(alice, bob, quantity="3", pending_action_id=action.pk, confirm="1"))
    assert response.status_code == 302
    action.refresh_from_db()
    assert (action.status, action.decided_by) == ("confirmed", staff_user)
    row = ResourceTransfer.objects.get()
    assert (row.quantity, row.source, row.user) == (3, "tool", staff_user)
    assert holding(bob, "flour") == 3


def test_confirming_a_proposal_that_now_fails_keeps_it_pending_with_the_error_inline(staff_client, proposal):
    action, alice, bob = proposal
    html = staff_client.post(URL, form(alice, bob, quantity="40", pending_action_id=action.pk, confirm="1")).content.decode()
    assert "面粉 不足，当前 10，需要 40" in html
    action.refresh_from_db()
    assert action.status == "pending"


def test_rejecting_a_proposal_moves_nothing(staff_client, proposal, staff_user):
    action, alice, bob = proposal
    response = staff_client.post(URL, {"pending_action_id": action.pk, "reject": "1"})
    assert response.status_code == 302
    action.refresh_from_db()
    assert (action.status, action.decided_by) == ("rejected", staff_user)
    assert (holding(alice, "flour"), ResourceTransfer.objects.count()) == (10, 0)
