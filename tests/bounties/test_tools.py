"""Bounty tools: listed with the right schema, run through the audited executor as the calling agent."""

import json

import pytest
from django.utils import translation

from agents.executor import execute, openai_tools
from agents.models import Agent, PendingAction, Tool, ToolCall
from agents.registry import ToolContext, registry
from bounties.models import Bounty

pytestmark = pytest.mark.django_db

BOUNTY_TOOLS = ("claim_bounty", "list_bounties", "complete_bounty")


@pytest.fixture
def agent(make_agent):
    return make_agent("Alice", tools=BOUNTY_TOOLS, credits=100)


def run(agent, name, arguments, **context):
    return execute(name, arguments, ToolContext(agent=agent, source="chat", **context))


def test_registry_lists_the_bounty_tools():
    assert set(BOUNTY_TOOLS) <= registry.names()
    rows = {t.name: t for t in Tool.objects.filter(name__in=BOUNTY_TOOLS)}
    assert {name: (row.category, row.requires_confirmation) for name, row in rows.items()} == {
        "claim_bounty": ("action", False),
        "list_bounties": ("query", False),
        "complete_bounty": ("action", True),
    }


def test_claim_bounty_schema_requires_only_bounty_id(agent):
    schema = next(t for t in openai_tools(agent) if t["function"]["name"] == "claim_bounty")["function"]
    params = schema["parameters"]
    assert params["required"] == ["bounty_id"]
    assert params["properties"]["bounty_id"]["type"] == "integer"
    assert params["properties"]["bounty_id"]["minimum"] == 1
    assert set(params["properties"]) == {"bounty_id"}  # the claimer comes from the context
    assert "悬赏" in schema["description"]


def test_tool_descriptions_follow_the_language(agent):
    with translation.override("en"):
        schema = next(t for t in openai_tools(agent) if t["function"]["name"] == "claim_bounty")["function"]
    assert schema["description"].startswith("Claim an open bounty")
    assert schema["parameters"]["properties"]["bounty_id"]["description"] == "bounty ID"


def test_list_bounties_status_is_an_optional_enum(agent):
    params = next(t for t in openai_tools(agent) if t["function"]["name"] == "list_bounties")["function"]["parameters"]
    assert "required" not in params
    assert params["properties"]["status"]["enum"] == ["open", "claimed", "completed", "cancelled"]
    assert params["properties"]["status"]["default"] == "open"


def test_claim_bounty_tool_claims_for_the_calling_agent(agent, make_bounty):
    bounty = make_bounty()
    result = run(agent, "claim_bounty", {"bounty_id": bounty.pk})
    assert result["status"] == "success"
    assert result["data"]["bounty_id"] == bounty.pk
    assert result["data"]["claimed_by"] == agent.pk
    assert "收集100小麦" in result["data"]["message"]
    assert Bounty.objects.get().claimed_by == agent
    call = ToolCall.objects.get()
    assert (call.tool_name, call.status, call.agent) == ("claim_bounty", "success", agent)


def test_claim_bounty_tool_takes_arguments_as_a_json_string(agent, make_bounty):
    bounty = make_bounty()
    assert run(agent, "claim_bounty", json.dumps({"bounty_id": bounty.pk}))["status"] == "success"


def test_claim_bounty_tool_returns_the_service_error(agent, make_agent, make_bounty):
    bounty = make_bounty(status="claimed", claimed_by=make_agent("Bob"))
    result = run(agent, "claim_bounty", {"bounty_id": bounty.pk})
    assert result == {
        "status": "error",
        "error": {"code": "bounty_not_open", "message": "该悬赏已被接取或不再开放"},
    }
    assert ToolCall.objects.get().error_code == "bounty_not_open"


def test_claim_bounty_tool_refuses_another_agents_identity(agent, make_agent, make_bounty):
    bounty = make_bounty()
    result = run(agent, "claim_bounty", {"bounty_id": bounty.pk, "agent_id": make_agent("Bob").pk})
    assert result["error"]["code"] == "invalid_arguments"
    assert result["error"]["field"] == "agent_id"
    assert Bounty.objects.get().status == "open"


