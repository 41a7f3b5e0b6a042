"""city.stock writes SQL by hand: what it returns must be what the ORM would have read."""

from django.db import connection
from django.test.utils import CaptureQueriesContext

from city import stock as statements
from city.models import ResourceTransfer, ResourceType
from tests.city.conftest import holding


def test_a_resource_type_read_by_slug_equals_the_orm_row(kinds):
    bread = statements.resource_type("bread")
    assert bread == ResourceType.objects.get(slug="bread")
    assert (bread.slug, bread.name, bread.edible, bread.satiety_gain) == ("bread", "面包", True, 30)
    assert statements.resource_type("flour").edible is False
    assert statements.resource_type("nothing") is None


def test_lock_agents_names_only_those_that_exist_once_each(alice, bob):
    assert statements.lock_agents([bob.pk, alice.pk, bob.pk, 999_999]) == {alice.pk: "Alice", bob.pk: "Bob"}
    assert statements.lock_agents([]) == {}


def test_take_refuses_more_than_the_stock_and_changes_nothing(alice, kinds, stock):
    stock(alice, flour=5)
    assert statements.take(alice.pk, kinds["flour"].pk, 6) is False
    assert holding(alice, "flour") == 5
    assert statements.take(alice.pk, kinds["flour"].pk, 5) is True
    assert holding(alice, "flour") == 0
    assert statements.take(alice.pk, kinds["wood"].pk, 1) is False  # no holding at all


def test_give_adds_to_a_holding_or_creates_it(alice, kinds, stock):
    stock(alice, flour=5)
    statements.give(alice.pk, kinds["flour"].pk, 3)
    statements.give(alice.pk, kinds["wood"].pk, 2)
    assert (holding(alice, "flour"), holding(alice, "wood")) == (8, 2)


def test_a_recorded_transfer_equals_the_ledger_row_read_back(alice, bob, kinds, staff_user):
    with CaptureQueriesContext(connection) as queries:
        transfer = statements.record_transfer(
            from_agent_id=alice.pk, to_agent_id=bob.pk, resource_type=kinds["flour"], quantity=4, source="api",
            user=staff_user,
        )
    assert len(queries) == 1
    stored = ResourceTransfer.objects.get(pk=transfer.pk)
    fields = ["id", "from_agent_id", "to_agent_id", "resource_type_id", "quantity", "source", "user_id", "created_at"]
    assert [getattr(transfer, f) for f in fields] == [getattr(stored, f) for f in fields]
    assert transfer.created_at.tzinfo is not None
    assert not transfer._state.adding


def test_take_credits_refuses_more_than_the_balance_and_give_credits_adds(alice):
    assert statements.take_credits(alice.pk, 101) is False
    assert statements.take_credits(alice.pk, 40) is True
    statements.give_credits(alice.pk, 5)
    alice.refresh_from_db()
    assert alice.credits == 65


def test_lock_agent_reads_needs_and_credits_and_none_for_a_missing_agent(alice):
    locked = statements.lock_agent(alice.pk)
    assert (locked.pk, locked.name, locked.credits, locked.satiety, locked.energy) == (
        alice.pk, "Alice", alice.credits, alice.satiety, alice.energy
    )
    assert locked.is_active is True  # a field not read up front still loads on access
    assert statements.lock_agent(999_999) is None


def test_update_agent_writes_back_only_the_named_fields(alice):
    locked = statements.lock_agent(alice.pk)
    locked.energy, locked.satiety, locked.credits = 42, 7, 1
    statements.update_agent(locked, "energy", "satiety")
    alice.refresh_from_db()
    assert (alice.energy, alice.satiety, alice.credits) == (42, 7, 100)
