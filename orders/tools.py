"""Tools of the early-checkout desk: look up an order, talk to guest and supplier, register a refund.

``refund`` needs a staff member's confirmation unless staff turned that off in the admin: the
agent proposes it, and registering it (on confirmation) tells the guest, so the guest hears
only of a refund that is registered.

The desk agent sends as the desk (identity from the context); channels and content are
checked by the services, so every caller gets the same ``invalid_channel`` /
``empty_content`` codes.
"""

import re
from typing import Annotated

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from agents.registry import Param, Proposal, ToolContext, tool

from . import selectors, services
from .models import ChannelMessage

ORDER_NO = Param(description=gettext_lazy("订单号，例如 HT20260301001"))
CHANNEL = Param(
    description=gettext_lazy("频道：downstream 发给客人，upstream 发给供应商"),
)


# "通知供应商", "tell the supplier", "let the hotel know": the request asks the desk to tell the supplier.
TELLS_SUPPLIER = re.compile(
    r"(?:告诉|通知|转告|告知|知会|联系|问问?|发(?:个|条|一条)?消息给)\s*(?:一下)?\s*(?:供应商|上游|酒店方?)"
    r"|\b(?:tell|inform|notify|message|contact|ask|let|email|ping|write\s+to|check\s+with)\s+(?:the\s+)?(?:supplier|upstream|hotel)\b",
    re.IGNORECASE,
)


def compose_supplier_question(said: str, made: list[dict]) -> dict | None:
    """``message_send``'s arguments when the request asks to tell the supplier ("refund HT… and tell the
    supplier") and this turn looked the order up: the desk's question, composed from that order, on the
    upstream channel. None before the look-up, once the supplier was written to, or when nobody asks."""
    if not TELLS_SUPPLIER.search(said):
        return None
    for call in made:
        arguments = call.get("arguments") if isinstance(call.get("arguments"), dict) else {}
        if call["name"] == "message_send" and arguments.get("channel") == "upstream" and call["result"].get("status") in ("success", "pending_confirmation"):
            return None
    looked = next((c for c in reversed(made) if c["name"] == "order_query" and c["result"].get("status") == "success"), None)
    order = looked["result"].get("data") if looked else None
    if not isinstance(order, dict) or not order.get("order_no"):
        return None
    return {"channel": "upstream", "order_no": order["order_no"], "content": services.supplier_question(order)}


def _channel_name(channel: str) -> str:
    return str(ChannelMessage.Channel(channel).label)


@tool(
    description=gettext_lazy("按订单号查询订单：客人、酒店、入住和退房日期、房型、状态、供应商订单号和退款状态"),
    permission="orders.view_order",
)
def order_query(ctx: ToolContext, order_no: Annotated[str, ORDER_NO]) -> dict:
    order = selectors.order_detail(order_no=order_no)
    order["message"] = _(
        "订单 %(order_no)s：客人 %(guest_name)s，%(hotel_name)s，%(check_in)s 至 %(check_out)s，"
        "%(room_type)s，供应商订单号 %(supplier_order_no)s"
    ) % order
    if order["refund"]:
        order["message"] += _("；退款%(status)s") % {"status": order["refund"]["status_display"]}
    elif order["pending_refund_id"]:
        order["message"] += _("；退款待员工确认（#%(id)s）") % {"id": order["pending_refund_id"]}
    else:
        order["message"] += _("；尚未登记退款")  # "退款到哪一步了": that there is none is the answer
    return order


def propose_message(ctx: ToolContext, channel: str, content: str, order_no: str | None = None) -> Proposal:
    """What staff confirm before a message the chat wrote goes out: its exact text, its recipient and order."""
    # The same checks as sending: a proposal that could never be sent is refused now, with the same codes.
    channel, content = services.clean_channel(channel), services.clean_content(content)
    if order_no:
        order_no = services.order_get(order_no=order_no).order_no
    values = {"channel": _channel_name(channel), "content": content, "order_no": order_no}
    if order_no:
        message = _("即将发到%(channel)s频道（订单 %(order_no)s）：「%(content)s」，请确认是否发送？") % values
    else:
        message = _("即将发到%(channel)s频道：「%(content)s」，请确认是否发送？") % values
    form_data = {"channel": channel, "content": content, **({"order_no": order_no} if order_no else {})}
    return Proposal(message=message, form_data=form_data)


@tool(
    category="action",
    description=gettext_lazy("以前台身份发送消息：downstream 频道发给客人，upstream 频道发给供应商；可注明相关订单号"),
    propose=propose_message,
    permission="orders.add_channelmessage",
    compose=compose_supplier_question,
)
def message_send(
    ctx: ToolContext,
    channel: Annotated[str, CHANNEL],
    content: Annotated[str, Param(description=gettext_lazy("消息内容"))],
    order_no: Annotated[str, ORDER_NO] | None = None,
) -> dict:
    message = services.send_message(channel=channel, content=content, order_no=order_no)
    data = selectors.message_dict(message)
    data["message"] = _("已发到%(channel)s频道：「%(content)s」") % {"channel": _channel_name(message.channel), "content": message.content}
    return data


@tool(
    description=gettext_lazy("读取一个频道的消息（最早的在前，最多 50 条），可只看某个订单或只看未读消息，用来查看客人或供应商的回复"),
    permission="orders.view_channelmessage",
)
def message_list(
    ctx: ToolContext,
    channel: Annotated[str, CHANNEL],
    order_no: Annotated[str, ORDER_NO] | None = None,
    unread_only: Annotated[bool, Param(description=gettext_lazy("只看未读消息"))] = False,
) -> dict:
    messages = selectors.channel_messages(channel=channel, order_no=order_no, unread_only=unread_only)
    name = _channel_name(channel)
    if messages:
        last = messages[-1]
        summary = _("%(channel)s频道共 %(count)s 条消息，最新一条来自%(sender)s：%(content)s") % {
            "channel": name,
            "count": len(messages),
            "sender": last.get_sender_display(),
            "content": last.content,
        }
    elif unread_only:
        summary = _("%(channel)s频道没有未读消息") % {"channel": name}
    else:
        summary = _("%(channel)s频道没有消息") % {"channel": name}
    return {"channel": channel, "messages": [selectors.message_dict(m) for m in messages], "message": summary}


def propose_refund(ctx: ToolContext, order_no: str) -> Proposal:
    order = services.check_refund_proposal(order_no=order_no)
    message = _(
        "即将为订单 %(order_no)s（客人 %(guest_name)s，%(hotel_name)s）登记退款，登记后系统会通知客人。请确认是否继续？"
    ) % {"order_no": order.order_no, "guest_name": order.guest_name, "hotel_name": order.hotel_name}
    return Proposal(message=message, form_data={"order_no": order.order_no}, labels={"order_no": _("订单号")})


@tool(
    category="action",
    description=gettext_lazy(
        "为订单登记退款；需要员工确认后才会执行，每个订单只能登记一次。"
        "登记成功后系统会在下游频道通知客人，不要自己另外告诉客人退款结果"
    ),
    requires_confirmation=True,
    propose=propose_refund,
    permission="orders.add_refund",
)
def refund(ctx: ToolContext, order_no: Annotated[str, ORDER_NO]) -> dict:
    registered = services.register_refund(order_no=order_no)
    data = selectors.refund_dict(registered)
    data["message"] = _("订单 %(order_no)s 的退款已登记，已通知客人 %(guest_name)s") % {
        "order_no": registered.order.order_no,
        "guest_name": registered.order.guest_name,
    }
    return data
