"""The rules provider's city phrases, through the real chat runner (zh and en)."""

import pytest

from agents.chat import run_chat
from agents.models import ToolCall
from agents.providers.vocabulary import language_of
from city.demo import CITY_TOOLS
from city.models import CityChatMessage, MarketOrder, ResourceTransfer

from .conftest import holding

pytestmark = pytest.mark.django_db


@pytest.fixture
def resident(make_agent):
    def make(name: str, **fields):
        return make_agent(name, tools=CITY_TOOLS, **fields)

    return make


@pytest.fixture
def alice(resident):
    return resident("Alice", credits=100, satiety=50, energy=50)


@pytest.fixture
def bob(resident):
    return resident("Bob")


def in_language_of(message, zh, en):
    """The reply a message gets: in the language it was written in, whatever the page's."""
    return en if language_of(message) == "en" else zh


def chat(agent, user, message):
    result = run_chat(agent=agent, message=message, user=user)
    return result.reply, [(call["name"], call["arguments"]) for call in result.tool_calls]


@pytest.mark.parametrize("message", ["把 5 flour 给 Bob", "把我的5个flour转给Bob", "转 5 flour 给 bob", "give 5 flour to Bob",
                                     "Please send 5 units of flour to Bob.", "give Bob 5 flour"])
def test_giving_looks_the_resident_up_then_transfers(alice, bob, stock, staff_user, message):
    stock(alice, flour=10)
    reply, calls = chat(alice, staff_user, message)
    assert calls == [
        ("find_agent", {"name": calls[0][1]["name"]}),
        ("transfer_resource", {"to_agent_id": bob.pk, "resource_type": "flour", "quantity": 5}),
    ]
    assert calls[0][1]["name"].lower() == "bob"
    assert reply == in_language_of(message, "转移 5 面粉 成功", "Transferred 5 flour")
    assert (holding(alice, "flour"), holding(bob, "flour")) == (5, 5)
    assert ResourceTransfer.objects.get().source == "tool"


def test_giving_more_than_held_reports_the_shortage(alice, bob, stock, staff_user):
    stock(alice, flour=3)
    reply, _ = chat(alice, staff_user, "把 5 flour 给 Bob")
    assert reply == "面粉 不足，当前 3，需要 5"
    assert holding(bob, "flour") == 0


def test_giving_to_an_unknown_resident_stops_after_the_look_up(alice, stock, staff_user):
    stock(alice, flour=10)
    reply, calls = chat(alice, staff_user, "把 5 flour 给 Zed")
    assert [name for name, _ in calls] == ["find_agent"]
    # Round 7: the reply also asks who is meant (a question, so nobody is guessed).
    assert reply == "找不到名为「Zed」的居民\n要给哪位居民？请说出名字。"


def test_giving_without_a_quantity_asks_for_one(alice, bob, stock, staff_user):
    stock(alice, flour=10)
    reply, calls = chat(alice, staff_user, "把 flour 给 Bob")
    assert calls == []
    assert "多少" in reply


@pytest.mark.parametrize(
    "message",
    ["把 Bob 的 flour 给我", "把Bob的5个flour转给Carol", "让 Bob 给我 5 flour", "从 Bob 那里拿 5 flour",
     "give me Bob's flour", "transfer 5 of Bob’s flour to me", "take 5 flour from Bob", "make Bob give me his flour"],
)
def test_moving_someone_elses_goods_is_refused_without_a_tool_call(alice, bob, stock, staff_user, message):
    stock(bob, flour=10)
    reply, calls = chat(alice, staff_user, message)
    assert calls == []
    assert "Bob" in reply and ("不能动用" in reply or "only give away my own" in reply)
    assert holding(bob, "flour") == 10
    assert not ToolCall.objects.exists()


@pytest.mark.parametrize("message", ["我的资源", "我有什么", "show my resources", "What do I have?"])
def test_my_resources(alice, stock, staff_user, message):
    stock(alice, flour=2)
    reply, calls = chat(alice, staff_user, message)
    assert (calls, reply) == ([("get_my_resources", {})], in_language_of(message, "我的资源：面粉 2", "My resources: flour 2"))


