from django import forms
from django.utils.translation import gettext_lazy as _

from agents.models import Agent

from .models import ResourceType
from .selectors import residents


class TransferForm(forms.Form):
    """Shape of the trade page's transfer form; the rules are the service's.

    Field names are the service's (and the API's), so a service error naming a field lands
    next to that field.
    """

    from_agent_id = forms.ModelChoiceField(label=_("发送方"), queryset=Agent.objects.none())
    to_agent_id = forms.ModelChoiceField(label=_("接收方"), queryset=Agent.objects.none())
    resource_type = forms.ModelChoiceField(
        label=_("资源"), queryset=ResourceType.objects.order_by("slug"), to_field_name="slug"
    )
    # No min/max on the input: the service's invalid_quantity message is the one staff see.
    quantity = forms.IntegerField(label=_("数量"))
    # Set when the form confirms an agent's proposed transfer (a PendingAction).
    pending_action_id = forms.IntegerField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Residents only: the fund assistant and the front desk hold no goods to give.
        for name in ("from_agent_id", "to_agent_id"):
            self.fields[name].queryset = residents().order_by("name")

    def transfer_arguments(self) -> dict:
        data = self.cleaned_data
        return {
            "from_agent_id": data["from_agent_id"].pk,
            "to_agent_id": data["to_agent_id"].pk,
            "resource_type": data["resource_type"].slug,
            "quantity": data["quantity"],
        }
