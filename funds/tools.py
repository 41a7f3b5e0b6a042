"""Fund tools. Queries run at once; writes only ever run once a staff member confirmed them.

Each write tool has a ``propose`` hook: when its Tool row requires confirmation (the
default), the executor calls the hook instead of the function and records a
``PendingAction`` with the version the hook read. Confirming runs the function with
``ctx.pending_action`` set and ``ctx.user`` the confirming staff member.
"""

from __future__ import annotations

from typing import Annotated

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext_lazy

from agents.registry import Param, Proposal, ToolContext, tool
from agents.results import summarizes
from core.errors import ApplicationError
from core.text import join_items

from .models import FUND_NAME_MAX_LENGTH, REMARKS_MAX_LENGTH, Fund
from .selectors import fund_data, fund_get, fund_list, status_label
from . import services

FUNDS_PAGE = "/funds/"
FUND_FORM = "fund-form"
LIST_LIMIT = 50
# The tools whose proposals the /funds/ page lists and opens in its form.
WRITE_TOOLS = ("create_fund", "update_fund", "enable_fund", "disable_fund")

FundId = Annotated[int, Param(ge=1, description=gettext_lazy("基金 ID"))]
# A context of its own: the fund form's labels say "Fund name" and "Remarks" for the same Chinese.
FundName = Annotated[
    str, Param(min_length=1, max_length=FUND_NAME_MAX_LENGTH, description=pgettext_lazy("tool parameter", "基金名称"))
]
Remarks = Annotated[str, Param(max_length=REMARKS_MAX_LENGTH, description=pgettext_lazy("tool parameter", "备注"))]


def _describe(fund: Fund) -> str:
    return _("%(name)s（ID %(id)s，%(status)s）") % {
        "name": fund.fund_name,
        "id": fund.pk,
        "status": status_label(fund.active_status),
    }


@tool(
    description=gettext_lazy("查询基金列表，可按名称模糊搜索，或只看启用的基金"),
    permission="funds.view_fund",
)
def list_funds(
    ctx: ToolContext,
    fund_name: Annotated[str, Param(description=gettext_lazy("按名称模糊搜索"))] | None = None,
    active_only: Annotated[bool, Param(description=gettext_lazy("只显示启用的基金"))] | None = None,
) -> dict:
    funds = fund_list(fund_name=fund_name, active_only=bool(active_only))
    total = funds.count()
    shown = list(funds[:LIST_LIMIT])
    if not shown:
        message = _("没有找到符合条件的基金")
    else:
        message = ngettext("共 %(total)s 个基金：%(funds)s", "共 %(total)s 个基金：%(funds)s", total) % {
            "total": total,
            "funds": join_items(map(_describe, shown)),
        }
        if total > len(shown):
            message += _("（仅列出前 %(n)s 个）") % {"n": len(shown)}
    return {"funds": [fund_data(fund) for fund in shown], "total": total, "message": message}


@summarizes("list_funds")
def _list_funds_line(data: dict, arguments: dict) -> str:
    funds = data.get("funds") or []
    total = data.get("total", len(funds))
    active = sum(1 for fund in funds if fund.get("active_status") == Fund.ActiveStatus.ENABLE)
    counts = join_items(
        [ngettext("%(n)d 个基金", "%(n)d 个基金", total) % {"n": total}, ngettext("%(n)d 个启用", "%(n)d 个启用", active) % {"n": active}],
        comma=True,
    )
    return counts + (_("（列出前 %(n)s 个）") % {"n": len(funds)} if total > len(funds) else "")


@tool(description=gettext_lazy("获取指定基金的详细信息"), permission="funds.view_fund")
def get_fund_detail(ctx: ToolContext, fund_id: FundId) -> dict:
    fund = fund_get(fund_id=fund_id)
    message = _("基金「%(name)s」（ID %(id)s）：状态 %(status)s，备注「%(remarks)s」，版本 %(version)s") % {
        "name": fund.fund_name,
        "id": fund.pk,
        "status": status_label(fund.active_status),
        "remarks": fund.remarks,
        "version": fund.version,
    }
    return {"fund": fund_data(fund), "message": message}


def _version(ctx: ToolContext, fund_id: int) -> int:
    """The version this write is based on: the one the proposal read, or (no confirmation) now's."""
    action = ctx.pending_action
    if action is None:
        return fund_get(fund_id=fund_id).version
    if action.arguments.get("fund_id") != fund_id:
        raise ApplicationError(
            "invalid_arguments", _("确认时不能更换提议所针对的基金"), field="fund_id"
        )
    return action.version_read


def _form_values(fund: Fund) -> dict:
    return {"fund_id": fund.pk, "fund_name": fund.fund_name, "remarks": fund.remarks, "active_status": fund.active_status}


def _proposal(message: str, form_data: dict, fund: Fund | None = None) -> Proposal:
    return Proposal(
        message=message,
        form_data=form_data,
        version=fund.version if fund else None,
        current=_form_values(fund) if fund else {},
        url=FUNDS_PAGE,
        form=FUND_FORM,
        labels={"fund_id": _("基金 ID"), **{name: Fund._meta.get_field(name).verbose_name for name in FORM_FIELDS}},
        display={"active_status": dict(Fund.ActiveStatus.choices)},
    )


