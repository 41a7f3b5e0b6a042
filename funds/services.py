"""Fund business rules: the only code that writes fund rows.

Every update names the version it read; the write is one conditional UPDATE that also bumps
the version, so a stale writer changes nothing and gets ``version_conflict`` with the
current values. There is no delete: disabling is the soft delete.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from core.auth import signed_in
from core.errors import ApplicationError, Conflict, NotFound
from core.events import broadcast
from core.text import clean_text

from .models import FUND_NAME_MAX_LENGTH, REMARKS_MAX_LENGTH, Fund
from .selectors import fund_data, fund_get


@dataclass(frozen=True)
class _Problem:
    field: str
    code: str
    message: str


def _problems(*, fund_name: Any = None, remarks: Any = None, fund_id: int | None = None, partial: bool = False) -> list[_Problem]:
    """Everything wrong with a draft; ``partial`` skips fields that are not given (None)."""
    problems: list[_Problem] = []
    if fund_name is not None or not partial:
        if fund_name is not None and not isinstance(fund_name, str):
            problems.append(_Problem("fund_name", "invalid_fund_name", _("基金名称必须是文本")))
        else:
            try:
                name = clean_text(fund_name, field="fund_name", label=_("基金名称"), max_length=FUND_NAME_MAX_LENGTH)
            except ApplicationError as exc:
                problems.append(_Problem(exc.field, exc.code, exc.message))
            else:
                same_name = Fund.objects.filter(fund_name__iexact=name)
                if (same_name if fund_id is None else same_name.exclude(pk=fund_id)).exists():
                    problems.append(_name_taken_problem(name))
    if remarks is not None:
        if not isinstance(remarks, str):
            problems.append(_Problem("remarks", "invalid_remarks", _("备注必须是文本")))
        else:
            try:
                clean_text(remarks, field="remarks", label=_("备注"), max_length=REMARKS_MAX_LENGTH, required=False)
            except ApplicationError as exc:
                problems.append(_Problem(exc.field, exc.code, exc.message))
    return problems


def _name_taken_problem(name: str) -> _Problem:
    return _Problem("fund_name", "fund_name_taken", _("基金名称「%(name)s」已存在") % {"name": name})


def _errors(problems: list[_Problem]) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    for problem in problems:
        errors.setdefault(problem.field, []).append(problem.message)
    return errors


def _invalid(problems: list[_Problem]) -> ApplicationError:
    first = problems[0]
    return ApplicationError(first.code, first.message, field=first.field, extra={"errors": _errors(problems)})


def _announce(fund: Fund, change: str) -> None:
    broadcast(
        "fund_changed",
        fund_id=fund.pk,
        fund_name=fund.fund_name,
        active_status=fund.active_status,
        version=fund.version,
        change=change,
    )


def validate_fund_draft(*, fund_name: Any, remarks: Any = "", fund_id: int | None = None) -> dict[str, list[str]]:
    """Check a draft (new fund, or ``fund_id``'s edit) without saving: ``{field: [message, ...]}``."""
    return _errors(_problems(fund_name=fund_name, remarks=remarks, fund_id=fund_id))


def check_fund_draft(
    *, fund_name: Any = None, remarks: Any = None, fund_id: int | None = None, partial: bool = False
) -> None:
    """Raise the first problem of a draft (what ``validate_fund_draft`` lists), without saving."""
    problems = _problems(fund_name=fund_name, remarks=remarks, fund_id=fund_id, partial=partial)
    if problems:
        raise _invalid(problems)


def check_fund_transition(*, fund: Fund, active_status: str) -> None:
    """Enabling an enabled fund (or disabling a disabled one) is refused, not silently ignored."""
    _check_status(active_status)
    if fund.active_status != active_status:
        return
    if active_status == Fund.ActiveStatus.ENABLE:
        raise ApplicationError("fund_already_enabled", _("基金「%(name)s」已是启用状态") % {"name": fund.fund_name})
    raise ApplicationError("fund_already_disabled", _("基金「%(name)s」已是停用状态") % {"name": fund.fund_name})


def create_fund(
    *, fund_name: str, remarks: str | None = "", active_status: str = Fund.ActiveStatus.ENABLE, user: Any = None
) -> Fund:
    check_fund_draft(fund_name=fund_name, remarks=remarks)
    _check_status(active_status)
    name = fund_name.strip()
    try:
        with transaction.atomic():
            fund = Fund.objects.create(
                fund_name=name,
                remarks=(remarks or "").strip(),
                active_status=active_status,
                created_by=signed_in(user),
                updated_by=signed_in(user),
            )
    except IntegrityError:  # a concurrent create of the same name won the race
        raise _invalid([_name_taken_problem(name)]) from None
    _announce(fund, "created")
    return fund


def update_fund(
    *,
    fund_id: int,
    version: int,
    fund_name: str | None = None,
    remarks: str | None = None,
    active_status: str | None = None,
    user: Any = None,
) -> Fund:
    """Change the given fields of the fund as of ``version``; None means "leave as is"."""
    check_fund_draft(fund_name=fund_name, remarks=remarks, fund_id=fund_id, partial=True)
    changes: dict[str, Any] = {}
    if fund_name is not None:
        changes["fund_name"] = fund_name.strip()
    if remarks is not None:
        changes["remarks"] = remarks.strip()
    if active_status is not None:
        _check_status(active_status)
        changes["active_status"] = active_status
    if not changes:
        raise ApplicationError("nothing_to_update", _("没有需要修改的内容"))
    return _write(fund_id=fund_id, version=version, changes=changes, user=user, change="updated")


def enable_fund(*, fund_id: int, version: int, user: Any = None) -> Fund:
    return _set_status(fund_id=fund_id, version=version, user=user, status=Fund.ActiveStatus.ENABLE)


def disable_fund(*, fund_id: int, version: int, user: Any = None) -> Fund:
    return _set_status(fund_id=fund_id, version=version, user=user, status=Fund.ActiveStatus.DISABLE)


def batch_upsert_funds(*, rows: list[dict], user: Any = None) -> list[Fund]:
    """Create (no ``id``) or update (``id`` + ``version``) every row, or none of them.

    The first bad row rolls the whole batch back; the error names it (1-based ``row``).
    """
    if not rows:
        raise ApplicationError("empty_batch", _("没有要保存的基金"))
    saved: list[Fund] = []
    with transaction.atomic():
        for number, row in enumerate(rows, start=1):
            try:
                saved.append(_upsert_row(row, user))
            except ApplicationError as exc:
                raise type(exc)(
                    exc.code,
                    _("第 %(row)s 行：%(message)s") % {"row": number, "message": exc.message},
                    field=exc.field,
                    extra={**exc.extra, "row": number},
                ) from exc
    return saved


def _upsert_row(row: dict, user: Any) -> Fund:
    if not row.get("id"):
        return create_fund(
            fund_name=row.get("fund_name"),
            remarks=row.get("remarks") or "",
            active_status=row.get("active_status") or Fund.ActiveStatus.ENABLE,
            user=user,
        )
    if row.get("version") is None:
        raise ApplicationError("version_required", _("修改基金时必须提供读取时的版本号"), field="version")
    return update_fund(
        fund_id=row["id"],
        version=row["version"],
        fund_name=row.get("fund_name"),
        remarks=row.get("remarks"),
        active_status=row.get("active_status"),
        user=user,
    )


def _check_status(active_status: str) -> None:
    if active_status not in Fund.ActiveStatus.values:
        raise ApplicationError(
            "invalid_active_status", _("状态必须是 ENABLE 或 DISABLE"), field="active_status"
        )


def check_fund_version(*, fund_id: int, version: int) -> Fund:
    """The fund, if ``version`` is still its current one; else ``version_conflict`` (nothing written)."""
    fund = fund_get(fund_id=fund_id)
    if fund.version != version:
        raise _version_conflict(fund, version)
    return fund


def _set_status(*, fund_id: int, version: int, user: Any, status: str) -> Fund:
    fund = check_fund_version(fund_id=fund_id, version=version)
    check_fund_transition(fund=fund, active_status=status)
    change = "enabled" if status == Fund.ActiveStatus.ENABLE else "disabled"
    return _write(fund_id=fund_id, version=version, changes={"active_status": status}, user=user, change=change)


def _write(*, fund_id: int, version: int, changes: dict, user: Any, change: str) -> Fund:
    """The optimistic-lock write: one UPDATE that matches only the version the caller read."""
    try:
        with transaction.atomic():
            written = Fund.objects.filter(pk=fund_id, version=version).update(
                **changes, updated_by=signed_in(user), updated_at=timezone.now(), version=F("version") + 1
            )
    except IntegrityError:  # the new name was taken between the check and the write
        raise _invalid([_name_taken_problem(changes.get("fund_name", ""))]) from None
    if not written:
        current = Fund.objects.filter(pk=fund_id).first()
        if current is None:
            raise NotFound("fund_not_found", _("基金不存在（ID %(id)s）") % {"id": fund_id})
        raise _version_conflict(current, version)
    fund = Fund.objects.get(pk=fund_id)
    _announce(fund, change)
    return fund


def _version_conflict(current: Fund, version_read: int) -> Conflict:
    return Conflict(
        "version_conflict",
        _(
            "基金「%(name)s」已被他人修改（读取时版本 %(read)s，当前版本 %(version)s），"
            "当前值：名称「%(name)s」，状态 %(status)s，备注「%(remarks)s」。请基于最新内容重试。"
        )
        % {
            "name": current.fund_name,
            "read": version_read,
            "version": current.version,
            "status": current.get_active_status_display(),
            "remarks": current.remarks,
        },
        extra={"current": fund_data(current)},
    )
