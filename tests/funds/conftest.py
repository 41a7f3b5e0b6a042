import pytest

FUND_TOOLS = ("list_funds", "get_fund_detail", "create_fund", "update_fund", "enable_fund", "disable_fund")


@pytest.fixture
def fund_agent(make_agent):
    return make_agent("基金助理", tools=FUND_TOOLS)
