"""The chat runner, driving the real ``openai`` SDK against the local scripted server."""

from __future__ import annotations

import json

import pytest
from django.db import connection

from agents.chat import run_chat
from agents.models import Conversation, Message, ToolCall
from core.errors import ApplicationError, NotFound
from tests.agents.fixtures import alice, endpoint, write_from_another_connection  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db



def roles(conversation):
    return list(conversation.messages.values_list("role", flat=True))


def test_tool_call_runs_and_its_result_goes_back_for_the_final_reply(endpoint, alice, staff_user):
    endpoint.tool_calls([("get_my_status", {})]).reply("你有 100 信用点。")
    result = run_chat(agent=alice, message="我的状态", user=staff_user)

    assert result.reply == "你有 100 信用点。"
    assert [c["name"] for c in result.tool_calls] == ["get_my_status"]
    assert result.tool_calls[0]["arguments"] == {}
    assert result.tool_calls[0]["result"]["status"] == "success"
    assert result.tool_calls[0]["result"]["data"]["credits"] == 100

    first, second = endpoint.requests
    assert first["messages"][0]["role"] == "system" and "Alice" in first["messages"][0]["content"]
    assert "热心的面包师" in first["messages"][0]["content"]
    assert {t["function"]["name"] for t in first["tools"]} == {"get_my_status", "add_my_credits"}
    tool_message = second["messages"][-1]
    assert tool_message["role"] == "tool"
    assert tool_message["tool_call_id"] == second["messages"][-2]["tool_calls"][0]["id"]
    assert json.loads(tool_message["content"])["data"]["credits"] == 100

    conversation = result.conversation
    assert roles(conversation) == ["user", "assistant", "tool", "assistant"]
    assert conversation.user == staff_user and conversation.mode == "standalone"
    call = ToolCall.objects.get()
    assert (call.tool_name, call.source, call.conversation, call.user) == ("get_my_status", "chat", conversation, staff_user)
    assert conversation.messages.last().usage["total_tokens"] > 0


def test_two_tool_calls_in_one_answer_both_run_in_order(endpoint, alice):
    endpoint.tool_calls([("add_my_credits", {"amount": 5}), ("get_my_status", {})]).reply("好了")
    result = run_chat(agent=alice, message="加 5 信用点再看看状态")

    assert [c["name"] for c in result.tool_calls] == ["add_my_credits", "get_my_status"]
    assert result.tool_calls[1]["result"]["data"]["credits"] == 105
    alice.refresh_from_db()
    assert alice.credits == 105
    assert roles(result.conversation) == ["user", "assistant", "tool", "tool", "assistant"]
    answered = [m["tool_call_id"] for m in endpoint.requests[1]["messages"] if m["role"] == "tool"]
    assert answered == [c["id"] for c in endpoint.requests[1]["messages"][-3]["tool_calls"]]


def test_loop_stops_at_the_round_limit_with_a_final_call_without_tools(endpoint, alice, settings):
    settings.AGENT_MAX_TOOL_ROUNDS = 2
    endpoint.tool_calls([("get_my_status", {})]).tool_calls([("get_my_status", {})]).reply("就到这里")
    endpoint.tool_calls([("get_my_status", {})])  # must never be asked for
    result = run_chat(agent=alice, message="一直查")

    assert result.reply == "就到这里"
    assert len(result.tool_calls) == 2
    assert len(endpoint.requests) == 3
    assert "tools" in endpoint.requests[1] and "tools" not in endpoint.requests[2]
    assert endpoint.unconsumed == 1


def test_tool_calls_in_the_final_answer_are_ignored(endpoint, alice, settings):
    settings.AGENT_MAX_TOOL_ROUNDS = 1
    endpoint.tool_calls([("add_my_credits", {"amount": 1})]).tool_calls([("add_my_credits", {"amount": 50})])
    result = run_chat(agent=alice, message="加钱")

    alice.refresh_from_db()
    assert alice.credits == 101  # the second (unoffered) call never ran
    assert "上限" in result.reply
    assert ToolCall.objects.count() == 1


def test_unknown_tool_gets_a_structured_error_fed_back(endpoint, alice):
    endpoint.tool_calls([("delete_everything", {})]).reply("我做不到")
    result = run_chat(agent=alice, message="删库")

    assert result.tool_calls[0]["result"]["error"]["code"] == "unknown_tool"
    assert json.loads(endpoint.requests[1]["messages"][-1]["content"])["error"]["code"] == "unknown_tool"
    assert result.reply == "我做不到"


def test_malformed_arguments_json_gets_invalid_arguments_fed_back(endpoint, alice):
    endpoint.tool_calls([("add_my_credits", '{"amount": 5')]).reply("参数写错了")
    result = run_chat(agent=alice, message="加钱")

    assert result.tool_calls[0]["arguments"] == '{"amount": 5'
    assert result.tool_calls[0]["result"]["error"]["code"] == "invalid_arguments"
    alice.refresh_from_db()
    assert alice.credits == 100


