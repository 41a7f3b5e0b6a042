from django.contrib.admin.views.decorators import staff_member_required
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from core.errors import ApplicationError, NotFound
from core.params import parse_id

from .chat import MAX_MESSAGE_LENGTH, conversation_transcript, run_chat
from .confirmations import confirm_pending_action, reject_pending_action
from .models import Agent, Conversation


@require_GET
@staff_member_required
def home(request):
    agents = Agent.objects.filter(is_active=True).order_by("id")
    return render(request, "agents/home.html", {"agents": agents})


@staff_member_required
@require_http_methods(["GET", "POST"])
def agent_chat(request, pk: int):
    """Standalone chat with one agent: the conversation with its tool calls and their results, a
    message form, and confirm / reject on the agent's pending proposals. Buttons tell actions apart."""
    agent = get_object_or_404(Agent, pk=pk)
    raw_conversation = request.POST.get("conversation_id") if request.method == "POST" else request.GET.get("conversation")
    conversation = _conversation(agent, raw_conversation)
    error, draft = "", ""
    if request.method == "POST":
        try:
            if "decide" in request.POST:
                _decide(request, conversation)
            else:
                draft = request.POST.get("message", "")
                result = run_chat(
                    agent=agent, message=draft, user=request.user, conversation_id=_conversation_id(raw_conversation)
                )
                conversation, draft = result.conversation, ""
        except ApplicationError as exc:
            error = exc.message
        else:
            if not request.htmx:
                return redirect(_chat_url(agent, conversation))
    context = {
        "agent": agent,
        "conversation": conversation,
        "transcript": conversation_transcript(conversation) if conversation else [],
        "recent": Conversation.objects.filter(agent=agent).order_by("-updated_at")[:20],
        "error": error,
        "draft": draft,
        "max_length": MAX_MESSAGE_LENGTH,
    }
    if request.htmx and request.method == "POST":
        response = render(request, "agents/chat.html#chat-panel", context)
        response["HX-Push-Url"] = _chat_url(agent, conversation)
        return response
    return render(request, "agents/chat.html", context)


def _chat_url(agent: Agent, conversation: Conversation | None) -> str:
    url = reverse("agents:chat", args=[agent.pk])
    return f"{url}?conversation={conversation.pk}" if conversation is not None else url


def _decide(request, conversation: Conversation | None) -> None:
    """Confirm or reject one pending action proposed in this conversation (never another's)."""
    raw = request.POST.get("pending_action_id", "")
    action = None
    if conversation is not None and (action_id := parse_id(raw)) is not None:
        action = conversation.pending_actions.filter(pk=action_id).first()
    if action is None:
        raise NotFound("pending_action_not_found", _("待确认操作不存在"))
    if request.POST["decide"] == "confirm":
        confirm_pending_action(action_id=action.pk, user=request.user)
    else:
        reject_pending_action(action_id=action.pk, user=request.user)


def _conversation_id(raw: str | None) -> int | None:
    raw = (raw or "").strip()
    if not raw:
        return None
    conversation_id = parse_id(raw)
    if conversation_id is None:
        raise ApplicationError("conversation_not_found", _("对话不存在"), field="conversation_id")
    return conversation_id


def _conversation(agent: Agent, raw: str | None) -> Conversation | None:
    """The agent's conversation named in the request, if it exists (else a fresh page)."""
    conversation_id = parse_id(raw)
    return Conversation.objects.filter(agent=agent, pk=conversation_id).first() if conversation_id else None
