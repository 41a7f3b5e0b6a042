"""The overview page in a real browser: charts drawn from their tables with the database's numbers,
redrawn live when a tick runs through the API on the live server; screenshots in both languages."""

from __future__ import annotations

import json
import urllib.request

import pytest
from django.core.management import call_command
from playwright.sync_api import Page, expect

from city.selectors import residents
from tests.agents.event_scenarios import create_staff_token

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LIVE_TIMEOUT_MS = 15_000
CHART_SERIES = """(tableId) => Array.from(document.querySelectorAll(`canvas[aria-describedby="${tableId}"]`))
  .map((canvas) => { const chart = canvas.closest("figure").chart;
    return chart ? {labels: chart.data.labels, series: chart.data.datasets.map((d) => [d.label, d.data])} : null; })"""


@pytest.fixture
def demo(tmp_path, monkeypatch):
    from agents import demo as agents_demo

    monkeypatch.setattr(agents_demo, "CREDENTIALS_FILE", tmp_path / ".demo-credentials")
    call_command("seed_demo", stdout=open("/dev/null", "w"))


def run_tick_over_http(base_url: str, token: str) -> dict:
    """``POST /api/autonomy/tick/`` on the live server, whose events reach the page."""
    request = urllib.request.Request(
        f"{base_url}/api/autonomy/tick/", data=b"{}", method="POST",
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.status == 200
        return json.loads(response.read())


def table_rows(page: Page, table_id: str) -> list[list[str]]:
    return page.evaluate(
        """(id) => Array.from(document.getElementById(id).tBodies[0].rows)
             .map((row) => Array.from(row.cells).map((cell) => cell.textContent.trim()))""",
        table_id,
    )


def charts_of(page: Page, table_id: str) -> list[dict]:
    return page.evaluate(CHART_SERIES, table_id)


def number(text: str) -> float | int:
    return float(text) if "." in text else int(text)


def assert_charts_show_their_table(page: Page, table_id: str, columns_per_chart: list[list[int]]) -> None:
    rows = table_rows(page, table_id)
    charts = charts_of(page, table_id)
    assert len(charts) == len(columns_per_chart)
    for chart, columns in zip(charts, columns_per_chart, strict=True):
        assert chart is not None, f"a chart of {table_id} was not drawn"
        assert chart["labels"] == [row[0] for row in rows]
        assert [data for _label, data in chart["series"]] == [[number(row[c]) for row in rows] for c in columns]


def ticks_in_db() -> list[list[str]]:
    from agents.models import AutonomyRound

    rows = []
    for round_ in AutonomyRound.objects.filter(finished_at__isnull=False).order_by("started_at", "id"):
        s = round_.stats
        per_decision = round(s["tokens"] / s["decided"], 1) if s["decided"] else 0.0
        rows.append([f"#{round_.pk}", str(s["duration_s"]), str(s["decided"]), str(s.get("fallback", 0)), str(s["tokens"]), str(per_decision)])
    return rows


def economy_in_db() -> list[list[str]]:
    from city.models import CitySample

    samples = list(CitySample.objects.order_by("id"))
    slugs = sorted({slug for sample in samples for slug in sample.stock})
    return [
        [f"#{s.round_id}", str(s.total_credits), str(s.residents), *(str(s.stock.get(slug, 0)) for slug in slugs)]
        for s in samples
    ]


def test_the_charts_show_the_databases_numbers_and_a_tick_redraws_them_live(demo, staff_page, live_server_url):
    page = staff_page
    token = create_staff_token("script")
    run_tick_over_http(live_server_url, token)
    page.goto("/")
    expect(page.locator("#live-status")).to_have_attribute("data-state", "open", timeout=LIVE_TIMEOUT_MS)

    assert table_rows(page, "ticks-data") == ticks_in_db()
    assert table_rows(page, "economy-data") == economy_in_db()
    assert_charts_show_their_table(page, "ticks-data", [[1], [2, 3], [4], [5]])
    assert_charts_show_their_table(page, "economy-data", [[1], list(range(3, len(table_rows(page, "economy-data")[0])))])
    assert_charts_show_their_table(page, "credits-data", [[1]])
    # The overview is about residents: the assistants (fund assistant, front desk) are not counted.
    assert sum(number(row[1]) for row in table_rows(page, "credits-data")) == residents().count()
    assert_charts_show_their_table(page, "tool-calls-data", [[i] for i in range(1, len(table_rows(page, "tool-calls-data")[0]))])

    result = run_tick_over_http(live_server_url, token)

    expect(page.locator("#ticks-data tbody tr")).to_have_count(2, timeout=LIVE_TIMEOUT_MS)
    expect(page.locator("#economy-data tbody tr")).to_have_count(2, timeout=LIVE_TIMEOUT_MS)
    page.wait_for_function(
        "() => document.querySelector('canvas[aria-describedby=\"ticks-data\"]').closest('figure').chart.data.labels.length === 2",
        timeout=LIVE_TIMEOUT_MS,
    )
    assert table_rows(page, "ticks-data") == ticks_in_db()
    assert table_rows(page, "ticks-data")[-1][0] == f"#{result['round_id']}"
    assert table_rows(page, "economy-data") == economy_in_db()
    assert_charts_show_their_table(page, "ticks-data", [[1], [2, 3], [4], [5]])
    assert_charts_show_their_table(page, "error-rate-data", [[1]])


def test_a_transfer_elsewhere_updates_the_resident_rows_live(demo, staff_page, live_server_url):
    from city.models import AgentResource

    page = staff_page
    token = create_staff_token("script")
    holding = AgentResource.objects.filter(quantity__gte=2, agent__is_active=True).select_related("agent").order_by("id").first()
    sender = holding.agent
    receiver = residents().exclude(pk=sender.pk).order_by("id").first()
    page.goto("/?show=all")
    expect(page.locator("#live-status")).to_have_attribute("data-state", "open", timeout=LIVE_TIMEOUT_MS)
    name = holding.resource_type.name  # the Chinese page shows 面粉, not flour

    body = {"from_agent_id": sender.pk, "to_agent_id": receiver.pk, "resource_type": holding.resource_type.slug, "quantity": 1}
    request = urllib.request.Request(
        live_server_url + "/api/agents/transfer-resource/", data=json.dumps(body).encode(), method="POST",
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status in (200, 201)
    left = AgentResource.objects.get(pk=holding.pk).quantity
    expect(page.locator(f"#resident-{sender.pk} .holdings")).to_contain_text(f"{name}×{left}", timeout=LIVE_TIMEOUT_MS)
    received = AgentResource.objects.get(agent=receiver, resource_type=holding.resource_type).quantity
    expect(page.locator(f"#resident-{receiver.pk} .holdings")).to_contain_text(f"{name}×{received}", timeout=LIVE_TIMEOUT_MS)


def test_the_resident_filter_keeps_only_the_hungry(demo, staff_page):
    page = staff_page
    page.goto("/")
    page.select_option("select[name=show]", "hungry")
    hungry = residents().filter(satiety__lt=40).count()
    expect(page.locator("#residents tbody tr[id^=resident-]")).to_have_count(hungry, timeout=LIVE_TIMEOUT_MS)


@pytest.mark.parametrize(("browser_locale", "shot"), [("zh-CN", "/tmp/overview_zh.png"), ("en-US", "/tmp/overview_en.png")])
def test_screenshots_of_the_overview(demo, staff_page, live_server_url, browser_locale, shot):
    page = staff_page
    token = create_staff_token("script")
    for _ in range(3):
        run_tick_over_http(live_server_url, token)
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto("/")
    page.wait_for_function("() => document.querySelectorAll('figure.chart').length > 0 && "
                           "Array.from(document.querySelectorAll('figure.chart')).every((f) => f.chart)")
    page.screenshot(path=shot, full_page=True)
    assert ("Overview" in page.title()) == (browser_locale == "en-US")
