"""The /bounties/ board: columns, create form with inline errors, card actions, HTMX partials."""

import pytest
from django.contrib.messages import get_messages

from agents.models import Agent
from bounties.models import Bounty

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def staff_client(client, staff_user):
    client.force_login(staff_user)
    return client


def column(html: str, status: str) -> str:
    start = html.index(f'id="column-{status}"')
    end = html.find('<section class="column"', start + 1)
    return html[start : end if end != -1 else len(html)]


def test_board_shows_bounties_in_their_status_columns(staff_client, alice, bob, make_bounty):
    make_bounty("收集100小麦")
    make_bounty("建造磨坊", status="claimed", claimed_by=alice)
    make_bounty("修缮城墙", status="completed", claimed_by=bob)
    make_bounty("作废的悬赏", status="cancelled")
    html = staff_client.get("/bounties/").content.decode()
    assert "收集100小麦" in column(html, "open")
    assert "建造磨坊" in column(html, "claimed") and "Alice" in column(html, "claimed")
    assert "修缮城墙" in column(html, "completed")
    assert "作废的悬赏" not in html
    for heading in ("开放", "进行中", "已完成"):
        assert heading in html


def test_board_needs_staff(client, django_user_model):
    assert client.get("/bounties/").status_code == 302
    client.force_login(django_user_model.objects.create_user("guest", password="pw-guest-123"))
    assert client.get("/bounties/").status_code == 302
    assert client.get("/bounties/?part=board", **HTMX).status_code == 302


def test_board_is_translated_to_english(staff_client, make_bounty):
    make_bounty()
    html = staff_client.get("/bounties/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Bounty board" in html and "In progress" in html and "50 credits" in html


def test_titles_are_escaped(staff_client, make_bounty):
    make_bounty("<script>alert(1)</script>")
    html = staff_client.get("/bounties/").content.decode()
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;" in html


def test_create_without_javascript_posts_and_redirects(staff_client, staff_user):
    response = staff_client.post("/bounties/", {"create": "1", "title": "建造磨坊", "reward": "80", "description": ""})
    assert response.status_code == 302
    bounty = Bounty.objects.get()
    assert (bounty.title, bounty.reward, bounty.created_by) == ("建造磨坊", 80, staff_user)
    assert "建造磨坊" in column(staff_client.get(response.url).content.decode(), "open")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"title": "", "reward": "5"}, "悬赏标题不能为空"),
        ({"title": "修路", "reward": "0"}, "奖励必须是 1 到 1000000 之间的整数"),
        ({"title": "修路", "reward": ""}, "奖励必须是 1 到 1000000 之间的整数"),
        ({"title": "修路", "reward": "abc"}, "输入整数"),
    ],
)
def test_create_shows_errors_inline(staff_client, data, message):
    response = staff_client.post("/bounties/", {"create": "1", **data})
    assert response.status_code == 200
    html = response.content.decode()
    form = html[html.index('id="bounty-create"') : html.index('id="bounty-board"')]
    assert message in form
    assert 'value="修路"' in form or not data["title"]  # what was typed is kept
    assert not Bounty.objects.exists()


def test_htmx_create_returns_a_fresh_form_and_asks_the_board_to_refresh(staff_client):
    response = staff_client.post("/bounties/", {"create": "1", "title": "建造磨坊", "reward": "80"}, **HTMX)
    assert response.status_code == 200
    assert response["HX-Trigger"] == "bounties-changed"
    html = response.content.decode()
    assert 'id="bounty-create"' in html and 'id="bounty-board"' not in html
    assert 'value="建造磨坊"' not in html
    assert Bounty.objects.filter(title="建造磨坊").exists()
    # The outcome rides along out of band, so the board refresh it triggers cannot take it.
    assert '<div id="bounty-notices" aria-live="polite" hx-swap-oob="true">' in html
    assert "已发布悬赏#" in html


def test_htmx_create_with_errors_returns_only_the_form(staff_client):
    response = staff_client.post("/bounties/", {"create": "1", "title": "修路", "reward": "-1"}, **HTMX)
    html = response.content.decode()
    assert "HX-Trigger" not in response
    assert "奖励必须是" in html and 'id="bounty-board"' not in html


def test_board_partial_for_live_refresh(staff_client, make_bounty):
    make_bounty()
    response = staff_client.get("/bounties/?part=board", **HTMX)
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="bounty-board"')
    assert "收集100小麦" in html and "<html" not in html
    assert "desk:bounty_claimed from:body" in html


