"""The chat surfaces: API, management command and the HTMX page, on the offline rules provider."""

from __future__ import annotations

import json
from io import StringIO
from typing import Annotated

import pytest
from django.core.management import CommandError, call_command
from django.db.models import F

from agents.chat import run_chat
from agents.models import Agent, Conversation, Message, PendingAction, ToolCall
from agents.registry import Param, ToolContext, registry, tool
from agents.sync import sync_tools
from tests.agents.fixtures import endpoint  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def rules(settings):
    settings.AGENT_PROVIDER = "rules"


@pytest.fixture
def alice(make_agent):
    return make_agent("Alice", tools=("get_my_status",), credits=70)


def chat_url(agent):
    return f"/api/agents/{agent.pk}/chat/"


def test_api_chat_returns_reply_and_tool_calls(api_client, alice, staff_user):
    response = api_client.post(chat_url(alice), {"message": "我的状态"}, format="json")

    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"conversation_id", "reply", "tool_calls"}
    assert "信用点 70" in body["reply"]
    [call] = body["tool_calls"]
    assert (call["name"], call["arguments"], call["result"]["status"]) == ("get_my_status", {}, "success")
    conversation = Conversation.objects.get(pk=body["conversation_id"])
    assert (conversation.agent, conversation.user, conversation.mode) == (alice, staff_user, "standalone")


def test_api_chat_continues_a_conversation(api_client, alice):
    first = api_client.post(chat_url(alice), {"message": "我的状态"}, format="json").json()
    second = api_client.post(
        chat_url(alice), {"message": "my status", "conversation_id": first["conversation_id"]}, format="json"
    ).json()
    assert second["conversation_id"] == first["conversation_id"]
    assert "credits 70" in second["reply"] or "信用点 70" in second["reply"]
    assert Message.objects.filter(conversation_id=first["conversation_id"], role="user").count() == 2


@pytest.mark.parametrize(
    ("payload", "code", "field"),
    [
        ({}, "invalid_input", "message"),
        ({"message": ""}, "empty_message", "message"),
        ({"message": "   "}, "empty_message", "message"),
        ({"message": "x" * 4001}, "message_too_long", "message"),
        ({"message": ["我的状态"]}, "invalid_input", "message"),
        ({"message": "hi", "conversation_id": "abc"}, "invalid_input", "conversation_id"),
        ({"message": "hi", "conversation_id": 0}, "invalid_input", "conversation_id"),
    ],
)
def test_api_chat_bad_input_is_a_400_with_a_code(api_client, alice, payload, code, field):
    response = api_client.post(chat_url(alice), payload, format="json")
    assert response.status_code == 400
    body = response.json()
    assert (body["ok"], body["code"], body["field"]) == (False, code, field)
    assert not Conversation.objects.exists()


def test_api_chat_unknown_agent_is_404(api_client):
    response = api_client.post("/api/agents/999999/chat/", {"message": "hi"}, format="json")
    assert response.status_code == 404
    assert response.json()["code"] == "agent_not_found"


def test_api_chat_conversation_of_another_agent_is_404(api_client, alice, make_agent):
    theirs = Conversation.objects.create(agent=make_agent("Bob"))
    response = api_client.post(chat_url(alice), {"message": "hi", "conversation_id": theirs.pk}, format="json")
    assert response.status_code == 404
    assert response.json()["code"] == "conversation_not_found"
    assert not theirs.messages.exists()


def test_api_chat_needs_staff(client, alice, django_user_model):
    assert client.post(chat_url(alice), {"message": "hi"}).status_code in (401, 403)
    client.force_login(django_user_model.objects.create_user("guest", password="pw-guest-123"))
    assert client.post(chat_url(alice), {"message": "hi"}, content_type="application/json").status_code == 403
    assert not Conversation.objects.exists()


def test_chat_command_prints_tool_calls_and_reply(alice):
    out = StringIO()
    call_command("chat", "Alice", "我的状态", stdout=out)
    text = out.getvalue()
    assert "→ get_my_status({})" in text
    assert '"status": "success"' in text
    assert "信用点 70" in text
    conversation = Conversation.objects.get()
    assert f"[conversation {conversation.pk}]" in text


