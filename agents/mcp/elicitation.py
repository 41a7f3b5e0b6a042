"""A proposal made over MCP, put to the person through MCP elicitation.

Where the client declares the elicitation capability and the caller may decide the proposal
(``confirmations.may_decide``), the tool call does not end at ``pending_confirmation``: the person
sees a form with their decision (approve or reject) and the proposal's fields, pre-filled with the
proposed values, which they may edit. Their answer goes through the same services as the pages and
the API: approving is ``confirm_pending_action`` (edits merged over the proposal, the version the
proposal read still decides, so a stale one is a ``version_conflict``), rejecting or declining the
form is ``reject_pending_action``; dismissing it (cancel) leaves the proposal pending, as without
elicitation. ``server`` asks in either protocol era: a server-to-client request on a handshake-era
session, an ``input_required`` result on a 2026-07-28 one.
"""

from __future__ import annotations

from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _

from core.errors import ApplicationError, NotFound

from ..confirmations import confirm_pending_action, may_decide, outcome_message, reject_pending_action
from ..models import PendingAction
from ..registry import localized_schema, registry

DECISION = "decision"
APPROVE, REJECT = "approve", "reject"
# What a form field may say (the spec's primitive schemas), copied from the tool's own schema.
_FIELD_KEYS = {
    "string": ("type", "title", "description", "minLength", "maxLength", "format", "enum"),
    "integer": ("type", "title", "description", "minimum", "maximum"),
    "number": ("type", "title", "description", "minimum", "maximum"),
    "boolean": ("type", "title", "description"),
}


def askable(*, user: Any, agent_id: int, action_id: int) -> PendingAction | None:
    """The proposal ``action_id`` if it is ``agent_id``'s, still pending, and ``user`` may decide it."""
    action = PendingAction.objects.filter(pk=action_id, agent_id=agent_id, status=PendingAction.Status.PENDING).first()
    if action is None or not may_decide(user, action):
        return None
    return action


def proposal_form(action: PendingAction, language: str) -> tuple[str, dict]:
    """The elicitation's message and form: the decision, then the proposal's fields to edit."""
    with translation.override(language):
        properties: dict[str, dict] = {
            DECISION: {
                "type": "string",
                "title": _("决定"),
                "description": _("approve：按下面的内容执行；reject：不执行"),
                "enum": [APPROVE, REJECT],
                "default": APPROVE,
            }
        }
        spec = registry.get(action.tool_name)
        schema = localized_schema(spec.input_schema, language) if spec is not None else {"properties": {}}
        for name, field in schema.get("properties", {}).items():
            keys = _FIELD_KEYS.get(field.get("type"))
            if keys is None:  # lists and objects: not a form field; the proposed value stands
                continue
            prop = {key: field[key] for key in keys if key in field}
            prop.setdefault("title", name)
            if action.arguments.get(name) is not None:
                prop["default"] = action.arguments[name]
            properties[name] = prop
        message = _("请确认：%(summary)s（待确认操作 #%(id)s）") % {"summary": action.summary, "id": action.pk}
    return message, {"type": "object", "properties": properties, "required": [DECISION]}


def answer(*, user: Any, agent_id: int, action_id: int, reply: Any, language: str) -> dict:
    """Apply the person's reply (an ``ElicitResult``) to the proposal; returns an executor-shaped result.

    ``{"status": "success"|"error", ...}`` once decided, or the proposal still pending
    (``pending_confirmation``) when the form was dismissed.
    """
    with translation.override(language):
        action = PendingAction.objects.filter(pk=action_id, agent_id=agent_id).first()
        if action is None:
            return {"status": "error", "error": NotFound("pending_action_not_found", _("待确认操作不存在")).as_dict()}
        choice = getattr(reply, "action", None)
        content = getattr(reply, "content", None) or {}
        if choice == "cancel" or choice not in ("accept", "decline"):
            return still_pending(action)
        try:
            if choice == "accept" and content.get(DECISION, APPROVE) == APPROVE:
                edits = {
                    name: value
                    for name, value in content.items()
                    if name != DECISION and value is not None and value != action.arguments.get(name)
                }
                action = confirm_pending_action(action_id=action.pk, user=user, arguments=edits or None)
            else:
                action = reject_pending_action(action_id=action.pk, user=user)
        except ApplicationError as exc:
            return {"status": "error", "error": {**exc.as_dict(), "pending_action_id": action.pk}}
        return decided(action)


def still_pending(action: PendingAction) -> dict:
    return {"status": "pending_confirmation", "pending_action_id": action.pk, "message": action.summary}


def decided(action: PendingAction) -> dict:
    """A decided proposal as a tool result: success unless running it failed."""
    data = {"pending_action_id": action.pk, "status": action.status, "message": outcome_message(action)}
    if action.status == PendingAction.Status.FAILED:
        error = (action.result or {}).get("error") or {}
        return {"status": "error", "error": {"code": error.get("code", "action_failed"), "message": data["message"], **data}}
    if action.result:
        data["result"] = action.result
    return {"status": "success", "data": data}
