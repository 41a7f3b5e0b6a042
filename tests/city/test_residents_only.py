"""Only residents where residents are meant: the desk assistants of the demo (the fund assistant,
the front desk) used to be offered in the transfer pickers, the /trade/ table, the bounty "claim
for" list and the overview's resident table."""

import io
import re

import pytest
from django.core.management import call_command

from agents.models import Agent
from agents.selectors import residents
from city.forms import TransferForm
from city.overview import overview_residents
from city.selectors import resource_table

ASSISTANTS = {"基金助理", "前台助理"}


@pytest.fixture
def demo(db):
    call_command("seed_demo", stdout=io.StringIO())


def names_in(html: str, pattern: str) -> set[str]:
    return set(re.findall(pattern, html))


def test_seed_demo_marks_the_desk_agents_as_assistants(demo):
    assert set(Agent.objects.filter(kind=Agent.Kind.ASSISTANT).values_list("name", flat=True)) == ASSISTANTS
    assert ASSISTANTS.isdisjoint(residents().values_list("name", flat=True))
    assert {"Alice", "Bob"} <= set(residents().values_list("name", flat=True))


def test_transfer_pickers_offer_residents_only(demo):
    form = TransferForm()
    for field in ("from_agent_id", "to_agent_id"):
        offered = {agent.name for agent in form.fields[field].queryset}
        assert ASSISTANTS.isdisjoint(offered) and "Alice" in offered


def test_the_trade_table_lists_residents_only(demo):
    _, rows = resource_table()
    listed = {agent.name for agent, _ in rows}
    assert ASSISTANTS.isdisjoint(listed) and "Alice" in listed


def test_the_overview_lists_residents_only(demo):
    listed = {row.name for row in overview_residents()}
    assert ASSISTANTS.isdisjoint(listed) and "Alice" in listed


def test_the_bounty_board_claims_for_residents_only(demo, client, staff_user):
    client.force_login(staff_user)
    html = client.get("/bounties/").content.decode()
    offered = names_in(html, r'<option value="\d+">([^<]+)</option>')
    assert offered and ASSISTANTS.isdisjoint(offered) and "Alice" in offered


def test_the_trade_page_offers_residents_only(demo, client, staff_user):
    client.force_login(staff_user)
    html = client.get("/trade/").content.decode()
    offered = names_in(html, r'<option value="\d+"[^>]*>([^<]+)</option>')
    assert "Alice" in offered and ASSISTANTS.isdisjoint(offered)
