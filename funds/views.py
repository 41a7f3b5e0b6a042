"""The /funds/ page: fund list, create/edit modal, enable/disable, the agent's pending
proposals, and a chat panel with a fund agent in embedded mode (DESIGN §8, §12).

Every write goes through ``funds.services`` or ``agents.services``; the views only parse
the request and render. HTMX requests get partials; without JavaScript every form posts
and redirects (or re-renders the page with the form open and its errors).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.core.paginator import Paginator
from django.http import HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from agents.chat import MAX_MESSAGE_LENGTH, conversation_transcript, run_chat
from agents.confirmations import confirm_pending_action, expire_pending_actions, outcome_message, reject_pending_action
from agents.models import Agent, Conversation, PendingAction
from agents.selectors import pending_action_get, pending_action_review
from core.errors import ApplicationError

from . import selectors, services
from .models import FUND_NAME_MAX_LENGTH, REMARKS_MAX_LENGTH, Fund
from .tools import FUND_FORM, FUNDS_PAGE, WRITE_TOOLS

TEMPLATE = "funds/page.html"
PAGE_SIZE = 20
# HX-Trigger names: refresh the page's parts without waiting for the WebSocket; close the modal.
CHANGED_TRIGGER = "funds-changed"
FORM_DONE_TRIGGER = "fund-form-done"
CHAT_AGENT_KEY = "funds_chat_agent"


@staff_member_required
@require_http_methods(["GET", "POST"])
def fund_page(request):
    if request.method == "POST":
        return _post(request)
    part = request.GET.get("part")
    if part == "list":
        context = _list_context(request.GET)
        response = _render(request, "fund-list", context)
        if request.htmx and request.htmx.trigger == "fund-search":  # keep the filter in the address bar
            response["HX-Push-Url"] = f"{FUNDS_PAGE}?{context['filter_query']}"
        return response
    if part == "pending":
        return _render(request, "pending-list", _pending_context())
    if part == "form":
        return _render(request, "fund-form", _form_context(request.GET))
    if part == "chat":
        return _render(request, "chat-log", _chat_context(request))
    context = {**_list_context(request.GET), **_pending_context(), **_chat_context(request)}
    if {"form", "fund", "proposal"} & request.GET.keys():
        context.update(_form_context(request.GET), form_open=True)
    return _render(request, None, context)


@staff_member_required
@require_POST
def fund_chat(request):
    """The chat panel: the fund agent answers in embedded mode (its proposals open the form here)."""
    agent = _chat_agent(request, request.POST.get("agent_id"))
    error, draft = "", ""
    response_trigger: dict[str, Any] = {}
    if agent is not None and request.POST.get("action") == "new":
        request.session.pop(_conversation_key(agent), None)
    elif agent is not None:
        draft = request.POST.get("message", "")
        try:
            result = run_chat(
                agent=agent,
                message=draft,
                user=request.user,
                conversation_id=_current_conversation_id(request, agent),
                mode=Conversation.Mode.EMBEDDED,
                page=FUNDS_PAGE,
            )
        except ApplicationError as exc:
            error = exc.message
        else:
            draft = ""
            request.session[_conversation_key(agent)] = result.conversation.pk
            response_trigger = _proposal_triggers(result.tool_calls)
    if not request.htmx:
        if error:
            messages.error(request, error)
        return redirect(FUNDS_PAGE)
    response = _render(request, "chat-panel", {**_chat_context(request), "chat_error": error, "draft": draft})
    if response_trigger:
        response["HX-Trigger"] = json.dumps(response_trigger)
    return response


# --- POST actions on the page, told apart by the button's name "action" ---


def _post(request):
    action = request.POST.get("action")
    if action in ("enable", "disable"):
        return _toggle(request, action)
    if action == "save":
        return _save(request)
    if action in ("confirm", "reject"):
        return _decide(request, action)
    messages.error(request, _("无效的操作"))
    return redirect(FUNDS_PAGE)


def _toggle(request, action: str):
    query = QueryDict(request.POST.get("query", ""))
    operation = services.fund_enable if action == "enable" else services.fund_disable
    notice, failed = "", False
    try:
        fund = operation(
            fund_id=_int(request.POST.get("fund_id")), version=_int(request.POST.get("version")), user=request.user
        )
    except ApplicationError as exc:
        notice, failed = exc.message, True
    else:
        text = _("基金「%(name)s」已启用") if action == "enable" else _("基金「%(name)s」已停用")
        notice = text % {"name": fund.fund_name}
    if not request.htmx:
        (messages.error if failed else messages.success)(request, notice)
        return redirect(f"{FUNDS_PAGE}?{query.urlencode()}" if query else FUNDS_PAGE)
    return _render(request, "fund-list", {**_list_context(query), "notice": notice, "notice_failed": failed})


def _save(request):
    fund_id = _int(request.POST.get("fund_id"))
    values = _posted_values(request)
    try:
        if fund_id:
            fund = services.fund_update(
                fund_id=fund_id,
                version=_int(request.POST.get("version")),
                fund_name=values["fund_name"],
                remarks=values["remarks"],
                user=request.user,
            )
            text = _("基金「%(name)s」已保存（版本 %(version)s）") % {"name": fund.fund_name, "version": fund.version}
        else:
            fund = services.fund_create(fund_name=values["fund_name"], remarks=values["remarks"], user=request.user)
            text = _("基金「%(name)s」创建成功，ID 为 %(id)s") % {"name": fund.fund_name, "id": fund.pk}
    except ApplicationError as exc:
        fund = Fund.objects.filter(pk=fund_id).first() if fund_id else None
        context = _form_values_context(
            fund=fund, values=values, version=_int(request.POST.get("version")), errors=_errors(exc)
        )
        return _form_response(request, context)
    return _done(request, text)


def _decide(request, decision: str):
    action_id = _int(request.POST.get("pending_action_id"))
    values = _posted_values(request)
    try:
        if decision == "reject":
            decided = reject_pending_action(action_id=action_id, user=request.user, reason=request.POST.get("reason", ""))
        else:
            action = pending_action_get(action_id=action_id)
            decided = confirm_pending_action(action_id=action_id, user=request.user, arguments=_edits(action, values))
    except ApplicationError as exc:
        # An input error leaves the proposal pending (fix and confirm again); anything else closed it.
        context = _proposal_context(action_id, values=values if exc.field else None, errors=_errors(exc))
        return _form_response(request, context, changed=not exc.field)
    if decided.status == PendingAction.Status.FAILED:
        return _form_response(request, _proposal_context(decided.pk), changed=True)
    return _done(request, outcome_message(decided))


def _done(request, text: str):
    if not request.htmx:
        messages.success(request, text)
        return redirect(FUNDS_PAGE)
    response = _render(request, "fund-form", {"form_done": text})
    response["HX-Trigger"] = json.dumps({CHANGED_TRIGGER: {}, FORM_DONE_TRIGGER: {"message": text}})
    return response


def _form_response(request, context: dict, *, changed: bool = False) -> HttpResponse:
    if request.htmx:
        response = _render(request, "fund-form", context)
        if changed:
            response["HX-Trigger"] = json.dumps({CHANGED_TRIGGER: {}})
        return response
    page = {**_list_context(QueryDict()), **_pending_context(), **_chat_context(request), **context, "form_open": True}
    return _render(request, None, page)


# --- contexts ---


def _list_context(params: QueryDict) -> dict:
    fund_name = (params.get("fund_name") or "").strip()
    active_only = params.get("active_only") in ("1", "on", "true")
    filters = {key: value for key, value in (("fund_name", fund_name), ("active_only", "1" if active_only else "")) if value}
    page = Paginator(selectors.fund_list(fund_name=fund_name, active_only=active_only), PAGE_SIZE).get_page(params.get("page"))
    query = urlencode({**filters, "page": page.number} if page.number > 1 else filters)
    return {
        "funds": page,
        "fund_name": fund_name,
        "active_only": active_only,
        "filter_query": urlencode(filters),
        "query": query,
        "statuses": Fund.ActiveStatus,
    }


def _pending_context() -> dict:
    expire_pending_actions()
    proposals = (
        PendingAction.objects.filter(tool_name__in=WRITE_TOOLS, status=PendingAction.Status.PENDING)
        .select_related("agent", "requested_by")
        .order_by("-created_at", "-id")
    )
    return {"proposals": proposals}


def _form_context(params: QueryDict) -> dict:
    if params.get("proposal"):
        return _proposal_context(_int(params.get("proposal")))
    fund_id = _int(params.get("fund"))
    if fund_id:
        fund = Fund.objects.filter(pk=fund_id).first()
        if fund is None:
            return _form_values_context(errors={"form": [_("基金不存在（ID %(id)s）") % {"id": fund_id}]}, closed=True)
        return _form_values_context(fund=fund, values={"fund_name": fund.fund_name, "remarks": fund.remarks}, version=fund.version)
    return _form_values_context()


def _form_values_context(
    *, fund: Fund | None = None, values: dict | None = None, version: int | None = None,
    errors: dict | None = None, closed: bool = False,
) -> dict:
    return {
        "form_fund": fund,
        "form_values": values or {"fund_name": "", "remarks": ""},
        "form_version": version,
        "form_errors": errors or {},
        "form_closed": closed,
        "form_editable": not closed,
        "form_proposal": None,
        "name_max_length": FUND_NAME_MAX_LENGTH,
        "remarks_max_length": REMARKS_MAX_LENGTH,
        "form_id": FUND_FORM,
    }


def _proposal_context(action_id: int, *, values: dict | None = None, errors: dict | None = None) -> dict:
    """The form pre-filled with an agent's proposal (current values overlaid with the proposed ones)."""
    action = PendingAction.objects.filter(pk=action_id, tool_name__in=WRITE_TOOLS).select_related("agent").first()
    if action is None:
        return _form_values_context(errors={"form": [_("待确认操作不存在")]}, closed=True)
    fund_id = action.arguments.get("fund_id")
    fund = Fund.objects.filter(pk=fund_id).first() if fund_id else None
    prefill = {"fund_name": fund.fund_name if fund else "", "remarks": fund.remarks if fund else ""}
    prefill.update({key: action.arguments[key] for key in ("fund_name", "remarks") if key in action.arguments})
    pending = action.status == PendingAction.Status.PENDING
    context = _form_values_context(fund=fund, values=values or prefill, errors=errors, closed=not pending)
    error = (action.result or {}).get("error") or {}
    context.update(
        form_proposal=action,
        form_editable=pending and action.tool_name in ("create_fund", "update_fund"),
        form_review=pending_action_review(action) if pending and fund else None,
        form_outcome="" if pending else outcome_message(action),
        form_current=error.get("current"),
        form_target_status={"enable_fund": Fund.ActiveStatus.ENABLE.label, "disable_fund": Fund.ActiveStatus.DISABLE.label}.get(
            action.tool_name, ""
        ),
    )
    return context


