"""The city lives between ticks: needs decay, residents react, and nobody repeats a failure."""

from __future__ import annotations

import io
from itertools import pairwise

import pytest
from django.core.management import call_command

from agents import demo as agents_demo
from agents.autonomy.tick import run_tick
from agents.models import AgentActionLog, AutonomyRound
from tests.agents.fixtures import city, resident  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def rules(settings):
    settings.AGENT_PROVIDER = "rules"
    settings.CITY_SATIETY_DECAY, settings.CITY_ENERGY_DECAY = 5, 3


def needs(agent) -> tuple[int, int]:
    agent.refresh_from_db()
    return agent.satiety, agent.energy


def test_a_tick_decays_the_needs_of_its_residents(resident):
    alice = resident("Alice", satiety=60, energy=40, tools=("chat",))
    run_tick()
    assert needs(alice) == (55, 37)


def test_a_tick_leaves_the_needs_of_everyone_else_alone(resident, make_agent):
    alice = resident("Alice", satiety=60, energy=40, tools=("chat",))
    bob = resident("Bob", satiety=60, energy=40, tools=("chat",))
    away = resident("Away", satiety=60, energy=40, tools=("chat",), is_active=False)
    desk = make_agent("Desk", satiety=60, energy=40)  # an assistant with no city action is no resident
    run_tick(agent_ids=[alice.pk, away.pk, desk.pk])
    assert needs(alice) == (55, 37)
    assert needs(bob) == needs(away) == needs(desk) == (60, 40)


def test_a_dry_run_does_not_decay_needs(resident):
    alice = resident("Alice", satiety=60, energy=40, tools=("chat",))
    run_tick(dry_run=True)
    assert needs(alice) == (60, 40)


def test_a_failed_action_is_not_repeated_with_the_same_arguments_next_tick(resident):
    alice = resident("Alice", holdings={"bread": 2}, satiety=20)
    AgentActionLog.objects.create(
        round=AutonomyRound.objects.create(provider="rules"), agent=alice, action="eat",
        params={"resource_type": "bread"}, status="failed", error_code="insufficient_resource",
    )
    run_tick()
    latest = AgentActionLog.objects.filter(agent=alice).latest("id")
    assert (latest.action, latest.params) != ("eat", {"resource_type": "bread"})


def test_twenty_ticks_of_the_demo_city_stay_varied_without_repeated_failures(monkeypatch, tmp_path):
    monkeypatch.setattr(agents_demo, "CREDENTIALS_FILE", tmp_path / ".demo-credentials")
    call_command("seed_demo", stdout=io.StringIO())
    for _ in range(20):
        run_tick()
    logs = list(AgentActionLog.objects.order_by("agent_id", "id").values_list("agent_id", "action", "status", "error_code"))
    assert len({action for _, action, _, _ in logs}) >= 5
    repeated = [
        (first[0], first[1], first[3]) for first, then in pairwise(logs)
        if first[0] == then[0] and first[2] == then[2] == "failed" and (first[1], first[3]) == (then[1], then[3])
    ]
    assert repeated == []


def test_a_builder_whose_building_name_is_taken_builds_under_another_name(resident, city):
    from city.autonomy.world import build_world
    from city.models import Building

    frank = resident("Frank", holdings={"wood": 20}, credits=200, tools=("construct_building", "chat"))
    taken = f"Frank的磨坊{build_world().day:%m%d}"
    Building.objects.create(name=taken, kind=city.mill_kind, job_slots=2, wage=15)
    run_tick()
    assert not AgentActionLog.objects.filter(agent=frank, status="failed").exists()
    assert Building.objects.filter(name=f"{taken}-2", owner=frank).exists()
