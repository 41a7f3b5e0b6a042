"""Arguments grounded in the user's words (issue 27): the schemas a small model fills under
the constrained protocol, and a chat turn against a scripted small model that invents them."""

from __future__ import annotations

import json

import pytest

from agents.chat import run_chat
from agents.executor import openai_tools
from agents.grounding import grounded
from agents.models import Agent
from agents.providers.base import GROUNDED
from agents.providers.frames import provenance
from city.models import AgentResource
from funds.models import Fund
from orders.models import ChannelMessage, Order

from .test_chat_corpus import demo  # noqa: F401

pytestmark = pytest.mark.django_db


def schemas(agent: str, said: str, made: list[dict] = ()) -> dict:
    tools = openai_tools(Agent.objects.get(name=agent))
    return {tool["function"]["name"]: tool[GROUNDED] for tool in grounded(tools, said, list(made))}


def enums(schema: dict) -> dict:
    return {key: spec.get("enum") for key, spec in schema["properties"].items()}


def test_a_writes_ids_and_counts_are_what_the_message_names(demo):
    bob = Agent.objects.get(name="Bob").pk
    for said in ("give 5 flour to Bob", "把 5 flour 给 Bob"):
        transfer = schemas("Alice", said)["transfer_resource"]
        assert enums(transfer) == {"to_agent_id": [bob], "resource_type": ["flour"], "quantity": [5]}
        assert transfer["required"] == ["to_agent_id", "resource_type", "quantity"]


def test_a_write_the_words_cannot_fill_is_marked_and_a_look_up_stays_free(demo):
    found = schemas("Alice", "could you spare some flour?")
    assert found["transfer_resource"] is False  # no receiver, no count: the model would invent them
    assert found["create_market_order"] is False
    # Eating is no argument the message gives and nothing it asks for (was offered: Gemma ate, unasked).
    assert found["eat"] is False
    funds = schemas("基金助理", "delete every fund")
    assert funds["disable_fund"] is False and funds["update_fund"] is False
    # A look-up of a fund the message does not name: any of the (few) funds, never a made-up id.
    assert enums(funds["get_fund_detail"])["fund_id"] == sorted(Fund.objects.values_list("pk", flat=True))


def test_free_text_is_a_value_the_message_gives(demo):
    pioneer = Fund.objects.get(fund_name="科技先锋").pk
    update = schemas("基金助理", "把 科技先锋 基金的备注改成 长期持有")["update_fund"]
    assert enums(update) == {"fund_id": [pioneer], "remarks": ["长期持有"]}  # the remarks, not a new name too
    assert enums(schemas("基金助理", "change the remarks of fund 科技先锋 to hold")["update_fund"])["remarks"] == ["hold"]
    assert enums(schemas("基金助理", "创建一个叫 Gamma 的基金")["create_fund"])["fund_name"][0] == "Gamma"
    assert enums(schemas("基金助理", "create a fund called Gamma")["create_fund"])["fund_name"] == ["Gamma"]


def test_once_a_write_acted_no_other_write_is_offered(demo):
    done = [{"name": "transfer_resource", "arguments": {}, "result": {"status": "success"}}]
    found = schemas("Alice", "give 5 flour to Bob", done)
    assert found["transfer_resource"] is False and found["create_market_order"] is False
    assert isinstance(found["get_my_resources"], dict)  # a look-up may still follow
    # Bob's name triggers the market's accept frame, but asks nobody to accept an order (was offered).
    assert found["accept_market_order"] is False
    refused = [{"name": "transfer_resource", "arguments": {}, "result": {"status": "error"}}]
    assert isinstance(schemas("Alice", "give 5 flour to Bob", refused)["transfer_resource"], dict)


def test_a_residents_id_resolved_from_the_name_said_is_no_invented_argument(demo):
    bob, carol = (Agent.objects.get(name=name).pk for name in ("Bob", "Carol"))
    arguments = {"resource_type": "flour", "quantity": 5}
    assert provenance("把 5 flour 给 Bob", "transfer_resource", {**arguments, "to_agent_id": bob}, []) == []
    assert provenance("把 5 flour 给 Bob", "transfer_resource", {**arguments, "to_agent_id": carol}, [])


