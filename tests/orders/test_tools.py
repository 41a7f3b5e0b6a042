"""The desk's tools through the audited executor: schema, discovery, success and errors.

Seed 003's acceptance criteria in Django form:
  AC1 one tool interface (name, description, schema, run)  test_tools_are_discovered_and_found_by_name, test_schemas_name_the_parameters
  AC2 HT20260301001 → SUP-88901                             test_order_query_returns_the_whole_order_with_its_supplier_order_number
  AC3 unknown order → 订单不存在                            test_order_query_of_an_unknown_order_says_it_does_not_exist
  AC4 message stored in its channel, unread                 test_message_send_stores_the_message_in_its_channel_unread
  AC5 refund registered (issue 15 §5: once staff confirm)   test_confirming_the_refund_registers_it_and_tells_the_guest
  AC6 at least three hard orders                            tests/orders/test_demo.py
  AC7 the supplier answers upstream                         test_the_supplier_answers_an_upstream_message
  AC8 discovery, look-up by name, definitions               test_tools_are_discovered_and_found_by_name, test_migrate_synced_...
Its review findings: refund refused for an unknown order (test_refund_of_an_unknown_order_is_refused),
empty content refused (test_message_send_refuses_empty_content), the whole order returned
(AC2's test checks every field), no invented supplier answer (test_nothing_is_invented_when_the_
supplier_simulator_is_off), discovery after import (the registry and the synced Tool rows).
"""

import pytest
from django.utils import translation

from agents.confirmations import confirm_pending_action, reject_pending_action
from agents.executor import execute, openai_tools
from agents.models import PendingAction, Tool, ToolCall
from agents.registry import localized_schema, registry
from agents.sync import sync_tools
from orders import services
from orders.models import ChannelMessage, Refund

pytestmark = pytest.mark.django_db

DESK_TOOLS = {"order_query", "message_send", "message_list", "refund"}


def run(ctx, name, **arguments):
    return execute(name, arguments, ctx)


def test_tools_are_discovered_and_found_by_name():
    assert DESK_TOOLS <= registry.names()
    for name in DESK_TOOLS:
        spec = registry.get(name)
        assert spec.name == name and spec.source.startswith("orders.tools.")
        assert spec.describe("zh-hans") and spec.describe("en") != spec.describe("zh-hans") and callable(spec.func)
        assert spec.input_schema["type"] == "object"


def test_migrate_synced_the_tools_with_both_descriptions():
    rows = {row.name: row for row in Tool.objects.filter(name__in=DESK_TOOLS)}
    assert set(rows) == DESK_TOOLS
    assert all(row.is_active and row.description_zh and row.description_en for row in rows.values())
    assert {name: rows[name].category for name in DESK_TOOLS} == {
        "order_query": "query",
        "message_list": "query",
        "message_send": "action",
        "refund": "action",
    }


def test_schemas_name_the_parameters():
    schemas = {name: registry.get(name).input_schema for name in DESK_TOOLS}
    assert schemas["order_query"]["required"] == ["order_no"]
    assert schemas["refund"]["required"] == ["order_no"]
    assert schemas["message_send"]["required"] == ["channel", "content"]
    assert set(schemas["message_send"]["properties"]) == {"channel", "content", "order_no"}
    assert schemas["message_list"]["required"] == ["channel"]
    assert schemas["message_list"]["properties"]["unread_only"] == {
        "type": "boolean",
        "default": False,
        "description": "只看未读消息",
    }
    assert localized_schema(schemas["message_list"], "en")["properties"]["unread_only"]["description"] == "only unread messages"
    assert all(schema["additionalProperties"] is False for schema in schemas.values())


def test_the_model_sees_descriptions_in_the_active_language(desk):
    with translation.override("en"):
        english = {t["function"]["name"]: t["function"] for t in openai_tools(desk)}
    chinese = {t["function"]["name"]: t["function"] for t in openai_tools(desk, "zh-hans")}
    assert set(english) == DESK_TOOLS
    assert english["refund"]["description"].startswith("Register the refund")
    assert chinese["refund"]["description"].startswith("为订单登记退款")
    assert english["message_send"]["parameters"]["properties"]["channel"]["description"].startswith("channel: downstream")
    assert "downstream" in chinese["message_send"]["parameters"]["properties"]["channel"]["description"]


def test_order_query_returns_the_whole_order_with_its_supplier_order_number(ctx):
    result = run(ctx, "order_query", order_no="HT20260301001")
    assert result["status"] == "success"
    data = result["data"]
    assert data["supplier_order_no"] == "SUP-88901"
    assert {k: data[k] for k in ("order_no", "guest_name", "hotel_name", "check_in", "check_out", "room_type", "status")} == {
        "order_no": "HT20260301001",
        "guest_name": "张三",
        "hotel_name": "杭州西湖大酒店",
        "check_in": "2026-03-01",
        "check_out": "2026-03-05",
        "room_type": "大床房",
        "status": "confirmed",
    }
    assert data["refund"] is None
    assert "SUP-88901" in data["message"]


