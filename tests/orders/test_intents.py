"""The desk's phrases in the offline rules provider: what the first step of each request is."""

import json

import pytest

from agents.executor import openai_tools
from agents.providers.rules import RulesChatPolicy

pytestmark = pytest.mark.django_db


def first_step(agent, text):
    return RulesChatPolicy().decide([{"role": "user", "content": text}], openai_tools(agent))


@pytest.mark.parametrize(
    "text, order_no",
    [
        ("查询订单 HT20260301001", "HT20260301001"),
        ("帮我查一下订单HT20260301002", "HT20260301002"),
        ("look up order HT20260301001", "HT20260301001"),
        ("Check order #ht20260301003 please", "HT20260301003"),
    ],
)
def test_order_look_up_phrases_query_the_order(desk, text, order_no):
    completion = first_step(desk, text)
    assert [(c.name, json.loads(c.arguments)) for c in completion.tool_calls] == [("order_query", {"order_no": order_no})]


@pytest.mark.parametrize(
    "text",
    [
        "客人要提前离店，订单 HT20260301001",
        "HT20260301001 的客人想提前退房",
        "guest wants to check out early, order HT20260301001",
        "Early check-out for order HT20260301001",
        "Order HT20260301001: the guest is checking out early",
    ],
)
def test_early_checkout_phrases_start_with_the_order(desk, text):
    completion = first_step(desk, text)
    assert [(c.name, json.loads(c.arguments)) for c in completion.tool_calls] == [
        ("order_query", {"order_no": "HT20260301001"})
    ]


def test_an_agent_without_the_desk_tools_says_so_instead_of_calling(make_agent, desk):
    clerk = make_agent("Clerk", tools=("message_send",))
    completion = first_step(clerk, "客人要提前离店，订单 HT20260301001")
    assert completion.tool_calls == []
    assert "order_query" in completion.content


def test_a_sentence_without_an_order_number_is_not_an_order_request(desk):
    completion = first_step(desk, "客人要提前离店")
    assert completion.tool_calls == []
