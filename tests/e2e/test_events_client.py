"""static/js/events.js in a real browser: DOM events, reconnect with ?since=, re-sync on a gap.

Events are caused over HTTP on the live server (its channel layer is in-process); a
Playwright WebSocket route stands between the page and the server so a test can drop
the connection and hold the reconnect while events happen.
"""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from tests.agents.event_scenarios import create_bounty_over_http

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LIVE_TIMEOUT_MS = 15_000
STREAM = re.compile(r"/ws/events/")
RECORD_DESK_EVENTS = """() => {
  window.__desk = [];
  for (const name of ["desk:event", "desk:bounty_created", "desk:resync", "desk:ui_action"]) {
    document.body.addEventListener(name, (event) => window.__desk.push([event.type, event.detail]));
  }
}"""


@pytest.fixture
def api_token(staff_page: Page) -> str:
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    return Token.objects.create(user=get_user_model().objects.get(username="browser-staff")).key


def desk_events(page: Page, count: int) -> list[list]:
    """The first ``count`` recorded DOM events, waiting for them to happen."""
    page.wait_for_function("(count) => window.__desk.length >= count", arg=count, timeout=LIVE_TIMEOUT_MS)
    return page.evaluate("window.__desk")[:count]


def wait_for_connection(page: Page, connections: list[WebSocketRoute], count: int) -> WebSocketRoute:
    deadline = time.monotonic() + LIVE_TIMEOUT_MS / 1000
    while len(connections) < count:
        assert time.monotonic() < deadline, f"the page opened {len(connections)} connections, expected {count}"
        page.wait_for_timeout(50)  # lets Playwright run the route handler meanwhile
    return connections[count - 1]


def test_an_event_is_dispatched_on_body_as_its_own_and_the_generic_dom_event(staff_page: Page, live_server_url: str, api_token: str):
    page = staff_page
    create_bounty_over_http(live_server_url, api_token, "开张")  # the page renders at this seq
    page.goto("/")
    expect(page.locator("#live-status")).to_have_attribute("data-state", "open", timeout=LIVE_TIMEOUT_MS)
    page.evaluate(RECORD_DESK_EVENTS)

    bounty = create_bounty_over_http(live_server_url, api_token, "修路")

    (specific, specific_detail), (generic, generic_detail) = desk_events(page, 2)
    assert (specific, generic) == ("desk:bounty_created", "desk:event")
    assert specific_detail == generic_detail
    assert (specific_detail["event"], specific_detail["bounty_id"], specific_detail["title"]) == ("bounty_created", bounty["id"], "修路")
    assert isinstance(specific_detail["seq"], int) and specific_detail["timestamp"]


def drop_after_one_event(page: Page, live_server_url: str, api_token: str) -> tuple[int, WebSocketRoute]:
    """Open the page, let one event arrive, drop the connection; returns that event's seq and
    the page's reconnect, held (not yet connected to the server) until the test connects it."""
    connections: list[WebSocketRoute] = []

    def route(ws: WebSocketRoute) -> None:
        connections.append(ws)
        if len(connections) == 1:
            ws.connect_to_server()

    page.route_web_socket(STREAM, route)
    create_bounty_over_http(live_server_url, api_token, "开张")  # the page renders at this seq
    page.goto("/")
    expect(page.locator("#live-status")).to_have_attribute("data-state", "open", timeout=LIVE_TIMEOUT_MS)
    page.evaluate(RECORD_DESK_EVENTS)
    create_bounty_over_http(live_server_url, api_token, "第一")
    seen = desk_events(page, 2)[0][1]["seq"]
    connections[0].close()
    return seen, wait_for_connection(page, connections, 2)


def test_after_a_dropped_connection_the_page_resumes_after_the_last_seq_it_saw(
    staff_page: Page, live_server_url: str, api_token: str
):
    page = staff_page
    seen, reconnect = drop_after_one_event(page, live_server_url, api_token)
    assert f"since={seen}" in reconnect.url
    missed = [create_bounty_over_http(live_server_url, api_token, title)["id"] for title in ("第二", "第三")]
    reconnect.connect_to_server()

    events = desk_events(page, 6)
    assert [name for name, _ in events[2:]] == ["desk:bounty_created", "desk:event"] * 2
    assert [detail["bounty_id"] for _, detail in events[2::2]] == missed
    assert [detail["seq"] for _, detail in events[2::2]] == [seen + 1, seen + 2]


def test_a_gap_in_the_replay_asks_the_page_to_resync(staff_page: Page, live_server_url: str, api_token: str):
    from core.models import EventLog

    page = staff_page
    seen, reconnect = drop_after_one_event(page, live_server_url, api_token)
    create_bounty_over_http(live_server_url, api_token, "已清理")
    latest = create_bounty_over_http(live_server_url, api_token, "第三")
    EventLog.objects.filter(seq=seen + 1).delete()  # pruned before the page came back
    reconnect.connect_to_server()

    events = desk_events(page, 5)
    assert events[2] == ["desk:resync", {"after": seen, "next": seen + 2}]
    assert events[3][0] == "desk:bounty_created" and events[3][1]["bounty_id"] == latest["id"]