def test_claim_on_behalf_of_an_agent(staff_client, alice, make_bounty):
    bounty = make_bounty()
    response = staff_client.post("/bounties/", {"claim": "1", "bounty_id": bounty.pk, "agent_id": alice.pk})
    assert response.status_code == 302
    assert Bounty.objects.get().claimed_by == alice
    messages = [str(m) for m in get_messages(response.wsgi_request)]
    assert messages == ["Alice 接取了悬赏「收集100小麦」"]


def test_htmx_claim_returns_the_board_with_the_card_moved(staff_client, alice, make_bounty):
    bounty = make_bounty()
    response = staff_client.post("/bounties/", {"claim": "1", "bounty_id": bounty.pk, "agent_id": alice.pk}, **HTMX)
    html = response.content.decode()
    assert "收集100小麦" in column(html, "claimed")
    notices = html[html.index('<div id="bounty-notices"'):]
    assert 'hx-swap-oob="true"' in notices and "Alice 接取了悬赏「收集100小麦」" in notices


def test_live_refresh_leaves_the_action_outcome_alone(staff_client, alice, make_bounty):
    bounty = make_bounty()
    staff_client.post("/bounties/", {"claim": "1", "bounty_id": bounty.pk, "agent_id": alice.pk})  # no JS: a message waits
    refresh = staff_client.get("/bounties/?part=board", **HTMX).content.decode()
    assert "bounty-notices" not in refresh and "接取了悬赏" not in refresh
    page = staff_client.get("/bounties/").content.decode()
    assert "Alice 接取了悬赏「收集100小麦」" in page  # still there for the page the redirect leads to


def test_claim_refusal_is_shown_on_the_card(staff_client, alice, make_bounty):
    make_bounty("Alice 的", status="claimed", claimed_by=alice)
    other = make_bounty("第二个")
    response = staff_client.post("/bounties/", {"claim": "1", "bounty_id": other.pk, "agent_id": alice.pk}, **HTMX)
    html = response.content.decode()
    card = html[html.index(f'id="bounty-{other.pk}"') :]
    card = card[: card.index("</article>")]
    assert "Alice 已有进行中的悬赏，完成后才能接取新的" in card  # staff read who, not "you"
    assert Bounty.objects.get(pk=other.pk).status == "open"


def test_claim_without_an_agent_is_refused_on_the_card(staff_client, make_bounty):
    bounty = make_bounty()
    html = staff_client.post("/bounties/", {"claim": "1", "bounty_id": bounty.pk, "agent_id": ""}).content.decode()
    assert "请选择居民" in html
    assert Bounty.objects.get().status == "open"


def test_complete_pays_the_claimer(staff_client, alice, make_bounty):
    bounty = make_bounty(reward=50, status="claimed", claimed_by=alice)
    response = staff_client.post("/bounties/", {"complete": "1", "bounty_id": bounty.pk, "agent_id": alice.pk}, **HTMX)
    assert "收集100小麦" in column(response.content.decode(), "completed")
    assert Agent.objects.get(pk=alice.pk).credits == 150


def test_complete_from_a_stale_card_is_refused(staff_client, alice, bob, make_bounty):
    bounty = make_bounty(status="claimed", claimed_by=alice)
    html = staff_client.post("/bounties/", {"complete": "1", "bounty_id": bounty.pk, "agent_id": bob.pk}).content.decode()
    assert "只有接取该悬赏的居民才能完成它" in html
    assert Bounty.objects.get().status == "claimed"


def test_cancel_removes_the_card(staff_client, make_bounty):
    bounty = make_bounty()
    response = staff_client.post("/bounties/", {"cancel": "1", "bounty_id": bounty.pk, "agent_id": ""}, **HTMX)
    assert "收集100小麦" not in column(response.content.decode(), "open")
    assert Bounty.objects.get().status == "cancelled"


def test_unknown_action_is_reported_not_crashed(staff_client):
    response = staff_client.post("/bounties/", {"bounty_id": "x"})
    assert response.status_code == 200
    assert "无效的操作" in response.content.decode()


def test_page_uses_no_inline_script(staff_client, make_bounty):
    make_bounty()
    html = staff_client.get("/bounties/").content.decode()
    assert "<script>" not in html and "hx-on" not in html


def test_a_refusal_names_the_resident_in_english_too(staff_client, alice, make_bounty):
    make_bounty("Alice 的", status="claimed", claimed_by=alice)
    other = make_bounty("second")
    response = staff_client.post(
        "/bounties/", {"claim": "1", "bounty_id": other.pk, "agent_id": alice.pk}, HTTP_ACCEPT_LANGUAGE="en", **HTMX
    )
    assert "Alice already has a bounty in progress" in response.content.decode()