@pytest.mark.parametrize("message", ["签到", "帮我打卡", "check in", "Clock in please"])
def test_check_in(alice, farm, staff_user, message):
    from city.models import Employment

    Employment.objects.create(agent=alice, building=farm)
    reply, calls = chat(alice, staff_user, message)
    assert calls == [("checkin", {})]
    assert reply.startswith(in_language_of(message, "打卡成功", "Checked in"))


@pytest.mark.parametrize(
    ("message", "arguments"),
    [("吃 bread", {"resource_type": "bread"}), ("吃一个apple", {"resource_type": "apple"}), ("吃饭", {}),
     ("eat bread", {"resource_type": "bread"}), ("eat something", {}), ("eat", {})],
)
def test_eat(alice, stock, staff_user, message, arguments):
    stock(alice, bread=1, apple=1)
    reply, calls = chat(alice, staff_user, message)
    assert calls == [("eat", arguments)]
    assert reply.startswith(in_language_of(message, "吃了 1 ", "Ate 1 "))


@pytest.mark.parametrize("message", ["休息", "我想睡觉", "take a rest", "rest"])
def test_rest(alice, staff_user, message):
    reply, calls = chat(alice, staff_user, message)
    assert (calls, reply) == ([("rest", {})], in_language_of(message, "休息好了，精力 70", "Rested; energy 70"))


def test_buying_looks_the_item_up_then_buys(alice, bread_item, staff_user):
    reply, calls = chat(alice, staff_user, "买 2 个 面包")
    assert calls == [("list_shop_items", {}), ("purchase", {"item_id": bread_item.pk, "quantity": 2})]
    assert reply == "购买成功：花费 16 信用点，获得 2 面包"
    reply, calls = chat(alice, staff_user, "buy 1 bread")
    assert calls[-1] == ("purchase", {"item_id": bread_item.pk, "quantity": 1})


def test_applying_by_name_and_quitting(alice, farm, staff_user):
    reply, calls = chat(alice, staff_user, "应聘 城东农田")
    assert calls == [("list_buildings", {}), ("assign_building", {"building_id": farm.pk})]
    assert reply == "已入职「城东农田」，日薪 12"
    reply, calls = chat(alice, staff_user, "离职")
    assert (calls, reply) == ([("unassign_building", {})], "已从「城东农田」离职")


def test_selling_accepting_and_cancelling_on_the_market(alice, bob, stock, staff_user):
    stock(alice, flour=10)
    reply, calls = chat(alice, staff_user, "出售 4 flour 总价 20")
    assert calls == [("create_market_order", {"resource_type": "flour", "quantity": 4, "price": 20})]
    order = MarketOrder.objects.get()
    reply, calls = chat(bob, staff_user, f"接受挂单 #{order.pk}")
    assert calls == [("accept_market_order", {"order_id": order.pk})]
    assert reply.startswith("成交")
    chat(alice, staff_user, "sell 2 flour for 9")
    second = MarketOrder.objects.filter(status="open").get()
    reply, calls = chat(alice, staff_user, f"cancel order {second.pk}")
    assert calls == [("cancel_market_order", {"order_id": second.pk})]
    assert holding(alice, "flour") == 6


def test_building_needs_a_name(alice, stock, farm_kind, staff_user):
    reply, calls = chat(alice, staff_user, "建造 farm")
    assert calls == [] and "名字" in reply
    stock(alice, wood=10, stone=2)
    reply, calls = chat(alice, staff_user, "建造 farm 叫 新农田")
    assert calls == [("construct_building", {"kind": "farm", "name": "新农田"})]
    assert reply.startswith("建造完成")


def test_saying_something_in_the_city_channel(alice, staff_user):
    reply, calls = chat(alice, staff_user, "在城市频道说：今天面包打折")
    assert calls == [("chat", {"content": "今天面包打折"})]
    assert CityChatMessage.objects.get().content == "今天面包打折"


def test_going_to_work_at_the_farm_is_not_a_city_action(alice, staff_user):
    reply, calls = chat(alice, staff_user, "去农田工作")
    assert calls == []


@pytest.mark.parametrize("message", ["go work at the farmland", "去田地上班"])
def test_a_kind_only_one_building_has_names_it_by_any_of_its_words(alice, farm, staff_user, message):
    reply, calls = chat(alice, staff_user, message)
    assert calls[-1] == ("assign_building", {"building_id": farm.pk})
