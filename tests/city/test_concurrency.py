"""Real concurrency on file SQLite and PostgreSQL: threads, each with its own connection and
transactions, in a child Django process (scenarios in tests/city/scenarios.py)."""

from tests.support.django_process import run_django

SCENARIOS = "tests.city.scenarios"


def assert_conserved(result: dict) -> None:
    for slug, total in result["totals"].items():
        assert total["held_plus_reserved"] == total["expected"], slug
    assert result["credits"]["held_plus_spent"] == result["credits"]["expected"]
    assert result["min_quantity"] >= 0 and result["min_credits"] >= 0
    # No lost update: every balance is exactly what the ledger, purchases and orders say.
    assert result["stock_mismatch"] == {}
    assert result["credits_mismatch"] == {}


def test_random_transfers_accepts_and_purchases_conserve_everything(django_child, database_kind):
    result = run_django(django_child(database_kind), f"{SCENARIOS}:random_economy", agents=10, threads=8, operations=480)
    assert result["operations"] == 480
    assert result["unexpected"] == []
    assert_conserved(result)
    assert result["ledger_rows"] == result["successful_transfers"]
    assert result["purchases"] == result["successful_purchases"]
    assert result["filled"] == result["successful_accepts"]
    assert result["cancelled"] == result["successful_cancels"]
    assert result["orders"] == result["successful_sells"]
    # The mix really exercised the paths that matter, refusals included.
    outcomes = result["outcomes"]
    for key in ("transfer:success", "api_transfer:success", "transfer:insufficient_resource", "accept:success",
                "purchase:success", "sell:success", "cancel:success"):
        assert outcomes.get(key, 0) > 0, (key, outcomes)


def test_transfers_racing_on_the_same_two_agents_lose_no_update(django_child, database_kind):
    result = run_django(django_child(database_kind), f"{SCENARIOS}:hot_pair", threads=8, per_thread=60)
    assert result["flour"] == result["expected"]
    assert result["ledger_quantity"] == result["moved"] > 0
    refusals = {key for key in result["outcomes"] if "->" not in key}
    assert refusals <= {"insufficient_resource"}


def test_two_staff_accepting_one_order_at_once_exactly_one_wins(django_child, database_kind):
    result = run_django(django_child(database_kind), f"{SCENARIOS}:two_staff_accept_one_order", rounds=25)
    assert result["rounds"] == [["order_not_open", "success"]] * 25
    assert all(result["winner_matches"])
    assert result["statuses"] == {"filled": 25}
    assert result["seller_credits"] == 1000 + 25 * 10
    assert result["seller_flour"] == 60 - 25 * 2
    assert_conserved(result)
