from django import forms


class ChatForm(forms.Form):
    """The chat page's message box; the message rules (empty, too long) are the chat runner's.

    Confirm / reject buttons post the same form without a message: their name says the action.
    """

    message = forms.CharField(required=False, strip=False)
    conversation_id = forms.CharField(required=False, widget=forms.HiddenInput)
