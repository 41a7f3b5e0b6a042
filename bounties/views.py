from django.contrib import messages
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from city.selectors import residents
from core.auth import require_permissions, staff_page
from core.pages import form_errors, render_page

from . import selectors, services
from .forms import BountyForm, CardActionForm

TEMPLATE = "bounties/board.html"
PARTS = ("create-form", "board")
CARD_ACTIONS = ("claim", "complete", "cancel")
# Sent after an HTMX create so the board refreshes even without the WebSocket.
CHANGED_TRIGGER = "bounties-changed"


@staff_page("bounties.view_bounty")
@require_http_methods(["GET", "POST"])
def board(request):
    """The bounty board: columns by status, a create form, claim / complete / cancel on each card.

    The button's name says the action: ``create``, or one of ``CARD_ACTIONS`` on a card.
    """
    if request.method == "GET":
        return _render(request, part=request.GET.get("part"))
    if "create" in request.POST:
        form = BountyForm(request.POST)
        created = form.is_valid() and _create(request, form)
        if created and not request.htmx:
            return redirect("bounties:board")
        return _render(request, part="create-form", form=BountyForm() if created else form, changed=created, notices=created)
    done, card_form = _card_action(request)
    if done and not request.htmx:
        return redirect("bounties:board")
    return _render(request, part="board", card_form=card_form, notices=True)


def _create(request, form: BountyForm) -> bool:
    with form_errors(form):
        require_permissions(request.user, "bounties.add_bounty")
        bounty = services.create_bounty(**form.cleaned_data, created_by=request.user)
        messages.success(request, _("已发布悬赏#%(id)s「%(title)s」") % {"id": bounty.pk, "title": bounty.title})
        return True
    return False


def _card_action(request) -> tuple[bool, CardActionForm | None]:
    """Claim, complete or cancel one bounty; on a refusal, also the form that carries it to its card."""
    action = next((name for name in CARD_ACTIONS if name in request.POST), None)
    form = CardActionForm(request.POST)
    if action is None or not form.is_valid():
        messages.error(request, _("无效的操作"))
        return False, None
    bounty_id, agent_id = form.cleaned_data["bounty_id"], form.cleaned_data["agent_id"]
    if action != "cancel" and agent_id is None:
        form.add_error("agent_id", _("请选择居民"))
        return False, form
    with form_errors(form):
        require_permissions(request.user, "bounties.change_bounty")
        if action == "claim":
            bounty = services.claim_bounty(agent_id=agent_id, bounty_id=bounty_id)
            text = _("%(agent)s 接取了悬赏「%(title)s」")
        elif action == "complete":
            bounty = services.complete_bounty(agent_id=agent_id, bounty_id=bounty_id)
            text = _("悬赏「%(title)s」已完成，%(agent)s 获得 %(reward)s 信用点")
        else:
            bounty = services.cancel_bounty(bounty_id=bounty_id)
            text = _("悬赏「%(title)s」已取消")
        claimer = bounty.claimed_by.name if bounty.claimed_by_id else ""
        messages.success(request, text % {"agent": claimer, "title": bounty.title, "reward": bounty.reward})
        return True, None
    return False, form


def _render(
    request, *, part: str | None, form: BountyForm | None = None, card_form: CardActionForm | None = None,
    changed: bool = False, notices: bool = False,
):
    """The page, or one of its parts for HTMX; ``notices`` adds the action's outcome out of band."""
    context = {
        "form": form or BountyForm(),
        "columns": selectors.bounty_board(),
        "counts": selectors.bounty_counts(),
        "agents": residents().order_by("name"),
        "card_form": card_form,
    }
    response = render_page(request, TEMPLATE, context, parts=PARTS, part=part)
    if notices and request.htmx:
        response.write(render_to_string(f"{TEMPLATE}#notices", {"oob": True}, request=request))
    if changed:
        response["HX-Trigger"] = CHANGED_TRIGGER
    return response
