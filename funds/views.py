"""The /funds/ page and its chat panel (DESIGN §8, §12): a view each.

Writes go through ``funds.services`` and ``agents.confirmations``; a refusal lands on the form that
asked (``core.pages.form_errors``). HTMX requests get the part they swap; without JavaScript
every form posts and redirects, or re-renders the page with the form open and its errors.
"""

import json
from functools import partial

from django.contrib import messages
from django.http import QueryDict
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from agents.chat import CHAT_PERMISSION, MAX_MESSAGE_LENGTH, conversation_transcript, run_chat
from agents.confirmations import (
    confirm_pending_action,
    outcome_message,
    reject_pending_action,
)
from agents.forms import ChatForm
from agents.models import Agent, Conversation, PendingAction
from agents.streaming import PageListener, streamed_turn, wants_stream
from core.auth import require_permissions, staff_page
from core.errors import ApplicationError
from core.pages import form_errors, render_page
from core.params import parse_id

from . import services
from .forms import FundForm, FundSearchForm, FundStatusForm
from .models import FUND_NAME_MAX_LENGTH, REMARKS_MAX_LENGTH
from .tools import FUND_FORM, FUNDS_PAGE, WRITE_TOOLS

TEMPLATE = "funds/page.html"
PARTS = ("list", "pending", "form", "chat", "chat-panel")
# HX-Trigger names: refresh the page's parts without waiting for the WebSocket; close the modal.
CHANGED_TRIGGER = "funds-changed"
FORM_DONE_TRIGGER = "fund-form-done"
CHAT_AGENT_KEY = "funds_chat_agent"


@staff_page("funds.view_fund")
@require_http_methods(["GET", "POST"])
def fund_page(request):
    """Fund list, create / edit modal, enable / disable, agents' proposals (the button's value says which)."""
    action = request.POST.get("action")
    if action in ("enable", "disable"):
        form = FundStatusForm(request.POST)
        notice = form.is_valid() and _set_status(request, form, enable=action == "enable")
        query = QueryDict(form.cleaned_data.get("query") or "")
        if not request.htmx:
            if notice:
                messages.success(request, notice)
            for error in _messages(form):
                messages.error(request, error)
            return redirect(f"{FUNDS_PAGE}?{query.urlencode()}" if query else FUNDS_PAGE)
        return _render(request, "list", query, notice=notice, status_form=form)
    if action in ("save", "confirm", "reject"):
        return _submit(request, action)
    if request.method == "POST":
        messages.error(request, _("无效的操作"))
        return redirect(FUNDS_PAGE)
    part, params = request.GET.get("part"), request.GET
    modal = part == "form" or bool({"form", "fund", "proposal"} & params.keys())
    response = _render(request, part, params, fund_form=_requested_form(params) if modal else None, form_open=modal)
    if part == "list" and request.htmx and request.htmx.trigger == "fund-search":  # keep the filter in the address bar
        response["HX-Push-Url"] = f"{FUNDS_PAGE}?{FundSearchForm(params).query()}"
    return response


@staff_page("funds.view_fund", CHAT_PERMISSION)
@require_POST
def fund_chat(request):
    """The chat panel: a fund agent answers in embedded mode (its proposals open the form here),
    streamed when the page asks (``agents.streaming``)."""
    agent = _chat_agent(request, request.POST.get("agent_id"))
    if agent is not None and request.POST.get("action") != "new" and wants_stream(request):
        return streamed_turn(request, partial(_chat_turn, request, agent))
    return _chat_turn(request, agent)


def _chat_turn(request, agent: Agent | None, listener: PageListener | None = None):
    """A message to ``agent`` (its reply streamed to ``listener`` when the page asked) or a new conversation; the panel after it."""
    form, trigger = ChatForm(request.POST), {}
    if agent is not None and request.POST.get("action") == "new":
        request.session.pop(_conversation_key(agent), None)
        form = ChatForm()
    elif agent is not None and form.is_valid():
        with form_errors(form):
            conversation = _current_conversation(request, agent)
            try:
                result = run_chat(
                    agent=agent, message=form.cleaned_data["message"], user=request.user, page=FUNDS_PAGE,
                    conversation_id=conversation.pk if conversation else None, mode=Conversation.Mode.EMBEDDED,
                    listener=listener,
                )
            except ApplicationError as exc:  # a model failure: the panel stays in the conversation that keeps the message
                if exc.extra.get("conversation_id"):
                    request.session[_conversation_key(agent)] = exc.extra["conversation_id"]
                raise
            request.session[_conversation_key(agent)] = result.conversation.pk
            form, trigger = ChatForm(), _proposal_trigger(result.tool_calls)
    if not request.htmx:
        for message in _messages(form):
            messages.error(request, message)
        return redirect(FUNDS_PAGE)
    response = _render(request, "chat-panel", QueryDict(), chat_form=form)
    if trigger:
        response["HX-Trigger"] = json.dumps(trigger)
    return response


def _set_status(request, form: FundStatusForm, *, enable: bool) -> str:
    """Enable or disable the row's fund; the notice to show, or "" when refused (the error is on the form)."""
    operation = services.enable_fund if enable else services.disable_fund
    with form_errors(form):
        require_permissions(request.user, "funds.change_fund")
        fund = operation(fund_id=form.cleaned_data["fund_id"], version=form.cleaned_data["version"], user=request.user)
        return (_("基金「%(name)s」已启用") if enable else _("基金「%(name)s」已停用")) % {"name": fund.fund_name}
    return ""


