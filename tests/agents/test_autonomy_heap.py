"""The tick runs with the process's objects and its world frozen out of the cycle collector's
walks (``core.heap``), and gives them back when it ends, also when it fails."""

from __future__ import annotations

import gc

import pytest

from agents.autonomy import tick as tick_module
from agents.autonomy.tick import run_tick
from tests.agents.fixtures import (  # noqa: F401  (fixtures)
    city,
    decisions,
    endpoint,
    resident,
)

pytestmark = pytest.mark.django_db


def test_a_tick_executes_with_the_heap_and_its_world_frozen_then_gives_them_back(endpoint, resident, monkeypatch):
    alice = resident("Alice")
    frozen: dict[str, object] = {}
    build, apply = tick_module.world_source().build, tick_module.apply_batches

    def building(*args, **kwargs):
        frozen["before the world"] = gc.get_freeze_count()
        frozen["world"] = world = build(*args, **kwargs)
        return world

    def applying(batches, agents):
        # Frozen: tracked by the collector, yet in none of the generations it walks.
        residents = frozen["world"].residents
        walked = (obj for generation in range(3) for obj in gc.get_objects(generation))
        frozen["world frozen while executing"] = gc.is_tracked(residents) and not any(obj is residents for obj in walked)
        return apply(batches, agents)

    monkeypatch.setattr(tick_module.world_source(), "build", building)
    monkeypatch.setattr(tick_module, "apply_batches", applying)
    endpoint.reply(decisions({"agent_id": alice.pk, "action": "rest", "params": {}, "reason": "累了"}))
    result = run_tick()

    assert result.stats["success"] == 1
    assert frozen["before the world"] > 0
    assert frozen["world frozen while executing"] is True  # the world was frozen once built
    assert gc.get_freeze_count() == 0


def test_a_failed_tick_gives_the_heap_back(endpoint, resident, monkeypatch):
    resident("Alice")

    def failing(*args, **kwargs):
        raise RuntimeError("the world could not be read")

    monkeypatch.setattr(tick_module.world_source(), "build", failing)
    with pytest.raises(RuntimeError):
        run_tick()
    assert gc.get_freeze_count() == 0