@pytest.mark.parametrize("arguments", [{"amount": "5"}, {"amount": 500}, {"amount": 5, "agent_id": 2}, []])
def test_wrong_argument_types_and_bounds_write_nothing(endpoint, alice, arguments):
    endpoint.tool_calls([("add_my_credits", arguments)]).reply("没成功")
    result = run_chat(agent=alice, message="加钱")

    assert result.tool_calls[0]["result"]["error"]["code"] == "invalid_arguments"
    alice.refresh_from_db()
    assert alice.credits == 100


def test_a_tool_not_granted_is_refused(endpoint, alice, make_agent):
    bob = make_agent("Bob", tools=("get_my_status",))
    endpoint.tool_calls([("add_my_credits", {"amount": 5})]).reply("没有权限")
    result = run_chat(agent=bob, message="加钱")

    assert result.tool_calls[0]["result"]["error"]["code"] == "tool_not_allowed"
    bob.refresh_from_db()
    assert bob.credits == 100


def test_server_error_is_retried_once_inside_a_chat(endpoint, alice):
    endpoint.error(500).reply("你好")
    assert run_chat(agent=alice, message="在吗").reply == "你好"
    assert len(endpoint.requests) == 2


def test_model_timeout_is_a_504_that_keeps_the_users_message(endpoint, alice, settings):
    settings.AGENT_MODEL_TIMEOUT = 0.3
    endpoint.reply("太慢", delay=2).reply("还是太慢", delay=2)
    with pytest.raises(ApplicationError) as failed:
        run_chat(agent=alice, message="在吗")

    assert (failed.value.status_code, failed.value.code) == (504, "model_timeout")
    assert "超时" in failed.value.message and "AGENT_MODEL_TIMEOUT" in failed.value.message
    conversation = Conversation.objects.get(pk=failed.value.extra["conversation_id"])
    assert roles(conversation) == ["user"] and conversation.messages.get().content == "在吗"


def test_model_failure_after_a_tool_round_leaves_the_conversation_whole(endpoint, alice):
    endpoint.tool_calls([("add_my_credits", {"amount": 3})]).error(500).error(500)
    with pytest.raises(ApplicationError) as failed:
        run_chat(agent=alice, message="加钱")

    alice.refresh_from_db()
    assert alice.credits == 103  # the call that ran is kept and audited
    assert (failed.value.status_code, failed.value.code) == (502, "model_error")
    assert roles(Conversation.objects.get(pk=failed.value.extra["conversation_id"])) == ["user", "assistant", "tool"]


def test_endpoint_refusing_tools_still_runs_tools_through_the_text_protocol(endpoint, alice):
    endpoint.reject_tools()
    endpoint.reply('{"tool_calls": [{"name": "add_my_credits", "arguments": {"amount": 2}}]}').reply("加好了")
    result = run_chat(agent=alice, message="加 2")

    assert result.reply == "加好了"
    alice.refresh_from_db()
    assert alice.credits == 102
    assert "[tool result]" in endpoint.requests[-1]["messages"][-1]["content"]


def test_history_of_the_conversation_is_sent_on_the_next_message(endpoint, alice):
    endpoint.tool_calls([("get_my_status", {})]).reply("100 信用点").reply("不客气")
    first = run_chat(agent=alice, message="我的状态")
    second = run_chat(agent=alice, message="谢谢", conversation_id=first.conversation.pk)

    assert second.conversation == first.conversation
    sent = endpoint.requests[-1]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert sent[-1]["content"] == "谢谢"


def test_a_call_without_its_result_is_left_out_of_the_history(endpoint, alice):
    conversation = Conversation.objects.create(agent=alice)
    Message.objects.create(conversation=conversation, role="user", content="查一下")
    Message.objects.create(
        conversation=conversation,
        role="assistant",
        tool_calls=[{"id": "call_lost", "type": "function", "function": {"name": "get_my_status", "arguments": "{}"}}],
    )
    endpoint.reply("好")
    run_chat(agent=alice, message="在吗", conversation_id=conversation.pk)
    assert [m["role"] for m in endpoint.requests[0]["messages"]] == ["system", "user", "user"]


def test_repeated_call_ids_across_rounds_are_made_unique(endpoint, alice):
    endpoint.tool_calls([{"id": "call_1", "type": "function", "function": {"name": "get_my_status", "arguments": "{}"}}])
    endpoint.tool_calls([{"id": "call_1", "type": "function", "function": {"name": "get_my_status", "arguments": "{}"}}])
    endpoint.reply("好")
    result = run_chat(agent=alice, message="查两次")

    ids = list(result.conversation.messages.filter(role="tool").values_list("tool_call_id", flat=True))
    assert len(ids) == len(set(ids)) == 2
    last = endpoint.requests[-1]["messages"]
    assert [m["tool_call_id"] for m in last if m["role"] == "tool"] == ids


