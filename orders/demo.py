"""Demo data of the early-checkout desk: the seed's three orders and the desk agent, in the active language."""

from datetime import date

from django.utils.translation import gettext_lazy as _

from agents.models import Agent, Tool
from core.text import in_every_language

DESK_AGENT_NAME = _("前台助理")
DESK_TOOLS = ("order_query", "message_send", "message_list", "refund")
DESK_PERSONA = _(
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
        "guest_name": _("张三"),
        "hotel_name": _("杭州西湖大酒店"),
        "check_in": date(2026, 3, 1),
        "check_out": date(2026, 3, 5),
        "room_type": _("大床房"),
        "status": "confirmed",
    },
    {
        "order_no": "HT20260301002",
        "supplier_order_no": "SUP-88902",
        "guest_name": _("李四"),
        "hotel_name": _("上海外滩酒店"),
        "check_in": date(2026, 3, 10),
        "check_out": date(2026, 3, 12),
        "room_type": _("双床房"),
        "status": "confirmed",
    },
    {
        "order_no": "HT20260301003",
        "supplier_order_no": "SUP-88903",
        "guest_name": _("王五"),
        "hotel_name": _("北京国贸大饭店"),
        "check_in": date(2026, 3, 15),
        "check_out": date(2026, 3, 18),
        "room_type": _("套房"),
        "status": "confirmed",
    },
)


def seed(stdout) -> None:
    from .models import Order

    created = 0
    for fields in ORDERS:
        # get_or_create: a demo re-run never rewrites an order staff have since worked on.
        written = {key: str(value) if key in ("guest_name", "hotel_name", "room_type") else value for key, value in fields.items()}
        _order, was_created = Order.objects.get_or_create(order_no=fields["order_no"], defaults=written)
        created += was_created
    agent = Agent.objects.filter(name__in=in_every_language(DESK_AGENT_NAME)).first() or Agent.objects.create(
        name=str(DESK_AGENT_NAME), persona=str(DESK_PERSONA), kind=Agent.Kind.ASSISTANT
    )
    if agent.persona in PREVIOUS_PERSONAS:  # never a persona staff wrote themselves
        Agent.objects.filter(pk=agent.pk).update(persona=str(DESK_PERSONA))
    agent.tools.add(*Tool.objects.filter(name__in=DESK_TOOLS))
    stdout.write(f"Orders: {created} created, {len(ORDERS) - created} already present; desk agent {agent.name}")