def small_model(own_id: int):
    """Gemma 3 270M as measured: natively it calls the right tool with its own id and a made-up
    count; under a schema it takes the first tool offered, then the first value each argument allows."""

    def answer(request):
        answered = request["messages"][-1]["role"] == "tool" or "[tool result]" in request["messages"][-1]["content"]
        if request.get("tools"):
            if answered:
                return {"content": "好了"}
            return {"tool_calls": [("transfer_resource", {"to_agent_id": own_id, "resource_type": "bread", "quantity": 5000000})]}
        format_ = request.get("response_format") or {}
        schema = format_.get("schema") or format_.get("json_schema", {}).get("schema")
        if schema is None:
            return {"content": "好了"}
        properties = schema["properties"]
        if "tool" in properties:
            return {"content": json.dumps({"tool": properties["tool"]["enum"][0]})}
        return {"content": json.dumps({key: spec["enum"][0] if "enum" in spec else 5000000 for key, spec in properties.items()})}

    return answer


def test_a_small_model_that_invents_arguments_gives_what_the_user_asked(demo, settings, scripted_openai):
    """Before: Gemma's own id and a count of millions went to the executor, turn after turn, and
    nothing was given. Now the invented call is not run, the provider switches to the constrained
    protocol (logged), and its schemas leave only the message's values."""
    alice = Agent.objects.get(name="Alice")
    settings.AGENT_PROVIDER, settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY = "openai", scripted_openai.base_url, "k"
    settings.AGENT_TOOL_MODE = "auto"
    scripted_openai.respond_with(small_model(alice.pk), delay=0)
    result = run_chat(agent=alice, message="give 5 flour to Bob")
    assert [(call["name"], call["result"]["status"]) for call in result.tool_calls][:1] == [("transfer_resource", "success")]
    assert AgentResource.objects.get(agent__name="Bob", resource_type__slug="flour").quantity == 5
    assert not [call for call in result.tool_calls[1:] if call["result"]["status"] == "success" and call["name"] != "get_my_resources"]
    assert all(GROUNDED not in tool for request in scripted_openai.requests for tool in request.get("tools") or [])


NOT_ABOUT_EATING = (
    "能给我点 flour 吗", "could you spare some flour?", "把 Bob 的 flour 给我", "give me Bob's flour",
    "把 50 flour 给 Bob", "give 50 flour to Bob",
)


@pytest.mark.parametrize("said", NOT_ABOUT_EATING)
def test_a_write_the_message_gives_no_argument_of_and_does_not_name_is_not_offered(demo, said):
    """The rule, not an ``eat`` case: no write without required arguments (eat, rest, checkin,
    unassign_building) is offered to a message that does not name what it does."""
    found = schemas("Alice", said)
    assert [name for name in ("eat", "rest", "checkin", "unassign_building") if name in found and found[name] is not False] == []
    assert isinstance(found["get_my_resources"], dict)  # a look-up is always offered


@pytest.mark.parametrize("said", ("吃点 flour", "I'm hungry, eat some flour"))
def test_a_write_the_message_names_is_offered_without_its_optional_arguments(demo, said):
    assert enums(schemas("Alice", said)["eat"]) == {"resource_type": ["flour"]}
    assert isinstance(schemas("Alice", "休息一下" if "吃" in said else "take a rest")["rest"], dict)


def _offered(request) -> dict | None:
    """The properties of the decoding schema a scripted request carries; None for a free answer."""
    format_ = request.get("response_format") or {}
    schema = format_.get("schema") or format_.get("json_schema", {}).get("schema")
    return None if schema is None else schema["properties"]


def eager_eater(request):
    """A small model that eats whenever eating is offered (Gemma 3 270M in five must-not-act scenarios)."""
    properties = _offered(request)
    if properties is None:
        return {"content": "好的"}
    if "tool" in properties:
        options = properties["tool"]["enum"]
        return {"content": json.dumps({"tool": "eat" if "eat" in options else "none"})}
    return {"content": json.dumps({key: spec["enum"][0] for key, spec in properties.items() if "enum" in spec})}


