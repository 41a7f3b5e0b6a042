"""The tick on the workers reads its world while the needs decay (``CityWorld.begin_tick_and_build``):
on PostgreSQL the decay's UPDATE runs on a connection of its own while the world is read from a
snapshot taken before it, the decay worked out in the read. The world, the decisions and the needs
after are those of the two steps in turn, on both databases (SQLite takes them in turn)."""

from __future__ import annotations

import pytest

from tests.support.django_process import run_django

RESIDENTS = 300
SCENARIOS = "tests.agents.tick_read_scenarios"


def test_the_world_read_while_the_needs_decay_is_the_world_read_after(django_child, database_kind):
    url = django_child(database_kind)
    run_django(url, f"{SCENARIOS}:populate", agents=RESIDENTS)
    read = run_django(url, f"{SCENARIOS}:read_both_ways")

    assert read["overlapped"] is (database_kind == "postgres")
    in_turn, as_one = read["in_turn"], read["as_one"]
    assert in_turn["needs"] != read["before"], "the needs decayed"
    assert as_one["needs"] == in_turn["needs"], "decayed once, as the UPDATE alone decays them"
    assert as_one["world"] == in_turn["world"]
    assert as_one["plan"] == in_turn["plan"]
    actions = {decision["action"] for decision in in_turn["plan"].values()}
    assert {"eat", "purchase", "transfer_resource", "assign_building", "claim_bounty"} <= actions  # the needs matter


@pytest.mark.timeout(300)
def test_a_tick_on_the_workers_decides_as_a_tick_in_process(django_child, database_kind):
    """Two ticks (the second reads the first's actions), each way on a copy of the same city."""
    ticked = {}
    for on_workers in (False, True):
        url = django_child(database_kind)
        run_django(url, f"{SCENARIOS}:populate", agents=RESIDENTS)
        ticked[on_workers] = run_django(url, f"{SCENARIOS}:tick", ticks=2, on_workers=on_workers)

    in_process, on_workers = ticked[False], ticked[True]
    assert [len(decisions) for decisions in in_process["decisions"]] == [RESIDENTS, RESIDENTS]
    assert on_workers["decisions"] == in_process["decisions"]
    assert on_workers["needs"] == in_process["needs"]


def test_a_write_beside_the_read_that_fails_fails_the_read_once_it_ends(django_child):
    url = django_child("postgres")
    run_django(url, f"{SCENARIOS}:populate", agents=3)

    assert run_django(url, f"{SCENARIOS}:write_that_fails") == {"read": 3, "raised": "IntegrityError"}
