"""Confirming: staff decide a proposal once; overdue proposals expire.

``confirm_pending_action`` claims the row with a conditional UPDATE (pending → confirmed)
and runs the tool for real in the same transaction, as the confirming staff member, with
the version the proposal read; ``reject_pending_action`` and ``expire_pending_actions``
close it without running anything. Every outcome is written back into the conversation
and broadcast as a ``pending_action`` event.

Expiry has one writer: ``expire_pending_actions`` runs once per pass of the autonomy loop,
and deciding an overdue action expires it on the spot. Readers never expire anything; they
use ``PendingAction.objects.open()`` / ``.overdue()``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.auth.models import Permission
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from core.auth import has_permissions, is_active_staff
from core.errors import ApplicationError, Conflict, Forbidden, NotFound
from core.params import parse_id

from .executor import audit_call, execute
from .models import Conversation, Message, PendingAction
from .proposals import announce
from .registry import ToolContext, registry
from .selectors import pending_action_get

# Deciding a proposal; confirming it also needs the permission of the write it proposes.
DECIDE_PERMISSION = "agents.confirm_pendingaction"
# Compared with spaces and end punctuation removed ("go ahead" is "goahead").
CONFIRM_ANSWERS = frozenset(
    {
        "确认", "确定", "确认执行", "是", "是的", "好", "好的", "好啊", "行", "可以", "没问题", "继续", "执行", "发", "发吧", "发送",
        "confirm", "yes", "y", "yeah", "yep", "sure", "ok", "okay", "goahead", "doit", "send", "sendit",
    }
)
CANCEL_ANSWERS = frozenset({"取消", "不", "不要", "不用", "否", "算了", "别发", "拒绝", "cancel", "no", "nope", "n", "reject", "stop"})
_ANSWER_NOISE = re.compile(r"[\s。．.!！~～,，]+")


def confirm_pending_action(*, action_id: int, user: Any, arguments: dict | None = None) -> PendingAction:
    """Run the proposed action once, as ``user``, with the version the proposal read.

    ``arguments`` (optional) are staff edits, merged over the proposed arguments. Returns the
    decided action: ``confirmed`` with the tool's result, or ``failed`` (e.g. a stale version:
    ``version_conflict`` with the current values in ``result``). An input error (one naming a
    ``field``: a bad edit, or a name taken meanwhile) is raised and everything is rolled back:
    the action stays pending, so staff can edit and confirm again, or reject it.
    Raises ``Conflict`` unless the action is pending (``pending_action_expired`` once expired), and
    ``Forbidden`` unless ``user`` may decide it (``require_decider``).
    """
    action = require_decider(user, action_id=action_id)
    if arguments is not None and not isinstance(arguments, dict):
        raise ApplicationError("invalid_arguments", _("参数必须是 JSON 对象"), field="arguments")
    if not action.agent.is_active:
        raise Conflict("agent_inactive", _("居民「%(name)s」已停用，不能执行其提议") % {"name": action.agent.name})
    now = timezone.now()
    refused = None
    with transaction.atomic():
        claimed = PendingAction.objects.open(now=now).filter(pk=action_id).update(
            status=PendingAction.Status.CONFIRMED, decided_by=user, decided_at=now
        )
        if claimed:
            _decided(action, user=user, at=now)
            final_arguments = {**action.arguments, **(arguments or {})}
            context = ToolContext(
                agent=action.agent,
                source="confirmation",
                user=user,
                conversation=action.conversation,
                mode=action.mode,
                pending_action=action,
            )
            result = execute(action.tool_name, final_arguments, context)
            if result["status"] == "error" and result["error"].get("field"):
                refused = (final_arguments, context, result)
                transaction.set_rollback(True)  # the action stays pending for another try
            else:
                if arguments:
                    result = {**result, "arguments": final_arguments}
                action.status = PendingAction.Status.CONFIRMED if result["status"] == "success" else PendingAction.Status.FAILED
                action.result = result
                PendingAction.objects.filter(pk=action.pk).update(status=action.status, result=result)
                _record_outcome(action)
    if refused is not None:
        final_arguments, context, result = refused
        audit_call(action.tool_name, final_arguments, result, context)  # the refusal is kept, though rolled back
        error = result["error"]
        details = {k: v for k, v in error.items() if k not in ("code", "message", "field")}
        raise ApplicationError(error["code"], error["message"], field=error["field"], extra=details)
    if not claimed:
        raise _not_pending(action_id, now)
    return action


def reject_pending_action(*, action_id: int, user: Any, reason: str = "") -> PendingAction:
    """Close the proposal without running it; the same people may as may confirm it (``require_decider``)."""
    action = require_decider(user, action_id=action_id)
    now = timezone.now()
    reason = (reason or "").strip()[:500]
    with transaction.atomic():
        rejected = PendingAction.objects.open(now=now).filter(pk=action_id).update(
            status=PendingAction.Status.REJECTED, decided_by=user, decided_at=now, result={"reason": reason} if reason else {}
        )
        if rejected:
            _decided(action, user=user, at=now, status=PendingAction.Status.REJECTED, result={"reason": reason} if reason else {})
            _record_outcome(action)
    if not rejected:
        raise _not_pending(action_id, now)
    return action


def expire_pending_actions() -> int:
    """Close every overdue pending action and tell its conversation; returns how many.

    The autonomy loop's expiry step: it runs once per pass of ``autonomy_tick``, never on a read.
    """
    now = timezone.now()
    overdue = PendingAction.objects.overdue(now=now)
    return sum(_expire(action_id, now) for action_id in overdue.values_list("pk", flat=True))


@dataclass
class PendingAnswer:
    """What a yes/no answer in a conversation did: the reply, and the tool call it ran, if any."""

    reply: str
    action: PendingAction | None = None
    tool_calls: list[dict] = field(default_factory=list)


def answer_pending_action(*, conversation: Conversation | None, message: str, user: Any) -> PendingAnswer | None:
    """Treat 确认/confirm or 取消/cancel (optionally naming one: "确认 #12") as staff's answer
    to a proposal waiting in this conversation.

    A bare answer decides only when exactly one proposal waits; with several, the reply lists
    them (id and the proposal's own message, never the model's prose) and decides nothing.
    Returns None (the chat goes on to the model) unless ``message`` is such an answer and the
    conversation has a proposal. Stores the user's message and the reply.
    """
    if conversation is None:
        return None
    parsed = _parse_answer(message)
    if parsed is None:
        return None
    confirm, action_id = parsed
    # Overdue ones too: answering one expires it and says so, like any late decision.
    waiting = list(conversation.pending_actions.filter(status=PendingAction.Status.PENDING).order_by("id"))
    if not waiting:
        return None
    Message.objects.create(conversation=conversation, role=Message.Role.USER, content=str(message))
    chosen = [a for a in waiting if a.pk == action_id] if action_id is not None else waiting
    if len(chosen) != 1:
        return _reply(conversation, _which_one(waiting, action_id))
    action = chosen[0]
    try:
        if confirm:
            action = confirm_pending_action(action_id=action.pk, user=user)
        else:
            action = reject_pending_action(action_id=action.pk, user=user)
    except ApplicationError as exc:
        action.refresh_from_db()
        if action.status == PendingAction.Status.EXPIRED:  # expiring it already told the conversation
            return PendingAnswer(reply=outcome_message(action), action=action)
        return _reply(conversation, exc.message, action)
    tool_calls = []
    if action.status in (PendingAction.Status.CONFIRMED, PendingAction.Status.FAILED):
        tool_calls.append({"name": action.tool_name, "arguments": action.arguments, "result": action.result})
    return PendingAnswer(reply=outcome_message(action), action=action, tool_calls=tool_calls)


_NAMED_ANSWER = re.compile(r"^(?P<word>.*?)[\s#＃]*(?P<id>\d+)?[\s。．.!！~～]*$", re.DOTALL)


def _parse_answer(message: Any) -> tuple[bool, int | None] | None:
    """(confirm?, the proposal named or None) for 确认 / confirm / 取消 …, optionally with "#12"."""
    match = _NAMED_ANSWER.match(str(message or "").strip())
    if match is None:
        return None
    word = _ANSWER_NOISE.sub("", match["word"]).lower()
    if word in CONFIRM_ANSWERS or word in CANCEL_ANSWERS:
        return word in CONFIRM_ANSWERS, parse_id(match["id"]) if match["id"] else None
    # "好的，发吧", "ok, send it": every part one answer, all the same way.
    parts = {_ANSWER_NOISE.sub("", part).lower() for part in re.split(r"[,，、]", match["word"])} - {""}
    if len(parts) > 1 and (parts <= CONFIRM_ANSWERS or parts <= CANCEL_ANSWERS):
        return parts <= CONFIRM_ANSWERS, parse_id(match["id"]) if match["id"] else None
    return None


def _which_one(waiting: list[PendingAction], action_id: int | None) -> str:
    listed = "\n".join(f"#{action.pk} {action.summary}" for action in waiting)
    if action_id is not None:
        head = _("没有编号为 #%(id)s 的待确认操作。待确认的有：") % {"id": action_id}
    else:
        head = _("有 %(n)s 个操作等待确认，请指明是哪一个（例如「确认 #%(id)s」）：") % {"n": len(waiting), "id": waiting[0].pk}
    return f"{head}\n{listed}"


def _reply(conversation: Conversation, text: str, action: PendingAction | None = None) -> PendingAnswer:
    Message.objects.create(conversation=conversation, role=Message.Role.ASSISTANT, content=text)
    return PendingAnswer(reply=text, action=action)


def outcome_message(action: PendingAction) -> str:
    """The sentence staff and the conversation see once an action is decided."""
    result = action.result or {}
    if action.status == PendingAction.Status.CONFIRMED:
        data = result.get("data")
        message = data.get("message") if isinstance(data, dict) else None
        return message or _("已执行：%(summary)s") % {"summary": action.summary}
    if action.status == PendingAction.Status.FAILED:
        error = result.get("error") or {}
        return _("操作未能执行：%(reason)s") % {"reason": error.get("message") or error.get("code", "")}
    if action.status == PendingAction.Status.REJECTED:
        text = _("已取消，未执行：%(summary)s") % {"summary": action.summary}
        if result.get("reason"):
            text += _("（原因：%(reason)s）") % {"reason": result["reason"]}
        return text
    if action.status == PendingAction.Status.EXPIRED:
        return _("操作已过期，未执行：%(summary)s") % {"summary": action.summary}
    return action.summary


def _decided(action: PendingAction, *, user: Any, at, status: str = PendingAction.Status.CONFIRMED, result: dict | None = None) -> None:
    """Make ``action``, read before its decision, what the decision's conditional UPDATE left in its row.

    No second read: a pending row changes only by such an UPDATE (the admin shows it read-only), and
    ``action`` was read while it was pending, so the claim changed exactly these fields (the
    tool, the answer and the events read the agent, conversation and requester read with it).
    """
    action.status, action.decided_by, action.decided_at = status, user, at
    if result is not None:
        action.result = result


def _expire(action_id: int, now) -> int:
    with transaction.atomic():
        expired = PendingAction.objects.overdue(now=now).filter(pk=action_id).update(
            status=PendingAction.Status.EXPIRED, decided_at=now
        )
        if expired:
            _record_outcome(pending_action_get(action_id=action_id))
    return expired


def _not_pending(action_id: int, now) -> Conflict:
    """The error for deciding an action that is no longer pending (expiring it when overdue)."""
    _expire(action_id, now)
    action = pending_action_get(action_id=action_id)
    if action.status == PendingAction.Status.EXPIRED:
        minutes = max(1, settings.PENDING_ACTION_TTL // 60)
        return Conflict(
            "pending_action_expired",
            _("该操作已过期（有效期 %(minutes)s 分钟），未执行；请重新发起") % {"minutes": minutes},
            extra={"status": action.status},
        )
    return Conflict(
        "pending_action_not_pending",
        _("该操作已处理（%(status)s），不能重复决定") % {"status": action.get_status_display()},
        extra={"status": action.status},
    )


def _record_outcome(action: PendingAction) -> None:
    """Write the outcome into the conversation and tell open pages (after commit)."""
    if action.conversation_id:
        Message.objects.create(conversation_id=action.conversation_id, role=Message.Role.ASSISTANT, content=outcome_message(action))
    announce(action)


# ---------------------------------------------------------------------------- who may see and decide
#
# The one rule every surface asks (API, admin, pages, chat "确认 #N", MCP): a proposal belongs to
# the domain of its tool's permission ("funds.add_fund": funds). Deciding it, either way, needs
# the confirm permission and that permission; seeing it needs that, or the domain's view
# permission ("funds.view_fund"). Superusers see and decide everything.

# A proposal of a tool no longer registered names no domain: only superusers hold this.
_UNKNOWN_DOMAIN = "agents.decide_unregistered_tool"


def decide_permissions(tool_name: str) -> tuple[str, str]:
    """What deciding a proposal of ``tool_name`` needs: the confirm permission and the tool's own."""
    spec = registry.get(tool_name)
    return DECIDE_PERMISSION, (spec.permission if spec is not None and spec.permission else _UNKNOWN_DOMAIN)


