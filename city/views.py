from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from agents.confirmations import confirm_pending_action, outcome_message, reject_pending_action
from agents.models import PendingAction
from core.errors import ApplicationError

from . import selectors, services
from .forms import TransferForm
from .models import ResourceTransfer

TEMPLATE = "city/trade.html"
PARTS = ("resources", "history", "proposals", "transfer-form")
# Sent after an HTMX transfer so the tables refresh even without the WebSocket.
CHANGED_TRIGGER = "city-changed"


@staff_member_required
@require_http_methods(["GET", "POST"])
def trade(request):
    """Every agent's stock, a transfer form, the ledger (live), and agents' proposed transfers."""
    if request.method == "POST":
        return _post(request)
    part = request.GET.get("part")
    if part is not None and part not in PARTS:
        raise Http404("unknown part")
    return _render(request, part, _prefilled_form(request.GET.get("pending")))


def _post(request):
    form = TransferForm(request.POST)
    if "reject" in request.POST:
        done = _reject(request, form)
    elif form.is_valid() and form.cleaned_data["pending_action_id"]:
        done = _confirm(request, form)
    else:
        done = _transfer(request, form)
    if done and not request.htmx:
        return redirect("city:trade")
    if not request.htmx:
        return _render(request, None, form)
    return _render(request, "transfer-form", TransferForm() if done else form, changed=done)


def _transfer(request, form: TransferForm) -> bool:
    if not form.is_valid():
        return False
    try:
        transfer = services.transfer_resource(
            **form.transfer_arguments(), source=ResourceTransfer.Source.PAGE, user=request.user
        )
    except ApplicationError as exc:
        form.add_error(exc.field if exc.field in form.fields else None, exc.message)
        return False
    messages.success(
        request,
        _("%(sender)s → %(receiver)s：%(message)s")
        % {"sender": transfer.from_agent.name, "receiver": transfer.to_agent.name, "message": services.transfer_message(transfer)},
    )
    return True


def _confirm(request, form: TransferForm) -> bool:
    """Run an agent's proposed transfer as this staff member, with the values as edited in the form."""
    action = _pending_transfer(form.cleaned_data["pending_action_id"])
    arguments = form.transfer_arguments()
    if action is None or arguments.pop("from_agent_id") != action.agent_id:
        form.add_error(None, _("该提议已处理或发送方已被修改，请重新选择"))
        return False
    try:
        action = confirm_pending_action(action_id=action.pk, user=request.user, arguments=arguments)
    except ApplicationError as exc:
        form.add_error(exc.field if exc.field in form.fields else None, exc.message)
        return False
    except PermissionDenied as exc:
        form.add_error(None, str(exc))
        return False
    if action.status != PendingAction.Status.CONFIRMED:
        form.add_error(None, outcome_message(action))
        return False
    messages.success(request, outcome_message(action))
    return True


def _reject(request, form: TransferForm) -> bool:
    action = _pending_transfer(_as_id(request.POST.get("pending_action_id")))
    if action is None:
        form.add_error(None, _("该提议已处理或不存在"))
        return False
    try:
        action = reject_pending_action(action_id=action.pk, user=request.user)
    except (ApplicationError, PermissionDenied) as exc:
        form.add_error(None, getattr(exc, "message", str(exc)))
        return False
    messages.success(request, outcome_message(action))
    return True


def _as_id(raw) -> int | None:
    try:
        return int(raw)
    except (TypeError, ValueError):
        return None


def _pending_transfer(action_id: int | None) -> PendingAction | None:
    return selectors.pending_transfers().filter(pk=action_id).first() if action_id else None


def _prefilled_form(raw_id: str | None) -> TransferForm:
    """An empty form, or one filled with an agent's pending proposal (``?pending=ID``)."""
    action = _pending_transfer(_as_id(raw_id))
    if action is None:
        return TransferForm()
    return TransferForm(initial={**action.arguments, "from_agent_id": action.agent_id, "pending_action_id": action.pk})


def _render(request, part: str | None, form: TransferForm, *, changed: bool = False):
    resource_types, rows = selectors.resource_table()
    context = {
        "form": form,
        "proposal": _pending_transfer(_as_id(form["pending_action_id"].value())),
        "resource_types": resource_types,
        "rows": rows,
        "transfers": selectors.transfer_history()[: selectors.HISTORY_LIMIT],
        "proposals": selectors.pending_transfers(),
    }
    response = render(request, f"{TEMPLATE}#{part}" if part else TEMPLATE, context)
    if changed:
        response["HX-Trigger"] = CHANGED_TRIGGER
    return response
