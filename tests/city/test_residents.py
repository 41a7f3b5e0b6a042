"""Only residents appear where residents are meant: the trade page's pickers and table, the
bounty board's "claim for" list, the overview. Not the assistants (fund assistant, front desk)."""

import re

import pytest

from agents.models import Agent
from agents.selectors import residents

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(make_agent):
    return {
        "alice": make_agent("Alice", tools=("eat", "transfer_resource")),
        "newcomer": make_agent("Newcomer"),  # granted nothing yet: still a resident
        "fund": make_agent("基金助理", tools=("list_funds", "create_fund"), kind=Agent.Kind.ASSISTANT),
        "desk": make_agent("前台助理", tools=("order_query",), kind=Agent.Kind.ASSISTANT),
        "gone": make_agent("Gone", tools=("eat",), is_active=False),
    }


@pytest.fixture
def staff_client(client, staff_user):
    client.force_login(staff_user)
    return client


def test_residents_are_the_agents_of_kind_resident(people):
    assert sorted(residents().values_list("name", flat=True)) == ["Alice", "Gone", "Newcomer"]


def test_the_trade_page_offers_and_lists_residents_only(staff_client, people):
    html = staff_client.get("/trade/").content.decode()
    picker = re.search(r'<select name="to_agent_id".*?</select>', html, re.S).group(0)
    assert "Alice" in picker and "Newcomer" in picker
    assert "基金助理" not in html and "前台助理" not in html


def test_the_bounty_board_claims_for_residents_only(staff_client, people):
    from bounties.models import Bounty

    Bounty.objects.create(title="修路", reward=10)
    html = staff_client.get("/bounties/").content.decode()
    assert "Alice" in html and "基金助理" not in html and "前台助理" not in html


def test_the_overview_lists_residents_only(staff_client, people):
    html = staff_client.get("/").content.decode()
    assert f'id="resident-{people["alice"].pk}"' in html
    assert f'id="resident-{people["fund"].pk}"' not in html and f'id="resident-{people["desk"].pk}"' not in html
