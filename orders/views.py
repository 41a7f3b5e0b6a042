from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from agents.chat import CHAT_PERMISSION, run_chat
from agents.confirmations import confirm_pending_action, reject_pending_action
from agents.models import Conversation, PendingAction
from core.auth import require_permissions, staff_page
from core.errors import NotFound
from core.pages import form_errors, render_page
from core.params import parse_id

from . import selectors, services
from .forms import ChannelMessageForm, DeskChatForm, MarkReadForm, RefundDecisionForm
from .models import ChannelMessage

TEMPLATE = "orders/desk.html"
PARTS = ("orders", "refunds", "channels", "chat")
# Sent with every HTMX answer that changed something, so the page refreshes without the WebSocket too.
CHANGED_TRIGGER = "orders-changed"


@staff_page("orders.view_order", "orders.view_channelmessage")
@require_http_methods(["GET", "POST"])
def desk(request):
    """The early-checkout desk: orders, the two channels, and a chat with the desk agent.

    The button's name says the action: ``chat``, ``send`` (in a channel), ``mark_read``, or
    ``decide`` (confirm / reject a refund the agent proposed).
    """
    state = DeskState(request)
    if request.method == "POST":
        if "chat" in request.POST:
            changed, part = state.chat(), "chat"
        elif "send" in request.POST:
            changed, part = state.send(), "channels"
        elif "mark_read" in request.POST:
            changed, part = state.mark_read(), "channels"
        elif "decide" in request.POST:
            changed, part = state.decide(), "refunds"
        else:
            changed, part = False, None
        if changed and not request.htmx:
            query = f"?conversation={state.conversation.pk}" if state.conversation else ""
            return redirect(reverse("orders:desk") + query)
        return state.render(part, changed=changed)
    return state.render(request.GET.get("part"))


class DeskState:
    """What one request to the desk page shows: forms, errors and the chat it continues."""

    def __init__(self, request):
        self.request = request
        self.conversation = self._conversation(request.GET.get("conversation"))
        self.chat_form = DeskChatForm(initial=self._chat_initial())
        self.message_forms = {channel: ChannelMessageForm(channel=channel) for channel in ChannelMessage.Channel.values}
        self.decision_form = RefundDecisionForm()

    def _conversation(self, raw) -> Conversation | None:
        conversation_id = parse_id(raw)
        if conversation_id is None:
            return None
        # Another staff member's conversation is not shown, exactly as if it did not exist.
        readable = Conversation.objects.readable_by(self.request.user)
        return readable.filter(pk=conversation_id, agent__in=selectors.desk_agents()).select_related("agent").first()

    def _chat_initial(self) -> dict:
        if self.conversation is None:
            return {}
        return {"agent": self.conversation.agent, "conversation_id": self.conversation.pk}

    def chat(self) -> bool:
        form = self.chat_form = DeskChatForm(self.request.POST)
        self.conversation = self._conversation(self.request.POST.get("conversation_id"))
        if not form.is_valid():
            return False
        data = form.cleaned_data
        # No transaction here: the runner must not hold one open while the model thinks.
        with form_errors(form):
            require_permissions(self.request.user, CHAT_PERMISSION)
            result = run_chat(
                agent=data["agent"], message=data["message"], user=self.request.user,
                conversation_id=data["conversation_id"], page=reverse("orders:desk"),
            )
            self.conversation = result.conversation
            self.chat_form = DeskChatForm(initial={"agent": data["agent"], "conversation_id": result.conversation.pk})
            return True
        return False

    def send(self) -> bool:
        channel = self.request.POST.get("channel", "")
        form = ChannelMessageForm(self.request.POST, channel=channel)
        if channel in self.message_forms:
            self.message_forms[channel] = form
        if not form.is_valid():
            return False
        with form_errors(form):
            require_permissions(self.request.user, "orders.add_channelmessage")
            services.send_message(
                channel=form.cleaned_data["channel"], content=form.cleaned_data["content"],
                order_no=form.cleaned_data["order_no"] or None,
            )
            self.message_forms[channel] = ChannelMessageForm(channel=channel)
            return True
        return False

    def mark_read(self) -> bool:
        form = MarkReadForm(self.request.POST)
        if not form.is_valid():
            return False
        with form_errors(form):
            require_permissions(self.request.user, "orders.change_channelmessage")
            services.mark_messages_read(channel=form.cleaned_data["mark_read"])
            return True
        return False

    def decide(self) -> bool:
        """Confirm or reject one refund proposal, as the staff member (never another tool's proposal)."""
        form = self.decision_form = RefundDecisionForm(self.request.POST)
        if not form.is_valid():
            return False
        with form_errors(form):
            action_id = form.cleaned_data["pending_action_id"]
            if not PendingAction.objects.filter(pk=action_id, tool_name="refund").exists():
                raise NotFound("pending_action_not_found", _("待确认操作不存在"))
            if form.cleaned_data["decide"] == "confirm":
                confirm_pending_action(action_id=action_id, user=self.request.user)
            else:
                reject_pending_action(action_id=action_id, user=self.request.user)
            return True
        return False

    def render(self, part: str | None, *, changed: bool = False):
        unread = selectors.unread_counts()
        channels = [
            {
                "value": value,
                "label": label,
                "messages": selectors.channel_messages(channel=value),
                "unread": unread[value],
                "form": self.message_forms[value],
            }
            for value, label in ChannelMessage.Channel.choices
        ]
        context = {
            "orders": selectors.order_list(),
            "pending_refunds": selectors.pending_refunds(),
            "decided_refunds": selectors.decided_refunds(),
            "decision_form": self.decision_form,
            "channels": channels,
            "chat_form": self.chat_form,
            "has_desk_agent": selectors.desk_agents().exists(),
            "transcript": selectors.chat_transcript(conversation=self.conversation),
        }
        response = render_page(self.request, TEMPLATE, context, parts=PARTS, part=part)
        if changed:
            response["HX-Trigger"] = CHANGED_TRIGGER
        return response
