"""Read-only desk API: orders with their refund, and channel messages. The desk's writes go
through the tools (audited) and the /orders/ page."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.params import query_filters
from core.api.schema import ErrorSerializer, error_codes
from orders import selectors
from orders.models import ChannelMessage

from .serializers import ChannelMessageQuerySerializer, ChannelMessageSerializer, OrderSerializer


@extend_schema(tags=["orders"], responses={200: OrderSerializer(many=True)})
class OrderList(GenericAPIView):
    serializer_class = OrderSerializer
    permissions = {"GET": "orders.view_order"}

    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(selectors.order_list())
        return self.get_paginated_response(OrderSerializer(page, many=True).data)


@extend_schema(
    tags=["orders"],
    responses={200: OrderSerializer, 404: ErrorSerializer},
)
@error_codes({404: ("order_not_found",)})
class OrderDetail(GenericAPIView):
    serializer_class = OrderSerializer
    permissions = {"GET": "orders.view_order"}

    def get(self, request: Request, order_no: str) -> Response:
        return Response(OrderSerializer(selectors.order_with_refund(order_no=order_no)).data)


@extend_schema(
    tags=["orders"],
    parameters=[
        OpenApiParameter("channel", OpenApiTypes.STR, enum=ChannelMessage.Channel.values, required=True),
        OpenApiParameter("order_no", OpenApiTypes.STR, description="only this order's messages"),
        OpenApiParameter("unread_only", OpenApiTypes.BOOL, description="only unread messages"),
    ],
    responses={
        200: ChannelMessageSerializer(many=True),
        400: ErrorSerializer,
        404: ErrorSerializer,
    },
)
@error_codes({400: ("invalid_channel",), 404: ("order_not_found",)})
class ChannelMessageList(GenericAPIView):
    """The channel's latest 50 messages, oldest first (what the desk page shows)."""

    serializer_class = ChannelMessageSerializer
    permissions = {"GET": "orders.view_channelmessage"}
    pagination_class = None  # a plain list, not a page: the schema must say so

    def get(self, request: Request) -> Response:
        query = query_filters(ChannelMessageQuerySerializer, request)
        messages = selectors.channel_messages(
            channel=query["channel"], order_no=query["order_no"] or None, unread_only=query["unread_only"]
        )
        return Response(ChannelMessageSerializer(messages, many=True).data)