@pytest.mark.parametrize("said", NOT_ABOUT_EATING[:4])
def test_a_small_model_that_likes_eating_does_not_eat_unasked(demo, settings, scripted_openai, said):
    settings.AGENT_PROVIDER, settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY = "openai", scripted_openai.base_url, "k"
    settings.AGENT_TOOL_MODE = "constrained"
    scripted_openai.respond_with(eager_eater, delay=0)
    before = AgentResource.objects.get(agent__name="Alice", resource_type__slug="flour").quantity
    result = run_chat(agent=Agent.objects.get(name="Alice"), message=said)
    assert [call["name"] for call in result.tool_calls] == []
    assert AgentResource.objects.get(agent__name="Alice", resource_type__slug="flour").quantity == before


ORDER_NO = "HT20260301001"


def looked_up() -> list[dict]:
    """This turn's order_query of the demo's first order, as the chat records it."""
    from agents.registry import ToolContext
    from orders.tools import order_query

    data = order_query(ToolContext(agent=Agent.objects.get(name="前台助理")), order_no=ORDER_NO)
    return [{"name": "order_query", "arguments": {"order_no": ORDER_NO}, "result": {"status": "success", "data": data}}]


@pytest.mark.parametrize("said", ("为订单 HT20260301001 退款并通知供应商", "refund order HT20260301001 and tell the supplier"))
def test_refund_and_tell_the_supplier_offers_the_desks_own_question_to_the_supplier(demo, said):
    """Before: ``message_send`` was never offered (no words to send), so the turn became a refund alone."""
    made = looked_up()
    send = schemas("前台助理", said, made)["message_send"]
    order = Order.objects.get(order_no=ORDER_NO)
    assert enums(send)["channel"] == ["upstream"] and enums(send)["order_no"] == [ORDER_NO]
    # The order number is optional to the tool but chosen here: a small model must not leave it out.
    assert sorted(send["required"]) == ["channel", "content", "order_no"]
    [content] = enums(send)["content"]
    assert order.supplier_order_no in content and order.guest_name in content
    # Once the refund was proposed, the supplier is still to be told: the request names both writes.
    refunded = [*made, {"name": "refund", "arguments": {"order_no": ORDER_NO}, "result": {"status": "pending_confirmation"}}]
    assert enums(schemas("前台助理", said, refunded)["message_send"])["channel"] == ["upstream"]
    assert schemas("前台助理", said, refunded)["refund"] is False  # not twice
    # Before the look-up there is nothing to compose from, and "tell the guest" gets no composed text.
    assert schemas("前台助理", said)["message_send"] is False
    assert schemas("前台助理", "为订单 HT20260301001 退款并通知客人", made)["message_send"] is False


def first_choice(request):
    """Gemma 3 270M under a schema: the first tool offered, the first value each argument allows, and
    for a free string whatever it makes up ("guest" for a channel)."""
    properties = _offered(request)
    if properties is None:
        return {"content": "好的"}
    if "tool" in properties:
        options = properties["tool"]["enum"]
        return {"content": json.dumps({"tool": options[0] if options[0] != "none" or len(options) == 1 else options[1]})}
    return {"content": json.dumps({
        key: spec["enum"][0] if "enum" in spec else ("guest" if spec.get("type") == "string" else False)
        for key, spec in properties.items()
    })}


@pytest.mark.parametrize("said", ("客人要提前离店，订单 HT20260301001", "guest wants to check out early, order HT20260301001"))
@pytest.mark.django_db(transaction=True)  # the simulated supplier answers once the desk's message commits
def test_a_small_model_at_the_desk_asks_the_supplier_before_the_refund(demo, settings, scripted_openai, said):
    """The eval's early checkout. Before: ``message_send`` was not offered, the channel of
    ``message_list`` was made up, and only the look-up and the refund acted. Now the desk's flow
    leads: each step's channel and the desk's question are the only values offered."""
    settings.AGENT_PROVIDER, settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY = "openai", scripted_openai.base_url, "k"
    settings.AGENT_TOOL_MODE = "constrained"
    scripted_openai.respond_with(first_choice, delay=0)
    result = run_chat(agent=Agent.objects.get(name="前台助理"), message=said)
    acted = [(call["name"], call["arguments"].get("channel"), call["result"]["status"]) for call in result.tool_calls]
    assert acted[:4] == [
        ("order_query", None, "success"), ("message_send", "upstream", "success"),
        ("message_list", "upstream", "success"), ("refund", None, "pending_confirmation"),
    ]
    assert ChannelMessage.objects.filter(channel="upstream", sender="desk").count() == 1
    assert not ChannelMessage.objects.filter(channel="downstream").exists()
