"""Demo data of the early-checkout desk: the seed's three orders and the desk agent."""

from datetime import date

from agents.models import Agent, Tool

DESK_AGENT_NAME = "前台助理"
DESK_TOOLS = ("order_query", "message_send", "message_list", "refund")
DESK_PERSONA = (
    "你是酒店预订平台的前台助理。客人要提前离店时：查询订单，用供应商订单号在上游频道联系供应商，"
    "读取供应商的回复，供应商同意后提议退款。退款要等员工确认才会登记，登记后系统会通知客人；"
    "在那之前不要告诉客人退款已办理。"
)
# The seed's earlier persona, which had the agent tell the guest before staff confirmed the refund.
PREVIOUS_PERSONAS = (
    "你是酒店预订平台的前台助理。客人要提前离店时：查询订单，用供应商订单号在上游频道联系供应商，"
    "读取供应商的回复，供应商同意后登记退款，再在下游频道告诉客人。",
)

ORDERS = (
    {
        "order_no": "HT20260301001",
        "supplier_order_no": "SUP-88901",
        "guest_name": "张三",
        "hotel_name": "杭州西湖大酒店",
        "check_in": date(2026, 3, 1),
        "check_out": date(2026, 3, 5),
        "room_type": "大床房",
        "status": "confirmed",
    },
    {
        "order_no": "HT20260301002",
        "supplier_order_no": "SUP-88902",
        "guest_name": "李四",
        "hotel_name": "上海外滩酒店",
        "check_in": date(2026, 3, 10),
        "check_out": date(2026, 3, 12),
        "room_type": "双床房",
        "status": "confirmed",
    },
    {
        "order_no": "HT20260301003",
        "supplier_order_no": "SUP-88903",
        "guest_name": "王五",
        "hotel_name": "北京国贸大饭店",
        "check_in": date(2026, 3, 15),
        "check_out": date(2026, 3, 18),
        "room_type": "套房",
        "status": "confirmed",
    },
)


def seed(stdout) -> None:
    from .models import Order

    created = 0
    for fields in ORDERS:
        # get_or_create: a demo re-run never rewrites an order staff have since worked on.
        _, was_created = Order.objects.get_or_create(order_no=fields["order_no"], defaults=fields)
        created += was_created
    agent, _ = Agent.objects.get_or_create(
        name=DESK_AGENT_NAME, defaults={"persona": DESK_PERSONA, "kind": Agent.Kind.ASSISTANT}
    )
    if agent.persona in PREVIOUS_PERSONAS:  # never a persona staff wrote themselves
        Agent.objects.filter(pk=agent.pk).update(persona=DESK_PERSONA)
    agent.tools.add(*Tool.objects.filter(name__in=DESK_TOOLS))
    stdout.write(f"Orders: {created} created, {len(ORDERS) - created} already present; desk agent {agent.name}")
