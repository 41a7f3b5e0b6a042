"""The whole early-checkout conversation through the chat runner: rules provider and a real SDK.

Transactional: the supplier answers after the desk's message commits, between two rounds,
exactly as in production.
"""

import json

import pytest

from agents.chat import run_chat
from agents.models import Message, ToolCall
from orders.models import ChannelMessage, Refund

pytestmark = pytest.mark.django_db(transaction=True)

FLOW = ["order_query", "message_send", "message_list", "refund", "message_send"]


def audited():
    return [(c.tool_name, c.arguments, c.status) for c in ToolCall.objects.order_by("id")]


def channel(name):
    return list(ChannelMessage.objects.filter(channel=name).order_by("id").values_list("sender", "content", "read"))


def assert_flow_done(result, order_no="HT20260301001", supplier_no="SUP-88901"):
    calls = audited()
    assert [name for name, _, _ in calls] == FLOW
    assert all(status == "success" for _, _, status in calls)
    assert calls[0][1] == {"order_no": order_no}
    assert calls[1][1]["channel"] == "upstream" and supplier_no in calls[1][1]["content"]
    assert calls[2][1] == {"channel": "upstream", "order_no": order_no}
    assert calls[3][1] == {"order_no": order_no}
    assert calls[4][1]["channel"] == "downstream"
    assert [c["name"] for c in result.tool_calls] == FLOW
    refund = Refund.objects.get()
    assert (refund.order.order_no, refund.status) == (order_no, "registered")
    upstream = channel("upstream")
    assert [sender for sender, _, _ in upstream] == ["desk", "supplier"]
    assert supplier_no in upstream[0][1]
    assert upstream[1][1] == "已处理完成，可以办理退款"
    downstream = channel("downstream")
    assert [sender for sender, _, _ in downstream] == ["desk"]
    assert all(read is False for _, _, read in upstream + downstream)
    assert set(ChannelMessage.objects.values_list("order__order_no", flat=True)) == {order_no}
    return downstream[0][1]


def test_rules_provider_walks_the_whole_early_checkout(desk, staff_user):
    result = run_chat(agent=desk, message="客人要提前离店，订单 HT20260301001", user=staff_user, page="/orders/")
    guest_note = assert_flow_done(result)
    assert "张三" in guest_note and "退款已登记" in guest_note
    assert "退款已登记" in result.reply and "已通知客人" in result.reply and "SUP-88901" in result.reply
    assert all(call.source == "chat" and call.user == staff_user for call in ToolCall.objects.all())
    roles = list(result.conversation.messages.values_list("role", flat=True))
    # 4 tool rounds (the last with two calls), then the final reply.
    assert roles == ["user"] + ["assistant", "tool"] * 3 + ["assistant", "tool", "tool", "assistant"]


def test_rules_provider_speaks_english_to_an_english_request(desk):
    result = run_chat(agent=desk, message="guest wants to check out early, order HT20260301002")
    guest_note = assert_flow_done(result, "HT20260301002", "SUP-88902")
    assert guest_note.startswith("Dear 李四")
    assert "refund is registered" in result.reply


def test_an_unknown_order_ends_the_flow_with_a_clear_reply(desk):
    result = run_chat(agent=desk, message="客人要提前离店，订单 HT20990101009")
    assert [name for name, _, _ in audited()] == ["order_query"]
    assert "订单不存在" in result.reply and "HT20990101009" in result.reply
    assert not ChannelMessage.objects.exists()
    assert not Refund.objects.exists()


def test_a_second_early_checkout_of_the_same_order_registers_nothing_twice(desk):
    first = run_chat(agent=desk, message="客人要提前离店，订单 HT20260301001")
    again = run_chat(agent=desk, message="客人要提前离店，订单 HT20260301001", conversation_id=first.conversation.pk)
    assert [c["name"] for c in again.tool_calls] == ["order_query"]
    assert "已登记退款" in again.reply
    assert Refund.objects.count() == 1
    assert ChannelMessage.objects.count() == 3


def test_without_a_supplier_answer_no_refund_is_registered(desk, settings):
    settings.SUPPLIER_SIMULATOR = False
    result = run_chat(agent=desk, message="客人要提前离店，订单 HT20260301001")
    assert [c["name"] for c in result.tool_calls] == ["order_query", "message_send", "message_list"]
    assert "供应商尚未回复" in result.reply
    assert not Refund.objects.exists()
    assert channel("upstream")[0][0] == "desk" and len(channel("upstream")) == 1
    assert channel("downstream") == []


def test_too_few_tool_rounds_stop_the_flow_and_say_so(desk, settings):
    settings.AGENT_MAX_TOOL_ROUNDS = 2
    result = run_chat(agent=desk, message="客人要提前离店，订单 HT20260301001")
    assert [c["name"] for c in result.tool_calls] == ["order_query", "message_send"]
    assert "工具调用轮数已用完" in result.reply
    assert not Refund.objects.exists()


def test_order_look_up_through_the_runner(desk):
    result = run_chat(agent=desk, message="查询订单 HT20260301001")
    assert [c["name"] for c in result.tool_calls] == ["order_query"]
    assert "SUP-88901" in result.reply and "杭州西湖大酒店" in result.reply


def test_order_look_up_of_an_unknown_order(desk):
    result = run_chat(agent=desk, message="look up order HT20990101009")
    assert result.tool_calls[0]["result"]["error"]["code"] == "order_not_found"
    assert "Order not found" in result.reply  # the reply speaks the message's language


def test_real_openai_sdk_drives_the_same_flow(desk, settings, scripted_openai):
    settings.AGENT_PROVIDER = "openai"
    settings.OPENAI_BASE_URL = scripted_openai.base_url
    settings.OPENAI_API_KEY = "test-key"
    settings.AGENT_MODEL_TIMEOUT = 10
    upstream_text = "您好，订单 SUP-88901 的客人申请提前离店，请确认能否退款。"
    (
        scripted_openai.tool_calls([("order_query", {"order_no": "HT20260301001"})])
        .tool_calls([("message_send", {"channel": "upstream", "order_no": "HT20260301001", "content": upstream_text})])
        .tool_calls([("message_list", {"channel": "upstream", "order_no": "HT20260301001"})])
        .tool_calls(
            [
                ("refund", {"order_no": "HT20260301001"}),
                ("message_send", {"channel": "downstream", "order_no": "HT20260301001", "content": "张三您好，退款已登记。"}),
            ]
        )
        .reply("已为张三办理提前离店：供应商已确认，退款已登记，已通知客人。")
    )
    result = run_chat(agent=desk, message="客人要提前离店，订单 HT20260301001")
    assert result.reply == "已为张三办理提前离店：供应商已确认，退款已登记，已通知客人。"
    assert assert_flow_done(result) == "张三您好，退款已登记。"
    requests = scripted_openai.requests
    assert len(requests) == 5 and scripted_openai.unconsumed == 0
    assert {t["function"]["name"] for t in requests[0]["tools"]} == {"order_query", "message_send", "message_list", "refund"}
    assert not requests[4].get("tools")  # the final reply is asked for without tools
    # The model saw the supplier's order number, then the supplier's reply, as tool results.
    tool_results = [json.loads(m["content"]) for m in requests[3]["messages"] if m["role"] == "tool"]
    assert tool_results[0]["data"]["supplier_order_no"] == "SUP-88901"
    assert [m["content"] for m in tool_results[2]["data"]["messages"]] == [upstream_text, "已处理完成，可以办理退款"]
    assert Message.objects.filter(conversation=result.conversation, role="tool").count() == 5
