from django import forms
from django.utils.translation import gettext_lazy as _

from core.params import MAX_ID

from . import selectors
from .models import ChannelMessage


class DeskChatForm(forms.Form):
    """A line for the desk agent; the message rules (empty, too long) are the chat runner's."""

    agent = forms.ModelChoiceField(label=_("助理"), queryset=selectors.desk_agents(), empty_label=None)
    message = forms.CharField(
        label=_("消息"), required=False,
        widget=forms.Textarea(attrs={"rows": 2, "placeholder": _("例如：客人要提前离店，订单 HT20260301001")}),
    )
    conversation_id = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)


class ChannelMessageForm(forms.Form):
    """Staff write in a channel as the desk; channel, content and order are checked by the service."""

    channel = forms.CharField(widget=forms.HiddenInput)
    order_no = forms.ChoiceField(label=_("订单"), required=False)
    content = forms.CharField(label=_("内容"), required=False, widget=forms.Textarea(attrs={"rows": 2}))

    def __init__(self, *args, channel: str, **kwargs):
        # Both channels' forms are on one page: their element ids must differ. The posted channel
        # is untrusted and auto_id is a %-format, so only a known channel goes into it.
        kwargs.setdefault("initial", {"channel": channel})
        prefix = channel if channel in ChannelMessage.Channel.values else "channel"
        super().__init__(*args, auto_id=f"id_{prefix}_%s", **kwargs)
        self.fields["order_no"].choices = [("", _("（不关联订单）"))] + [
            (order_no, order_no) for order_no in selectors.order_numbers()
        ]


class MarkReadForm(forms.Form):
    """A channel's "mark read" button: its value names the channel (checked by the service)."""

    mark_read = forms.CharField()


class RefundDecisionForm(forms.Form):
    """A pending refund's Confirm / Reject button: the button's value says which, the hidden field which proposal."""

    decide = forms.ChoiceField(choices=[("confirm", _("确认退款")), ("reject", _("拒绝"))])
    pending_action_id = forms.IntegerField(min_value=1, max_value=MAX_ID, widget=forms.HiddenInput)
