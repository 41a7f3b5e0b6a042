from urllib.parse import urlencode

from agents.confirmations import outcome_message
from django import forms
from django.core.paginator import Page, Paginator
from django.utils.functional import cached_property
from django.utils.translation import gettext as _

from agents.models import PendingAction
from agents.selectors import pending_action_review
from core.errors import NotFound
from core.pages import form_errors

from . import selectors
from .models import Fund
from .tools import WRITE_TOOLS

PAGE_SIZE = 20

EDITABLE_TOOLS = ("create_fund", "update_fund")
TARGET_STATUS = {"enable_fund": Fund.ActiveStatus.ENABLE, "disable_fund": Fund.ActiveStatus.DISABLE}


class FundSearchForm(forms.Form):
    """The list's search box and filter, and the query string that keeps them across pages."""

    fund_name = forms.CharField(required=False)
    active_only = forms.BooleanField(required=False)

    def filters(self) -> dict:
        self.is_valid()  # every field is optional: a bad value is simply no filter
        return {"fund_name": self.cleaned_data.get("fund_name", ""), "active_only": bool(self.cleaned_data.get("active_only"))}

    def page(self, number) -> Page:
        """The funds found, ``PAGE_SIZE`` to a page (the last one for a number past it)."""
        return Paginator(selectors.fund_list(**self.filters()), PAGE_SIZE).get_page(number)

    def query(self, **extra) -> str:
        filters = self.filters()
        shown = {"fund_name": filters["fund_name"], "active_only": "1" if filters["active_only"] else "", **extra}
        return urlencode({key: value for key, value in shown.items() if value})


class FundStatusForm(forms.Form):
    """A list row's enable / disable button: the fund, the version the row shows, the list's query."""

    fund_id = forms.IntegerField(required=False, widget=forms.HiddenInput)
    version = forms.IntegerField(required=False, widget=forms.HiddenInput)
    query = forms.CharField(required=False, widget=forms.HiddenInput)


class FundForm(forms.Form):
    """The modal: a new fund, an edit of ``fund`` (as of the version read), or an agent's ``proposal``.

    Shape only: the rules are the services'. A proposal's values are editable only for create /
    update and while it is pending; otherwise the form shows what was proposed. ``missing`` is
    the form of a fund or proposal that does not exist: closed, with the error.
    """

    # Unstripped: the services (and a proposal's tool) see what staff typed, and judge it.
    fund_name = forms.CharField(required=False, strip=False)
    remarks = forms.CharField(required=False, strip=False)
    fund_id = forms.IntegerField(required=False, widget=forms.HiddenInput)
    version = forms.IntegerField(required=False, widget=forms.HiddenInput)
    pending_action_id = forms.IntegerField(required=False, widget=forms.HiddenInput)

    def __init__(self, data=None, *, fund: Fund | None = None, proposal: PendingAction | None = None, missing: bool = False):
        self.proposal, self.missing = proposal, missing
        if proposal is not None and fund is None and proposal.arguments.get("fund_id"):
            fund = Fund.objects.filter(pk=proposal.arguments["fund_id"]).first()
        self.fund = fund
        super().__init__(data, initial=self._initial())
        self.lock_unless_editable()

    @classmethod
    def open(cls, data=None, *, fund_id: int | None = None, proposal_id: int | None = None) -> "FundForm":
        """The form for a fund, an agent's proposal (whatever its status), or a new fund; a closed
        one saying so when the fund or proposal does not exist."""
        missing = cls(data if data is not None else {}, missing=True)
        with form_errors(missing):
            if proposal_id is not None:
                return cls(data, proposal=_fund_proposal(proposal_id))
            if fund_id is not None:
                return cls(data, fund=selectors.fund_get(fund_id=fund_id))
            return cls(data)
        return missing

    def _initial(self) -> dict:
        fund = self.fund
        initial = {"fund_name": fund.fund_name, "remarks": fund.remarks} if fund else {"fund_name": "", "remarks": ""}
        if self.proposal is not None:
            initial.update({key: self.proposal.arguments[key] for key in ("fund_name", "remarks") if key in self.proposal.arguments})
            return {**initial, "pending_action_id": self.proposal.pk}
        if fund is not None:
            return {**initial, "fund_id": fund.pk, "version": fund.version}
        return initial

    def lock_unless_editable(self) -> None:
        """A form staff may not edit shows its initial values (a disabled field ignores posted data)."""
        for name in ("fund_name", "remarks"):
            self.fields[name].disabled = not self.editable

    @property
    def pending(self) -> bool:
        return self.proposal is not None and self.proposal.status == PendingAction.Status.PENDING

    @property
    def closed(self) -> bool:
        return self.missing or (self.proposal is not None and not self.pending)

    @property
    def editable(self) -> bool:
        if self.proposal is not None:
            return self.pending and self.proposal.tool_name in EDITABLE_TOOLS
        return not self.missing

    def edits(self) -> dict | None:
        """Staff's edits of the proposal, as tool arguments (only create / update have fields)."""
        if self.proposal is None or self.proposal.tool_name not in EDITABLE_TOOLS:
            return None
        return {"fund_name": self.cleaned_data["fund_name"], "remarks": self.cleaned_data["remarks"]}

    @cached_property
    def review(self) -> dict | None:
        """Proposed against current values, while the proposal about an existing fund is pending."""
        return pending_action_review(self.proposal) if self.pending and self.fund else None

    @property
    def outcome(self) -> str:
        return outcome_message(self.proposal) if self.proposal is not None and not self.pending else ""

    @property
    def current(self) -> dict | None:
        """The fund's values when a confirmation failed on a stale version."""
        return ((self.proposal.result or {}).get("error") or {}).get("current") if self.proposal is not None else None

    @property
    def target_status(self) -> str:
        status = TARGET_STATUS.get(self.proposal.tool_name) if self.proposal is not None else None
        return status.label if status else ""


def _fund_proposal(action_id: int) -> PendingAction:
    action = PendingAction.objects.filter(pk=action_id, tool_name__in=WRITE_TOOLS).select_related("agent").first()
    if action is None:
        raise NotFound("pending_action_not_found", _("待确认操作不存在"))
    return action
