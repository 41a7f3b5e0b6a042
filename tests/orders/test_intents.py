"""The desk's phrases in the offline rules provider: what the first step of each request is."""

import json

import pytest

from agents.executor import openai_tools
from agents.providers.rules import RulesChatPolicy

pytestmark = pytest.mark.django_db


def first_step(agent, text):
    return RulesChatPolicy().decide([{"role": "user", "content": text}], openai_tools(agent))


@pytest.mark.parametrize(
    "text, order_no",
    [
        ("查询订单 HT20260301001", "HT20260301001"),
        ("帮我查一下订单HT20260301002", "HT20260301002"),
        ("look up order HT20260301001", "HT20260301001"),
        ("Check order #ht20260301003 please", "HT20260301003"),
    ],
)
def test_order_look_up_phrases_query_the_order(desk, text, order_no):
    completion = first_step(desk, text)
    assert [(c.name, json.loads(c.arguments)) for c in completion.tool_calls] == [("order_query", {"order_no": order_no})]


@pytest.mark.parametrize(
    "text, order_no",
    [("查一下002", "HT20260301002"), ("order 003 details pls", "HT20260301003"), ("any reply from the supplier on 001 yet?", "HT20260301001")],
)
def test_an_order_is_named_by_its_last_digits_where_no_other_ends_so(desk, text, order_no):
    completion = first_step(desk, text)
    assert [json.loads(c.arguments)["order_no"] for c in completion.tool_calls] == [order_no]


def test_last_digits_two_orders_end_in_name_neither(desk):
    from orders.models import Order

    first = Order.objects.get(order_no="HT20260301001")
    Order.objects.create(**{**{f.name: getattr(first, f.name) for f in Order._meta.concrete_fields if not f.primary_key}, "order_no": "HT20260302001", "supplier_order_no": "SUP-1"})
    completion = first_step(desk, "查一下001")
    assert not any(json.loads(c.arguments).get("order_no") for c in completion.tool_calls)


@pytest.mark.parametrize(
    "text",
    [
        "客人要提前离店，订单 HT20260301001",
        "HT20260301001 的客人想提前退房",
        "guest wants to check out early, order HT20260301001",
        "Early check-out for order HT20260301001",
        "Order HT20260301001: the guest is checking out early",
    ],
)
def test_early_checkout_phrases_start_with_the_order(desk, text):
    completion = first_step(desk, text)
    assert [(c.name, json.loads(c.arguments)) for c in completion.tool_calls] == [
        ("order_query", {"order_no": "HT20260301001"})
    ]


def test_an_agent_without_the_desk_tools_says_so_instead_of_calling(make_agent, desk):
    clerk = make_agent("Clerk", tools=("message_send",))
    completion = first_step(clerk, "客人要提前离店，订单 HT20260301001")
    assert completion.tool_calls == []
    assert "order_query" in completion.content


def test_a_sentence_without_an_order_number_is_not_an_order_request(desk):
    completion = first_step(desk, "客人要提前离店")
    assert completion.tool_calls == []


ORDER = {
    "order_no": "HT20260301001", "supplier_order_no": "SUP-88901", "guest_name": "张三", "hotel_name": "杭州西湖大酒店",
    "check_in": "2026-03-01", "check_out": "2026-03-05", "room_type": "大床房", "status": "confirmed", "refund": None,
    "pending_refund_id": None,
}


def history(text, *rounds):
    """OpenAI-format messages: the user's text, then rounds of (name, arguments, result) calls."""
    messages = [{"role": "user", "content": text}]
    ids = iter(range(1, 100))
    for calls in rounds:
        numbered = [(f"call_{next(ids)}", call) for call in calls]
        messages.append({
            "role": "assistant", "content": None,
            "tool_calls": [
                {"id": i, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
                for i, (name, args, _) in numbered
            ],
        })
        messages += [{"role": "tool", "tool_call_id": i, "content": json.dumps(result)} for i, (_, _, result) in numbered]
    return messages


def ok(data):
    return {"status": "success", "data": data}


def failed(code, message):
    return {"status": "error", "error": {"code": code, "message": message}}


def until_supplier_answers(answer):
    asked = ("message_send", {"channel": "upstream", "order_no": "HT20260301001", "content": "…"}, ok({"message_id": 7}))
    reply = {"message_id": 8, "sender": "supplier", "content": answer}
    read = ("message_list", {"channel": "upstream", "order_no": "HT20260301001"}, ok({"messages": [reply]}))
    return [("order_query", {"order_no": "HT20260301001"}, ok(ORDER))], [asked], [read]


def test_a_supplier_that_does_not_agree_gets_no_refund(desk):
    messages = history("客人要提前离店，订单 HT20260301001", *until_supplier_answers("房间已入住，无法退款"))
    completion = RulesChatPolicy().decide(messages, openai_tools(desk))
    assert completion.tool_calls == []
    assert "未同意退款" in completion.content and "无法退款" in completion.content


def test_once_the_supplier_agrees_the_refund_is_proposed_alone_and_the_guest_not_told(desk):
    messages = history("客人要提前离店，订单 HT20260301001", *until_supplier_answers("已处理完成，可以办理退款"))
    completion = RulesChatPolicy().decide(messages, openai_tools(desk))
    assert [(c.name, json.loads(c.arguments)) for c in completion.tool_calls] == [("refund", {"order_no": "HT20260301001"})]


def test_a_proposed_refund_ends_the_turn_waiting_for_staff(desk):
    proposed = ("refund", {"order_no": "HT20260301001"}, {"status": "pending_confirmation", "pending_action_id": 12, "message": "…"})
    messages = history("客人要提前离店，订单 HT20260301001", *until_supplier_answers("已处理完成，可以办理退款"), [proposed])
    completion = RulesChatPolicy().decide(messages, openai_tools(desk))
    assert completion.tool_calls == []
    assert "等待员工确认（#12）" in completion.content and "确认登记后系统会通知客人" in completion.content


def test_a_refund_lost_to_another_desk_is_reported_and_the_guest_not_told(desk):
    refund = ("refund", {"order_no": "HT20260301001"}, failed("refund_exists", "订单 HT20260301001 已登记退款，不能重复登记"))
    messages = history("客人要提前离店，订单 HT20260301001", *until_supplier_answers("已处理完成，可以办理退款"), [refund])
    completion = RulesChatPolicy().decide(messages, openai_tools(desk))
    assert completion.tool_calls == []
    assert "退款登记失败" in completion.content and "已登记退款" in completion.content


def test_an_order_whose_refund_waits_for_staff_is_not_worked_again(desk):
    looked_up = ("order_query", {"order_no": "HT20260301001"}, ok({**ORDER, "pending_refund_id": 5}))
    completion = RulesChatPolicy().decide(history("客人要提前离店，订单 HT20260301001", [looked_up]), openai_tools(desk))
    assert completion.tool_calls == []
    assert "等待员工确认（#5）" in completion.content


def test_a_supplier_message_older_than_the_question_is_not_its_answer(desk):
    first, asked, _ = until_supplier_answers("")
    stale = {"message_id": 3, "sender": "supplier", "content": "已处理完成，可以办理退款"}
    read = ("message_list", {"channel": "upstream", "order_no": "HT20260301001"}, ok({"messages": [stale]}))
    completion = RulesChatPolicy().decide(history("客人要提前离店，订单 HT20260301001", first, asked, [read]), openai_tools(desk))
    assert completion.tool_calls == []
    assert "供应商尚未回复" in completion.content
