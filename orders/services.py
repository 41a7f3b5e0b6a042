"""Business rules of the early-checkout desk: channel messages, the supplier simulator, refunds.

A refund is the guest's news: registering it tells the guest downstream in the same
transaction, so the guest hears of a refund only once it is registered, and never of one
that failed or that staff rejected while it waited as a proposal.

Every service that writes runs in one ``transaction.atomic()`` (a savepoint when the caller
already has a transaction). Events and the supplier's answer are queued with
``transaction.on_commit``, so a rolled-back write neither announces itself nor gets an answer.
"""

from __future__ import annotations

from functools import partial

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from agents.models import PendingAction
from agents.providers.vocabulary import language_of
from core.errors import ApplicationError, Conflict, NotFound
from core.events import broadcast
from core.text import clean_text

from .models import ChannelMessage, Order, Refund

MAX_CONTENT_LENGTH = 2000
SUPPLIER_REPLY = gettext_lazy("已处理完成，可以办理退款")


def clean_order_no(order_no: str) -> str:
    return str(order_no).strip().upper()


def order_get(*, order_no: str) -> Order:
    order = Order.objects.filter(order_no=clean_order_no(order_no)).first()
    if order is None:
        raise NotFound("order_not_found", _("订单不存在"), extra={"order_no": str(order_no)})
    return order


def clean_channel(channel: str) -> str:
    if channel not in ChannelMessage.Channel.values:
        raise ApplicationError(
            "invalid_channel",
            _("频道必须是 downstream（客人）或 upstream（供应商），收到：%(channel)s") % {"channel": channel},
            field="channel",
        )
    return channel


def clean_content(content: str) -> str:
    return clean_text(
        content, field="content", label=_("消息内容"), max_length=MAX_CONTENT_LENGTH,
        empty_code="empty_content", too_long_code="content_too_long",
    )


@transaction.atomic
def send_message(
    *, channel: str, content: str, order_no: str | None = None, sender: str = ChannelMessage.Sender.DESK
) -> ChannelMessage:
    """Store a message in a channel, unread; the supplier simulator answers the desk upstream."""
    channel = clean_channel(channel)
    content = clean_content(content)
    order = order_get(order_no=order_no) if order_no else None
    message = ChannelMessage.objects.create(order=order, channel=channel, sender=sender, content=content)
    _announce(message)
    if (
        settings.SUPPLIER_SIMULATOR
        and channel == ChannelMessage.Channel.UPSTREAM
        and sender == ChannelMessage.Sender.DESK
    ):
        # Once the desk's message is committed; the reply is a transaction of its own.
        transaction.on_commit(partial(reply_as_supplier, message_id=message.pk), robust=True)
    return message


@transaction.atomic
def reply_as_supplier(*, message_id: int) -> ChannelMessage:
    """The simulated supplier's answer to one upstream message of the desk, in that message's language."""
    asked = ChannelMessage.objects.select_related("order").get(pk=message_id)
    with translation.override(language_of(asked.content)):
        content = str(SUPPLIER_REPLY)
    reply = ChannelMessage.objects.create(
        order=asked.order,
        channel=ChannelMessage.Channel.UPSTREAM,
        sender=ChannelMessage.Sender.SUPPLIER,
        content=content,
    )
    _announce(reply)
    return reply


def _announce(message: ChannelMessage) -> None:
    broadcast(
        "order_message",
        message_id=message.pk,
        channel=message.channel,
        sender=message.sender,
        order_no=message.order.order_no if message.order else None,
        content=message.content,
    )


@transaction.atomic
def mark_messages_read(*, channel: str | None = None, message_ids: list[int] | None = None) -> int:
    """Mark a whole channel's (or the given) unread messages read; returns how many changed."""
    unread = ChannelMessage.objects.filter(read=False)
    if channel is not None:
        unread = unread.filter(channel=clean_channel(channel))
    if message_ids is not None:
        unread = unread.filter(pk__in=message_ids)
    channels = sorted(set(unread.values_list("channel", flat=True)))
    count = unread.update(read=True)
    for name in channels:
        broadcast("order_messages_read", channel=name)
    return count