FORM_FIELDS = ("fund_name", "remarks", "active_status")


def propose_create_fund(ctx: ToolContext, fund_name: str, remarks: str | None = None) -> Proposal:
    services.check_fund_draft(fund_name=fund_name, remarks=remarks)
    name = fund_name.strip()
    return _proposal(
        _("即将创建基金「%(name)s」，请确认是否继续？") % {"name": name},
        {"fund_name": name, "remarks": (remarks or "").strip()},
    )


@tool(
    description=gettext_lazy("创建新基金（需要员工确认后才会执行）"),
    category="action",
    requires_confirmation=True,
    propose=propose_create_fund,
    permission="funds.add_fund",
)
def create_fund(ctx: ToolContext, fund_name: FundName, remarks: Remarks | None = None) -> dict:
    fund = services.create_fund(fund_name=fund_name, remarks=remarks or "", user=ctx.user)
    message = _("基金「%(name)s」创建成功，ID 为 %(id)s") % {"name": fund.fund_name, "id": fund.pk}
    return {"fund": fund_data(fund), "message": message}


def propose_update_fund(
    ctx: ToolContext, fund_id: int, fund_name: str | None = None, remarks: str | None = None
) -> Proposal:
    fund = fund_get(fund_id=fund_id)
    if fund_name is None and remarks is None:
        raise ApplicationError("nothing_to_update", _("没有需要修改的内容：请给出新的名称或备注"))
    services.check_fund_draft(fund_name=fund_name, remarks=remarks, fund_id=fund_id, partial=True)
    changes = []
    if fund_name is not None:
        changes.append(_("名称改为「%(name)s」") % {"name": fund_name.strip()})
    if remarks is not None:
        changes.append(_("备注改为「%(remarks)s」") % {"remarks": remarks.strip()})
    message = _("即将更新基金「%(name)s」（ID %(id)s）：%(changes)s，请确认是否继续？") % {
        "name": fund.fund_name,
        "id": fund.pk,
        "changes": join_items(changes, comma=True),
    }
    form_data = {
        "fund_id": fund.pk,
        "fund_name": fund_name.strip() if fund_name is not None else fund.fund_name,
        "remarks": remarks.strip() if remarks is not None else fund.remarks,
    }
    return _proposal(message, form_data, fund)


@tool(
    description=gettext_lazy("修改基金的名称或备注（需要员工确认后才会执行）"),
    category="action",
    requires_confirmation=True,
    propose=propose_update_fund,
    permission="funds.change_fund",
)
def update_fund(
    ctx: ToolContext,
    fund_id: FundId,
    fund_name: Annotated[
        str,
        Param(min_length=1, max_length=FUND_NAME_MAX_LENGTH, description=gettext_lazy("新的基金名称")),
    ]
    | None = None,
    remarks: Annotated[
        str, Param(max_length=REMARKS_MAX_LENGTH, description=gettext_lazy("新的备注"))
    ]
    | None = None,
) -> dict:
    fund = services.update_fund(
        fund_id=fund_id, version=_version(ctx, fund_id), fund_name=fund_name, remarks=remarks, user=ctx.user
    )
    message = _("基金「%(name)s」（ID %(id)s）已更新，当前版本 %(version)s") % {
        "name": fund.fund_name,
        "id": fund.pk,
        "version": fund.version,
    }
    return {"fund": fund_data(fund), "message": message}


def _propose_status(fund_id: int, active_status: str, message: str) -> Proposal:
    fund = fund_get(fund_id=fund_id)
    services.check_fund_transition(fund=fund, active_status=active_status)
    form_data = {**_form_values(fund), "active_status": active_status}
    return _proposal(message % {"name": fund.fund_name, "id": fund.pk}, form_data, fund)


def propose_enable_fund(ctx: ToolContext, fund_id: int) -> Proposal:
    return _propose_status(fund_id, Fund.ActiveStatus.ENABLE, _("即将启用基金「%(name)s」（ID %(id)s），请确认是否继续？"))


def propose_disable_fund(ctx: ToolContext, fund_id: int) -> Proposal:
    return _propose_status(
        fund_id, Fund.ActiveStatus.DISABLE, _("即将停用基金「%(name)s」（ID %(id)s，可再启用），请确认是否继续？")
    )


@tool(
    description=gettext_lazy("启用基金（需要员工确认后才会执行）"),
    category="action",
    requires_confirmation=True,
    propose=propose_enable_fund,
    permission="funds.change_fund",
)
def enable_fund(ctx: ToolContext, fund_id: FundId) -> dict:
    fund = services.enable_fund(fund_id=fund_id, version=_version(ctx, fund_id), user=ctx.user)
    return {"fund": fund_data(fund), "message": _("基金「%(name)s」已启用") % {"name": fund.fund_name}}


@tool(
    description=gettext_lazy("停用基金，即软删除，可再启用（需要员工确认后才会执行）"),
    category="action",
    requires_confirmation=True,
    propose=propose_disable_fund,
    permission="funds.change_fund",
)
def disable_fund(ctx: ToolContext, fund_id: FundId) -> dict:
    fund = services.disable_fund(fund_id=fund_id, version=_version(ctx, fund_id), user=ctx.user)
    return {"fund": fund_data(fund), "message": _("基金「%(name)s」已停用") % {"name": fund.fund_name}}
