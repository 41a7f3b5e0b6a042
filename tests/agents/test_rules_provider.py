"""The offline rules provider as a model: the issue's phrases (zh and en) through the async interface
and through the chat runner, tool calls only among the tools offered, text for what it does not know."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import async_to_sync
from django.utils import translation

from agents.chat import run_chat, system_prompt
from agents.executor import openai_tools
from agents.models import ToolCall
from agents.providers.rules import DECLINE, RulesProvider, Turn, registered_intents, understand
from agents.registry import registry
from bounties.models import Bounty
from city.demo import CITY_TOOLS
from funds.demo import FUND_TOOLS
from tests.agents.fixtures import city  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def rules(settings):
    settings.AGENT_PROVIDER = "rules"


@pytest.fixture
def alice(make_agent, city):
    from city.models import AgentResource

    agent = make_agent("Alice", tools=(*CITY_TOOLS, "claim_bounty", "list_bounties"))
    AgentResource.objects.create(agent=agent, resource_type=city.flour, quantity=10)
    return agent


@pytest.fixture
def bob(make_agent, city):
    return make_agent("Bob", tools=CITY_TOOLS)


def first_step(agent, text):
    messages = [{"role": "system", "content": "x"}, {"role": "user", "content": text}]
    return async_to_sync(RulesProvider().complete)(messages, openai_tools(agent))


@pytest.mark.parametrize(
    ("text", "tool", "arguments"),
    [
        ("把 5 flour 给 Bob", "find_agent", {"name": "Bob"}),
        ("give 5 flour to Bob", "find_agent", {"name": "Bob"}),
        ("接取悬赏 3", "claim_bounty", {"bounty_id": 3}),
        ("claim bounty #3", "claim_bounty", {"bounty_id": 3}),
        ("我的状态", "get_my_status", {}),
        ("my status", "get_my_status", {}),
    ],
)
def test_phrases_become_tool_calls(alice, text, tool, arguments):
    completion = first_step(alice, text)
    assert [(c.name, json.loads(c.arguments)) for c in completion.tool_calls] == [(tool, arguments)]


@pytest.mark.parametrize("text", ["去农田工作", "今天天气怎么样", "tell me a joke"])
def test_sentences_it_does_not_understand_get_text_only(alice, text):
    completion = first_step(alice, text)
    assert completion.tool_calls == [] and completion.content


def test_the_answer_is_in_the_users_language(alice):
    assert "Noted" in first_step(alice, "tell me a joke").content
    assert "收到" in first_step(alice, "讲个笑话").content


def test_a_tool_that_was_not_offered_is_never_called(make_agent, city):
    carol = make_agent("Carol", tools=("get_my_status",))
    completion = first_step(carol, "接取悬赏 3")
    assert completion.tool_calls == []
    assert "claim_bounty" in completion.content


@pytest.mark.parametrize("text", ["把 5 flour 给 Bob", "give 5 flour to Bob"])
def test_giving_runs_to_the_end_through_the_runner(alice, bob, text):
    from city.models import AgentResource

    result = run_chat(agent=alice, message=text)
    assert [c["name"] for c in result.tool_calls] == ["find_agent", "transfer_resource"]
    assert AgentResource.objects.get(agent=bob).quantity == 5


@pytest.mark.parametrize("text", ["接取悬赏 {id}", "claim bounty #{id}"])
def test_claiming_a_bounty_through_the_runner(alice, text):
    bounty = Bounty.objects.create(title="修城墙", reward=120)
    result = run_chat(agent=alice, message=text.format(id=bounty.pk))
    assert [c["name"] for c in result.tool_calls] == ["claim_bounty"]
    bounty.refresh_from_db()
    assert (bounty.status, bounty.claimed_by) == ("claimed", alice)


def test_claiming_a_bounty_that_does_not_exist_is_a_clear_reply(alice):
    result = run_chat(agent=alice, message="接取悬赏 999")
    assert "悬赏不存在" in result.reply
    assert ToolCall.objects.get().error_code == "bounty_not_found"


@pytest.mark.parametrize("text", ["把 Bob 的 flour 给我", "give me Bob's flour"])
def test_another_residents_goods_are_refused_without_a_tool_call(alice, bob, text):
    result = run_chat(agent=alice, message=text)
    assert result.tool_calls == [] and "Bob" in result.reply
    assert not ToolCall.objects.exists()


def test_html_in_the_message_comes_back_as_plain_text(alice):
    result = run_chat(agent=alice, message="<script>alert(1)</script>")
    assert result.tool_calls == []
    assert "<script>alert(1)</script>" in result.reply  # stored as text; pages escape it (test_chat_surfaces)


def test_an_english_reply_is_the_catalogues_translation(alice):
    content = first_step(alice, "tell me a joke").content
    assert content.startswith("Noted: “tell me a joke”, but I did not understand it. I can help you:\n- ")
    assert ", e.g. “" in content


def test_a_chinese_reply_is_the_source_text(alice):
    content = first_step(alice, "讲个笑话").content
    assert content.startswith("收到：「讲个笑话」，但我没有理解。我可以帮你：\n- ")
    assert "，例如「" in content


def not_understood_lines(agent, text):
    messages = [{"role": "system", "content": system_prompt(agent)}, {"role": "user", "content": text}]
    content = async_to_sync(RulesProvider().complete)(messages, openai_tools(agent)).content
    head, *lines = content.split("\n")
    return head, lines


@pytest.mark.parametrize(("text", "language"), [("讲个笑话", "zh-hans"), ("tell me a joke", "en")])
def test_not_understood_offers_three_or_four_things_from_the_agents_own_tools(alice, text, language):
    head, lines = not_understood_lines(alice, text)
    assert "Alice" in head
    assert 3 <= len(lines) <= 4
    granted = {spec.describe(language) for spec in registry.all() if spec.name in (*CITY_TOOLS, "claim_bounty", "list_bounties")}
    assert all(any(line.startswith(f"- {description}") for description in granted) for line in lines)


def test_the_fund_assistant_offers_fund_things_never_a_residents_status(make_agent):
    fund_agent = make_agent("基金助理", tools=FUND_TOOLS)
    head, lines = not_understood_lines(fund_agent, "讲个笑话")
    assert "基金助理" in head and len(lines) == 4
    assert all("基金" in line for line in lines)
    assert "我的状态" not in "\n".join(lines)


def test_every_offered_example_reaches_its_tool_in_both_languages(city):
    from agents.providers.framing import read_frames
    from funds.models import Fund
    from orders.models import Order

    # A fund is named only when the words resolve to one (issue 26: no search for a stray fragment).
    Fund.objects.create(fund_name="科技先锋")
    Order.objects.create(
        order_no="HT20260301001", supplier_order_no="SUP-1", guest_name="张三", hotel_name="西湖酒店",
        check_in="2026-03-01", check_out="2026-03-05", room_type="大床房",
    )
    offered = registry.names()
    for item in registered_intents():
        if not item.example:
            continue
        for language in ("zh-hans", "en"):
            with translation.override(language):
                example = str(item.example)
            text, plain, found = understand(example, offered)
            turn = Turn(text=text, offered=offered, said=example, plain=plain)
            deciding = next((intent for intent, match in found if intent.handler(turn, match) is not DECLINE), None)
            if deciding is None:  # a tool without phrases of its own: its frame reads the example
                step = read_frames(turn)
                assert step is not DECLINE and step.toward == item.tool, (language, example)
                continue
            assert deciding.tool == item.tool, (language, example)


def test_the_users_language_wins_over_the_active_one(alice):
    with translation.override("en"):
        assert first_step(alice, "讲个笑话").content.startswith("收到")
    with translation.override("zh-hans"):
        assert first_step(alice, "tell me a joke").content.startswith("Noted")


def test_answering_leaves_the_callers_language_active(alice):
    with translation.override("zh-hans"):
        first_step(alice, "tell me a joke")
        assert translation.get_language() == "zh-hans"


def test_an_intents_reply_with_placeholders_is_translated(alice, bob):
    result = run_chat(agent=alice, message="give me Bob's flour")
    assert result.reply == "I can only give away my own resources, not Bob's. Ask Bob to transfer them."
