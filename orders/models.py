from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class Order(models.Model):
    """A hotel booking the desk looks after; the supplier knows it by its own number."""

    class Status(models.TextChoices):
        CONFIRMED = "confirmed", _("已确认")
        CHECKED_OUT = "checked_out", _("已离店")
        CANCELLED = "cancelled", _("已取消")

    order_no = models.CharField(_("订单号"), max_length=32, unique=True)
    supplier_order_no = models.CharField(_("供应商订单号"), max_length=32)
    guest_name = models.CharField(_("客人"), max_length=100)
    hotel_name = models.CharField(_("酒店"), max_length=200)
    check_in = models.DateField(_("入住日期"))
    check_out = models.DateField(_("退房日期"))
    room_type = models.CharField(_("房型"), max_length=50)
    status = models.CharField(_("状态"), max_length=16, choices=Status.choices, default=Status.CONFIRMED)
    created_at = models.DateTimeField(_("创建时间"), auto_now_add=True)

    class Meta:
        ordering = ["order_no"]
        verbose_name = _("订单")
        verbose_name_plural = pgettext_lazy("plural", "订单")
        constraints = [
            models.CheckConstraint(condition=models.Q(check_out__gt=models.F("check_in")), name="order_check_out_after_check_in"),
        ]

    def __str__(self) -> str:
        return self.order_no


class ChannelMessage(models.Model):
    """One line in a channel: downstream talks to the guest, upstream to the supplier."""

    class Channel(models.TextChoices):
        DOWNSTREAM = "downstream", _("下游（客人）")
        UPSTREAM = "upstream", _("上游（供应商）")

    class Sender(models.TextChoices):
        DESK = "desk", _("前台")
        GUEST = "guest", _("客人")
        SUPPLIER = "supplier", _("供应商")

    order = models.ForeignKey(
        Order, on_delete=models.PROTECT, null=True, blank=True, related_name="messages", verbose_name=_("订单")
    )
    channel = models.CharField(_("频道"), max_length=12, choices=Channel.choices)
    sender = models.CharField(_("发送方"), max_length=10, choices=Sender.choices)
    content = models.TextField(_("内容"))
    # Unread until staff view the channel on the desk page (or mark it read in the admin).
    read = models.BooleanField(_("已读"), default=False)
    created_at = models.DateTimeField(_("时间"), auto_now_add=True)

    class Meta:
        ordering = ["id"]
        verbose_name = _("频道消息")
        verbose_name_plural = pgettext_lazy("plural", "频道消息")
        indexes = [models.Index(fields=["channel", "read"], name="channelmessage_channel_read")]

    def __str__(self) -> str:
        return f"{self.get_channel_display()} · {self.get_sender_display()}: {self.content[:40]}"


class Refund(models.Model):
    """A refund registered for an order; the one-to-one key makes a second one impossible."""

    class Status(models.TextChoices):
        REGISTERED = "registered", _("已登记")
        COMPLETED = "completed", _("已退款")

    order = models.OneToOneField(Order, on_delete=models.PROTECT, related_name="refund", verbose_name=_("订单"))
    status = models.CharField(_("状态"), max_length=12, choices=Status.choices, default=Status.REGISTERED)
    created_at = models.DateTimeField(_("登记时间"), auto_now_add=True)
    completed_at = models.DateTimeField(_("完成时间"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("退款")
        verbose_name_plural = pgettext_lazy("plural", "退款")

    def __str__(self) -> str:
        return f"{self.order.order_no} · {self.get_status_display()}"
