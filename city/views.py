from django.contrib import messages
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from agents.confirmations import (
    confirm_pending_action,
    outcome_message,
    reject_pending_action,
)
from agents.models import PendingAction
from core.auth import has_permissions, require_permissions, staff_page
from core.pages import form_errors, render_page
from core.params import parse_id

from . import selectors, services
from .forms import TransferForm
from .models import TRANSFER_PERMISSION, ResourceTransfer
from .overview import CityOverview

OVERVIEW_TEMPLATE = "city/overview.html"
# Each panel of the overview, and the permission to see it: staff see the panels of their role.
OVERVIEW_PANELS = {
    "residents": ("agents.view_agent", "city.view_agentresource"),
    "economy": ("city.view_resourcetransfer",),
    "agents-work": ("agents.view_toolcall",),
    "ticks": ("agents.view_autonomyround",),
}
TEMPLATE = "city/trade.html"
PARTS = ("resources", "history", "proposals", "transfer-form")
# Sent after an HTMX transfer so the tables refresh even without the WebSocket.
CHANGED_TRIGGER = "city-changed"


@require_GET
@staff_page()
def overview(request):
    """The city and its agents at a glance: residents (filtered, sorted), economy, agents' work, ticks; all live."""
    panels = [name for name, permissions in OVERVIEW_PANELS.items() if has_permissions(request.user, permissions)]
    city = CityOverview(show=request.GET.get("show", "all"), sort=request.GET.get("sort", "name"))
    return render_page(request, OVERVIEW_TEMPLATE, {"city": city, "panels": panels}, parts=panels, part=request.GET.get("part"))


@staff_page("city.view_resourcetransfer")
@require_http_methods(["GET", "POST"])
def trade(request):
    """Every agent's stock, a transfer form, the ledger (live), and agents' proposed transfers.

    The form's button says what to do: transfer, confirm an agent's proposal (as edited), or reject it.
    """
    if request.method == "GET":
        return _render(request, _prefilled_form(request.GET.get("pending")), part=request.GET.get("part"))
    form = TransferForm(request.POST)
    if "reject" in request.POST:
        done = _reject(request, form)
    elif not form.is_valid():
        done = False
    elif form.cleaned_data["pending_action_id"]:
        done = _confirm(request, form)
    else:
        done = _transfer(request, form)
    if done and not request.htmx:
        return redirect("city:trade")
    response = _render(request, TransferForm() if done else form, part="transfer-form")
    if done:
        response["HX-Trigger"] = CHANGED_TRIGGER
    return response


def _transfer(request, form: TransferForm) -> bool:
    with form_errors(form):
        require_permissions(request.user, TRANSFER_PERMISSION)
        transfer = services.transfer_resource(**form.transfer_arguments(), source=ResourceTransfer.Source.PAGE, user=request.user)
        names = {"sender": transfer.from_agent.name, "receiver": transfer.to_agent.name}
        messages.success(request, _("%(sender)s → %(receiver)s：%(message)s") % {**names, "message": services.transfer_message(transfer)})
        return True
    return False


def _confirm(request, form: TransferForm) -> bool:
    """Run an agent's proposed transfer as this staff member, with the values as edited in the form."""
    action = _pending_transfer(form.cleaned_data["pending_action_id"])
    arguments = form.transfer_arguments()
    if action is None or arguments.pop("from_agent_id") != action.agent_id:
        form.add_error(None, _("该提议已处理或发送方已被修改，请重新选择"))
        return False
    with form_errors(form):
        action = confirm_pending_action(action_id=action.pk, user=request.user, arguments=arguments)
        if action.status != PendingAction.Status.CONFIRMED:
            form.add_error(None, outcome_message(action))
            return False
        messages.success(request, outcome_message(action))
        return True
    return False


def _reject(request, form: TransferForm) -> bool:
    action = _pending_transfer(parse_id(request.POST.get("pending_action_id")))
    if action is None:
        form.add_error(None, _("该提议已处理或不存在"))
        return False
    with form_errors(form):
        action = reject_pending_action(action_id=action.pk, user=request.user)
        messages.success(request, outcome_message(action))
        return True
    return False


def _pending_transfer(action_id: int | None) -> PendingAction | None:
    return selectors.pending_transfers().filter(pk=action_id).first() if action_id else None


def _prefilled_form(raw_id: str | None) -> TransferForm:
    """An empty form, or one filled with an agent's pending proposal (``?pending=ID``)."""
    action = _pending_transfer(parse_id(raw_id))
    if action is None:
        return TransferForm()
    return TransferForm(initial={**action.arguments, "from_agent_id": action.agent_id, "pending_action_id": action.pk})


def _render(request, form: TransferForm, *, part: str | None):
    resource_types, rows = selectors.resource_table()
    context = {
        "form": form,
        "proposal": _pending_transfer(parse_id(form["pending_action_id"].value())),
        "resource_types": resource_types,
        "rows": rows,
        "transfers": selectors.transfer_history()[: selectors.HISTORY_LIMIT],
        "proposals": selectors.pending_transfers(),
    }
    return render_page(request, TEMPLATE, context, parts=PARTS, part=part)
