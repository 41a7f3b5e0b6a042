"""Read-only queries of the early-checkout desk."""

from __future__ import annotations

from django.conf import settings
from django.db.models import Count, Q, QuerySet
from django.utils import translation

from agents.confirmations import outcome_message
from agents.models import Agent, Conversation, Message, PendingAction
from agents.results import arguments_line, result_view

from .models import ChannelMessage, Order, Refund
from .services import clean_channel, clean_order_no, open_refund_proposals, order_get, supplier_question

MESSAGE_LIST_LIMIT = 50
DECIDED_REFUNDS_SHOWN = 5


def refund_dict(refund: Refund | None) -> dict | None:
    if refund is None:
        return None
    return {
        "refund_id": refund.pk,
        "order_no": refund.order.order_no,
        "status": refund.status,
        "status_display": refund.get_status_display(),
        "created_at": refund.created_at.isoformat(),
        "completed_at": refund.completed_at.isoformat() if refund.completed_at else None,
    }


def order_dict(order: Order) -> dict:
    return {
        "order_no": order.order_no,
        "supplier_order_no": order.supplier_order_no,
        "guest_name": order.guest_name,
        "hotel_name": order.hotel_name,
        "check_in": order.check_in.isoformat(),
        "check_out": order.check_out.isoformat(),
        "room_type": order.room_type,
        "status": order.status,
        "refund": refund_dict(getattr(order, "refund", None)),
    }


def order_with_refund(*, order_no: str) -> Order:
    return order_list().get(pk=order_get(order_no=order_no).pk)


def order_detail(*, order_no: str) -> dict:
    """The whole order, its supplier order number, its refund, a refund proposal waiting for staff, and the desk's
    question to the supplier about its early checkout if one was sent (or ``order_not_found``)."""
    order = order_with_refund(order_no=order_no)
    waiting = open_refund_proposals(order=order)
    fields = order_dict(order)
    return {**fields, "pending_refund_id": waiting[0].pk if waiting else None, "supplier_asked_id": early_checkout_asked(order, fields)}


def early_checkout_asked(order: Order, fields: dict) -> int | None:
    """The id of the desk's latest early-checkout question to the supplier about ``order``, in whichever language the
    desk wrote it, or None: a flow taken up again reads the answer to it instead of asking twice."""
    questions = set()
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            questions.add(supplier_question(fields))
    return (
        ChannelMessage.objects.filter(
            order=order, channel=ChannelMessage.Channel.UPSTREAM, sender=ChannelMessage.Sender.DESK, content__in=questions
        )
        .order_by("-pk")
        .values_list("pk", flat=True)
        .first()
    )


def pending_refunds() -> list[dict]:
    """Refund proposals waiting for staff, each with its order as the desk shows it (None if unknown)."""
    proposals = open_refund_proposals()
    wanted = {clean_order_no(p.arguments.get("order_no", "")) for p in proposals}
    orders = Order.objects.in_bulk(wanted, field_name="order_no")
    return [
        {"action": proposal, "order": orders.get(clean_order_no(proposal.arguments.get("order_no", "")))}
        for proposal in proposals
    ]


def order_list() -> QuerySet[Order]:
    return Order.objects.select_related("refund").order_by("order_no")


def order_numbers() -> list[str]:
    return list(Order.objects.order_by("order_no").values_list("order_no", flat=True))


def decided_refunds(*, limit: int = DECIDED_REFUNDS_SHOWN) -> list[dict]:
    """The latest decided refund proposals, newest first, each with the outcome staff and the conversation saw."""
    decided = (
        PendingAction.objects.filter(tool_name="refund", decided_at__isnull=False)
        .exclude(status=PendingAction.Status.PENDING)
        .select_related("decided_by")
        .order_by("-decided_at", "-id")[:limit]
    )
    return [{"action": action, "outcome": outcome_message(action)} for action in decided]


def message_dict(message: ChannelMessage) -> dict:
    return {
        "message_id": message.pk,
        "channel": message.channel,
        "sender": message.sender,
        "order_no": message.order.order_no if message.order else None,
        "content": message.content,
        "read": message.read,
        "created_at": message.created_at.isoformat(),
    }


def channel_messages(
    *, channel: str, order_no: str | None = None, unread_only: bool = False, limit: int = MESSAGE_LIST_LIMIT
) -> list[ChannelMessage]:
    """The channel's latest ``limit`` messages, oldest first."""
    messages = ChannelMessage.objects.filter(channel=clean_channel(channel)).select_related("order")
    if order_no:
        messages = messages.filter(order=order_get(order_no=order_no))
    if unread_only:
        messages = messages.filter(read=False)
    return list(reversed(messages.order_by("-id")[:limit]))


def unread_counts() -> dict[str, int]:
    """Unread messages per channel, every channel present (0 when all read)."""
    counts = ChannelMessage.objects.aggregate(
        **{channel: Count("pk", filter=Q(channel=channel, read=False)) for channel in ChannelMessage.Channel.values}
    )
    return {channel: counts[channel] or 0 for channel in ChannelMessage.Channel.values}


def desk_agents() -> QuerySet[Agent]:
    """Active agents that can work the desk: those granted ``order_query``."""
    return Agent.objects.filter(is_active=True, tools__name="order_query", tools__is_active=True).distinct().order_by("id")


def chat_transcript(*, conversation: Conversation | None) -> list[dict]:
    """The conversation as shown on the desk: lines, the tools called and, for each result, one
    readable line with its details (agents.results)."""
    if conversation is None:
        return []
    lines = []
    arguments_by_call = {}
    for row in conversation.messages.order_by("id"):
        if row.role == Message.Role.USER:
            lines.append({"role": "user", "text": row.content})
        elif row.role == Message.Role.ASSISTANT:
            for call in row.tool_calls or []:
                function = call.get("function", {})
                arguments_by_call[call.get("id", "")] = function.get("arguments", "")
                lines.append({"role": "call", "name": function.get("name", ""), "text": arguments_line(function.get("arguments", ""))})
            if row.content:
                lines.append({"role": "assistant", "text": row.content})
        elif row.role == Message.Role.TOOL:
            view = result_view(row.name, row.content, arguments_by_call.get(row.tool_call_id))
            ok = view["status"] in ("success", "pending_confirmation")
            lines.append({"role": "result", "name": row.name, "ok": ok, "text": view["line"], "view": view})
    return lines
