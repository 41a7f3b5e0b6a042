"""City tools through the audited executor: identity from the context, schema bounds, results."""

import pytest

from agents.confirmations import confirm_pending_action
from agents.executor import execute, openai_tools
from agents.models import PendingAction, Tool, ToolCall
from agents.registry import ToolContext
from city.demo import CITY_TOOLS
from city.models import MarketOrder, ResourceTransfer

from .conftest import holding

pytestmark = pytest.mark.django_db


@pytest.fixture
def resident(make_agent):
    """``resident(name, **fields)``: an agent granted every city tool."""

    def make(name: str, **fields):
        return make_agent(name, tools=CITY_TOOLS, **fields)

    return make


def run(agent, tool, source="chat", user=None, **arguments):
    return execute(tool, arguments, ToolContext(agent=agent, source=source, user=user))


def test_every_city_tool_is_registered_and_offered(resident):
    offered = {tool["function"]["name"] for tool in openai_tools(resident("Alice"))}
    assert offered == set(CITY_TOOLS)


def test_transfer_tool_moves_the_calling_agents_goods(resident, stock, staff_user):
    alice, bob = resident("Alice"), resident("Bob")
    stock(alice, flour=10)
    result = run(alice, "transfer_resource", user=staff_user, to_agent_id=bob.pk, resource_type="flour", quantity=5)
    assert result["status"] == "success"
    assert result["data"]["message"] == "转移 5 面粉 成功"
    assert (holding(alice, "flour"), holding(bob, "flour")) == (5, 5)
    row = ResourceTransfer.objects.get(pk=result["data"]["transfer_id"])
    assert (row.from_agent, row.to_agent, row.source, row.user) == (alice, bob, "tool", staff_user)


def test_transfer_tool_in_the_autonomy_tick_is_ledgered_as_autonomy(resident, stock):
    alice, bob = resident("Alice"), resident("Bob")
    stock(alice, flour=10)
    result = run(alice, "transfer_resource", source="autonomy", to_agent_id=bob.pk, resource_type="flour", quantity=1)
    assert ResourceTransfer.objects.get(pk=result["data"]["transfer_id"]).source == "autonomy"


def test_transfer_tool_refuses_a_from_agent_id_argument(resident, stock):
    alice, bob = resident("Alice"), resident("Bob")
    stock(bob, flour=10)
    result = run(alice, "transfer_resource", from_agent_id=bob.pk, to_agent_id=alice.pk, resource_type="flour", quantity=5)
    assert result["status"] == "error"
    assert (result["error"]["code"], result["error"]["field"]) == ("invalid_arguments", "from_agent_id")
    assert (holding(alice, "flour"), holding(bob, "flour")) == (0, 10)
    assert not ResourceTransfer.objects.exists()
    audit = ToolCall.objects.get()
    assert (audit.agent, audit.tool_name, audit.error_code) == (alice, "transfer_resource", "invalid_arguments")


def test_transfer_tool_schema_has_no_sender_and_bounds_the_quantity(resident):
    schema = Tool.objects.get(name="transfer_resource").input_schema
    assert set(schema["properties"]) == {"to_agent_id", "resource_type", "quantity"}
    assert schema["additionalProperties"] is False
    assert schema["properties"]["quantity"]["minimum"] == 1


def test_transfer_tool_with_quantity_zero_is_invalid_arguments(resident, stock):
    alice, bob = resident("Alice"), resident("Bob")
    stock(alice, flour=10)
    result = run(alice, "transfer_resource", to_agent_id=bob.pk, resource_type="flour", quantity=0)
    assert (result["error"]["code"], result["error"]["field"]) == ("invalid_arguments", "quantity")


def test_transfer_tool_reports_the_services_error(resident, stock):
    alice, bob = resident("Alice"), resident("Bob")
    stock(alice, flour=3)
    result = run(alice, "transfer_resource", to_agent_id=bob.pk, resource_type="flour", quantity=5)
    assert result["error"]["code"] == "insufficient_resource"
    assert result["error"]["message"] == "面粉 不足，当前 3，需要 5"
    assert ToolCall.objects.get().error_code == "insufficient_resource"


def test_transfer_tool_not_granted_is_tool_not_allowed(make_agent, stock):
    alice, bob = make_agent("Alice"), make_agent("Bob")
    stock(alice, flour=10)
    result = run(alice, "transfer_resource", to_agent_id=bob.pk, resource_type="flour", quantity=5)
    assert result["error"]["code"] == "tool_not_allowed"
    assert holding(alice, "flour") == 10


def test_transfer_requiring_confirmation_waits_for_staff_then_runs_as_them(resident, stock, staff_user):
    Tool.objects.filter(name="transfer_resource").update(requires_confirmation=True, confirmation_set_by_staff=True)
    alice, bob = resident("Alice"), resident("Bob")
    stock(alice, flour=10)
    result = run(alice, "transfer_resource", to_agent_id=bob.pk, resource_type="flour", quantity=4)
    assert result["status"] == "pending_confirmation"
    assert result["message"] == "即将把 4 面粉 从 Alice 转给 Bob，请确认是否继续？"
    assert result["form_data"] == {"from_agent_id": alice.pk, "to_agent_id": bob.pk, "resource_type": "flour", "quantity": 4}
    assert holding(bob, "flour") == 0
    action = confirm_pending_action(action_id=result["pending_action_id"], user=staff_user)
    assert action.status == PendingAction.Status.CONFIRMED
    assert (holding(alice, "flour"), holding(bob, "flour")) == (6, 4)
    row = ResourceTransfer.objects.get()
    assert (row.source, row.user) == ("tool", staff_user)


