"""A chat request offers at most AGENT_TOOLS_PER_REQUEST tools: those the message points at, best
first, and always those the turn is in the middle of (issue 27: 21 tools drowned a small model);
and the message as sent names the ids of what it names."""

from __future__ import annotations

import pytest

from agents.chat import run_chat
from agents.executor import openai_tools
from agents.tool_relevance import relevant_tools
from tests.agents.fixtures import ALL_ACTIONS, city, endpoint, resident  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db
QUERIES = ("find_agent", "get_my_status", "get_my_resources", "list_shop_items", "list_buildings", "list_market_orders")


def offered(request) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools", [])]


@pytest.mark.parametrize(
    ("message", "wanted"),
    [
        ("把 5 flour 给 Bob", {"transfer_resource", "find_agent"}),
        ("give 5 flour to Bob", {"transfer_resource", "find_agent"}),
        ("买两个面包", {"purchase"}),
        ("休息一下", {"rest"}),
    ],
)
def test_the_tools_a_message_points_at_are_offered(resident, message, wanted):
    tools = openai_tools(resident("Alice", tools=ALL_ACTIONS + QUERIES))
    assert len(tools) > 8
    chosen = [t["function"]["name"] for t in relevant_tools(tools, message, limit=8)]
    assert len(chosen) == 8 and wanted <= set(chosen)
    # Best first: a small model leans to the first tool it is offered (issue 27, Gemma picked
    # accept_market_order, the registry's first, for "give 5 flour to Bob").
    assert chosen[0] == sorted(wanted - {"find_agent"})[0]


def test_a_chat_request_offers_at_most_the_configured_number_and_keeps_the_tool_in_use(endpoint, resident, settings, staff_user):
    settings.AGENT_TOOLS_PER_REQUEST = 3
    alice = resident("Alice", tools=ALL_ACTIONS + QUERIES)
    # get_my_status has nothing to do with the words: once called, the turn is in the middle of it.
    endpoint.tool_calls([("get_my_status", {})]).reply("好的")
    run_chat(agent=alice, message="把 5 flour 给 Bob", user=staff_user)
    first, second = endpoint.requests
    assert len(offered(first)) == 3 and "transfer_resource" in offered(first) and "get_my_status" not in offered(first)
    assert "get_my_status" in offered(second) and "transfer_resource" in offered(second)


def test_zero_offers_every_tool(endpoint, resident, settings, staff_user):
    settings.AGENT_TOOLS_PER_REQUEST = 0
    alice = resident("Alice", tools=ALL_ACTIONS + QUERIES)
    endpoint.reply("好的")
    run_chat(agent=alice, message="你好", user=staff_user)
    assert len(offered(endpoint.requests[0])) == len(ALL_ACTIONS + QUERIES)


def test_a_model_is_told_the_ids_of_what_the_message_names_but_the_stored_message_is_unchanged(endpoint, resident, staff_user):
    alice, bob = resident("Alice", tools=ALL_ACTIONS + QUERIES), resident("Bob")
    endpoint.reply("好的")
    run_chat(agent=alice, message="give 5 flour to Bob", user=staff_user)
    sent = endpoint.requests[0]["messages"][-1]
    assert sent["role"] == "user" and sent["content"].startswith("give 5 flour to Bob\n")
    assert f"ID {bob.pk}" in sent["content"] and "resource_type flour" in sent["content"]
    assert alice.conversations.get().messages.filter(role="user").get().content == "give 5 flour to Bob"


def test_a_message_naming_nothing_known_gets_no_note(endpoint, resident, staff_user):
    alice = resident("Alice", tools=ALL_ACTIONS + QUERIES)
    endpoint.reply("好的")
    run_chat(agent=alice, message="say hello to Zed", user=staff_user)
    assert endpoint.requests[0]["messages"][-1]["content"] == "say hello to Zed"
