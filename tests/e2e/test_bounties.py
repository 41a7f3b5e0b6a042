"""The bounty board in a real browser: a claim made elsewhere moves the card live."""

import json
import urllib.request

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# Generous: the suite shares two cores with other test runs; a missing live update still fails.
LIVE_TIMEOUT_MS = 15_000


def api_post(base_url: str, path: str, token: str) -> tuple[int, dict]:
    request = urllib.request.Request(
        base_url + path, data=b"{}", method="POST",
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, json.loads(response.read())


@pytest.fixture
def board_data(transactional_db):
    from agents.models import Agent
    from bounties.models import Bounty

    alice = Agent.objects.create(name="Alice")
    bounty = Bounty.objects.create(title="收集100小麦", reward=50)
    return alice, bounty


def test_claim_through_the_api_moves_the_card_to_in_progress_live(board_data, staff_page, live_server_url):
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    alice, bounty = board_data
    token = Token.objects.create(user=get_user_model().objects.get(username="browser-staff")).key
    page = staff_page
    page.goto("/bounties/")
    expect(page.locator("#live-status")).to_have_attribute("data-state", "open", timeout=LIVE_TIMEOUT_MS)
    card = f"#bounty-{bounty.pk}"
    expect(page.locator(f"#column-open {card}")).to_be_visible()
    page.evaluate("window.__sameDocument = true")  # gone if the page reloads

    status, body = api_post(live_server_url, f"/api/bounties/{bounty.pk}/claim/?agent_id={alice.pk}", token)
    assert (status, body["status"]) == (200, "claimed")

    expect(page.locator(f"#column-claimed {card}")).to_contain_text("收集100小麦", timeout=LIVE_TIMEOUT_MS)
    expect(page.locator(f"#column-claimed {card}")).to_contain_text("Alice")
    expect(page.locator(f"#column-open {card}")).to_have_count(0)
    expect(page.locator("#column-claimed h2")).to_contain_text("进行中")

    api_post(live_server_url, f"/api/bounties/{bounty.pk}/complete/?agent_id={alice.pk}", token)
    expect(page.locator(f"#column-completed {card}")).to_be_visible(timeout=LIVE_TIMEOUT_MS)
    assert page.evaluate("window.__sameDocument") is True


def test_staff_create_and_claim_on_the_board_without_reloading(board_data, staff_page):
    alice, _ = board_data
    page = staff_page
    page.goto("/bounties/")
    page.evaluate("window.__sameDocument = true")

    page.locator("#bounty-create input[name=title]").fill("   ")
    page.locator("#bounty-create input[name=reward]").fill("80")
    page.locator("#bounty-create button[name=create]").click()
    expect(page.locator("#bounty-create .errorlist")).to_contain_text("悬赏标题不能为空")

    page.locator("#bounty-create input[name=title]").fill("建造磨坊")
    page.locator("#bounty-create button[name=create]").click()
    new_card = page.locator("#column-open article", has_text="建造磨坊")
    expect(new_card).to_be_visible()
    expect(page.locator("#bounty-create input[name=title]")).to_have_value("")

    new_card.locator("select[name=agent_id]").select_option(label="Alice")
    new_card.locator("button[name=claim]").click()
    expect(page.locator("#column-claimed article", has_text="建造磨坊")).to_contain_text("Alice")
    expect(page.locator("#bounty-notices")).to_contain_text("Alice 接取了悬赏「建造磨坊」")
    assert page.evaluate("window.__sameDocument") is True


def test_live_refresh_keeps_the_resident_staff_are_picking(board_data, staff_page, live_server_url):
    import urllib.request

    from rest_framework.authtoken.models import Token

    alice, _ = board_data
    page = staff_page
    page.goto("/bounties/")
    card = page.locator("#column-open article").first
    card.locator("select[name=agent_id]").select_option(label="Alice")

    from django.contrib.auth import get_user_model

    token = Token.objects.create(user=get_user_model().objects.get(username="browser-staff"))
    request = urllib.request.Request(
        f"{live_server_url}/api/bounties/", method="POST",
        data=b'{"title": "\\u4fee\\u6865", "description": "", "reward": 30}',
        headers={"Authorization": f"Token {token.key}", "Content-Type": "application/json"},
    )
    assert urllib.request.urlopen(request).status == 201
    expect(page.locator("#column-open article", has_text="修桥")).to_be_visible(timeout=15_000)
    assert card.locator("select[name=agent_id] option:checked").inner_text() == "Alice"
