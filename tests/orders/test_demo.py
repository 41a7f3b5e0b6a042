"""The demo data: the seed's three orders exactly, and a desk agent granted the desk tools."""

import io
from datetime import date

import pytest

from agents.models import Agent
from orders import demo
from orders.models import Order

pytestmark = pytest.mark.django_db

SEED_ORDERS = {
    ("HT20260301001", "SUP-88901", "张三", "杭州西湖大酒店", date(2026, 3, 1), date(2026, 3, 5), "大床房", "confirmed"),
    ("HT20260301002", "SUP-88902", "李四", "上海外滩酒店", date(2026, 3, 10), date(2026, 3, 12), "双床房", "confirmed"),
    ("HT20260301003", "SUP-88903", "王五", "北京国贸大饭店", date(2026, 3, 15), date(2026, 3, 18), "套房", "confirmed"),
}
FIELDS = ("order_no", "supplier_order_no", "guest_name", "hotel_name", "check_in", "check_out", "room_type", "status")


def orders():
    return set(Order.objects.values_list(*FIELDS))


def test_seed_holds_the_three_orders_of_the_story():
    demo.seed(io.StringIO())
    assert orders() == SEED_ORDERS


def test_seed_grants_the_desk_agent_the_desk_tools():
    demo.seed(io.StringIO())
    agent = Agent.objects.get(name="前台助理")
    assert set(agent.tools.values_list("name", flat=True)) == {"order_query", "message_send", "message_list", "refund"}
    assert agent.is_active


def test_seed_is_idempotent_and_keeps_staff_changes():
    demo.seed(io.StringIO())
    Order.objects.filter(order_no="HT20260301002").update(status="cancelled")
    out = io.StringIO()
    demo.seed(out)
    assert Order.objects.count() == 3
    assert Agent.objects.filter(name="前台助理").count() == 1
    assert Order.objects.get(order_no="HT20260301002").status == "cancelled"
    assert "0 created, 3 already present" in out.getvalue()



def test_seed_gives_the_desk_agent_the_story_where_staff_confirm_the_refund():
    demo.seed(io.StringIO())
    Agent.objects.filter(name="前台助理").update(persona=demo.PREVIOUS_PERSONAS[0])
    demo.seed(io.StringIO())
    persona = Agent.objects.get(name="前台助理").persona
    assert persona == demo.DESK_PERSONA and "员工确认" in persona


def test_seed_keeps_a_persona_staff_wrote():
    demo.seed(io.StringIO())
    Agent.objects.filter(name="前台助理").update(persona="只查询订单。")
    demo.seed(io.StringIO())
    assert Agent.objects.get(name="前台助理").persona == "只查询订单。"
