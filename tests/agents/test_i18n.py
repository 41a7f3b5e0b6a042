"""The English UI is complete: a page asked for in English shows no Chinese but data.

Every visible text node (tags, <script> and <style> stripped) and the attributes a user
reads (title, placeholder, aria-label, alt) are checked; the only Chinese allowed is the
language switcher's own name for Chinese, "简体中文". The data is created with ASCII names
so that any Chinese left on the page is an untranslated string.
"""

import re
from datetime import timedelta
from html.parser import HTMLParser

import pytest
from django.utils import timezone

pytestmark = pytest.mark.django_db

# CJK punctuation, radicals, kana, ideographs, compatibility ideographs and the full-width
# forms (a "：" or "，" left in an English page is as untranslated as a word).
CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]+")
LANGUAGE_SWITCHER = "简体中文"
READABLE_ATTRIBUTES = {"title", "placeholder", "aria-label", "alt"}


class _VisibleText(HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "template"):
            self._hidden += 1
        self.parts.extend(value for name, value in attrs if name in READABLE_ATTRIBUTES and value)

    def handle_endtag(self, tag):
        if tag in ("script", "style", "template") and self._hidden:
            self._hidden -= 1

    def handle_data(self, data):
        if not self._hidden:
            self.parts.append(data)


def visible_text(html: str) -> str:
    parser = _VisibleText()
    parser.feed(html)
    parser.close()
    return "\n".join(part.strip() for part in parser.parts if part.strip())


def untranslated(html: str) -> list[str]:
    """The lines of visible text that still hold Chinese, the language switcher aside."""
    return [line for line in visible_text(html).replace(LANGUAGE_SWITCHER, "").splitlines() if CJK.search(line)]


@pytest.fixture
def staff_client(client, staff_user):
    client.force_login(staff_user)
    return client


@pytest.fixture
def pages(make_agent):
    """The main pages; only the chat page needs a row (its agent)."""
    agent = make_agent("Alice")
    return ["/", "/trade/", "/bounties/", "/funds/", "/orders/", f"/agents/{agent.pk}/chat/"]


def test_every_main_page_is_fully_english(staff_client, pages):
    for url in pages:
        response = staff_client.get(url, HTTP_ACCEPT_LANGUAGE="en")
        assert response.status_code == 200, url
        html = response.content.decode()
        assert '<html lang="en">' in html, url
        assert untranslated(html) == [], url
        # The nav is the known gap that this test was written for.
        for label in ("Trade", "Bounties", "Funds", "Orders", "Admin"):
            assert f">{label}</a>" in html, (url, label)
        assert 'title="Live updates: connecting"' in html, url


def test_the_language_switcher_names_each_language_in_itself(staff_client, pages):
    html = staff_client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f">{LANGUAGE_SWITCHER}</button>" in html and ">English</button>" in html


def test_home_lists_agents_in_english(staff_client, make_agent):
    html = staff_client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "No agents yet" in html and '<h2 id="residents-heading">Agents</h2>' in html
    make_agent("Bob")
    html = staff_client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Bob" in html and "Conversation" in html and untranslated(html) == []


def test_funds_page_with_rows_and_a_proposal_is_fully_english(staff_client, make_agent):
    from agents.models import PendingAction
    from funds.services import create_fund

    create_fund(fund_name="Alpha")
    create_fund(fund_name="Beta", active_status="DISABLE")
    PendingAction.objects.create(
        tool_name="create_fund",
        agent=make_agent("Fundbot"),
        arguments={"fund_name": "Gamma"},
        mode="embedded",
        summary="Create fund Gamma",
        expires_at=timezone.now() + timedelta(minutes=10),
    )
    html = staff_client.get("/funds/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert untranslated(html) == []
    # Buttons are verbs, the column is "Actions": not the agents app's "Active" / "Action".
    assert 'value="enable">Enable</button>' in html and re.search(r'value="disable" class="secondary"\s+data-confirm="[^"]+">Disable</button>', html)
    assert "<th>Actions</th>" in html
    assert "</strong>: Create fund Gamma" in html


def test_pages_without_a_language_header_speak_chinese(staff_client, pages):
    for url in pages:
        html = staff_client.get(url).content.decode()
        assert '<html lang="zh-hans">' in html, url
        for label in ("交易", "悬赏", "基金", "订单", "管理后台"):
            assert f">{label}</a>" in html, (url, label)
        assert 'title="实时连接：连接中"' in html, url


@pytest.mark.parametrize(
    ("model_path", "singular", "plural"),
    [
        ("agents.models.Agent", "Agent", "Agents"),
        ("bounties.models.Bounty", "Bounty", "Bounties"),
        ("funds.models.Fund", "Fund", "Funds"),
        ("city.models.ResourceTransfer", "Resource transfer", "Resource transfers"),
    ],
)
def test_model_plural_names_are_english_plurals(model_path, singular, plural):
    """Chinese says 居民 for one agent and for many, so the plural has its own "plural" context."""
    from django.utils import translation
    from django.utils.module_loading import import_string

    model = import_string(model_path)
    with translation.override("en"):
        assert str(model._meta.verbose_name) == singular
        assert str(model._meta.verbose_name_plural) == plural
        assert str(model._meta.verbose_name_plural) != str(model._meta.verbose_name)


def test_agent_admin_changelist_names_the_list_agents(admin_client):
    html = admin_client.get("/admin/agents/agent/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    # The last crumb and the index entry are the model's verbose_name_plural (the nav sidebar is off).
    breadcrumbs = re.search(r'<div class="breadcrumbs">(.*?)</div>', html, re.S).group(1)
    assert breadcrumbs.split("&rsaquo;")[-1].strip() == "Agents"
    index = admin_client.get("/admin/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert re.search(r'<a href="/admin/agents/agent/"[^>]*>Agents</a>', index)
    # Django titles a changelist with the singular; the add button stays singular too.
    assert "<title>Select Agent to change" in html and "Add Agent" in html