def _chat_context(request) -> dict:
    agents = _fund_agents()
    agent = _chat_agent(request, request.GET.get("agent"), agents)
    conversation = None
    if agent is not None:
        conversation_id = _current_conversation_id(request, agent)
        conversation = Conversation.objects.filter(pk=conversation_id, agent=agent).first() if conversation_id else None
    return {
        "chat_agents": agents,
        "chat_agent": agent,
        "conversation": conversation,
        "transcript": conversation_transcript(conversation) if conversation else [],
        "max_length": MAX_MESSAGE_LENGTH,
    }


# --- small helpers ---


def _render(request, part: str | None, context: dict) -> HttpResponse:
    template = f"{TEMPLATE}#{part}" if part else TEMPLATE
    return render(request, template, {"funds_page": FUNDS_PAGE, **context})


def _chat_agent(request, raw: str | None, agents: list[Agent] | None = None) -> Agent | None:
    """The fund agent the chat panel talks to: the one asked for, else the last used, else the first."""
    if agents is None:
        agents = _fund_agents()
    by_id = {agent.pk: agent for agent in agents}
    for candidate in (_int(raw), request.session.get(CHAT_AGENT_KEY)):
        if candidate in by_id:
            request.session[CHAT_AGENT_KEY] = candidate
            return by_id[candidate]
    return agents[0] if agents else None


