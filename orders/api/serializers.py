from rest_framework import serializers

from core.api.serializers import CachedFieldsModelSerializer
from orders.models import ChannelMessage, Order, Refund


class RefundSerializer(CachedFieldsModelSerializer):
    class Meta:
        model = Refund
        fields = ["id", "status", "created_at", "completed_at"]
        read_only_fields = fields


class OrderSerializer(CachedFieldsModelSerializer):
    refund = RefundSerializer(read_only=True, allow_null=True, default=None)

    class Meta:
        model = Order
        fields = [
            "order_no", "supplier_order_no", "guest_name", "hotel_name", "check_in", "check_out",
            "room_type", "status", "refund",
        ]
        read_only_fields = fields


class ChannelMessageSerializer(CachedFieldsModelSerializer):
    order_no = serializers.CharField(source="order.order_no", read_only=True, allow_null=True, default=None)

    class Meta:
        model = ChannelMessage
        fields = ["id", "channel", "sender", "order_no", "content", "read", "created_at"]
        read_only_fields = fields


class ChannelMessageQuerySerializer(serializers.Serializer):
    """Input shape only: the channel and order checks are the selector's (invalid_channel, order_not_found)."""

    channel = serializers.CharField(help_text="downstream | upstream")
    order_no = serializers.CharField(required=False, allow_blank=True, default="")
    unread_only = serializers.BooleanField(required=False, default=False)