@pytest.mark.parametrize("arguments", [{}, {"bounty_id": "three"}, {"bounty_id": 0}, {"bounty_id": True}])
def test_claim_bounty_tool_validates_bounty_id(agent, arguments):
    result = run(agent, "claim_bounty", arguments)
    assert (result["error"]["code"], result["error"]["field"]) == ("invalid_arguments", "bounty_id")


def test_claim_bounty_tool_is_refused_when_not_granted(make_agent, make_bounty):
    stranger = make_agent("Stranger")
    result = run(stranger, "claim_bounty", {"bounty_id": make_bounty().pk})
    assert result["error"]["code"] == "tool_not_allowed"
    assert Bounty.objects.get().status == "open"


def test_list_bounties_lists_open_ones_by_default(agent, make_agent, make_bounty):
    wheat = make_bounty("收集100小麦", 50)
    make_bounty("建造磨坊", 80, status="claimed", claimed_by=make_agent("Bob"))
    data = run(agent, "list_bounties", {})["data"]
    assert [b["title"] for b in data["bounties"]] == ["收集100小麦"]
    assert data["message"] == f"开放的悬赏：\n#{wheat.pk} 收集100小麦（奖励 50 信用点）"


def test_list_bounties_filters_by_status(agent, make_agent, make_bounty):
    make_bounty("收集100小麦", 50)
    make_bounty("建造磨坊", 80, status="claimed", claimed_by=make_agent("Bob"))
    data = run(agent, "list_bounties", {"status": "claimed"})["data"]
    assert [b["title"] for b in data["bounties"]] == ["建造磨坊"]


def test_list_bounties_mine_lists_only_the_callers_claims(agent, make_agent, make_bounty):
    make_bounty("建造磨坊", 80, status="claimed", claimed_by=make_agent("Bob"))
    assert run(agent, "list_bounties", {"status": "claimed", "mine": True})["data"]["bounties"] == []
    make_bounty("修缮城墙", 120, status="claimed", claimed_by=agent)
    data = run(agent, "list_bounties", {"status": "claimed", "mine": True})["data"]
    assert [b["title"] for b in data["bounties"]] == ["修缮城墙"]


def test_list_bounties_says_when_there_are_none(agent):
    assert run(agent, "list_bounties", {})["data"] == {"bounties": [], "message": "目前没有开放的悬赏。"}


def test_complete_bounty_tool_waits_for_staff_confirmation(agent, make_bounty):
    bounty = make_bounty(reward=80, status="claimed", claimed_by=agent)
    result = run(agent, "complete_bounty", {"bounty_id": bounty.pk})
    assert result["status"] == "pending_confirmation"
    assert "80" in result["message"] and "Alice" in result["message"]
    action = PendingAction.objects.get(pk=result["pending_action_id"])
    assert (action.tool_name, action.arguments) == ("complete_bounty", {"bounty_id": bounty.pk})
    assert Bounty.objects.get().status == "claimed"
    assert Agent.objects.get(pk=agent.pk).credits == 100


def test_complete_bounty_tool_refuses_to_propose_what_cannot_succeed(agent, make_agent, make_bounty):
    bounty = make_bounty(status="claimed", claimed_by=make_agent("Bob"))
    result = run(agent, "complete_bounty", {"bounty_id": bounty.pk})
    assert result["error"]["code"] == "not_claimer"
    assert not PendingAction.objects.exists()


def test_confirmed_complete_bounty_tool_pays_the_claimer(agent, make_bounty):
    bounty = make_bounty(reward=80, status="claimed", claimed_by=agent)
    pending = run(agent, "complete_bounty", {"bounty_id": bounty.pk})
    action = PendingAction.objects.get(pk=pending["pending_action_id"])
    result = run(agent, "complete_bounty", action.arguments, pending_action=action)
    assert result["status"] == "success"
    assert result["data"]["status"] == "completed"
    assert Agent.objects.get(pk=agent.pk).credits == 180
