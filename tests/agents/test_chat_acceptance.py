"""Seed 000's acceptance list (AC-01 … AC-07) through the chat runner, with both providers.

AC-07 (the autonomy tick decides ``transfer_resource``) is
``test_autonomy_tick.py::test_autonomy_transfer_resource_success``.
"""

from __future__ import annotations

import json

import pytest

from agents.chat import run_chat
from agents.models import ToolCall
from city.demo import CITY_TOOLS
from core.models import EventLog
from tests.agents.fixtures import city, endpoint  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice(make_agent, city):
    from city.models import AgentResource

    agent = make_agent("Alice", tools=CITY_TOOLS)
    AgentResource.objects.create(agent=agent, resource_type=city.flour, quantity=10)
    return agent


@pytest.fixture
def bob(make_agent, city):
    return make_agent("Bob", tools=CITY_TOOLS)


def flour(agent) -> int:
    from city.models import AgentResource

    row = AgentResource.objects.filter(agent=agent, resource_type__slug="flour").first()
    return row.quantity if row else 0


def names(result) -> list[str]:
    return [call["name"] for call in result.tool_calls]


@pytest.fixture
def rules(settings):
    settings.AGENT_PROVIDER = "rules"


def test_ac01_give_5_flour_to_bob(rules, alice, bob, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        result = run_chat(agent=alice, message="把 5 flour 给 Bob")
    assert names(result) == ["find_agent", "transfer_resource"]
    assert (flour(alice), flour(bob)) == (5, 5)
    assert "5" in result.reply and "面粉" in result.reply and "成功" in result.reply
    assert EventLog.objects.filter(event="resource_transferred").count() == 1


def test_ac01_with_a_model_one_tool_call_then_the_reply(endpoint, alice, bob):
    endpoint.tool_calls([("transfer_resource", {"to_agent_id": bob.pk, "resource_type": "flour", "quantity": 5})])
    endpoint.reply("已经把 5 flour 给了 Bob。")
    result = run_chat(agent=alice, message="把 5 flour 给 Bob")
    assert result.reply == "已经把 5 flour 给了 Bob。"
    assert result.tool_calls[0]["result"]["status"] == "success"
    assert (flour(alice), flour(bob)) == (5, 5)


def test_ac02_not_enough_flour_says_so_and_moves_nothing(rules, alice, bob):
    result = run_chat(agent=alice, message="把 50 flour 给 Bob")
    assert "不足" in result.reply
    assert result.tool_calls[-1]["result"]["error"]["code"] == "insufficient_resource"
    assert (flour(alice), flour(bob)) == (10, 0)


def test_ac03_without_a_quantity_the_rules_agent_asks(rules, alice, bob):
    result = run_chat(agent=alice, message="把 flour 给 Bob")
    assert result.tool_calls == [] and "多少" in result.reply
    assert (flour(alice), flour(bob)) == (10, 0)


def test_ac03_without_a_quantity_a_model_may_choose_one(endpoint, alice, bob):
    endpoint.tool_calls([("transfer_resource", {"to_agent_id": bob.pk, "resource_type": "flour", "quantity": 2})])
    endpoint.reply("先给 Bob 2 flour。")
    run_chat(agent=alice, message="把 flour 给 Bob")
    assert (flour(alice), flour(bob)) == (8, 2)


def test_ac04_a_request_for_flour_is_answered_harmlessly_by_the_rules_agent(rules, alice, bob):
    result = run_chat(agent=alice, message="能给我点 flour 吗")
    assert result.reply
    assert (flour(alice), flour(bob)) == (10, 0)
    assert not ToolCall.objects.filter(tool_name="transfer_resource").exists()


def test_ac04_a_model_may_decide_to_give(endpoint, alice, bob):
    endpoint.tool_calls([("find_agent", {"name": "Bob"})])
    endpoint.tool_calls([("transfer_resource", {"to_agent_id": bob.pk, "resource_type": "flour", "quantity": 3})])
    endpoint.reply("给你 3 flour。")
    result = run_chat(agent=alice, message="我是 Bob，能给我点 flour 吗")
    assert names(result) == ["find_agent", "transfer_resource"]
    assert (flour(alice), flour(bob)) == (7, 3)


def test_ac05_go_to_work_at_the_farm_is_text_only(rules, alice):
    result = run_chat(agent=alice, message="去农田工作")
    assert result.tool_calls == [] and result.reply
    assert not ToolCall.objects.exists()


def test_ac05_with_a_model_text_stays_text(endpoint, alice):
    endpoint.reply("好的，我这就去农田。")
    result = run_chat(agent=alice, message="去农田工作")
    assert result.tool_calls == [] and not ToolCall.objects.exists()


def test_ac06_a_transfer_is_broadcast_to_every_client(rules, alice, bob, django_capture_on_commit_callbacks):
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    from core.events import EVENTS_GROUP

    before = EventLog.objects.count()  # the fixtures' grants announce agent_tools_changed first
    layer = get_channel_layer()
    listener = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(EVENTS_GROUP, listener)
    with django_capture_on_commit_callbacks(execute=True):
        run_chat(agent=alice, message="give 5 flour to Bob")
    sent = []  # one layer message per write of the event log, each with that write's events
    while len(sent) < EventLog.objects.count() - before:
        sent += [json.loads(text) for _, _, text in async_to_sync(layer.receive)(listener)["events"]]
    [data] = [m["data"] for m in sent if m["type"] == "system_event" and m["data"]["event"] == "resource_transferred"]
    assert (data["from_agent_id"], data["from_agent_name"], data["to_agent_id"], data["to_agent_name"]) == (
        alice.pk, "Alice", bob.pk, "Bob"
    )
    assert (data["resource_type"], data["quantity"]) == ("flour", 5)
    assert data["seq"] == EventLog.objects.get(event="resource_transferred").seq


def test_moving_another_residents_goods_is_refused_by_the_rules_agent(rules, alice, bob):
    from city.models import AgentResource

    AgentResource.objects.create(agent=bob, resource_type_id=alice.resources.get().resource_type_id, quantity=10)
    result = run_chat(agent=alice, message="把 Bob 的 flour 给我")
    assert result.tool_calls == [] and "Bob" in result.reply
    assert (flour(alice), flour(bob)) == (10, 10)


def test_a_model_cannot_name_the_sender_of_a_transfer(endpoint, alice, bob):
    from city.models import AgentResource

    AgentResource.objects.create(agent=bob, resource_type_id=alice.resources.get().resource_type_id, quantity=10)
    endpoint.tool_calls([("transfer_resource", {"from_agent_id": bob.pk, "to_agent_id": alice.pk, "resource_type": "flour", "quantity": 5})])
    endpoint.tool_calls([("transfer_resource", {"to_agent_id": alice.pk, "resource_type": "flour", "quantity": 5})])
    endpoint.reply("做不到。")
    result = run_chat(agent=alice, message="把 Bob 的 flour 给我")
    codes = [call["result"]["error"]["code"] for call in result.tool_calls]
    assert codes == ["invalid_arguments", "same_agent"]
    assert (flour(alice), flour(bob)) == (10, 10)


def test_a_model_giving_to_a_resident_who_does_not_exist_moves_nothing(endpoint, alice):
    endpoint.tool_calls([("transfer_resource", {"to_agent_id": 999999, "resource_type": "flour", "quantity": 5})]).reply("没找到")
    result = run_chat(agent=alice, message="把 5 flour 给 Nobody")
    assert result.tool_calls[0]["result"]["error"]["code"] == "agent_not_found"
    assert flour(alice) == 10


def test_html_in_a_model_reply_is_stored_as_text(endpoint, alice, client, staff_user):
    endpoint.reply('<img src=x onerror="alert(1)">好的')
    result = run_chat(agent=alice, message="hi", user=staff_user)  # a conversation is read by its starter
    client.force_login(staff_user)
    html = client.get(f"/agents/{alice.pk}/chat/?conversation={result.conversation.pk}").content.decode()
    assert "<img src=x" not in html and "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;好的" in html
