"""Read-only queries of the early-checkout desk."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from .models import ChannelMessage, Order, Refund
from .services import clean_channel, order_get

MESSAGE_LIST_LIMIT = 50


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


def order_detail(*, order_no: str) -> dict:
    """The whole order, its supplier order number and its refund (or ``order_not_found``)."""
    order = order_get(order_no=order_no)
    order = Order.objects.select_related("refund").get(pk=order.pk)
    return order_dict(order)


def order_list() -> QuerySet[Order]:
    return Order.objects.select_related("refund").order_by("order_no")


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
