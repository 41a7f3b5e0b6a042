"""The seed's two verification scenarios in a real browser (DESIGN §8), plus the embedded
proposal arriving over the WebSocket alone and surviving a reload."""

import pytest
from playwright.sync_api import expect

from tests.agents.fixtures import endpoint  # noqa: F401  (fixture)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

FUND_TOOLS = ("list_funds", "get_fund_detail", "create_fund", "update_fund", "enable_fund", "disable_fund")


@pytest.fixture
def fund_agent(transactional_db):
    from agents.models import Agent, Tool

    agent = Agent.objects.create(name="基金助理")
    agent.tools.set(Tool.objects.filter(name__in=FUND_TOOLS))
    assert agent.tools.count() == len(FUND_TOOLS)
    return agent


def test_standalone_chat_asks_then_creates_the_fund_on_confirm(fund_agent, staff_page):
    from funds.models import Fund

    page = staff_page
    page.goto(f"/agents/{fund_agent.pk}/chat/")
    panel = page.locator("#chat-panel")
    panel.locator("textarea[name=message]").fill("帮我创建一个叫 Alpha 的基金")
    panel.locator("form.chat-compose button[type=submit]").click()
    expect(page.locator("#chat-log")).to_contain_text("即将创建基金「Alpha」，请确认是否继续？")
    assert not Fund.objects.exists()

    page.locator("#chat-panel textarea[name=message]").fill("确认")
    page.locator("#chat-panel form.chat-compose button[type=submit]").click()
    expect(page.locator("#chat-log")).to_contain_text("基金「Alpha」创建成功，ID 为")
    fund = Fund.objects.get()
    assert fund.fund_name == "Alpha" and fund.created_by.username == "browser-staff"
    expect(page.locator("#chat-log")).to_contain_text(f"基金「Alpha」创建成功，ID 为 {fund.pk}")


def test_embedded_chat_opens_the_prefilled_form_and_staff_confirm_their_edit(fund_agent, staff_page):
    from agents.models import PendingAction
    from funds.models import Fund

    page = staff_page
    page.goto("/funds/")
    expect(page.locator("#live-status")).to_have_attribute("data-state", "open")
    page.evaluate("window.__sameDocument = true")  # gone if the page reloads
    form_loads = []
    page.on("request", lambda request: form_loads.append(request.url) if "part=form" in request.url else None)

    page.locator("#fund-chat-form textarea[name=message]").fill("帮我创建一个叫 Alpha 的基金")
    page.locator("#fund-chat-form button[type=submit]").first.click()
    dialog = page.locator("#fund-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator("input[name=fund_name]")).to_have_value("Alpha")
    expect(dialog.locator("[data-proposed-by-agent]")).to_contain_text("基金助理")
    expect(page.locator("#chat-log")).to_contain_text("表单已预填，请确认后点击提交按钮")
    assert not Fund.objects.exists()

    # The proposal arrives twice (the chat response and the WebSocket): loaded once, so a
    # late second load can never wipe what staff are typing.
    page.wait_for_timeout(500)
    assert len(form_loads) == 1, form_loads
    dialog.locator("textarea[name=remarks]").fill("员工补充的备注")
    dialog.locator("button[value=confirm]").click()
    expect(dialog).to_be_hidden()
    row = page.locator("#fund-list tr", has_text="Alpha")
    expect(row).to_contain_text("员工补充的备注")
    fund = Fund.objects.get()
    assert (fund.fund_name, fund.remarks, fund.created_by.username) == ("Alpha", "员工补充的备注", "browser-staff")
    expect(page.locator("#chat-log")).to_contain_text(f"基金「Alpha」创建成功，ID 为 {fund.pk}")
    assert PendingAction.objects.get().status == "confirmed"
    assert page.evaluate("window.__sameDocument") is True


def test_a_proposal_made_elsewhere_opens_over_the_websocket_and_survives_a_reload(fund_agent, staff_page, live_server_url):
    from agents.models import PendingAction
    from funds.models import Fund

    page = staff_page
    page.goto("/funds/")
    expect(page.locator("#live-status")).to_have_attribute("data-state", "open")
    csrf = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    # Not through the panel (no HTMX response to act on): only the ui_action reaches the page.
    response = page.request.post(
        f"{live_server_url}/funds/chat/",
        form={"message": "帮我创建一个叫 Beta 的基金"},
        headers={"X-CSRFToken": csrf},
        max_redirects=0,
    )
    assert response.status == 302
    dialog = page.locator("#fund-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator("input[name=fund_name]")).to_have_value("Beta")

    page.reload()
    action = PendingAction.objects.get()
    expect(page.locator("#fund-dialog")).to_be_hidden()
    proposal = page.locator(f"#proposal-{action.pk}")
    expect(proposal).to_contain_text("即将创建基金「Beta」")
    proposal.get_by_role("link", name="打开表单").click()
    expect(dialog).to_be_visible()
    expect(dialog.locator("input[name=fund_name]")).to_have_value("Beta")
    page.once("dialog", lambda question: question.accept())
    dialog.locator("button[value=reject]").click()
    expect(dialog).to_be_hidden()
    expect(page.locator(f"#proposal-{action.pk}")).to_have_count(0)
    assert PendingAction.objects.get().status == "rejected" and not Fund.objects.exists()


def test_a_shown_proposal_decided_elsewhere_shows_its_outcome(fund_agent, staff_page, live_server_url):
    from agents.models import PendingAction
    from funds.models import Fund

    page = staff_page
    page.goto("/funds/")
    expect(page.locator("#live-status")).to_have_attribute("data-state", "open")
    page.locator("#fund-chat-form textarea[name=message]").fill("帮我创建一个叫 Gamma 的基金")
    page.locator("#fund-chat-form button[type=submit]").first.click()
    dialog = page.locator("#fund-dialog")
    expect(dialog.locator("input[name=fund_name]")).to_have_value("Gamma")

    action = PendingAction.objects.get()
    csrf = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    response = page.request.post(
        f"{live_server_url}/api/pending-actions/{action.pk}/confirm/", data={}, headers={"X-CSRFToken": csrf}
    )
    assert response.status == 200, response.text()
    fund = Fund.objects.get()
    expect(dialog.locator("[data-outcome]")).to_contain_text(f"基金「Gamma」创建成功，ID 为 {fund.pk}")
    expect(dialog.locator("button[value=confirm]")).to_have_count(0)
    expect(page.locator("#fund-list")).to_contain_text("Gamma")


def test_a_failed_first_message_shows_why_stays_in_the_panel_and_the_next_one_is_answered(fund_agent, endpoint, staff_page):
    # ``endpoint`` comes before ``staff_page``: the forked live server inherits the scripted model's settings.
    endpoint.error(500).error(500).reply("目前没有基金")
    page = staff_page
    page.goto("/funds/")
    box = page.locator("#fund-chat-form textarea[name=message]")
    box.fill("有哪些基金？")
    page.locator("#fund-chat-form button[type=submit]").first.click()
    expect(page.locator("#fund-chat-form [role=alert]")).to_contain_text("模型服务的日志")
    expect(page.locator("#chat-log .msg.user")).to_have_text(["员工\n有哪些基金？"])
    expect(box).to_have_value("有哪些基金？")

    box.fill("再查一次")
    page.locator("#fund-chat-form button[type=submit]").first.click()
    expect(page.locator("#chat-log")).to_contain_text("目前没有基金")
    expect(page.locator("#chat-log .msg.user")).to_have_count(2)
    expect(page.locator("#fund-chat-form [role=alert]")).to_have_count(0)
