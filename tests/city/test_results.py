"""Tool results as the chats show them (agents.results): one line per result in the page's
language, details as label/value rows, never JSON or template whitespace."""

import pytest
from django.utils import translation

from agents.chat import conversation_transcript, run_chat
from agents.results import arguments_line, result_view
from funds.services import create_fund, disable_fund

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def rules(settings):
    settings.AGENT_PROVIDER = "rules"


@pytest.fixture
def staff_client(client, staff_user):
    client.force_login(staff_user)
    return client


def success(data: dict) -> dict:
    return {"status": "success", "data": data}


def test_a_transfer_reads_as_who_got_how_much(kinds):
    data = {"transfer_id": 1, "to_agent_id": 2, "to_agent_name": "Bob", "resource_type": "bread", "quantity": 2, "message": "转移 2 面包 成功"}
    assert result_view("transfer_resource", success(data))["line"] == "转给 Bob 2 面包 ✓"
    with translation.override("en"):
        assert result_view("transfer_resource", success(data))["line"] == "Gave Bob 2 bread ✓"


def test_a_fund_list_is_counted_with_plurals(db):
    for name in ("Alpha", "Beta", "Gamma"):
        create_fund(fund_name=name)
    disable_fund(fund_id=create_fund(fund_name="Delta").pk, version=1)
    from funds.tools import list_funds  # the tool's own data, as the executor stores it

    data = list_funds(None)
    assert result_view("list_funds", success(data))["line"] == "4 个基金，3 个启用 ✓"
    with translation.override("en"):
        assert result_view("list_funds", success(data))["line"] == "4 funds, 3 active ✓"
        one = {"funds": [data["funds"][0]], "total": 1}
        assert result_view("list_funds", success(one))["line"] == "1 fund, 1 active ✓"


def test_my_resources_use_names_and_the_languages_punctuation(kinds, make_agent, stock):
    from city.tools import get_my_resources
    from agents.registry import ToolContext

    alice = make_agent("Alice")
    stock(alice, bread=1, wood=18)
    data = get_my_resources(ToolContext(agent=alice))
    assert data["message"] == "我的资源：面包 1，木材 18"
    with translation.override("en"):
        assert result_view("get_my_resources", success(data))["line"] == "My resources: bread 1, wood 18 ✓"


def test_a_failure_shows_its_message_and_its_code_in_the_details():
    view = result_view("transfer_resource", {"status": "failed", "error": {"code": "insufficient_resource", "message": "库存不足"}})
    assert view["line"] == "✗ 库存不足"
    assert ("错误码", "insufficient_resource") in view["details"]


def test_details_are_rows_not_json():
    view = result_view("order_query", success({"order_no": "HT1", "refund": {"status": "registered"}, "message": "订单 HT1"}))
    assert view["details"] == [("order_no", "HT1"), ("refund.status", "registered")]
    assert arguments_line("{}") == "" and arguments_line('{"order_no": "HT1", "n": 2}') == "order_no HT1 · n 2"


def test_the_chat_page_shows_no_json_and_no_template_whitespace(staff_client, make_agent, staff_user, kinds, stock):
    alice = make_agent("Alice", tools=("get_my_resources",))
    stock(alice, bread=2)
    result = run_chat(agent=alice, message="我有多少资源？", user=staff_user)
    [entry] = [e for e in conversation_transcript(result.conversation) if e["role"] == "tool"]
    assert entry["view"]["line"] == "我的资源：面包 2 ✓"
    html = staff_client.get(f"/agents/{alice.pk}/chat/?conversation={result.conversation.pk}").content.decode()
    assert "我的资源：面包 2 ✓" in html
    assert "{&quot;" not in html and '{"' not in html.split("<body", 1)[1].replace('hx-headers=\'{"', "")


def test_one_fund_is_one_fund_in_english(db):
    from funds.tools import list_funds

    fund = create_fund(fund_name="Alpha")
    with translation.override("en"):
        assert list_funds(None)["message"] == f"1 fund: Alpha (ID {fund.pk}, Enabled)"