def may_decide(user: Any, action: PendingAction) -> bool:
    return has_permissions(user, decide_permissions(action.tool_name))


def may_view(user: Any, action: PendingAction) -> bool:
    return _sees_everything(user) or action.tool_name in viewable_tool_names(user)


def require_decider(user: Any, *, action_id: int) -> PendingAction:
    """The proposal ``action_id`` if ``user`` may decide it. Forbidden without the confirm permission
    (before anything is looked up), NotFound for one they may not see, Forbidden for one they see
    but may not decide (a proposal of another domain)."""
    if not has_permissions(user, DECIDE_PERMISSION):
        raise Forbidden("permission_denied", _("只有有确认权限的员工可以确认或拒绝待确认操作"))
    action = pending_action_get(action_id=action_id)
    if not may_view(user, action):
        raise NotFound("pending_action_not_found", _("待确认操作不存在"))
    if not may_decide(user, action):
        raise Forbidden(
            "permission_denied",
            _("您没有决定此操作的权限（需要 %(permission)s）") % {"permission": decide_permissions(action.tool_name)[1]},
        )
    return action


def viewable_tool_names(user: Any) -> set[str]:
    """The tools whose proposals ``user`` may see: they may decide them, or view their domain."""
    return _tool_names(user, lambda spec, view: user.has_perm(view) or user.has_perms(decide_permissions(spec.name)))


