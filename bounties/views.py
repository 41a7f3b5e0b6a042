from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.db import transaction
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from agents.models import Agent
from core.errors import ApplicationError

from . import selectors, services
from .forms import BountyForm, CardActionForm

TEMPLATE = "bounties/board.html"
CARD_ACTIONS = ("claim", "complete", "cancel")
# Sent after an HTMX create so the board refreshes even without the WebSocket.
CHANGED_TRIGGER = "bounties-changed"


@staff_member_required
@require_http_methods(["GET", "POST"])
def board(request):
    """The bounty board: columns by status, a create form, claim/complete/cancel on each card."""
    form = BountyForm()
    card_errors: dict[int, str] = {}
    if request.method == "POST":
        if "create" in request.POST:
            form = BountyForm(request.POST)
            if _create(request, form):
                if not request.htmx:
                    return redirect("bounties:board")
                form = BountyForm()
                return _render(request, "create-form", form, card_errors, changed=True, notices=True)
            if request.htmx:
                return _render(request, "create-form", form, card_errors)
        else:
            changed = _card_action(request, card_errors)
            if changed and not request.htmx:
                return redirect("bounties:board")
            if request.htmx:
                return _render(request, "board", form, card_errors, notices=True)
    elif request.htmx and request.GET.get("part") == "board":
        return _render(request, "board", form, card_errors)
    return _render(request, None, form, card_errors)


def _create(request, form: BountyForm) -> bool:
    if not form.is_valid():
        return False
    try:
        with transaction.atomic():
            bounty = services.create_bounty(**form.cleaned_data, created_by=request.user)
    except ApplicationError as exc:
        form.add_error(exc.field if exc.field in form.fields else None, exc.message)
        return False
    messages.success(request, _("已发布悬赏#%(id)s「%(title)s」") % {"id": bounty.pk, "title": bounty.title})
    return True


def _card_action(request, card_errors: dict[int, str]) -> bool:
    action = next((name for name in CARD_ACTIONS if name in request.POST), None)
    form = CardActionForm(request.POST)
    if action is None or not form.is_valid():
        messages.error(request, _("无效的操作"))
        return False
    bounty_id, agent_id = form.cleaned_data["bounty_id"], form.cleaned_data["agent_id"]
    try:
        if action != "cancel" and agent_id is None:
            raise ApplicationError("agent_required", _("请选择居民"), field="agent_id")
        with transaction.atomic():
            if action == "claim":
                bounty = services.claim_bounty(agent_id=agent_id, bounty_id=bounty_id)
                text = _("%(agent)s 接取了悬赏「%(title)s」")
            elif action == "complete":
                bounty = services.complete_bounty(agent_id=agent_id, bounty_id=bounty_id)
                text = _("悬赏「%(title)s」已完成，%(agent)s 获得 %(reward)s 信用点")
            else:
                bounty = services.cancel_bounty(bounty_id=bounty_id)
                text = _("悬赏「%(title)s」已取消")
    except ApplicationError as exc:
        card_errors[bounty_id] = exc.message
        return False
    claimer = bounty.claimed_by.name if bounty.claimed_by_id else ""
    messages.success(request, text % {"agent": claimer, "title": bounty.title, "reward": bounty.reward})
    return True


def _render(
    request, part: str | None, form: BountyForm, card_errors: dict[int, str], *, changed: bool = False, notices: bool = False
):
    """The page, or one of its parts for HTMX; ``notices`` adds the action's outcome out of band."""
    context = {
        "form": form,
        "columns": selectors.bounty_board(),
        "counts": selectors.bounty_counts(),
        "agents": Agent.objects.filter(is_active=True).order_by("name"),
        "card_errors": card_errors,
    }
    template = f"{TEMPLATE}#{part}" if part else TEMPLATE
    response = render(request, template, context)
    if notices:
        response.write(render_to_string(f"{TEMPLATE}#notices", {"oob": True}, request=request))
    if changed:
        response["HX-Trigger"] = CHANGED_TRIGGER
    return response
