"""city.stock writes the transfer's hottest statements in SQL: they must do what the ORM would have done."""

from city import stock as statements
from tests.city.conftest import holding


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
