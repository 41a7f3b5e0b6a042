"""Fund API (DESIGN §11). Views parse input, call a service or selector, and render;
errors become ``{"ok": false, "code", "reason"}`` (409 ``version_conflict`` carries
``current``). There is no DELETE: disabling is the soft delete (DELETE → 405)."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework import status as http
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.params import query_filters
from core.api.schema import error_codes
from funds import selectors, services

from .serializers import (
    FundBatchResultSerializer,
    FundBatchRowSerializer,
    FundCreateSerializer,
    FundDraftSerializer,
    FundErrorSerializer,
    FundSerializer,
    FundUpdateSerializer,
    FundValidationSerializer,
    VersionSerializer,
)

# A draft's own refusals (``services.check_fund_draft``): each names its field.
DRAFT_CODES = (
    "fund_name_required", "fund_name_too_long", "fund_name_taken", "invalid_fund_name", "remarks_too_long",
    "invalid_remarks", "invalid_text",
)
ERRORS = {400: FundErrorSerializer, 404: FundErrorSerializer, 409: FundErrorSerializer}


class _Filters(serializers.Serializer):
    fund_name = serializers.CharField(required=False, allow_blank=True, default="")
    active_only = serializers.BooleanField(required=False, default=False)


@extend_schema(tags=["funds"])
class FundListCreate(GenericAPIView):
    serializer_class = FundSerializer
    permissions = {"GET": "funds.view_fund", "POST": "funds.add_fund"}

    @extend_schema(
        parameters=[
            OpenApiParameter("fund_name", OpenApiTypes.STR, description="name contains (case-insensitive)"),
            OpenApiParameter("active_only", OpenApiTypes.BOOL, description="only ENABLE funds"),
            OpenApiParameter("page", OpenApiTypes.INT, description="page number"),
        ],
        responses={200: FundSerializer(many=True), 400: FundErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        funds = selectors.fund_list(**query_filters(_Filters, request))
        page = self.paginate_queryset(funds.select_related("created_by", "updated_by"))
        return self.get_paginated_response(FundSerializer(page, many=True).data)

    @extend_schema(request=FundCreateSerializer, responses={201: FundSerializer, 400: FundErrorSerializer})
    @error_codes({400: DRAFT_CODES})
    def post(self, request: Request) -> Response:
        serializer = FundCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        fund = services.create_fund(**serializer.validated_data, user=request.user)
        return Response(FundSerializer(fund).data, status=http.HTTP_201_CREATED)


@extend_schema(tags=["funds"])
@error_codes({400: (*DRAFT_CODES, "nothing_to_update", "version_required"), 404: ("fund_not_found",), 409: ("version_conflict",)})
class FundDetail(GenericAPIView):
    serializer_class = FundSerializer
    permissions = {"GET": "funds.view_fund", "PATCH": "funds.change_fund"}

    @extend_schema(responses={200: FundSerializer, 404: FundErrorSerializer})
    def get(self, request: Request, pk: int) -> Response:
        return Response(FundSerializer(selectors.fund_get(fund_id=pk)).data)

    @extend_schema(request=FundUpdateSerializer, responses={200: FundSerializer, **ERRORS})
    def patch(self, request: Request, pk: int) -> Response:
        serializer = FundUpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        fund = services.update_fund(fund_id=pk, **serializer.validated_data, user=request.user)
        return Response(FundSerializer(fund).data)


@extend_schema(tags=["funds"], request=VersionSerializer, responses={200: FundSerializer, **ERRORS})
@error_codes({400: ("fund_already_enabled", "fund_already_disabled", "version_required"), 404: ("fund_not_found",), 409: ("version_conflict",)})
class _FundStatusChange(GenericAPIView):
    serializer_class = FundSerializer
    permissions = {"POST": "funds.change_fund"}
    operation = staticmethod(services.enable_fund)

    def post(self, request: Request, pk: int) -> Response:
        serializer = VersionSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        fund = self.operation(fund_id=pk, version=serializer.validated_data["version"], user=request.user)
        return Response(FundSerializer(fund).data)


class FundEnable(_FundStatusChange):
    operation = staticmethod(services.enable_fund)


class FundDisable(_FundStatusChange):
    operation = staticmethod(services.disable_fund)


@extend_schema(
    tags=["funds"],
    summary="Check a draft without saving",
    request=FundDraftSerializer,
    responses={200: FundValidationSerializer, 400: FundErrorSerializer},
)
class FundValidate(GenericAPIView):
    serializer_class = FundValidationSerializer
    permissions = {"POST": "funds.view_fund"}  # reads only: whether a draft would be accepted

    def post(self, request: Request) -> Response:
        serializer = FundDraftSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        draft = serializer.validated_data
        errors = services.validate_fund_draft(fund_name=draft["fund_name"], remarks=draft["remarks"], fund_id=draft.get("id"))
        return Response({"ok": not errors, "errors": errors})


@extend_schema(
    tags=["funds"],
    summary="Create or update many funds, all or nothing",
    request=FundBatchRowSerializer(many=True, min_length=1),  # the service refuses [] (empty_batch)
    responses={200: FundBatchResultSerializer, **ERRORS},
)
@error_codes(
    {400: ("empty_batch", *DRAFT_CODES, "nothing_to_update", "version_required"), 404: ("fund_not_found",), 409: ("version_conflict",)}
)
class FundBatchUpsert(GenericAPIView):
    serializer_class = FundBatchResultSerializer
    permissions = {"POST": ("funds.add_fund", "funds.change_fund")}

    def post(self, request: Request) -> Response:
        serializer = FundBatchRowSerializer(data=request.data, many=True)
        serializer.is_valid(raise_exception=True)
        funds = services.batch_upsert_funds(rows=serializer.validated_data, user=request.user)
        return Response({"ok": True, "funds": FundSerializer(funds, many=True).data})
