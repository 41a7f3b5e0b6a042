"""Honest failure: a model that fails is a 502 / 503 / 504 everywhere, with a reason staff can act on."""

from __future__ import annotations

import socket

import pytest
from django.core.management import CommandError, call_command

from agents.models import Conversation
from tests.agents.fixtures import endpoint  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice(make_agent):
    return make_agent("Alice", tools=("get_my_status",), credits=70)


@pytest.fixture
def closed_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def chat(api_client, agent, message="在吗"):
    return api_client.post(f"/api/agents/{agent.pk}/chat/", {"message": message}, format="json")


def assert_failure_body(response, status, code):
    assert response.status_code == status
    body = response.json()
    assert (body["ok"], body["code"]) == (False, code) and body["reason"]
    assert "稍后再试" not in body["reason"] and "try again later" not in body["reason"].lower()
    conversation = Conversation.objects.get(pk=body["conversation_id"])
    assert list(conversation.messages.values_list("role", "content")) == [("user", "在吗")]
    return body


def test_an_unreachable_model_is_a_503_naming_the_endpoint(api_client, alice, settings, closed_port):
    settings.AGENT_PROVIDER, settings.OPENAI_API_KEY = "openai", "k"
    settings.OPENAI_BASE_URL = f"http://127.0.0.1:{closed_port}/v1"
    body = assert_failure_body(chat(api_client, alice), 503, "model_unavailable")
    assert settings.OPENAI_BASE_URL in body["reason"] and "OPENAI_BASE_URL" in body["reason"]


def test_the_reason_reads_in_english_for_an_english_client(api_client, alice, settings, closed_port):
    settings.AGENT_PROVIDER, settings.OPENAI_API_KEY = "openai", "k"
    settings.OPENAI_BASE_URL = f"http://127.0.0.1:{closed_port}/v1"
    response = api_client.post(f"/api/agents/{alice.pk}/chat/", {"message": "hi"}, format="json", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 503
    assert response.json()["reason"] == (
        f"Cannot reach the model endpoint {settings.OPENAI_BASE_URL}: make sure it is running, "
        "or ask an administrator to check OPENAI_BASE_URL"
    )


def test_a_model_timeout_is_a_504(api_client, alice, endpoint, settings):
    settings.AGENT_MODEL_TIMEOUT = 0.3
    endpoint.reply("late", delay=2).reply("late", delay=2)
    body = assert_failure_body(chat(api_client, alice), 504, "model_timeout")
    assert "AGENT_MODEL_TIMEOUT" in body["reason"]


def test_a_model_error_is_a_502_with_the_servers_words(api_client, alice, endpoint):
    endpoint.error(500).error(500)
    body = assert_failure_body(chat(api_client, alice), 502, "model_error")
    assert "HTTP 500" in body["reason"]


def test_a_context_overflow_says_to_shorten_the_message(api_client, alice, endpoint):
    overflow = {"error": {"message": "This model's maximum context length is 4096 tokens", "type": "invalid_request_error"}}
    endpoint.error(400, overflow).error(400, overflow)
    body = assert_failure_body(chat(api_client, alice), 502, "model_error")
    assert "上下文" in body["reason"] and "缩短" in body["reason"]
    assert len(endpoint.requests) == 2  # retried once with half the room, then an honest error


def test_the_next_message_goes_on_in_the_same_conversation(api_client, alice, endpoint):
    endpoint.error(500).error(500).reply("你好")
    first = chat(api_client, alice).json()
    second = api_client.post(
        f"/api/agents/{alice.pk}/chat/", {"message": "还在吗", "conversation_id": first["conversation_id"]}, format="json"
    )
    assert second.status_code == 200 and second.json()["reply"] == "你好"
    assert [m["content"] for m in endpoint.requests[-1]["messages"] if m["role"] == "user"] == ["在吗", "还在吗"]


def test_the_chat_page_shows_the_reason_and_the_kept_message(client, staff_user, alice, endpoint):
    client.force_login(staff_user)
    endpoint.error(500).error(500)
    response = client.post(f"/agents/{alice.pk}/chat/", {"message": "在吗"}, HTTP_HX_REQUEST="true")
    page = response.content.decode()
    assert response.status_code == 200
    assert "HTTP 500" in page and "模型服务的日志" in page
    conversation = Conversation.objects.get()
    assert f'data-conversation-id="{conversation.pk}"' in page and "在吗" in page


def test_the_chat_command_exits_non_zero_with_the_reason(alice, endpoint):
    endpoint.error(500).error(500)
    with pytest.raises(CommandError) as failed:
        call_command("chat", "Alice", "在吗")
    assert "model_error" in str(failed.value) and "HTTP 500" in str(failed.value)
    assert f"[conversation {Conversation.objects.get().pk}]" in str(failed.value)


def test_the_schema_lists_the_model_failures(api_client):
    schema = api_client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    [chat_path] = [path for path in schema["paths"] if path.endswith("/chat/") and "agents" in path]
    responses = schema["paths"][chat_path]["post"]["responses"]
    assert {"502", "503", "504"} <= set(responses)


def test_the_funds_chat_shows_the_reason(client, staff_user, make_agent, endpoint):
    from funds.demo import FUND_TOOLS

    make_agent("基金助理", tools=FUND_TOOLS)
    client.force_login(staff_user)
    endpoint.error(500).error(500)
    page = client.post("/funds/chat/", {"message": "有哪些基金？"}, HTTP_HX_REQUEST="true").content.decode()
    assert "HTTP 500" in page and "模型服务的日志" in page


def test_the_funds_chat_keeps_a_failed_first_message_and_goes_on(client, staff_user, make_agent, endpoint):
    from funds.demo import FUND_TOOLS

    make_agent("基金助理", tools=FUND_TOOLS)
    client.force_login(staff_user)
    endpoint.error(500).error(500).reply("目前没有基金")
    failed = client.post("/funds/chat/", {"message": "有哪些基金？"}, HTTP_HX_REQUEST="true").content.decode()
    assert "模型服务的日志" in failed
    assert "员工</strong>\n有哪些基金？</div>" in failed  # in the transcript
    assert ">有哪些基金？</textarea>" in failed  # and still in the box, to shorten or send again
    answered = client.post("/funds/chat/", {"message": "再查一次"}, HTTP_HX_REQUEST="true").content.decode()
    assert "目前没有基金" in answered and "模型服务的日志" not in answered
    conversation = Conversation.objects.get()
    assert list(conversation.messages.filter(role="user").values_list("content", flat=True)) == ["有哪些基金？", "再查一次"]


def test_the_orders_desk_shows_the_reason(client, staff_user, make_agent, endpoint):
    desk = make_agent("前台助理", tools=("order_query",))
    client.force_login(staff_user)
    endpoint.error(500).error(500)
    page = client.post("/orders/", {"chat": "1", "agent": desk.pk, "message": "查询订单 HT1"}, HTTP_HX_REQUEST="true").content.decode()
    assert "HTTP 500" in page and "模型服务的日志" in page
