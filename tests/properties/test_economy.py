"""The economy state machine (tests/properties/economy.py): in this process on the test
database, and in a child process on PostgreSQL."""

import pytest

from tests.properties.economy import PROFILE, run_economy_machine
from tests.support.django_process import run_django

pytestmark = pytest.mark.slow  # hundreds of service calls per run

CORE = ("transfer:ok", "post_bounty:ok", "claim:ok", "update_fund:ok", "stale_fund_update:version_conflict")
# Paths the invariants guard that a run should reach, refusals included.
EXERCISED = (
    "transfer:ok", "transfer:insufficient_resource", "transfer:agent_not_found", "transfer:invalid_quantity",
    "sell:ok", "accept:ok", "accept:order_not_open", "cancel:ok", "purchase:ok", "purchase:insufficient_credits",
    "purchase:item_unavailable",
    "post_bounty:ok", "claim:ok", "claim:active_bounty_exists", "complete:ok",
    "update_fund:ok", "update_fund:version_conflict", "stale_fund_update:version_conflict", "switch_fund:ok",
)


def test_economy_invariants_hold_on_the_test_database(db):
    result = run_economy_machine()
    assert result["examples"] >= PROFILE.max_examples
    missing = [outcome for outcome in EXERCISED if not result["outcomes"].get(outcome)]
    # Which rare paths a run reaches depends on the ids the database hands out, so a few may be
    # missed in one run; the machine must still have walked the common ones and most of the rest.
    assert not set(CORE) & set(missing) and len(missing) <= 4, (missing, result["outcomes"])


def test_economy_invariants_hold_on_postgresql(django_child):
    # Half the examples: each step costs several times more on a PostgreSQL server than on SQLite.
    examples = PROFILE.max_examples // 2
    result = run_django(django_child("postgres"), "tests.properties.economy:run_economy_machine", max_examples=examples)
    # The paths it takes are the SQLite test's to check: a failed invariant already failed the child.
    assert result["examples"] >= examples
    assert result["steps"] >= examples * PROFILE.stateful_step_count // 2