def test_chat_command_takes_an_id_and_continues_a_conversation(alice):
    call_command("chat", str(alice.pk), "hello", stdout=StringIO())
    conversation = Conversation.objects.get()
    call_command("chat", str(alice.pk), "my status", "--conversation", str(conversation.pk), stdout=StringIO())
    assert Conversation.objects.count() == 1
    assert conversation.messages.filter(role="user").count() == 2


@pytest.mark.parametrize(
    ("arguments", "code"),
    [(["Nobody", "hi"], "agent_not_found"), (["Alice", ""], "empty_message"), (["Alice", "hi", "--conversation", "999"], "conversation_not_found")],
)
def test_chat_command_errors_name_the_code(alice, arguments, code):
    with pytest.raises(CommandError, match=code):
        call_command("chat", *arguments, stdout=StringIO())


def page_url(agent):
    return f"/agents/{agent.pk}/chat/"


def test_chat_page_without_js_posts_and_redirects_to_the_conversation(client, staff_user, alice):
    client.force_login(staff_user)
    assert client.get(page_url(alice)).status_code == 200
    response = client.post(page_url(alice), {"message": "我的状态"})
    conversation = Conversation.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"{page_url(alice)}?conversation={conversation.pk}"
    page = client.get(response["Location"]).content.decode()
    assert "我的状态" in page and "get_my_status" in page and "信用点 70" in page
    assert 'data-status="success"' in page


