"""The rules provider's fund phrases, through the real chat runner (zh and en)."""

import pytest

from agents.chat import run_chat
from agents.models import PendingAction
from agents.providers.vocabulary import language_of
from funds.models import Fund
from funds.services import create_fund

pytestmark = pytest.mark.django_db


@pytest.fixture
def funds():
    alpha = create_fund(fund_name="Alpha", remarks="旧备注")
    beta = create_fund(fund_name="Beta", active_status="DISABLE")
    return alpha, beta


def chat(agent, user, message):
    result = run_chat(agent=agent, message=message, user=user)
    return result, [(call["name"], call["arguments"]) for call in result.tool_calls]


@pytest.mark.parametrize("message", ["有哪些基金？", "list funds", "What funds are there?"])
def test_listing_funds(fund_agent, staff_user, funds, message):
    result, calls = chat(fund_agent, staff_user, message)
    assert calls == [("list_funds", {})]
    assert "Alpha" in result.reply and "Beta" in result.reply


@pytest.mark.parametrize("message", ["有哪些启用的基金", "show active funds"])
def test_listing_enabled_funds(fund_agent, staff_user, funds, message):
    result, calls = chat(fund_agent, staff_user, message)
    assert calls == [("list_funds", {"active_only": True})]
    assert "Alpha" in result.reply and "Beta" not in result.reply


@pytest.mark.parametrize("message", ["Alpha 基金的详情", "details of fund Alpha", "Alpha fund details"])
def test_fund_detail_looks_the_name_up_first(fund_agent, staff_user, funds, message):
    alpha, _ = funds
    result, calls = chat(fund_agent, staff_user, message)
    assert calls == [("list_funds", {"fund_name": "Alpha"}), ("get_fund_detail", {"fund_id": alpha.pk})]
    assert "旧备注" in result.reply


@pytest.mark.parametrize(
    ("message", "arguments"),
    [
        ("创建一个叫 Alpha 的基金", {"fund_name": "Alpha"}),
        ("帮我创建一个叫 Alpha 的基金", {"fund_name": "Alpha"}),
        ("帮我创建一个叫「Alpha Two」的基金，备注是测试用", {"fund_name": "Alpha Two", "remarks": "测试用"}),
        ("create a fund called Alpha", {"fund_name": "Alpha"}),
        ('Create a new fund named "Alpha" with remarks for testing', {"fund_name": "Alpha", "remarks": "for testing"}),
    ],
)
def test_creating_a_fund_asks_for_confirmation(fund_agent, staff_user, message, arguments):
    result, calls = chat(fund_agent, staff_user, message)
    assert calls == [("create_fund", arguments)]
    expected = f"即将创建基金「{arguments['fund_name']}」，请确认是否继续？"
    if language_of(message) == "en":
        expected = f"About to create fund “{arguments['fund_name']}”. Shall I go ahead?"
    assert result.reply.startswith(expected)
    assert arguments.get("remarks", "") in result.reply  # the remarks are said back, as the proposal will hold them
    assert PendingAction.objects.get().arguments == arguments
    assert not Fund.objects.exists()


@pytest.mark.parametrize(
    ("message", "change"),
    [
        ("把 Alpha 基金的备注改成 长期持有", {"remarks": "长期持有"}),
        ("change the remarks of fund Alpha to hold", {"remarks": "hold"}),
        ("把 Alpha 基金改名为 Alpha2", {"fund_name": "Alpha2"}),
        ("rename fund Alpha to Alpha2", {"fund_name": "Alpha2"}),
    ],
)
def test_updating_a_fund_by_name_proposes_with_its_id(fund_agent, staff_user, funds, message, change):
    alpha, _ = funds
    result, calls = chat(fund_agent, staff_user, message)
    assert calls == [("list_funds", {"fund_name": "Alpha"}), ("update_fund", {"fund_id": alpha.pk, **change})]
    assert ("请确认是否继续" if language_of(message) == "zh-hans" else "Shall I go ahead?") in result.reply
    alpha.refresh_from_db()
    assert (alpha.remarks, alpha.fund_name) == ("旧备注", "Alpha")


