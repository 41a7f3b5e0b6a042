"""Every change of what an agent may use is announced as ``agent_tools_changed`` (MCP sessions listen)."""

from __future__ import annotations

import pytest

from agents.models import Tool
from core.models import EventLog

pytestmark = pytest.mark.django_db


def announced() -> list[list[int]]:
    return [row.data["agent_ids"] for row in EventLog.objects.filter(event="agent_tools_changed").order_by("seq")]


@pytest.fixture
def granted(make_agent):
    alice, bob = make_agent("Alice"), make_agent("Bob")
    tool = Tool.objects.get(name="rest")
    alice.tools.add(tool)
    bob.tools.add(tool)
    EventLog.objects.all().delete()
    return alice, bob, tool


def test_granting_and_revoking_announce_the_agent(granted, django_capture_on_commit_callbacks):
    alice, _bob, tool = granted

    with django_capture_on_commit_callbacks(execute=True):
        alice.tools.remove(tool)
    with django_capture_on_commit_callbacks(execute=True):
        alice.tools.set([tool])

    assert announced() == [[alice.pk], [alice.pk]]


def test_changing_a_tools_agents_from_the_tool_side_announces_them(granted, django_capture_on_commit_callbacks):
    alice, bob, tool = granted

    with django_capture_on_commit_callbacks(execute=True):
        tool.agents.clear()

    assert announced() == [sorted([alice.pk, bob.pk])]


def test_switching_a_tool_off_announces_every_agent_holding_it(granted, django_capture_on_commit_callbacks):
    alice, bob, tool = granted

    with django_capture_on_commit_callbacks(execute=True):
        tool.is_active = False
        tool.save()
        tool.description = "unchanged grants"
        tool.save()

    assert announced() == [sorted([alice.pk, bob.pk])]
