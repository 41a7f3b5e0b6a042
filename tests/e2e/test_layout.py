"""Every page at a phone's width (390×844) and a laptop's (1366×768), in Chinese and English.

A page may not scroll sideways, and it is not enough that it doesn't: every visible control
(link, button, field, summary) must lie inside the viewport horizontally, and inside every box
that clips or scrolls it (a button in a sideways-scrolling table is off-screen), and must not be covered by another element; a table header must not be covered
either (a table overflowing its card under the chat panel); text fields must be wide enough to
type in. Each page is saved as a screenshot in ``$AGENTDESK_SCREENSHOTS`` (default: the test's
tmp folder) so CI can keep them as artifacts.
"""

import os
from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import TimeoutError as PlaywrightTimeout

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

VIEWPORTS = {"390": {"width": 390, "height": 844}, "1366": {"width": 1366, "height": 768}}
LOCALES = {"zh": "zh-CN", "en": "en-US"}
ADMIN_CHANGELISTS = [
    "agents/agent",
    "agents/pendingaction",
    "agents/toolcall",
    "bounties/bounty",
    "city/resourcetransfer",
    "city/marketorder",
    "funds/fund",
    "orders/order",
    "orders/refund",
]
# Text a person types into, and the narrowest such a field may be on any page.
MIN_TEXT_FIELD_WIDTH = 160

# Runs in the page: one line per problem, empty when the page is usable at this width.
INSPECT = """
(minTextWidth) => {
  const problems = [];
  const width = document.documentElement.clientWidth;
  const describe = (el) => {
    const text = (el.innerText || el.value || el.getAttribute('aria-label') || el.name || '').trim().slice(0, 30);
    return `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''} "${text}"`;
  };
  if (document.documentElement.scrollWidth > width) {
    problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
  }
  const shown = (el) => {
    const box = el.getBoundingClientRect();
    if (box.width <= 1 || box.height <= 1) return null;  // not rendered
    const folded = el.closest('details:not([open])');  // folded away (Chromium still gives it a box)
    if (folded && !el.closest('summary')) return null;
    for (let box = el; box; box = box.parentElement) {  // clipped away: for screen readers only
      if (box.classList.contains('visually-hidden') || getComputedStyle(box).clip.startsWith('rect')) return null;
    }
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.opacity === '0') return null;
    return box;
  };
  const controls = document.querySelectorAll(
    'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button]');
  for (const el of controls) {
    let box = shown(el);
    if (!box) continue;
    // What can be seen of the page across: the viewport, narrowed by every box that clips or scrolls.
    let left = 0, right = width;
    for (let box = el.parentElement; box; box = box.parentElement) {
      if (getComputedStyle(box).overflowX !== 'visible') {
        const clip = box.getBoundingClientRect();
        left = Math.max(left, clip.left);
        right = Math.min(right, clip.right);
      }
    }
    if (box.left < left - 1 || box.right > right + 1) {
      problems.push(`${describe(el)} lies outside the visible width (${Math.round(left)}–${Math.round(right)}): x ${Math.round(box.left)}–${Math.round(box.right)}`);
      continue;
    }
    if (el.matches('textarea, input[type=search], input[type=text], input:not([type])') && box.width < minTextWidth) {
      problems.push(`${describe(el)} is ${Math.round(box.width)} px wide`);
    }
  }
  for (const el of [...controls, ...document.querySelectorAll('th')]) {
    if (!shown(el)) continue;
    el.scrollIntoView({block: 'center', inline: 'nearest'});
    const box = el.getBoundingClientRect();
    if (box.bottom <= 0 || box.top >= window.innerHeight) continue;  // parked off-screen until focused (skip links)
    const x = Math.min(Math.max(box.left + Math.min(box.width / 2, 12), 0), width - 1);
    const y = Math.min(Math.max(box.top + box.height / 2, 0), window.innerHeight - 1);
    const hit = document.elementFromPoint(x, y);
    if (hit && hit !== el && !el.contains(hit) && !hit.contains(el) && !(el.labels && [...el.labels].some(l => l.contains(hit)))) {
      problems.push(`${describe(el)} is covered by ${describe(hit)}`);
    }
  }
  window.scrollTo(0, 0);
  return problems;
}
"""


@pytest.fixture
def demo(tmp_path, monkeypatch):
    from agents import demo as agents_demo

    monkeypatch.setattr(agents_demo, "CREDENTIALS_FILE", tmp_path / ".demo-credentials")
    call_command("seed_demo", stdout=open("/dev/null", "w"))


@pytest.fixture
def screenshots(tmp_path) -> Path:
    folder = Path(os.environ.get("AGENTDESK_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def every_page() -> list[str]:
    from agents.models import Agent

    agent = Agent.objects.filter(name="Alice").first() or Agent.objects.order_by("id").first()
    pages = ["/", "/trade/", "/bounties/", "/funds/", "/orders/", f"/agents/{agent.pk}/chat/"]
    return pages + [f"/admin/{model}/" for model in ADMIN_CHANGELISTS]


def slug(path: str) -> str:
    return path.strip("/").replace("/", "-") or "overview"


@pytest.mark.parametrize("width", VIEWPORTS)
@pytest.mark.parametrize("language", LOCALES)
def test_every_page_fits_the_screen(demo, browser, staff_page, live_server_url, screenshots, width, language):
    context = browser.new_context(base_url=live_server_url, viewport=VIEWPORTS[width], locale=LOCALES[language])
    context.add_cookies(staff_page.context.cookies())
    page = context.new_page()
    problems = []
    try:
        for path in every_page():
            response = page.goto(path)
            assert response is not None and response.status == 200, f"{path}: {response and response.status}"
            try:
                page.wait_for_load_state("networkidle", timeout=20_000)
            except PlaywrightTimeout:  # a loaded page on a busy machine: its layout is there to check
                pass
            page.screenshot(path=screenshots / f"{language}-{width}-{slug(path)}.png", full_page=True)
            problems += [f"{path}: {problem}" for problem in page.evaluate(INSPECT, MIN_TEXT_FIELD_WIDTH)]
    finally:
        context.close()
    assert problems == [], "\n".join(problems)