def _submit(request, action: str):
    """Save the modal's fund, or confirm / reject the proposal it shows."""
    if action == "save":
        form = FundForm.open(request.POST, fund_id=parse_id(request.POST.get("fund_id")))
    else:
        form = FundForm.open(request.POST, proposal_id=parse_id(request.POST.get("pending_action_id")) or 0)
    if form.is_valid():
        with form_errors(form):
            if action == "save":
                return _done(request, _save(request, form))
            decided = _decide(request, action, form)
            if decided.status != PendingAction.Status.FAILED:
                return _done(request, outcome_message(decided))
            form = FundForm(proposal=decided)  # closed: why it failed, and the fund's current values
    if form.proposal is not None:  # a refused decision: perhaps decided elsewhere meanwhile
        form.proposal.refresh_from_db()
        form.lock_unless_editable()
    return _form_response(request, form, changed=action != "save" and not form.pending)


def _save(request, form: FundForm) -> str:
    data = form.cleaned_data
    require_permissions(request.user, "funds.add_fund" if form.fund is None else "funds.change_fund")
    if form.fund is None:
        fund = services.create_fund(fund_name=data["fund_name"], remarks=data["remarks"], user=request.user)
        return _("基金「%(name)s」创建成功，ID 为 %(id)s") % {"name": fund.fund_name, "id": fund.pk}
    fund = services.update_fund(
        fund_id=form.fund.pk, version=data["version"], fund_name=data["fund_name"], remarks=data["remarks"], user=request.user
    )
    return _("基金「%(name)s」已保存（版本 %(version)s）") % {"name": fund.fund_name, "version": fund.version}


def _decide(request, action: str, form: FundForm) -> PendingAction:
    if action == "reject":
        return reject_pending_action(action_id=form.proposal.pk, user=request.user, reason=request.POST.get("reason", ""))
    return confirm_pending_action(action_id=form.proposal.pk, user=request.user, arguments=form.edits())


def _done(request, text: str):
    if not request.htmx:
        messages.success(request, text)
        return redirect(FUNDS_PAGE)
    response = _render(request, "form", QueryDict(), form_done=text)
    response["HX-Trigger"] = json.dumps({CHANGED_TRIGGER: {}, FORM_DONE_TRIGGER: {"message": text}})
    return response


def _form_response(request, form: FundForm, *, changed: bool):
    """The modal with ``form``: the part for HTMX, else the page with the modal open."""
    response = _render(request, "form", QueryDict(), fund_form=form, form_open=True)
    if changed:
        response["HX-Trigger"] = json.dumps({CHANGED_TRIGGER: {}})
    return response


def _requested_form(params: QueryDict) -> FundForm:
    """The modal as a link opens it: ``?proposal=ID``, ``?fund=ID``, or a new fund."""
    if params.get("proposal"):
        return FundForm.open(proposal_id=parse_id(params["proposal"]) or 0)
    return FundForm.open(fund_id=parse_id(params.get("fund")))


def _render(request, part: str | None, params: QueryDict, **context):
    """The page or one of its parts: the list as ``params`` search it, proposals, chat, and ``context``."""
    search = FundSearchForm(params)
    funds = search.page(params.get("page"))
    proposals = PendingAction.objects.open().filter(tool_name__in=WRITE_TOOLS).select_related("agent", "requested_by")
    context = {
        "funds_page": FUNDS_PAGE,
        "form_id": FUND_FORM,
        "funds": funds,
        **search.filters(),
        "filter_query": search.query(),
        "query": search.query(page=funds.number if funds.number > 1 else ""),
        "proposals": proposals.order_by("-created_at", "-id"),
        "name_max_length": FUND_NAME_MAX_LENGTH,
        "remarks_max_length": REMARKS_MAX_LENGTH,
        **_chat_context(request),
        **context,
    }
    return render_page(request, TEMPLATE, context, parts=PARTS, part=part)


def _chat_context(request) -> dict:
    agents = _fund_agents()
    agent = _chat_agent(request, request.GET.get("agent"), agents)
    conversation = _current_conversation(request, agent) if agent is not None else None
    return {
        "chat_agents": agents,
        "chat_agent": agent,
        "conversation": conversation,
        # Called by the template only when a part shows the chat.
        "transcript": partial(conversation_transcript, conversation) if conversation else [],
        "max_length": MAX_MESSAGE_LENGTH,
    }


def _chat_agent(request, raw: str | None, agents: list[Agent] | None = None) -> Agent | None:
    """The fund agent the chat panel talks to: the one asked for, else the last used, else the first."""
    if agents is None:
        agents = _fund_agents()
    by_id = {agent.pk: agent for agent in agents}
    for candidate in (parse_id(raw), request.session.get(CHAT_AGENT_KEY)):
        if candidate in by_id:
            if request.session.get(CHAT_AGENT_KEY) != candidate:
                request.session[CHAT_AGENT_KEY] = candidate
            return by_id[candidate]
    return agents[0] if agents else None


def _fund_agents() -> list[Agent]:
    """Active agents that may propose funds: the chat panel's choice."""
    return list(Agent.objects.filter(is_active=True, tools__name="create_fund", tools__is_active=True).order_by("id").distinct())


def _conversation_key(agent: Agent) -> str:
    return f"funds_chat_conversation_{agent.pk}"


def _current_conversation(request, agent: Agent) -> Conversation | None:
    conversation_id = request.session.get(_conversation_key(agent))
    return Conversation.objects.owned_by(request.user).filter(pk=conversation_id, agent=agent).first() if conversation_id else None


def _proposal_trigger(tool_calls: list[dict]) -> dict:
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


def _messages(form) -> list[str]:
    """Every error of ``form``, for a redirect's messages (a page without JavaScript)."""
    return [str(error) for errors in form.errors.values() for error in errors]
