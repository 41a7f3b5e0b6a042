from django import forms
from django.utils.translation import gettext_lazy as _

from .models import MAX_REWARD


class BountyForm(forms.Form):
    """Shape of the create form; the rules (title required, reward range) are the service's."""

    title = forms.CharField(label=_("标题"), required=False)
    description = forms.CharField(label=_("描述"), required=False, widget=forms.Textarea(attrs={"rows": 2}))
    reward = forms.IntegerField(
        label=_("奖励"), required=False, widget=forms.NumberInput(attrs={"min": 1, "max": MAX_REWARD})
    )


class CardActionForm(forms.Form):
    """A button on a bounty card: which bounty, and on behalf of which agent."""

    bounty_id = forms.IntegerField(min_value=1)
    agent_id = forms.IntegerField(min_value=1, required=False)