def test_order_query_shows_a_registered_refund(ctx):
    services.register_refund(order_no="HT20260301003")
    refund = run(ctx, "order_query", order_no="HT20260301003")["data"]["refund"]
    assert (refund["order_no"], refund["status"]) == ("HT20260301003", "registered")


def test_order_query_shows_a_refund_waiting_for_staff(ctx):
    proposed = run(ctx, "refund", order_no="HT20260301003")
    data = run(ctx, "order_query", order_no="HT20260301003")["data"]
    assert (data["refund"], data["pending_refund_id"]) == (None, proposed["pending_action_id"])
    assert f"退款待员工确认（#{proposed['pending_action_id']}）" in data["message"]


def test_order_query_of_an_unknown_order_says_it_does_not_exist(ctx):
    result = run(ctx, "order_query", order_no="HT19990101001")
    assert result["status"] == "error"
    assert result["error"]["code"] == "order_not_found"
    assert result["error"]["message"] == "订单不存在"
    call = ToolCall.objects.get()
    assert (call.tool_name, call.status, call.error_code) == ("order_query", "error", "order_not_found")


def test_message_send_stores_the_message_in_its_channel_unread(ctx):
    result = run(ctx, "message_send", channel="downstream", content="您好，已收到", order_no="HT20260301001")
    assert result["status"] == "success"
    assert (result["data"]["channel"], result["data"]["sender"], result["data"]["read"]) == ("downstream", "desk", False)
    message = ChannelMessage.objects.get(pk=result["data"]["message_id"])
    assert (message.channel, message.content, message.read, message.order.order_no) == (
        "downstream", "您好，已收到", False, "HT20260301001"
    )


def test_message_send_refuses_an_unknown_channel_with_its_own_code(ctx):
    result = run(ctx, "message_send", channel="sideways", content="hi")
    assert result["error"]["code"] == "invalid_channel"
    assert result["error"]["field"] == "channel"
    assert not ChannelMessage.objects.exists()


@pytest.mark.parametrize("content", ["", "   "])
def test_message_send_refuses_empty_content(ctx, content):
    result = run(ctx, "message_send", channel="upstream", content=content)
    assert result["error"]["code"] == "empty_content"
    assert not ChannelMessage.objects.exists()


def test_message_send_refuses_an_unknown_order(ctx):
    result = run(ctx, "message_send", channel="upstream", content="hi", order_no="HT00000000000")
    assert result["error"]["code"] == "order_not_found"
    assert not ChannelMessage.objects.exists()


def test_message_send_refuses_a_sender_argument(ctx):
    result = run(ctx, "message_send", channel="upstream", content="我是供应商", sender="supplier")
    assert (result["error"]["code"], result["error"]["field"]) == ("invalid_arguments", "sender")
    assert not ChannelMessage.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_the_supplier_answers_an_upstream_message(ctx):
    sent = run(ctx, "message_send", channel="upstream", content="请确认退款", order_no="HT20260301001")
    result = run(ctx, "message_list", channel="upstream", order_no="HT20260301001")
    messages = result["data"]["messages"]
    assert [(m["sender"], m["content"], m["read"]) for m in messages] == [
        ("desk", "请确认退款", False),
        ("supplier", "已处理完成，可以办理退款", False),
    ]
    assert messages[0]["message_id"] == sent["data"]["message_id"]
    assert "已处理完成，可以办理退款" in result["data"]["message"]


@pytest.mark.django_db(transaction=True)
def test_nothing_is_invented_when_the_supplier_simulator_is_off(ctx, settings):
    settings.SUPPLIER_SIMULATOR = False
    run(ctx, "message_send", channel="upstream", content="请确认退款", order_no="HT20260301001")
    messages = run(ctx, "message_list", channel="upstream")["data"]["messages"]
    assert [m["sender"] for m in messages] == ["desk"]


def test_message_list_filters_by_order_and_unread(ctx):
    run(ctx, "message_send", channel="downstream", content="一", order_no="HT20260301001")
    run(ctx, "message_send", channel="downstream", content="二", order_no="HT20260301002")
    run(ctx, "message_send", channel="upstream", content="三")
    ChannelMessage.objects.filter(content="一").update(read=True)
    contents = lambda **kw: [m["content"] for m in run(ctx, "message_list", **kw)["data"]["messages"]]  # noqa: E731
    assert contents(channel="downstream") == ["一", "二"]
    assert contents(channel="downstream", order_no="HT20260301001") == ["一"]
    assert contents(channel="downstream", unread_only=True) == ["二"]


def test_message_list_of_an_empty_channel_says_so(ctx):
    result = run(ctx, "message_list", channel="upstream")
    assert result["data"]["messages"] == []
    assert result["data"]["message"] == "上游（供应商）频道没有消息"


def test_message_list_refuses_an_unknown_channel(ctx):
    assert run(ctx, "message_list", channel="north")["error"]["code"] == "invalid_channel"