@pytest.mark.parametrize(
    ("message", "tool_name", "name"),
    [
        ("启用 Beta 基金", "enable_fund", "Beta"),
        ("enable fund Beta", "enable_fund", "Beta"),
        ("停用 Alpha 基金", "disable_fund", "Alpha"),
        ("disable the Alpha fund", "disable_fund", "Alpha"),
    ],
)
def test_enabling_and_disabling_propose(fund_agent, staff_user, funds, message, tool_name, name):
    fund = Fund.objects.get(fund_name=name)
    result, calls = chat(fund_agent, staff_user, message)
    assert calls[-1] == (tool_name, {"fund_id": fund.pk})
    assert PendingAction.objects.get().tool_name == tool_name
    assert ("请确认是否继续" if language_of(message) == "zh-hans" else "Shall I go ahead?") in result.reply


def test_an_unknown_fund_name_is_named_as_missing_and_acts_on_nothing(fund_agent, staff_user, funds):
    result, calls = chat(fund_agent, staff_user, "停用 Gamma 基金")
    assert calls == []  # no fund is named Gamma: nothing to resolve it to, so nothing is proposed
    assert result.reply.startswith("没有找到名为「Gamma」的基金。现有的基金：")  # the miss, and the funds there are
    assert not PendingAction.objects.exists()


def test_an_ambiguous_name_asks_which_fund(fund_agent, staff_user, funds):
    create_fund(fund_name="Alpha Asia")
    create_fund(fund_name="Alpha Europe")
    result, calls = chat(fund_agent, staff_user, "停用 Alph 基金")
    assert len(calls) == 1 and "多个基金" in result.reply
    assert not PendingAction.objects.exists()


def test_a_chinese_fund_name_is_glossed_word_for_word():
    from funds.intents import english_names

    assert "steady growth no. 1" in english_names("稳健增长一号")
    assert "tech pioneer" in english_names("科技先锋") and "technology pioneer" in english_names("科技先锋")
    assert english_names("Beta Balanced") == [] and english_names("长安一号") == []  # a word without a gloss: none


@pytest.mark.parametrize(
    ("message", "tool_name"),
    [
        ("what's the status of the tech pioneer fund?", "get_fund_detail"),
        ("turn off the green energy one", "disable_fund"),
        ("change the remarks on the tech fund to 'AI and chips'", "update_fund"),
    ],
)
def test_a_chinese_fund_named_in_english(fund_agent, staff_user, message, tool_name):
    tech = create_fund(fund_name="科技先锋")
    green = create_fund(fund_name="绿色能源主题")
    create_fund(fund_name="货币市场旧份额")
    result, calls = chat(fund_agent, staff_user, message)
    wanted = green if "green" in message else tech
    assert calls[0] == ("list_funds", {"fund_name": wanted.fund_name})
    assert calls[-1][0] == tool_name and calls[-1][1]["fund_id"] == wanted.pk


def test_a_latin_word_stands_for_a_name_only_from_a_word_start(db):
    from agents.providers.understanding import read

    create_fund(fund_name="货币市场旧份额")  # glossed "currency market legacy units": "its" is inside "units"
    assert read("change its remarks to 'x'", {"fund"}).of("fund") == []
    assert [span.name for span in read("the money market fund", {"fund"}).of("fund")] == ["货币市场旧份额"]


def test_chinese_numerals_are_written_as_they_are_read():
    from agents.providers.vocabulary import chinese_number, chinese_numeral

    assert [chinese_numeral(n) for n in (5, 10, 12, 30, 99)] == ["五", "十", "十二", "三十", "九十九"]
    assert all(chinese_number(chinese_numeral(n)) == n for n in range(1, 100))
