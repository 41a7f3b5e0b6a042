from functools import partial

from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from core.auth import staff_page
from core.errors import ApplicationError, NotFound
from core.pages import form_errors, render_page
from core.params import parse_id

from .chat import CHAT_PERMISSION, MAX_MESSAGE_LENGTH, conversation_transcript, run_chat
from .confirmations import confirm_pending_action, reject_pending_action
from .forms import ChatForm
from .models import Agent, Conversation
from .selectors import conversation_awaits_reply
from .streaming import PageListener, streamed_turn, wants_stream

CHAT_TEMPLATE = "agents/chat.html"
CHAT_PARTS = ("chat-panel", "recent")


@staff_page(CHAT_PERMISSION)
@require_http_methods(["GET", "POST"])
def agent_chat(request, pk: int):
    """Standalone chat with one agent: the conversation with its tool calls and their results, a
    message form, and confirm / reject on the agent's pending proposals. Buttons tell actions apart.
    A page that asks for a stream gets the reply as it is written (``agents.streaming``); after Stop
    it asks for the list of conversations alone (``?part=recent``) until the stopped reply is stored."""
    agent = get_object_or_404(Agent, pk=pk)
    if request.method == "GET":
        conversation = _conversation(request, agent, request.GET.get("conversation"))
        return _render(request, agent, conversation, ChatForm(), part=request.GET.get("part"))
    form = ChatForm(request.POST)
    form.is_valid()  # every field is optional: the rules are the runner's and the services'
    conversation = _conversation(request, agent, form.cleaned_data["conversation_id"])
    if "decide" not in request.POST and wants_stream(request):
        return streamed_turn(request, partial(_post, request, agent, form, conversation))
    return _post(request, agent, form, conversation)


def _post(request, agent: Agent, form: ChatForm, conversation: Conversation | None, listener: PageListener | None = None):
    """A message (its reply streamed to ``listener`` when the page asked) or a decision; the panel after it."""
    with form_errors(form):
        if "decide" in request.POST:
            _decide(request, conversation)
        else:
            conversation_id = _conversation_id(form.cleaned_data["conversation_id"])
            try:
                result = run_chat(
                    agent=agent, message=form.cleaned_data["message"], user=request.user, conversation_id=conversation_id,
                    listener=listener,
                )
            except ApplicationError as exc:  # a model failure: show the conversation that keeps the message
                conversation = _conversation(request, agent, str(exc.extra.get("conversation_id", ""))) or conversation
                raise
            conversation = result.conversation
        if not request.htmx:
            return redirect(_chat_url(agent, conversation))
        form = ChatForm()
    response = _render(request, agent, conversation, form, part="chat-panel")
    if request.htmx:
        response["HX-Push-Url"] = _chat_url(agent, conversation)
    return response


def _render(request, agent: Agent, conversation: Conversation | None, form: ChatForm, *, part: str | None = None):
    list_only = part == "recent" and request.htmx  # what a page asks for after Stop
    context = {
        "agent": agent,
        "conversation": conversation,
        "transcript": conversation_transcript(conversation) if conversation and not list_only else [],
        "recent": Conversation.objects.readable_by(request.user).filter(agent=agent).order_by("-updated_at")[:20],
        "awaiting_reply": conversation is not None and conversation_awaits_reply(conversation=conversation),
        "form": form,
        "max_length": MAX_MESSAGE_LENGTH,
    }
    return render_page(request, CHAT_TEMPLATE, context, parts=CHAT_PARTS, part=part)


def _chat_url(agent: Agent, conversation: Conversation | None) -> str:
    url = reverse("agents:chat", args=[agent.pk])
    return f"{url}?conversation={conversation.pk}" if conversation is not None else url


def _decide(request, conversation: Conversation | None) -> None:
    """Confirm or reject one pending action proposed in this conversation (never another's)."""
    action = None
    if conversation is not None and (action_id := parse_id(request.POST.get("pending_action_id"))) is not None:
        action = conversation.pending_actions.filter(pk=action_id).first()
    if action is None:
        raise NotFound("pending_action_not_found", _("待确认操作不存在"))
    if request.POST["decide"] == "confirm":
        confirm_pending_action(action_id=action.pk, user=request.user)
    else:
        reject_pending_action(action_id=action.pk, user=request.user)


def _conversation_id(raw: str) -> int | None:
    raw = raw.strip()
    if not raw:
        return None
    conversation_id = parse_id(raw)
    if conversation_id is None:
        raise ApplicationError("conversation_not_found", _("对话不存在"), field="conversation_id")
    return conversation_id


def _conversation(request, agent: Agent, raw: str | None) -> Conversation | None:
    """The agent's conversation named in the request (none, or no id at all: a fresh page). One the
    user may not read is a 404, exactly like one that does not exist."""
    conversation_id = parse_id(raw)
    if conversation_id is None:
        return None
    return get_object_or_404(Conversation.objects.readable_by(request.user), agent=agent, pk=conversation_id)
