"""The offline rules provider understands bounty phrases in zh and en."""

import json

import pytest

from agents.executor import openai_tools
from agents.providers.rules import RulesChatPolicy

pytestmark = pytest.mark.django_db


@pytest.fixture
def tools(make_agent):
    return openai_tools(make_agent("Alice", tools=("claim_bounty", "list_bounties", "complete_bounty")))


def decide(tools, text, *after):
    return RulesChatPolicy().decide([{"role": "user", "content": text}, *after], tools)


def only_call(completion):
    (call,) = completion.tool_calls
    return call.name, json.loads(call.arguments)


@pytest.mark.parametrize("text", ["接取悬赏 3", "帮我接取悬赏#3", "claim bounty #3", "Please claim the bounty 3"])
def test_claim_phrases_call_claim_bounty(tools, text):
    assert only_call(decide(tools, text)) == ("claim_bounty", {"bounty_id": 3})


@pytest.mark.parametrize(
    ("text", "status"),
    [("有哪些悬赏", "open"), ("查看悬赏", "open"), ("有哪些进行中的悬赏", "claimed"), ("list bounties", "open"),
     ("list completed bounties", "completed")],
)
def test_list_phrases_call_list_bounties(tools, text, status):
    assert only_call(decide(tools, text)) == ("list_bounties", {"status": status})


@pytest.mark.parametrize("text", ["完成悬赏 4", "complete bounty #4"])
def test_complete_phrases_call_complete_bounty(tools, text):
    assert only_call(decide(tools, text)) == ("complete_bounty", {"bounty_id": 4})


def test_after_the_claim_the_reply_reports_its_result(tools):
    result = {"status": "success", "data": {"bounty_id": 3, "message": "已接取悬赏#3「建造磨坊」"}}
    completion = decide(
        tools,
        "接取悬赏 3",
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "claim_bounty", "arguments": '{"bounty_id": 3}'}}
        ]},
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps(result, ensure_ascii=False)},
    )
    assert not completion.tool_calls
    assert completion.content == "已接取悬赏#3「建造磨坊」"


def test_claim_is_not_called_when_the_tool_is_not_granted(make_agent):
    completion = decide(openai_tools(make_agent("Bob")), "接取悬赏 3")
    assert not completion.tool_calls
    assert "claim_bounty" in completion.content