def test_chat_page_htmx_post_returns_the_panel_only(client, staff_user, alice):
    client.force_login(staff_user)
    response = client.post(page_url(alice), {"message": "我的状态"}, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<section id="chat-panel"')
    assert "<html" not in html
    conversation = Conversation.objects.get()
    assert response["HX-Push-Url"].endswith(f"?conversation={conversation.pk}")
    assert f'name="conversation_id" value="{conversation.pk}"' in html


def test_the_first_message_updates_recent_conversations_without_a_reload(client, staff_user, alice):
    client.force_login(staff_user)
    html = client.post(page_url(alice), {"message": "我的状态"}, HTTP_HX_REQUEST="true").content.decode()
    conversation = Conversation.objects.get()
    recent = html.split('<aside class="card" id="recent-conversations" hx-swap-oob="true">', 1)[1]
    assert f'?conversation={conversation.pk}" aria-current="page">#{conversation.pk}</a>' in recent
    assert "暂无" not in recent


def test_chat_page_shows_an_inline_error_and_keeps_nothing(client, staff_user, alice):
    client.force_login(staff_user)
    response = client.post(page_url(alice), {"message": "   "}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert 'class="errorlist"' in response.content.decode()
    assert not Conversation.objects.exists()


def test_chat_page_escapes_model_and_user_html(client, staff_user, alice):
    client.force_login(staff_user)
    client.post(page_url(alice), {"message": "<script>alert('x')</script><img src=x onerror=alert(1)>"})
    conversation = Conversation.objects.get()
    html = client.get(f"{page_url(alice)}?conversation={conversation.pk}").content.decode()
    assert "<script>alert" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html


def test_chat_page_escapes_tool_results(client, staff_user, alice):
    conversation = Conversation.objects.create(agent=alice, user=staff_user)
    Message.objects.create(conversation=conversation, role="user", content="hi")
    Message.objects.create(
        conversation=conversation,
        role="assistant",
        content="<b>bold</b>",
        tool_calls=[{"id": "c1", "type": "function", "function": {"name": "get_my_status", "arguments": '{"x": "<i>"}'}}],
    )
    Message.objects.create(
        conversation=conversation, role="tool", name="get_my_status", tool_call_id="c1",
        content=json.dumps({"status": "error", "error": {"code": "x", "message": "<svg onload=alert(1)>"}}),
    )
    client.force_login(staff_user)
    html = client.get(f"{page_url(alice)}?conversation={conversation.pk}").content.decode()
    assert "<b>bold</b>" not in html and "&lt;b&gt;bold&lt;/b&gt;" in html
    assert "<svg" not in html and "&lt;svg onload=alert(1)&gt;" in html
    assert "<i>" not in html


def test_chat_page_of_another_agents_conversation_starts_fresh(client, staff_user, alice, make_agent):
    theirs = Conversation.objects.create(agent=make_agent("Bob"))
    Message.objects.create(conversation=theirs, role="user", content="Bob 的秘密")
    client.force_login(staff_user)
    html = client.get(f"{page_url(alice)}?conversation={theirs.pk}").content.decode()
    assert "Bob 的秘密" not in html


def test_chat_page_posting_to_another_agents_conversation_is_refused(client, staff_user, alice, make_agent):
    theirs = Conversation.objects.create(agent=make_agent("Bob"), user=staff_user)
    client.force_login(staff_user)
    response = client.post(page_url(alice), {"message": "hi", "conversation_id": str(theirs.pk)}, HTTP_HX_REQUEST="true")
    assert response.status_code == 404  # a conversation is found only with its own agent
    assert not Message.objects.exists()


def test_chat_page_needs_staff(client, alice, django_user_model):
    response = client.get(page_url(alice))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    client.force_login(django_user_model.objects.create_user("guest", password="pw-guest-123"))
    assert client.post(page_url(alice), {"message": "我的状态"}).status_code == 302
    assert not ToolCall.objects.exists()


def test_chat_page_of_unknown_agent_is_404(client, staff_user):
    client.force_login(staff_user)
    assert client.get("/agents/999999/chat/").status_code == 404


@tool(description="给自己加信用点（需确认）", category="action", requires_confirmation=True, permission="agents.change_agent", register_to=None)
def grant_me_credits(ctx: ToolContext, amount: Annotated[int, Param(ge=1, le=50)]) -> dict:
    Agent.objects.filter(pk=ctx.agent.pk).update(credits=F("credits") + amount)
    return {"message": f"已加 {amount} 信用点"}


@pytest.fixture
def proposal(endpoint, make_agent, staff_user):
    """A conversation in which the agent proposed a write that waits for staff."""
    with registry.register_temporarily(grant_me_credits):
        sync_tools()
        agent = make_agent("Carol", tools=("grant_me_credits",), credits=10)
        endpoint.tool_calls([("grant_me_credits", {"amount": 5})]).reply("请确认。")
        result = run_chat(agent=agent, message="给我加 5 信用点", user=staff_user)
        yield agent, result.conversation, PendingAction.objects.get()


def test_chat_page_shows_confirm_and_reject_for_a_pending_proposal(client, staff_user, proposal):
    agent, conversation, action = proposal
    client.force_login(staff_user)
    html = client.get(f"{page_url(agent)}?conversation={conversation.pk}").content.decode()
    assert f'name="pending_action_id" value="{action.pk}"' in html
    assert 'name="decide" value="confirm"' in html and 'name="decide" value="reject"' in html
    agent.refresh_from_db()
    assert agent.credits == 10  # nothing written before a human decides


def test_chat_page_confirm_runs_the_action_once(client, staff_user, proposal):
    agent, conversation, action = proposal
    client.force_login(staff_user)
    data = {"decide": "confirm", "pending_action_id": action.pk, "conversation_id": conversation.pk}
    response = client.post(page_url(agent), data, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    action.refresh_from_db()
    agent.refresh_from_db()
    assert (action.status, action.decided_by, agent.credits) == ("confirmed", staff_user, 15)
    assert "已加 5 信用点" in html and 'name="decide"' not in html
    again = client.post(page_url(agent), data, HTTP_HX_REQUEST="true").content.decode()
    assert 'class="errorlist"' in again
    agent.refresh_from_db()
    assert agent.credits == 15


def test_chat_page_reject_without_js_redirects_back(client, staff_user, proposal):
    agent, conversation, action = proposal
    client.force_login(staff_user)
    response = client.post(page_url(agent), {"decide": "reject", "pending_action_id": action.pk, "conversation_id": conversation.pk})
    assert response.status_code == 302 and response["Location"].endswith(f"?conversation={conversation.pk}")
    action.refresh_from_db()
    agent.refresh_from_db()
    assert (action.status, agent.credits) == ("rejected", 10)
    assert "已拒绝" in client.get(response["Location"]).content.decode()


def test_chat_page_cannot_decide_an_action_of_another_conversation(client, staff_user, proposal):
    agent, conversation, action = proposal
    other = Conversation.objects.create(agent=agent, user=staff_user)  # theirs too, but not the proposal's
    client.force_login(staff_user)
    response = client.post(
        page_url(agent), {"decide": "confirm", "pending_action_id": action.pk, "conversation_id": other.pk}, HTTP_HX_REQUEST="true"
    )
    assert "待确认操作不存在" in response.content.decode()
    action.refresh_from_db()
    assert action.status == "pending"
