"""Ids of the wrong type are refused as missing agents, not with a TypeError.

Found by the economy state machine (tests/properties): ``transfer_resource(from_agent_id=[1], …)``
raised ``TypeError: unhashable type: 'list'`` when it looked the id up among the locked agents.
"""

import pytest

from city import services
from core.errors import ApplicationError

from .conftest import holding


@pytest.mark.parametrize("agent_id", [[1], {"id": 1}])
def test_transfer_from_an_unhashable_id_is_agent_not_found(bob, stock, agent_id):
    with pytest.raises(ApplicationError) as refusal:
        services.transfer_resource(from_agent_id=agent_id, to_agent_id=bob.pk, resource_type="flour", quantity=1, source="api")
    assert (refusal.value.code, refusal.value.field) == ("agent_not_found", "from_agent_id")


def test_transfer_to_an_unhashable_id_is_agent_not_found(alice, stock):
    stock(alice, flour=10)
    with pytest.raises(ApplicationError) as refusal:
        services.transfer_resource(from_agent_id=alice.pk, to_agent_id=[alice.pk], resource_type="flour", quantity=1, source="api")
    assert (refusal.value.code, refusal.value.field) == ("agent_not_found", "to_agent_id")
    assert holding(alice, "flour") == 10


def test_accept_by_an_unhashable_id_is_agent_not_found(alice, stock):
    stock(alice, flour=10)
    order = services.create_market_order(agent_id=alice.pk, resource_type="flour", quantity=2, price=5)
    with pytest.raises(ApplicationError) as refusal:
        services.accept_market_order(agent_id=[alice.pk], order_id=order.pk)
    assert refusal.value.code == "agent_not_found"
