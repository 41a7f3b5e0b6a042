"""City API (DESIGN §11): agents as the city shows them (job, stock), and staff move
resources between agents, read the ledger, work the market.

Views parse input with explicit serializers, call a service or selector and render;
``ApplicationError`` becomes ``{"ok": false, "code", "reason"}`` with its status:
invalid_quantity / same_agent / unknown_resource 400, agent_not_found 404,
insufficient_resource 409 (and likewise for the market's codes).
"""

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from agents.models import Agent
from city import selectors, services
from city.models import TRANSFER_PERMISSION, MarketOrder, ResourceTransfer
from core.api.params import query_filters
from core.api.schema import ERROR_RESPONSES as ERRORS
from core.api.schema import ErrorSerializer, error_codes

from .serializers import (
    AcceptOrderInputSerializer,
    AgentSerializer,
    CancelOrderInputSerializer,
    MarketOrderFilterSerializer,
    MarketOrderSerializer,
    TransferFilterSerializer,
    TransferInputSerializer,
    TransferResultSerializer,
    TransferSerializer,
    transfer_entries,
)


@extend_schema(tags=["agents"])
class AgentList(generics.ListAPIView):
    permissions = {"GET": "agents.view_agent"}
    queryset = selectors.agent_rows(Agent.objects.order_by("id"))
    serializer_class = AgentSerializer

    def list(self, request: Request, *args, **kwargs) -> Response:
        return self.get_paginated_response(selectors.agent_cards(self.paginate_queryset(self.get_queryset())))


@extend_schema(tags=["agents"])
class AgentDetail(generics.RetrieveAPIView):
    permissions = {"GET": "agents.view_agent"}
    queryset = selectors.agent_rows(Agent.objects.all())
    serializer_class = AgentSerializer

    def retrieve(self, request: Request, pk: int) -> Response:
        cards = selectors.agent_cards(self.get_queryset().filter(pk=pk))
        if not cards:
            raise Http404
        return Response(cards[0])


def _valid(serializer_class, data) -> dict:  # a request body; query strings go through query_filters
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


@extend_schema(
    tags=["city"],
    summary="Transfer resources from one agent to another (audited as the calling staff member)",
    request=TransferInputSerializer,
    responses={200: TransferResultSerializer, **ERRORS},
)
@error_codes({400: ("invalid_quantity", "same_agent", "unknown_resource", "invalid_text"), 404: ("agent_not_found",), 409: ("insufficient_resource",)})
class TransferResource(GenericAPIView):
    serializer_class = TransferInputSerializer
    permissions = {"POST": TRANSFER_PERMISSION}

    def post(self, request: Request) -> Response:
        data = _valid(TransferInputSerializer, request.data)
        transfer = services.transfer_resource(
            **data, source=ResourceTransfer.Source.API, user=request.user
        )
        return Response({"ok": True, "reason": services.transfer_message(transfer), "transfer_id": transfer.pk})


@extend_schema(
    tags=["city"],
    summary="The transfer ledger, newest first",
    parameters=[TransferFilterSerializer],
    responses={200: TransferSerializer(many=True), 400: ErrorSerializer},
)
class TransferList(GenericAPIView):
    serializer_class = TransferSerializer
    permissions = {"GET": "city.view_resourcetransfer"}

    def get(self, request: Request) -> Response:
        filters = query_filters(TransferFilterSerializer, request)
        page = self.paginate_queryset(selectors.transfer_rows(agent_id=filters.get("agent_id")))
        return self.get_paginated_response(transfer_entries(page))


@extend_schema(
    tags=["city"],
    summary="Market orders, newest first",
    parameters=[
        OpenApiParameter("status", OpenApiTypes.STR, enum=[*MarketOrder.Status.values, "all"], description="default open")
    ],
    responses={200: MarketOrderSerializer(many=True), 400: ErrorSerializer},
)
class MarketOrderList(GenericAPIView):
    serializer_class = MarketOrderSerializer
    permissions = {"GET": "city.view_marketorder"}

    def get(self, request: Request) -> Response:
        status = query_filters(MarketOrderFilterSerializer, request)["status"]
        page = self.paginate_queryset(selectors.market_orders(status=None if status == "all" else status))
        return self.get_paginated_response(MarketOrderSerializer(page, many=True).data)


@extend_schema(
    tags=["city"],
    summary="Accept an open market order for a buying agent (exactly one of concurrent accepts wins)",
    request=AcceptOrderInputSerializer,
    responses={200: MarketOrderSerializer, **ERRORS},
)
@error_codes({400: ("cannot_accept_own_order",), 404: ("order_not_found", "agent_not_found"), 409: ("order_not_open", "insufficient_credits")})
class MarketOrderAccept(GenericAPIView):
    serializer_class = MarketOrderSerializer
    permissions = {"POST": "city.change_marketorder"}

    def post(self, request: Request, pk: int) -> Response:
        data = _valid(AcceptOrderInputSerializer, request.data)
        order = services.accept_market_order(agent_id=data["agent_id"], order_id=pk, user=request.user)
        return Response(MarketOrderSerializer(order).data)


@extend_schema(
    tags=["city"],
    summary="Cancel an open market order; the reserved goods go back to the seller",
    request=CancelOrderInputSerializer,
    responses={200: MarketOrderSerializer, **ERRORS},
)
@error_codes({400: ("not_order_seller",), 404: ("order_not_found", "agent_not_found"), 409: ("order_not_open",)})
class MarketOrderCancel(GenericAPIView):
    serializer_class = MarketOrderSerializer
    permissions = {"POST": "city.change_marketorder"}

    def post(self, request: Request, pk: int) -> Response:
        data = _valid(CancelOrderInputSerializer, request.data)
        agent_id = data.get("agent_id") or selectors.market_order_seller_id(order_id=pk)
        order = services.cancel_market_order(agent_id=agent_id, order_id=pk, user=request.user)
        return Response(MarketOrderSerializer(order).data)
