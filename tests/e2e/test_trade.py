"""The trade page in a real browser: a form transfer, a live transfer made elsewhere, an inline error."""

import json
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def api_transfer(base_url: str, token: str, **body) -> tuple[int, dict]:
    request = urllib.request.Request(
        base_url + "/api/agents/transfer-resource/", data=json.dumps(body).encode(), method="POST",
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.fixture
def residents(transactional_db):
    from agents.models import Agent
    from city.models import AgentResource, ResourceType

    flour = ResourceType.objects.create(slug="flour", name="面粉")
    alice, bob, carol = (Agent.objects.create(name=name) for name in ("Alice", "Bob", "Carol"))
    for agent, quantity in ((alice, 20), (carol, 10)):
        AgentResource.objects.create(agent=agent, resource_type=flour, quantity=quantity)
    return alice, bob, carol


def history_rows(page):
    return page.locator("#transfer-history tbody tr[data-transfer-id]")


def fill_transfer(page, sender: str, receiver: str, quantity: str) -> None:
    form = page.locator("#transfer-form")
    form.locator("select[name=from_agent_id]").select_option(label=sender)
    form.locator("select[name=to_agent_id]").select_option(label=receiver)
    form.locator("select[name=resource_type]").select_option(value="flour")
    form.locator("input[name=quantity]").fill(quantity)
    form.locator("button[name=transfer]").click()


def test_transfer_by_form_then_by_api_grows_the_history_live(residents, staff_page, live_server_url):
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    alice, bob, carol = residents
    token = Token.objects.create(user=get_user_model().objects.get(username="browser-staff")).key
    page = staff_page
    page.goto("/trade/")
    expect(page.locator("#live-status")).to_have_attribute("data-state", "open")
    expect(page.locator("#transfer-history")).to_contain_text("还没有转赠记录")
    page.evaluate("window.__sameDocument = true")  # gone if the page reloads

    fill_transfer(page, "Alice", "Bob", "5")
    expect(page.locator("#transfer-form .notices")).to_contain_text("Alice → Bob：转移 5 面粉 成功")
    expect(history_rows(page)).to_have_count(1)
    expect(history_rows(page).first).to_contain_text("Alice")
    expect(history_rows(page).first).to_contain_text("交易页面")
    expect(page.locator(f"#resources-{bob.pk}")).to_contain_text("5")

    status, body = api_transfer(
        live_server_url, token, from_agent_id=carol.pk, to_agent_id=alice.pk, resource_type="flour", quantity=3
    )
    assert (status, body["reason"]) == (200, "转移 3 面粉 成功")
    expect(history_rows(page)).to_have_count(2)
    newest = history_rows(page).first
    expect(newest).to_have_attribute("data-transfer-id", str(body["transfer_id"]))
    expect(newest).to_contain_text("Carol")
    expect(newest).to_contain_text("API")
    expect(page.locator(f"#resources-{carol.pk}")).to_contain_text("7")
    assert page.evaluate("window.__sameDocument") is True


def test_a_burst_of_transfers_leaves_the_page_showing_the_last_state(residents, staff_page, live_server_url):
    """Events that arrive while the history is being re-read are not lost: the part re-reads once more."""
    from concurrent.futures import ThreadPoolExecutor

    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    alice, bob, carol = residents
    token = Token.objects.create(user=get_user_model().objects.get(username="browser-staff")).key
    page = staff_page
    page.goto("/trade/")
    expect(page.locator("#live-status")).to_have_attribute("data-state", "open")
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(
            lambda _: api_transfer(
                live_server_url, token, from_agent_id=alice.pk, to_agent_id=bob.pk, resource_type="flour", quantity=1
            ),
            range(16),
        ))
    assert [status for status, _ in results] == [200] * 16
    expect(history_rows(page)).to_have_count(16)
    flour_cell = "td:nth-child(3)"  # name, credits, flour
    expect(page.locator(f"#resources-{alice.pk} {flour_cell}")).to_have_text("4")
    expect(page.locator(f"#resources-{bob.pk} {flour_cell}")).to_have_text("16")


def test_a_bad_quantity_shows_the_error_inline(residents, staff_page):
    page = staff_page
    page.goto("/trade/")
    fill_transfer(page, "Alice", "Bob", "0")
    quantity_label = page.locator("#transfer-form label", has=page.locator("input[name=quantity]"))
    expect(quantity_label.locator(".errorlist")).to_contain_text("数量必须是 1 到 1000000 之间的整数")

    fill_transfer(page, "Alice", "Bob", "500")
    expect(quantity_label.locator(".errorlist")).to_contain_text("面粉 不足，当前 20，需要 500")
    expect(history_rows(page)).to_have_count(0)


@pytest.mark.parametrize("browser_locale", ["en-US"])
def test_the_page_speaks_english(residents, staff_page):
    page = staff_page
    page.goto("/trade/")
    expect(page.locator("h1")).to_have_text("Trade")
    fill_transfer(page, "Alice", "Bob", "2")
    expect(page.locator("#transfer-form .notices")).to_contain_text("Transferred 2 flour")
    expect(history_rows(page)).to_have_count(1)