def test_conversation_of_another_agent_is_not_found(endpoint, alice, make_agent):
    bob = make_agent("Bob")
    theirs = Conversation.objects.create(agent=bob)
    with pytest.raises(NotFound) as caught:
        run_chat(agent=alice, message="hi", conversation_id=theirs.pk)
    assert caught.value.code == "conversation_not_found"
    with pytest.raises(NotFound):
        run_chat(agent=alice, message="hi", conversation_id=999999)
    assert not endpoint.requests and not Message.objects.exists()


@pytest.mark.parametrize(("message", "code"), [("", "empty_message"), ("   ", "empty_message"), ("x" * 4001, "message_too_long"), (None, "empty_message")])
def test_bad_messages_are_refused_before_anything_is_stored(alice, message, code):
    with pytest.raises(ApplicationError) as caught:
        run_chat(agent=alice, message=message)
    assert caught.value.code == code
    assert not Conversation.objects.exists()


def test_inactive_agent_does_not_chat(alice):
    alice.is_active = False
    alice.save()
    with pytest.raises(ApplicationError) as caught:
        run_chat(agent=alice, message="hi")
    assert caught.value.code == "agent_inactive"


def test_embedded_mode_and_page_are_recorded_and_passed_to_tools(endpoint, alice):
    endpoint.tool_calls([("get_my_status", {})]).reply("ok")
    result = run_chat(agent=alice, message="状态", mode="embedded", page="/funds/")
    assert (result.conversation.mode, result.conversation.page) == ("embedded", "/funds/")


def test_rules_provider_chat_calls_the_status_tool(settings, alice):
    settings.AGENT_PROVIDER = "rules"
    result = run_chat(agent=alice, message="我的状态")
    assert [c["name"] for c in result.tool_calls] == ["get_my_status"]
    assert "信用点 100" in result.reply
    assert roles(result.conversation) == ["user", "assistant", "tool", "assistant"]


def test_rules_provider_answers_a_sentence_it_does_not_understand_with_text_only(settings, alice):
    settings.AGENT_PROVIDER = "rules"
    result = run_chat(agent=alice, message="去农田工作")
    assert result.tool_calls == [] and result.reply
    assert not ToolCall.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_no_transaction_is_open_while_the_model_thinks(endpoint, alice):
    """Another connection can write while the model is being awaited (SQLite takes the write
    lock at BEGIN IMMEDIATE, so an open transaction in the runner would block it)."""
    if connection.vendor != "sqlite":
        pytest.skip("the probe uses SQLite's write lock")
    path = connection.settings_dict["NAME"]
    outcomes: list[str] = []

    def responder(request):
        outcomes.append(write_from_another_connection(path))
        if len(outcomes) == 1:
            return {"tool_calls": [("add_my_credits", {"amount": 1})]}
        return {"content": "完成"}

    endpoint.respond_with(responder, delay=0)
    assert run_chat(agent=alice, message="加 1").reply == "完成"
    assert outcomes == ["wrote", "wrote"]


def test_the_agents_own_model_name_is_asked_for(endpoint, make_agent):
    agent = make_agent("Qwen", model="qwen2.5-7b-instruct")
    endpoint.reply("你好")
    run_chat(agent=agent, message="hi")
    assert endpoint.requests[0]["model"] == "qwen2.5-7b-instruct"


def test_tool_calls_beyond_the_per_minute_limit_are_refused(endpoint, alice, settings):
    settings.AGENT_TOOL_CALLS_PER_MINUTE = 1
    endpoint.tool_calls([("add_my_credits", {"amount": 1}), ("add_my_credits", {"amount": 1})]).reply("只加了一次")
    result = run_chat(agent=alice, message="加两次")
    assert [c["result"]["status"] for c in result.tool_calls] == ["success", "error"]
    assert result.tool_calls[1]["result"]["error"]["code"] == "rate_limited"
    alice.refresh_from_db()
    assert alice.credits == 101


def test_a_long_turn_still_sends_the_users_question(endpoint, alice, settings, monkeypatch):
    settings.AGENT_MAX_TOOL_ROUNDS = 3
    settings.AGENT_TOOL_CALLS_PER_MINUTE = 100
    monkeypatch.setattr("agents.chat.HISTORY_LIMIT", 10)
    many = [("get_my_status", {})] * 8
    endpoint.tool_calls(many).tool_calls(many).tool_calls(many).reply("好")
    run_chat(agent=alice, message="查很多次")
    last = endpoint.requests[-1]["messages"]
    assert last[1] == {"role": "user", "content": "查很多次"}
    assert len([m for m in last if m["role"] == "tool"]) == 24
