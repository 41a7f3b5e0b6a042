"""Real concurrency on file SQLite and PostgreSQL: threads with their own connections in a
child Django process (scenarios in tests/funds/scenarios.py)."""

from tests.support.django_process import run_django

SCENARIOS = "tests.funds.scenarios"


def test_concurrent_confirms_of_one_proposal_run_it_exactly_once(django_child, database_kind):
    result = run_django(django_child(database_kind), f"{SCENARIOS}:concurrent_confirms", rounds=10, threads=6)
    for number, outcome in enumerate(result["rounds"], start=1):
        assert outcome["outcomes"] == {"confirmed": 1, "pending_action_not_pending": 5}
        assert outcome["status"] == "confirmed"
        assert outcome["executions"] == number  # one more successful run per round, never two
        assert outcome["outcome_messages"] == number
    # Each created fund was updated once (version 2), by the one confirm that ran.
    assert result["funds"] == [[f"Fund {n}", 2, f"round {n + 1}"] for n in range(0, 10, 2)]


def test_concurrent_updates_with_the_same_version_let_one_writer_win(django_child, database_kind):
    result = run_django(django_child(database_kind), f"{SCENARIOS}:concurrent_updates", rounds=10, threads=6)
    for outcome in result["rounds"]:
        assert outcome["outcomes"] == {"success": 1, "version_conflict": 5}
        assert outcome["version"] == 2 and outcome["remarks"].startswith("writer ")