def refundable_order(*, order_no: str) -> Order:
    """The order, if a refund may be registered for it now (``order_not_found``, ``refund_exists``)."""
    order = order_get(order_no=order_no)
    if Refund.objects.filter(order=order).exists():
        raise _refund_exists(order)
    return order


def open_refund_proposals(*, order: Order | None = None) -> list[PendingAction]:
    """Refund proposals staff can still decide, oldest first; of one order when given."""
    proposals = PendingAction.objects.open().filter(tool_name="refund").select_related("agent").order_by("id")
    if order is None:
        return list(proposals)
    # The model's spelling of the number is stored as it came ("ht20260301001 "), so compare cleaned.
    return [p for p in proposals if clean_order_no(p.arguments.get("order_no", "")) == order.order_no]


def check_refund_proposal(*, order_no: str) -> Order:
    """The order, if an agent may propose its refund: refundable, and no proposal already waiting."""
    order = refundable_order(order_no=order_no)
    if waiting := open_refund_proposals(order=order):
        raise Conflict(
            "refund_pending",
            _("订单 %(order_no)s 的退款已在等待员工确认（#%(id)s）") % {"order_no": order.order_no, "id": waiting[0].pk},
            extra={"order_no": order.order_no, "pending_action_id": waiting[0].pk},
        )
    return order


@transaction.atomic
def register_refund(*, order_no: str) -> Refund:
    """Register the order's refund and tell the guest; a second one is refused, however many callers race."""
    order = refundable_order(order_no=order_no)
    try:
        refund = Refund.objects.create(order=order)
    except IntegrityError:
        # The losing racer; this service's savepoint keeps the caller's transaction usable.
        raise _refund_exists(order) from None
    broadcast("refund_registered", refund_id=refund.pk, order_no=order.order_no, status=refund.status)
    send_message(channel=ChannelMessage.Channel.DOWNSTREAM, content=refund_notice(order), order_no=order.order_no)
    return refund


def refund_notice(order: Order) -> str:
    """What the guest is told once the refund is registered."""
    return _(
        "%(guest_name)s您好，您的订单 %(order_no)s（%(hotel_name)s）提前离店已办理，退款已登记，请留意退款到账。"
    ) % {"guest_name": order.guest_name, "order_no": order.order_no, "hotel_name": order.hotel_name}


def supplier_question(order: dict) -> str:
    """The desk's own question to the supplier about an early checkout: every field from the order looked up."""
    return _(
        "您好，订单 %(supplier_order_no)s（我方订单 %(order_no)s）的客人 %(guest_name)s "
        "申请提前离店（%(hotel_name)s，%(check_in)s 至 %(check_out)s，%(room_type)s），"
        "请确认是否可以办理退款。"
    ) % order


def _refund_exists(order: Order) -> Conflict:
    return Conflict(
        "refund_exists", _("订单 %(order_no)s 已登记退款，不能重复登记") % {"order_no": order.order_no},
        extra={"order_no": order.order_no},
    )


@transaction.atomic
def complete_refund(*, refund_id: int) -> Refund:
    """Staff record that the registered refund was paid out."""
    refund = Refund.objects.select_related("order").filter(pk=refund_id).first()
    if refund is None:
        raise NotFound("refund_not_found", _("退款记录不存在"))
    changed = Refund.objects.filter(pk=refund_id, status=Refund.Status.REGISTERED).update(
        status=Refund.Status.COMPLETED, completed_at=timezone.now()
    )
    if not changed:
        raise Conflict("refund_not_registered", _("只有已登记的退款才能标记为已退款"))
    refund.refresh_from_db()
    broadcast("refund_completed", refund_id=refund.pk, order_no=refund.order.order_no, status=refund.status)
    return refund
