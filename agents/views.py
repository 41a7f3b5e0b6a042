from django.contrib.admin.views.decorators import staff_member_required
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from .chat import MAX_MESSAGE_LENGTH, conversation_transcript, run_chat
from .errors import ApplicationError
from .models import Agent, Conversation


@require_GET
@staff_member_required
def home(request):
    agents = Agent.objects.filter(is_active=True).order_by("id")
    return render(request, "agents/home.html", {"agents": agents})


@staff_member_required
@require_http_methods(["GET", "POST"])
def agent_chat(request, pk: int):
    """Standalone chat with one agent: the conversation with its tool calls, and a message form."""
    agent = get_object_or_404(Agent, pk=pk)
    conversation, error, draft = None, "", ""
    if request.method == "POST":
        draft = request.POST.get("message", "")
        try:
            result = run_chat(
                agent=agent,
                message=draft,
                user=request.user,
                conversation_id=_conversation_id(request.POST.get("conversation_id")),
            )
        except ApplicationError as exc:
            error = exc.message
            conversation = _conversation(agent, request.POST.get("conversation_id"))
        else:
            conversation, draft = result.conversation, ""
            if not request.htmx:
                return redirect(f"{reverse('agents:chat', args=[agent.pk])}?conversation={conversation.pk}")
    else:
        conversation = _conversation(agent, request.GET.get("conversation"))
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
        if conversation is not None:
            response["HX-Push-Url"] = f"{reverse('agents:chat', args=[agent.pk])}?conversation={conversation.pk}"
        return response
    return render(request, "agents/chat.html", context)


def _conversation_id(raw: str | None) -> int | None:
    raw = (raw or "").strip()
    if not raw:
        return None
    if not raw.isdigit():
        raise ApplicationError("conversation_not_found", _("对话不存在"), field="conversation_id")
    return int(raw)


def _conversation(agent: Agent, raw: str | None) -> Conversation | None:
    """The agent's conversation named in the request, if it exists (else a fresh page)."""
    raw = (raw or "").strip()
    return Conversation.objects.filter(agent=agent, pk=int(raw)).first() if raw.isdigit() else None
