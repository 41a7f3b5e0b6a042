"""Bounty API (DESIGN §11). Views parse input, call a service or selector (each service owns
its transaction), and render; errors become ``{"ok": false, "code", "reason"}``."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework import status as http
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from bounties import selectors, services
from bounties.models import Bounty
from core.api.schema import ERROR_RESPONSES as ERRORS
from core.api.schema import ErrorSerializer, error_codes
from core.params import MAX_ID

from .serializers import AgentIdSerializer, BountyCreateSerializer, BountyDraftSerializer, BountySerializer, bounty_cards

AGENT_ID_PARAMETER = OpenApiParameter(
    "agent_id", {"type": "integer", "minimum": 1, "maximum": MAX_ID}, OpenApiParameter.QUERY, required=False,
    description="acting agent; may be given in the JSON body instead",
)
# For the schema: the body is optional when ?agent_id= is given.
AGENT_ID_BODY = inline_serializer("AgentIdBody", {"agent_id": serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False)})


def acting_agent_id(request: Request) -> int:
    """``agent_id`` from the query string, else from the JSON body; 400 invalid_input when bad."""
    body = request.data if isinstance(request.data, dict) else {}
    raw = request.query_params.get("agent_id", body.get("agent_id"))
    serializer = AgentIdSerializer(data={"agent_id": raw})
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data["agent_id"]


@extend_schema(tags=["bounties"])
class BountyListCreate(GenericAPIView):
    serializer_class = BountySerializer
    permissions = {"GET": "bounties.view_bounty", "POST": "bounties.add_bounty"}

    @extend_schema(
        parameters=[
            OpenApiParameter("status", OpenApiTypes.STR, enum=Bounty.Status.values, description="only this status"),
        ],
        responses={200: BountySerializer(many=True), 400: ErrorSerializer},
    )
    @error_codes({400: ("invalid_status",)})
    def get(self, request: Request) -> Response:
        bounties = selectors.bounty_rows(status=request.query_params.get("status"))  # "" is no status: 400
        return self.get_paginated_response(bounty_cards(self.paginate_queryset(bounties)))

    @extend_schema(request=BountyDraftSerializer, responses={201: BountySerializer, 400: ErrorSerializer})
    @error_codes({400: ("title_required", "title_too_long", "description_too_long", "invalid_reward", "invalid_text")})
    def post(self, request: Request) -> Response:
        serializer = BountyCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        bounty = services.create_bounty(**serializer.validated_data, created_by=request.user)
        return Response(BountySerializer(bounty).data, status=http.HTTP_201_CREATED)


@extend_schema(tags=["bounties"], responses={200: BountySerializer, 404: ErrorSerializer})
@error_codes({404: ("bounty_not_found",)})
class BountyDetail(GenericAPIView):
    serializer_class = BountySerializer
    permissions = {"GET": "bounties.view_bounty"}

    def get(self, request: Request, pk: int) -> Response:
        return Response(BountySerializer(selectors.bounty_get(bounty_id=pk)).data)


@extend_schema(
    tags=["bounties"],
    summary="Claim a bounty for an agent (first come, first served)",
    parameters=[AGENT_ID_PARAMETER],
    request=AGENT_ID_BODY,
    responses={200: BountySerializer, **ERRORS},
)
@error_codes({404: ("bounty_not_found", "agent_not_found"), 409: ("active_bounty_exists", "bounty_not_open")})
class BountyClaim(GenericAPIView):
    serializer_class = BountySerializer
    permissions = {"POST": "bounties.change_bounty"}

    def post(self, request: Request, pk: int) -> Response:
        agent_id = acting_agent_id(request)
        bounty = services.claim_bounty(agent_id=agent_id, bounty_id=pk)
        return Response(BountySerializer(bounty).data)


@extend_schema(
    tags=["bounties"],
    summary="Complete a claimed bounty; pays the reward to the claimer",
    parameters=[AGENT_ID_PARAMETER],
    request=AGENT_ID_BODY,
    responses={200: BountySerializer, **ERRORS},
)
@error_codes({404: ("bounty_not_found", "agent_not_found"), 409: ("bounty_not_claimed", "not_claimer")})
class BountyComplete(GenericAPIView):
    serializer_class = BountySerializer
    permissions = {"POST": "bounties.change_bounty"}

    def post(self, request: Request, pk: int) -> Response:
        agent_id = acting_agent_id(request)
        bounty = services.complete_bounty(agent_id=agent_id, bounty_id=pk)
        return Response(BountySerializer(bounty).data)


@extend_schema(
    tags=["bounties"],
    summary="Cancel an open bounty",
    request=None,
    responses={200: BountySerializer, 404: ErrorSerializer, 409: ErrorSerializer},
)
@error_codes({404: ("bounty_not_found",), 409: ("bounty_not_open",)})
class BountyCancel(GenericAPIView):
    serializer_class = BountySerializer
    permissions = {"POST": "bounties.change_bounty"}

    def post(self, request: Request, pk: int) -> Response:
        bounty = services.cancel_bounty(bounty_id=pk)
        return Response(BountySerializer(bounty).data)
