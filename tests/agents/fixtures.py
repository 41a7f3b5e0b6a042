"""Shared fixtures of the agents tests: a small city, the scripted model endpoint, a write probe.

Import the fixtures into a test module (``from tests.agents.fixtures import city  # noqa``)."""

from __future__ import annotations

import json
import re
import sqlite3
from types import SimpleNamespace
from typing import Annotated

import pytest

from agents.models import Agent
from agents.registry import Param, ToolContext, registry, tool
from agents.sync import sync_tools
from city.autonomy.prompt import ACTIONS

ALL_ACTIONS = tuple(ACTIONS)


@pytest.fixture
def city(db):
    from city.models import Building, BuildingKind, BuildingMaterial, ResourceType, ShopItem

    bread = ResourceType.objects.create(slug="bread", name="面包", edible=True, satiety_gain=30)
    flour = ResourceType.objects.create(slug="flour", name="面粉")
    wood = ResourceType.objects.create(slug="wood", name="木材")
    mill_kind = BuildingKind.objects.create(
        slug="mill", name="磨坊", credit_cost=80, job_slots=2, wage=15, produces=flour, produces_quantity=4
    )
    BuildingMaterial.objects.create(kind=mill_kind, resource_type=wood, quantity=20)
    mill = Building.objects.create(name="西市磨坊", kind=mill_kind, job_slots=2, wage=15, produces=flour, produces_quantity=4)
    bread_item = ShopItem.objects.create(name="面包", price=8, resource_type=bread, quantity=1)
    return SimpleNamespace(bread=bread, flour=flour, wood=wood, mill_kind=mill_kind, mill=mill, bread_item=bread_item)


@pytest.fixture
def resident(make_agent, city):
    """``resident(name, holdings={"bread": 2}, job=building, tools=..., **agent fields)``."""
    from city.models import AgentResource, Employment, ResourceType

    def make(name: str, *, holdings: dict[str, int] | None = None, job=None, tools: tuple[str, ...] = ALL_ACTIONS, **fields):
        agent = make_agent(name, tools=tools, **fields)
        for slug, quantity in (holdings or {}).items():
            AgentResource.objects.create(agent=agent, resource_type=ResourceType.objects.get(slug=slug), quantity=quantity)
        if job is not None:
            Employment.objects.create(agent=agent, building=job)
        return agent

    return make


@pytest.fixture
def endpoint(settings, scripted_openai):
    """Chat and the tick talk to the scripted OpenAI-compatible server through the real SDK."""
    settings.AGENT_PROVIDER = "openai"
    settings.OPENAI_BASE_URL = scripted_openai.base_url
    settings.OPENAI_API_KEY = "test-key"
    settings.AGENT_MODEL = "scripted-model"
    settings.AGENT_MODEL_TIMEOUT = 5.0
    settings.AUTONOMY_TOKEN_BUDGET = 0
    return scripted_openai


def prompt_ids(request: dict) -> list[int]:
    """The resident ids a batch prompt asks about."""
    text = request["messages"][-1]["content"]
    return [int(i) for i in re.findall(r"^- ID=(\d+) ", text.split("== 资源 ==")[0], re.MULTILINE)]


def decisions(*items: dict) -> str:
    return json.dumps(list(items), ensure_ascii=False)


def write_from_another_connection(path: str) -> str:
    """Try a write on the SQLite file from a second connection: "wrote", or the error if a
    transaction elsewhere holds the write lock (IMMEDIATE transactions take it at BEGIN)."""
    probe = sqlite3.connect(path, timeout=0.5, isolation_level=None)
    try:
        probe.execute("BEGIN IMMEDIATE")
        probe.execute("UPDATE agents_agent SET persona = persona")
        probe.execute("COMMIT")
        return "wrote"
    except sqlite3.OperationalError as exc:
        return str(exc)
    finally:
        probe.close()


# A chat agent with one write tool of the tests' own (test_chat, test_chat_streaming).

@tool(description="给自己加信用点", category="action", permission="agents.change_agent", register_to=None)
def add_my_credits(ctx: ToolContext, amount: Annotated[int, Param(ge=1, le=50)]) -> dict:
    Agent.objects.filter(pk=ctx.agent.pk).update(credits=ctx.agent.credits + amount)
    return {"message": f"加了 {amount}", "amount": amount}


@pytest.fixture
def alice(make_agent):
    with registry.register_temporarily(add_my_credits):
        sync_tools()
        yield make_agent("Alice", tools=("get_my_status", "add_my_credits"), persona="热心的面包师", credits=100)