def readable_tool_names(user: Any) -> set[str] | None:
    """The tools whose calls ``user`` may read the contents of (arguments and result, in the audit):
    they may use the tool themselves, or view its domain. None: every tool (a superuser).

    The audit lists every call to whoever may view it (who, when, which tool, status, error code):
    that is what the audit is for. What a call read or wrote belongs to its domain, like a proposal:
    a city operator sees that the desk assistant queried an order, not the guest's name in it.
    """
    if _sees_everything(user):
        return None
    return _tool_names(user, lambda spec, view: user.has_perm(view) or user.has_perm(spec.permission))


def _tool_names(user: Any, allowed) -> set[str]:
    """The registered tools for which ``allowed(spec, view permission of the tool's domain)`` holds."""
    if not is_active_staff(user):
        return set()
    specs = [spec for spec in registry.all() if spec.permission]
    views = _domain_view_permissions({spec.permission for spec in specs})
    return {spec.name for spec in specs if allowed(spec, views.get(spec.permission, _UNKNOWN_DOMAIN))}


def visible_pending_actions(user: Any, actions: QuerySet[PendingAction] | None = None) -> QuerySet[PendingAction]:
    """``actions`` (default: all) narrowed to the proposals ``user`` may see."""
    actions = PendingAction.objects.all() if actions is None else actions
    if _sees_everything(user):
        return actions
    return actions.filter(tool_name__in=viewable_tool_names(user))


def _sees_everything(user: Any) -> bool:
    return is_active_staff(user) and user.is_superuser


# Permission → the view permission of its model, as found in the database: a permission's model is
# fixed when migrate creates it, so each is looked up once per process (every decision and every
# list of proposals asked again: one query each). One not found is looked up again next time.
_VIEW_PERMISSIONS: dict[str, str] = {}


def _domain_view_permissions(permissions: set[str]) -> dict[str, str]:
    """Each permission → the view permission of the model it belongs to ("city.transfer_resources"
    → "city.view_resourcetransfer"): the domain whose readers may see its proposals."""
    missing = permissions - _VIEW_PERMISSIONS.keys()
    if missing:
        wanted = Q()
        for permission in missing:
            app_label, _dot, codename = permission.partition(".")
            wanted |= Q(content_type__app_label=app_label, codename=codename)
        rows = Permission.objects.filter(wanted).values_list("content_type__app_label", "codename", "content_type__model")
        _VIEW_PERMISSIONS.update({f"{app_label}.{codename}": f"{app_label}.view_{model}" for app_label, codename, model in rows})
    return {permission: _VIEW_PERMISSIONS[permission] for permission in permissions if permission in _VIEW_PERMISSIONS}
