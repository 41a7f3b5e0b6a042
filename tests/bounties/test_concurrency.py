"""Real concurrency on file SQLite and PostgreSQL: threads, each with its own connection and
transaction, in a child Django process (scenarios in tests/bounties/scenarios.py)."""

import pytest

from tests.support.django_process import run_django

SCENARIOS = "tests.bounties.scenarios"


def test_twenty_agents_racing_for_one_bounty_have_exactly_one_winner(django_child, database_kind):
    result = run_django(django_child(database_kind), f"{SCENARIOS}:race_for_one_bounty", agents=20, rounds=50)
    assert len(result["rounds"]) == 50
    for outcome in result["rounds"]:
        assert outcome == {"success": 1, "bounty_not_open": 19}
    assert all(result["winner_matches_success"])
    assert result["coordinator_errors"] == []
    assert result["completed"] == 50
    assert result["credits_paid"] == 50 * 10


def test_one_agent_claiming_two_bounties_at_once_gets_at_most_one(django_child, database_kind):
    result = run_django(django_child(database_kind), f"{SCENARIOS}:one_agent_two_bounties", rounds=50)
    for outcome in result["rounds"]:
        assert outcome == ["active_bounty_exists", "success"]
    assert result["claimed_after_round"] == [1] * 50
    assert result["coordinator_errors"] == []


def test_claim_hitting_the_unique_constraint_is_active_bounty_exists(django_child, database_kind):
    result = run_django(django_child(database_kind), f"{SCENARIOS}:claim_racing_the_constraint")
    assert (result["first"], result["second"]) == ("success", "active_bounty_exists")
    assert result["second_waited"] >= 0.3  # it really waited for the first claim's commit
    assert result["witness_description"] == "written after the refusal"
    assert result["statuses"] == {"first": "claimed", "second": "open", "witness": "open"}


def test_reward_payment_waits_for_the_agent_lock_and_writes_the_ledger(django_child, database_kind):
    result = run_django(django_child(database_kind), f"{SCENARIOS}:completion_waits_for_the_agent_lock")
    assert result["complete"] == "success"
    assert result["waited"] >= 0.3  # it really waited for the other payment's commit
    assert result["credits"] == 100 + 5 + 30
    assert result["ledger"] == [["admin", 5], ["bounty", 30]]


def test_thousand_random_operations_keep_the_invariants(django_child, database_kind):
    result = run_django(django_child(database_kind), f"{SCENARIOS}:random_operations", operations=1000, threads=8)
    assert result["operations"] == 1000
    assert result["unexpected"] == []
    assert result["agents_with_two_claims"] == []
    assert result["credits_mismatch_db"] == {}
    assert result["credits_mismatch_log"] == {}
    assert result["credits_mismatch_ledger"] == {}
    successes, statuses = result["successes"], result["statuses"]
    assert statuses.get("completed", 0) == successes.get("complete", 0)
    assert statuses.get("cancelled", 0) == successes.get("cancel", 0)
    assert statuses.get("claimed", 0) + statuses.get("completed", 0) == successes.get("claim", 0)
    assert result["bounties"] == 10 + successes.get("create", 0)
    # The mix really exercised every path, contended ones included.
    for key in ("claim:success", "claim:bounty_not_open", "claim:active_bounty_exists", "complete:success",
                "complete:not_claimer", "create:success", "claim:bounty_not_found"):
        assert result["outcomes"].get(key, 0) > 0, key


def test_api_claims_racing_for_one_bounty_never_give_a_500(django_child, database_kind):
    result = run_django(django_child(database_kind), f"{SCENARIOS}:api_race_for_one_bounty", agents=20, rounds=10)
    for outcome in result["rounds"]:
        assert outcome == {"200": 1, "409 bounty_not_open": 19}
