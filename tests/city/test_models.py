"""What a row reads as wherever Django shows one (admin titles, select boxes, messages)."""

import pytest
from django.utils import translation

from agents.models import Agent
from city.models import MarketOrder, ResourceTransfer, ResourceType

pytestmark = pytest.mark.django_db


@pytest.fixture
def trade():
    bread = ResourceType.objects.create(slug="bread", name="面包", edible=True, satiety_gain=10)
    alice, bob = Agent.objects.create(name="Alice"), Agent.objects.create(name="Bob")
    transfer = ResourceTransfer.objects.create(from_agent=alice, to_agent=bob, resource_type=bread, quantity=2, source="chat")
    order = MarketOrder.objects.create(seller=alice, resource_type=bread, quantity=2, price=20)
    return transfer, order


@pytest.mark.parametrize(
    ("language", "transfer_text", "order_text"),
    [
        ("zh-hans", "Alice → Bob: 2 面包", "Alice 出售 2 面包，总价 20（挂单中）"),
        ("en", "Alice → Bob: 2 bread", "Alice sells 2 bread for 20 (Open)"),
    ],
)
def test_rows_read_as_sentences_in_the_active_language(trade, language, transfer_text, order_text):
    transfer, order = trade
    with translation.override(language):
        assert str(transfer) == transfer_text
        assert str(order) == order_text