def test_find_agent_gives_the_id_of_a_resident(resident):
    alice, bob = resident("Alice"), resident("Bob")
    result = run(alice, "find_agent", name="bob")
    assert result["data"] == {"agent_id": bob.pk, "name": "Bob", "message": f"Bob 的 ID 是 {bob.pk}"}


def test_find_agent_of_an_unknown_name_is_agent_not_found(resident):
    result = run(resident("Alice"), "find_agent", name="Zed")
    assert (result["error"]["code"], result["error"]["message"]) == ("agent_not_found", "找不到名为「Zed」的居民")


def test_find_agent_of_an_ambiguous_name_asks_for_the_full_name(resident):
    alice = resident("Alice")
    resident("Bobby"), resident("Bobo")
    result = run(alice, "find_agent", name="Bob")
    assert result["error"]["code"] == "agent_not_found"
    assert "Bobby" in result["error"]["message"] and "Bobo" in result["error"]["message"]


def test_get_my_resources_lists_only_the_callers_stock(resident, stock):
    alice, bob = resident("Alice"), resident("Bob")
    stock(alice, flour=3, bread=0, wood=2)
    stock(bob, wheat=9)
    data = run(alice, "get_my_resources")["data"]
    assert data == {"resources": {"flour": 3, "wood": 2}, "message": "我的资源：面粉 3，木材 2"}  # names, not slugs


def test_job_and_needs_tools_act_for_the_caller(resident, farm, stock):
    worker = resident("Worker", energy=50, satiety=40, credits=0)
    stock(worker, bread=1)
    assert run(worker, "assign_building", building_id=farm.pk)["data"]["building_name"] == "城东农田"
    assert run(worker, "checkin")["data"]["message"] == "打卡成功，获得工资 12 信用点，产出 6 小麦"
    assert run(worker, "eat")["data"]["resource_type"] == "bread"
    assert run(worker, "rest")["data"]["energy"] == 55
    assert run(worker, "unassign_building")["data"]["message"] == "已从「城东农田」离职"
    worker.refresh_from_db()
    assert (worker.credits, worker.satiety, worker.energy, holding(worker, "wheat")) == (12, 60, 55, 6)


def test_shop_tools_list_and_buy(resident, bread_item):
    alice = resident("Alice", credits=24)
    items = run(alice, "list_shop_items")["data"]["items"]
    assert items == [{"item_id": bread_item.pk, "name": "面包", "price": 8, "resource_type": "bread", "quantity": 1}]
    assert run(alice, "purchase", item_id=bread_item.pk, quantity=2)["status"] == "success"
    assert run(alice, "purchase", item_id=bread_item.pk, quantity=1)["status"] == "success"
    assert run(alice, "purchase", item_id=bread_item.pk)["error"]["code"] == "insufficient_credits"
    assert holding(alice, "bread") == 3


def test_market_tools_sell_accept_and_cancel(resident, stock):
    alice, bob = resident("Alice"), resident("Bob")
    stock(alice, flour=10)
    first = run(alice, "create_market_order", resource_type="flour", quantity=4, price=20)["data"]["order_id"]
    second = run(alice, "create_market_order", resource_type="flour", quantity=2, price=9)["data"]["order_id"]
    listed = run(bob, "list_market_orders")["data"]["orders"]
    assert [order["order_id"] for order in listed] == [second, first]
    assert run(bob, "cancel_market_order", order_id=second)["error"]["code"] == "not_order_seller"
    assert run(alice, "accept_market_order", order_id=first)["error"]["code"] == "cannot_accept_own_order"
    assert run(bob, "accept_market_order", order_id=first)["status"] == "success"
    assert run(alice, "cancel_market_order", order_id=second)["status"] == "success"
    assert dict(MarketOrder.objects.values_list("pk", "status")) == {first: "filled", second: "cancelled"}
    assert (holding(alice, "flour"), holding(bob, "flour")) == (6, 4)


def test_construct_and_list_buildings(resident, stock, farm_kind):
    alice = resident("Alice", credits=100)
    stock(alice, wood=10, stone=2)
    building_id = run(alice, "construct_building", kind="farm", name="新农田")["data"]["building_id"]
    data = run(alice, "list_buildings")["data"]
    assert [b["building_id"] for b in data["buildings"]] == [building_id]
    assert data["kinds"] == [{"kind": "farm", "name": "农田", "credit_cost": 40, "materials": {"stone": 2, "wood": 10}}]


def test_chat_tool_posts_in_the_city_channel(resident):
    result = run(resident("Alice"), "chat", content="今天面包打折")
    assert result["data"]["message"] == "已在城市频道发言：今天面包打折"


def test_get_my_resources_punctuates_in_the_language_of_the_reply(resident, stock):
    from django.utils import translation

    alice = resident("Alice")
    stock(alice, flour=3, wood=2)
    with translation.override("en"):
        message = run(alice, "get_my_resources")["data"]["message"]
    assert message.endswith("flour 3, wood 2")  # was "flour 3，wood 2"