def _fund_agents() -> list[Agent]:
    """Active agents that may propose funds: the chat panel's choice."""
    return list(Agent.objects.filter(is_active=True, tools__name="create_fund", tools__is_active=True).order_by("id").distinct())


def _conversation_key(agent: Agent) -> str:
    return f"funds_chat_conversation_{agent.pk}"


def _current_conversation_id(request, agent: Agent) -> int | None:
    conversation_id = request.session.get(_conversation_key(agent))
    if conversation_id and Conversation.objects.filter(pk=conversation_id, agent=agent).exists():
        return conversation_id
    return None


def _proposal_triggers(tool_calls: list[dict]) -> dict:
    """The chat response also opens the newest proposal (same shape as the WebSocket ui_action),
    so the form opens even when the page's WebSocket is reconnecting."""
    for call in reversed(tool_calls):
        result = call.get("result") or {}
        if call.get("name") in WRITE_TOOLS and result.get("status") == "pending_confirmation":
            detail = {
                "action": "open_form",
                "url": FUNDS_PAGE,
                "form": FUND_FORM,
                "pending_action_id": result.get("pending_action_id"),
                "fields": result.get("form_data", {}),
            }
            return {"desk:ui_action": detail}
    return {}


def _posted_values(request) -> dict:
    return {"fund_name": request.POST.get("fund_name", ""), "remarks": request.POST.get("remarks", "")}


def _edits(action: PendingAction, values: dict) -> dict | None:
    """The staff member's edits of a proposal, as tool arguments (only create/update have fields)."""
    if action.tool_name in ("create_fund", "update_fund"):
        return {"fund_name": values["fund_name"], "remarks": values["remarks"]}
    return None


def _errors(exc: ApplicationError) -> dict[str, list[str]]:
    if exc.extra.get("errors"):
        return exc.extra["errors"]
    return {exc.field if exc.field in ("fund_name", "remarks") else "form": [exc.message]}


def _int(raw: Any) -> int:
    try:
        return int(str(raw).strip())
    except (TypeError, ValueError):
        return 0