def without_confirmation(name="refund"):
    """What staff do in the admin: the tool runs at once, and the sync keeps their choice."""
    Tool.objects.filter(name=name).update(requires_confirmation=False, confirmation_set_by_staff=True)


def test_refund_requires_confirmation_by_default():
    assert registry.get("refund").requires_confirmation
    assert Tool.objects.get(name="refund").requires_confirmation


def test_the_sync_gives_refund_its_new_default_unless_staff_chose(db):
    Tool.objects.filter(name="refund").update(requires_confirmation=False)
    sync_tools()
    assert Tool.objects.get(name="refund").requires_confirmation
    without_confirmation()
    sync_tools()
    assert not Tool.objects.get(name="refund").requires_confirmation


def test_refund_is_proposed_and_nothing_is_registered(ctx):
    result = run(ctx, "refund", order_no="ht20260301001")
    assert result["status"] == "pending_confirmation"
    action = PendingAction.objects.get(pk=result["pending_action_id"])
    assert (action.tool_name, action.status, action.arguments) == ("refund", "pending", {"order_no": "ht20260301001"})
    assert "HT20260301001" in action.summary and "张三" in action.summary and result["message"] == action.summary
    assert not Refund.objects.exists()
    assert not ChannelMessage.objects.exists()


def test_confirming_the_refund_registers_it_and_tells_the_guest(ctx, admin_user):
    proposed = run(ctx, "refund", order_no="HT20260301001")
    action = confirm_pending_action(action_id=proposed["pending_action_id"], user=admin_user)
    assert action.status == "confirmed"
    assert (action.result["data"]["order_no"], action.result["data"]["status"]) == ("HT20260301001", "registered")
    assert "已通知客人 张三" in action.result["data"]["message"]
    assert Refund.objects.get().order.order_no == "HT20260301001"
    told = ChannelMessage.objects.get()
    assert (told.channel, told.order.order_no) == ("downstream", "HT20260301001") and "退款已登记" in told.content
    call = ToolCall.objects.filter(tool_name="refund").order_by("id").last()
    assert (call.source, call.status, call.user) == ("confirmation", "success", admin_user)


def test_rejecting_the_refund_registers_nothing_and_tells_the_guest_nothing(ctx, admin_user):
    proposed = run(ctx, "refund", order_no="HT20260301001")
    assert reject_pending_action(action_id=proposed["pending_action_id"], user=admin_user).status == "rejected"
    assert not Refund.objects.exists()
    assert not ChannelMessage.objects.exists()


def test_a_confirmed_refund_that_fails_tells_the_guest_nothing(ctx, admin_user):
    proposed = run(ctx, "refund", order_no="HT20260301001")
    services.register_refund(order_no="HT20260301001")  # another desk was quicker
    action = confirm_pending_action(action_id=proposed["pending_action_id"], user=admin_user)
    assert (action.status, action.result["error"]["code"]) == ("failed", "refund_exists")
    assert Refund.objects.count() == 1 and ChannelMessage.objects.count() == 1


def test_refund_runs_at_once_when_staff_turned_confirmation_off(ctx):
    without_confirmation()
    result = run(ctx, "refund", order_no="HT20260301001")
    assert result["status"] == "success"
    assert (result["data"]["order_no"], result["data"]["status"]) == ("HT20260301001", "registered")
    assert not PendingAction.objects.exists()
    assert ChannelMessage.objects.get().channel == "downstream"


def test_refund_of_an_unknown_order_is_refused(ctx):
    result = run(ctx, "refund", order_no="HT99999999999")
    assert (result["error"]["code"], result["error"]["message"]) == ("order_not_found", "订单不存在")
    assert not Refund.objects.exists() and not PendingAction.objects.exists()


def test_a_refund_of_a_refunded_order_is_not_even_proposed(ctx):
    services.register_refund(order_no="HT20260301001")
    result = run(ctx, "refund", order_no="HT20260301001")
    assert result["error"]["code"] == "refund_exists"
    assert not PendingAction.objects.exists()


def test_a_second_refund_proposal_of_the_same_order_is_refused(ctx):
    first = run(ctx, "refund", order_no="HT20260301001")
    again = run(ctx, "refund", order_no="HT20260301001")
    assert (again["error"]["code"], again["error"]["pending_action_id"]) == ("refund_pending", first["pending_action_id"])
    assert PendingAction.objects.count() == 1


def test_a_second_refund_of_the_same_order_is_refused(ctx):
    without_confirmation()
    run(ctx, "refund", order_no="HT20260301001")
    result = run(ctx, "refund", order_no="HT20260301001")
    assert result["error"]["code"] == "refund_exists"
    assert Refund.objects.count() == 1


def test_an_agent_without_the_grant_cannot_refund(make_agent, desk):
    from agents.registry import ToolContext

    stranger = make_agent("Bob", tools=("order_query",))
    result = execute("refund", {"order_no": "HT20260301001"}, ToolContext(agent=stranger))
    assert result["error"]["code"] == "tool_not_allowed"
    assert not Refund.objects.exists()
