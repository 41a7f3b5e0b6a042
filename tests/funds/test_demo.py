import io

import pytest

from agents.models import Agent
from funds import demo
from funds.models import Fund

pytestmark = pytest.mark.django_db


def test_seed_is_idempotent_and_grants_the_fund_tools():
    demo.seed(io.StringIO())
    demo.seed(io.StringIO())
    assert Fund.objects.count() == len(demo.DEMO_FUNDS)
    assert Fund.objects.filter(active_status="DISABLE").count() == 1
    agent = Agent.objects.get(name=demo.FUND_AGENT_NAME)
    assert set(agent.tools.values_list("name", flat=True)) == set(demo.FUND_TOOLS)
    assert not Fund.objects.filter(fund_name__iexact="Alpha").exists()  # left for the seed's scenarios
