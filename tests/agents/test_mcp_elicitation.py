"""The elicitation form and answer of a proposal made over MCP, in-process (the live client-server
round trips are in test_mcp.py)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from agents.executor import execute
from agents.mcp import elicitation
from agents.models import PendingAction
from agents.registry import ToolContext
from tests.support.staff import create_staff

pytestmark = pytest.mark.django_db


@pytest.fixture
def proposal(make_agent):
    agent = make_agent("基金助理", tools=("create_fund",))
    user = create_staff("boss")
    result = execute("create_fund", {"fund_name": "Alpha", "remarks": "r"}, ToolContext(agent=agent, user=user, source="mcp"))
    return agent, user, PendingAction.objects.get(pk=result["pending_action_id"])


def test_the_form_speaks_the_callers_language_and_prefills_the_proposal(proposal):
    _agent, _user, action = proposal

    message, schema = elicitation.proposal_form(action, "en")

    assert message.startswith("Please confirm: ")
    assert schema["properties"]["decision"]["title"] == "Decision"
    assert schema["properties"]["fund_name"]["default"] == "Alpha"
    assert schema["properties"]["fund_name"]["description"] == "fund name"
    assert schema["required"] == ["decision"]


def test_a_person_who_may_not_decide_or_another_agent_is_not_asked(proposal, make_agent):
    agent, user, action = proposal
    clerk = create_staff("clerk", "agents.chat_agent", "funds.add_fund", "funds.view_fund")
    other = make_agent("Alice")

    assert elicitation.askable(user=user, agent_id=agent.pk, action_id=action.pk) == action
    assert elicitation.askable(user=clerk, agent_id=agent.pk, action_id=action.pk) is None
    assert elicitation.askable(user=user, agent_id=other.pk, action_id=action.pk) is None


def test_an_answer_naming_another_agents_proposal_decides_nothing(proposal, make_agent):
    _agent, user, action = proposal
    other = make_agent("Alice")
    approve = SimpleNamespace(action="accept", content={"decision": "approve"})

    result = elicitation.answer(user=user, agent_id=other.pk, action_id=action.pk, reply=approve, language="en")

    assert result["error"]["code"] == "pending_action_not_found"
    action.refresh_from_db()
    assert action.status == PendingAction.Status.PENDING


def test_an_answer_from_someone_who_may_not_decide_is_refused(proposal):
    agent, _user, action = proposal
    clerk = create_staff("clerk", "agents.chat_agent", "funds.add_fund", "funds.view_fund", "agents.view_pendingaction")
    approve = SimpleNamespace(action="accept", content={"decision": "approve"})

    result = elicitation.answer(user=clerk, agent_id=agent.pk, action_id=action.pk, reply=approve, language="en")

    assert result["error"]["code"] == "permission_denied"
    action.refresh_from_db()
    assert action.status == PendingAction.Status.PENDING
