import io

import pytest

from agents.registry import ToolContext


@pytest.fixture
def desk(db):
    """The demo's three orders and its desk agent (granted the four desk tools)."""
    from agents.models import Agent
    from orders import demo

    demo.seed(io.StringIO())
    return Agent.objects.get(name=demo.DESK_AGENT_NAME)


@pytest.fixture
def ctx(desk):
    return ToolContext(agent=desk, source="chat")


@pytest.fixture(autouse=True)
def chinese():
    """Every test starts in the default language: a request in English leaves its language active in the thread."""
    from django.utils import translation

    with translation.override("zh-hans"):
        yield
