"""Read-only fund queries shared by the API, the page, the tools and the admin."""

from __future__ import annotations

from django.db.models import QuerySet
from django.utils.translation import gettext as _

from core.errors import NotFound

from .models import Fund


def fund_list(*, fund_name: str | None = None, active_only: bool = False) -> QuerySet[Fund]:
    funds = Fund.objects.order_by("id")
    if fund_name and fund_name.strip():
        funds = funds.filter(fund_name__icontains=fund_name.strip())
    if active_only:
        funds = funds.filter(active_status=Fund.ActiveStatus.ENABLE)
    return funds


def fund_get(*, fund_id: int) -> Fund:
    fund = Fund.objects.filter(pk=fund_id).first()
    if fund is None:
        raise NotFound("fund_not_found", _("基金不存在（ID %(id)s）") % {"id": fund_id})
    return fund


def fund_data(fund: Fund) -> dict:
    """A fund as plain JSON data (tool results, conflict details, events)."""
    return {
        "id": fund.pk,
        "fund_name": fund.fund_name,
        "active_status": fund.active_status,
        "remarks": fund.remarks,
        "version": fund.version,
        "created_at": fund.created_at.isoformat() if fund.created_at else None,
        "updated_at": fund.updated_at.isoformat() if fund.updated_at else None,
    }


def status_label(active_status: str) -> str:
    return str(Fund.ActiveStatus(active_status).label) if active_status in Fund.ActiveStatus.values else active_status
