"""Every page, the admin index and the API docs load in a real browser with no console error
and no Content-Security-Policy violation; the docs list the API's operations."""

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

WATCH_CSP = """
window.__csp = [];
document.addEventListener('securitypolicyviolation',
  e => window.__csp.push(e.violatedDirective + ' ' + (e.blockedURI || 'inline')));
"""


@pytest.fixture
def demo(tmp_path, monkeypatch):
    from agents import demo as agents_demo

    monkeypatch.setattr(agents_demo, "CREDENTIALS_FILE", tmp_path / ".demo-credentials")
    call_command("seed_demo", stdout=open("/dev/null", "w"))


def visit(page, path: str) -> list[str]:
    """Problems the browser reported while loading ``path`` (console errors, page errors, CSP)."""
    problems: list[str] = []
    page.on("console", lambda message: message.type == "error" and problems.append(f"console: {message.text}"))
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.add_init_script(WATCH_CSP)
    response = page.goto(path)
    assert response is not None and response.status == 200, f"{path}: {response and response.status}"
    page.wait_for_load_state("networkidle")
    problems.extend(f"CSP: {v}" for v in page.evaluate("window.__csp"))
    return problems


@pytest.mark.parametrize("browser_locale", ["zh-CN", "en-US"])
def test_every_page_loads_without_console_errors(demo, staff_page, browser_locale):
    from agents.models import Agent

    agent = Agent.objects.order_by("id").first()
    for path in ["/", "/trade/", "/bounties/", "/funds/", "/orders/", f"/agents/{agent.pk}/chat/", "/admin/"]:
        page = staff_page.context.new_page()
        assert visit(page, path) == [], path
        page.close()


def test_the_api_docs_list_the_operations_under_the_csp(staff_page):
    problems = visit(staff_page, "/api/docs/")
    expect(staff_page.locator(".opblock").first).to_be_visible(timeout=15_000)
    operations = staff_page.locator(".opblock-summary-path").all_inner_texts()
    assert any("/api/funds/" in text for text in operations) and len(operations) > 20
    assert problems == []
    assert staff_page.evaluate("window.__csp") == []


def test_the_admin_says_agent_desk(staff_page):
    staff_page.goto("/admin/")
    expect(staff_page.locator("#site-name")).to_have_text("Agent Desk")
    assert "Django" not in staff_page.title()


def test_every_page_is_usable_390_px_wide_without_sideways_scrolling(demo, browser, live_server_url, staff_page):
    from agents.models import Agent

    cookies = staff_page.context.cookies()
    context = browser.new_context(base_url=live_server_url, viewport={"width": 390, "height": 844}, locale="zh-CN")
    context.add_cookies(cookies)
    page = context.new_page()
    agent = Agent.objects.order_by("id").first()
    for path in ["/", "/trade/", "/bounties/", "/funds/", "/orders/", f"/agents/{agent.pk}/chat/"]:
        page.goto(path)
        page.wait_for_load_state("networkidle")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, path
    context.close()


def test_orders_table_keeps_names_and_statuses_on_one_line_at_1366_px(demo, staff_page):
    staff_page.set_viewport_size({"width": 1366, "height": 900})
    staff_page.goto("/orders/")
    row = staff_page.locator("#order-HT20260301001")
    for text in ["张三", "已确认"]:
        cell = row.locator("td", has_text=text).first
        height = cell.evaluate("c => { const r = document.createRange(); r.selectNodeContents(c); return r.getClientRects().length; }")
        assert height == 1, f"{text} wraps over {height} lines"
