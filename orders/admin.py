from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from core.admin import ReadOnlyAdmin
from core.errors import ApplicationError

from . import services
from .models import ChannelMessage, Order, Refund


class RefundInline(admin.StackedInline):
    model = Refund
    fields = readonly_fields = ("status", "created_at", "completed_at")
    can_delete = False
    extra = 0

    def has_add_permission(self, request, obj=None):
        return False  # refunds are registered through the desk, where the one-per-order rule lives


@admin.register(Order)
class OrderAdmin(admin.ModelAdmin):
    list_display = ("order_no", "supplier_order_no", "guest_name", "hotel_name", "check_in", "check_out", "room_type", "status", "refund_state")
    list_filter = ("status", "refund__status", "hotel_name")
    search_fields = ("order_no", "supplier_order_no", "guest_name")
    list_select_related = ("refund",)
    inlines = [RefundInline]

    @admin.display(description=_("退款"))
    def refund_state(self, obj: Order) -> str:
        refund = getattr(obj, "refund", None)
        return refund.get_status_display() if refund else "—"


@admin.register(ChannelMessage)
class ChannelMessageAdmin(ReadOnlyAdmin):
    """Messages are sent through the desk, so the supplier and the live page hear of them; the channels are the record."""

    list_display = ("created_at", "channel", "sender", "order", "content", "read")
    list_filter = ("channel", "read", "sender")
    search_fields = ("content", "order__order_no")
    list_select_related = ("order",)
    actions = ["mark_read"]

    @admin.action(description=_("标记为已读"), permissions=["act"])
    def mark_read(self, request, queryset):
        count = services.mark_messages_read(message_ids=list(queryset.values_list("pk", flat=True)))
        self.message_user(request, ngettext("%(n)d 条消息已标记为已读", "%(n)d 条消息已标记为已读", count) % {"n": count})


@admin.register(Refund)
class RefundAdmin(ReadOnlyAdmin):
    """Refunds are registered through the desk; deleting one would let the same order be refunded twice."""

    list_display = ("order", "status", "created_at", "completed_at")
    list_filter = ("status",)
    search_fields = ("order__order_no", "order__guest_name")
    list_select_related = ("order",)
    actions = ["complete"]

    @admin.action(description=_("标记为已退款"), permissions=["act"])
    def complete(self, request, queryset):
        done = 0
        for refund_id in queryset.values_list("pk", flat=True):
            try:
                services.complete_refund(refund_id=refund_id)
                done += 1
            except ApplicationError as exc:
                self.message_user(request, exc.message, level=messages.WARNING)
        if done:
            self.message_user(request, ngettext("%(n)d 笔退款已标记为已退款", "%(n)d 笔退款已标记为已退款", done) % {"n": done})
