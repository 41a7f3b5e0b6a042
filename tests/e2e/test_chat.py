"""The standalone chat page in a real browser: HTMX swap, tool calls shown, text escaped, works without JS."""

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def alice(settings, transactional_db):
    settings.AGENT_PROVIDER = "rules"  # before the live server forks: it inherits the settings
    from agents.models import Agent, Tool

    agent = Agent.objects.create(name="Alice", persona="热心的面包师", credits=70)
    agent.tools.set(Tool.objects.filter(name="get_my_status"))
    return agent


def test_a_message_shows_the_tool_call_its_result_and_the_reply_without_a_reload(alice, staff_page):
    page = staff_page
    page.goto(f"/agents/{alice.pk}/chat/")
    expect(page.locator("h1")).to_contain_text("Alice")
    page.evaluate("window.__sameDocument = true")

    page.locator("textarea[name=message]").fill("我的状态")
    page.get_by_role("button", name="发送").click()

    log = page.locator("#chat-log")
    expect(log.locator(".msg.user")).to_contain_text("我的状态")
    expect(log.locator(".tool-call")).to_contain_text("get_my_status")
    expect(log.locator(".tool-result")).to_have_attribute("data-status", "success")
    expect(log.locator(".msg.assistant").last).to_contain_text("信用点 70")
    expect(page).to_have_url(f"{page.url.split('?')[0]}?conversation={alice.conversations.get().pk}")
    expect(page.locator("textarea[name=message]")).to_have_value("")
    assert page.evaluate("window.__sameDocument") is True

    page.locator("textarea[name=message]").fill("my status")
    page.locator("textarea[name=message]").press("Control+Enter")
    expect(log.locator(".msg.user")).to_have_count(2)
    assert alice.conversations.count() == 1


def test_html_in_messages_and_replies_is_shown_as_text(alice, staff_page):
    page = staff_page
    page.goto(f"/agents/{alice.pk}/chat/")
    payload = '<img src=x onerror="window.__xss = 1"><b>粗体</b>'
    page.locator("textarea[name=message]").fill(payload)
    page.get_by_role("button", name="发送").click()

    log = page.locator("#chat-log")
    expect(log.locator(".msg.user")).to_contain_text(payload)
    expect(log.locator(".msg.assistant").last).to_contain_text(payload)  # the rules agent echoes it
    expect(log.locator("img")).to_have_count(0)
    expect(log.locator("b")).to_have_count(0)
    assert page.evaluate("window.__xss") is None


def test_an_empty_message_shows_an_inline_error(alice, staff_page):
    page = staff_page
    page.goto(f"/agents/{alice.pk}/chat/")
    page.locator("textarea[name=message]").evaluate("el => el.removeAttribute('required')")
    page.locator("textarea[name=message]").fill("   ")
    page.get_by_role("button", name="发送").click()
    expect(page.locator("#chat-panel .errorlist")).to_contain_text("消息不能为空")
    assert alice.conversations.count() == 0


def test_the_page_works_without_javascript(alice, browser, staff_page, live_server_url):
    context = browser.new_context(base_url=live_server_url, java_script_enabled=False, locale="zh-CN")
    context.add_cookies(staff_page.context.cookies())
    page = context.new_page()
    try:
        page.goto(f"/agents/{alice.pk}/chat/")
        page.locator("textarea[name=message]").fill("我的状态")
        page.get_by_role("button", name="发送").click()
        page.wait_for_url("**/chat/?conversation=*")
        expect(page.locator("#chat-log .tool-call")).to_contain_text("get_my_status")
        expect(page.locator("#chat-log .msg.assistant").last).to_contain_text("信用点 70")
    finally:
        context.close()
