"""Every rule and error code of city.services, against the real database."""

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone, translation

from agents.models import Agent
from city import services
from city.models import (
    Building,
    CheckIn,
    CityChatMessage,
    CreditEntry,
    Employment,
    MarketOrder,
    Purchase,
    ResourceTransfer,
    StockAdjustment,
)
from core.errors import ApplicationError
from core.models import EventLog

from .conftest import holding

pytestmark = pytest.mark.django_db


def refused(call, **kwargs) -> ApplicationError:
    with pytest.raises(ApplicationError) as caught:
        call(**kwargs)
    return caught.value


def events(name: str) -> list[dict]:
    return [row.data for row in EventLog.objects.filter(event=name).order_by("seq")]


# ---------------------------------------------------------------------------- transfer_resource


def transfer(alice, bob, quantity=5, resource_type="flour", **kwargs):
    return services.transfer_resource(
        from_agent_id=alice.pk, to_agent_id=bob.pk, resource_type=resource_type, quantity=quantity,
        source=kwargs.pop("source", "api"), **kwargs,
    )


def test_transfer_moves_goods_and_writes_the_ledger(alice, bob, stock, staff_user):
    stock(alice, flour=10)
    stock(bob, flour=1)
    row = transfer(alice, bob, 4, user=staff_user)
    assert (holding(alice, "flour"), holding(bob, "flour")) == (6, 5)
    row = ResourceTransfer.objects.get(pk=row.pk)
    assert (row.from_agent, row.to_agent, row.resource_type.slug, row.quantity) == (alice, bob, "flour", 4)
    assert (row.source, row.user) == ("api", staff_user)
    assert services.transfer_message(row) == "转移 4 面粉 成功"


def test_transfer_creates_the_receivers_stock_row(alice, bob, stock):
    stock(alice, flour=5)
    transfer(alice, bob, 5)
    assert (holding(alice, "flour"), holding(bob, "flour")) == (0, 5)


def test_transfer_reads_the_resource_slug_in_any_case(alice, bob, stock):
    stock(alice, flour=5)
    transfer(alice, bob, 2, resource_type=" Flour ")
    assert holding(bob, "flour") == 2


def test_transfer_by_an_agent_records_no_staff_member(alice, bob, stock):
    stock(alice, flour=5)
    assert transfer(alice, bob, 1, source="autonomy").user is None


def test_transfer_broadcasts_resource_transferred_after_commit(alice, bob, stock, sent_events, django_capture_on_commit_callbacks):
    stock(alice, flour=10)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        row = transfer(alice, bob, 5)
        assert sent_events == []  # not before the commit
    for callback in callbacks:
        callback()
    assert [event["event"] for event in sent_events] == ["resource_transferred"]
    (event,) = events("resource_transferred")
    assert event == {
        "from_agent_id": alice.pk,
        "from_agent_name": "Alice",
        "to_agent_id": bob.pk,
        "to_agent_name": "Bob",
        "resource_type": "flour",
        "quantity": 5,
        "transfer_id": row.pk,
        "source": "api",
    }


def test_a_rolled_back_transfer_leaves_no_trace(alice, bob, stock, django_capture_on_commit_callbacks):
    stock(alice, flour=10)
    with django_capture_on_commit_callbacks(execute=True):
        with pytest.raises(RuntimeError), transaction.atomic():
            transfer(alice, bob, 5)
            raise RuntimeError("the caller failed afterwards")
    assert (holding(alice, "flour"), holding(bob, "flour")) == (10, 0)
    assert not ResourceTransfer.objects.exists()
    assert events("resource_transferred") == []


@pytest.mark.parametrize("quantity", [0, -1, 2.5, True, "5", None, services.MAX_AMOUNT + 1])
def test_transfer_refuses_a_quantity_that_is_not_a_whole_number_from_1(alice, bob, stock, quantity):
    stock(alice, flour=10)
    error = refused(transfer, alice=alice, bob=bob, quantity=quantity)
    assert (error.code, error.status_code, error.field) == ("invalid_quantity", 400, "quantity")
    assert holding(alice, "flour") == 10


def test_transfer_from_a_missing_agent_is_agent_not_found(bob, stock, kinds):
    error = refused(
        services.transfer_resource, from_agent_id=999, to_agent_id=bob.pk, resource_type="flour", quantity=1, source="api"
    )
    assert (error.code, error.status_code, error.field) == ("agent_not_found", 404, "from_agent_id")
    assert error.message == "居民 #999 不存在"


def test_transfer_to_a_missing_agent_is_agent_not_found(alice, stock):
    stock(alice, flour=10)
    error = refused(
        services.transfer_resource, from_agent_id=alice.pk, to_agent_id=999, resource_type="flour", quantity=1, source="api"
    )
    assert (error.code, error.status_code, error.field) == ("agent_not_found", 404, "to_agent_id")
    assert holding(alice, "flour") == 10


def test_transfer_to_oneself_is_same_agent(alice, stock):
    stock(alice, flour=10)
    error = refused(transfer, alice=alice, bob=alice)
    assert (error.code, error.status_code) == ("same_agent", 400)
    assert holding(alice, "flour") == 10


def test_transfer_of_an_unknown_resource_is_unknown_resource(alice, bob, kinds):
    error = refused(transfer, alice=alice, bob=bob, resource_type="gold")
    assert (error.code, error.status_code, error.message) == ("unknown_resource", 400, "未知资源：gold")


def test_transfer_beyond_the_stock_is_insufficient_resource(alice, bob, stock):
    stock(alice, flour=3)
    error = refused(transfer, alice=alice, bob=bob, quantity=5)
    assert (error.code, error.status_code) == ("insufficient_resource", 409)
    assert error.message == "面粉 不足，当前 3，需要 5"
    assert error.extra == {"have": 3, "need": 5}
    assert (holding(alice, "flour"), holding(bob, "flour")) == (3, 0)
    assert not ResourceTransfer.objects.exists()


def test_a_refused_transfer_leaves_the_receivers_holding_as_it_was(alice, bob, stock):
    """One UPDATE moves both sides (city.stock.move): when the sender's side is refused, the
    receiver's must not keep its increase, in a transaction of the caller's own too (the tick's)."""
    stock(alice, flour=3)
    stock(bob, flour=7)
    with transaction.atomic():
        assert refused(transfer, alice=alice, bob=bob, quantity=5).code == "insufficient_resource"
        assert (holding(alice, "flour"), holding(bob, "flour")) == (3, 7)
    assert (holding(alice, "flour"), holding(bob, "flour")) == (3, 7)
    transfer(alice, bob, quantity=3)
    assert (holding(alice, "flour"), holding(bob, "flour")) == (0, 10)
    assert ResourceTransfer.objects.count() == 1


def test_transfer_of_a_resource_never_held_is_insufficient_with_zero(alice, bob, kinds):
    assert refused(transfer, alice=alice, bob=bob, quantity=1).message == "面粉 不足，当前 0，需要 1"


def test_insufficient_resource_message_in_english(alice, bob, stock):
    stock(alice, flour=3)
    with translation.override("en"):
        assert refused(transfer, alice=alice, bob=bob, quantity=5).message == "Not enough flour: have 3, need 5"


def test_transfer_checks_run_in_the_designed_order(alice, bob, stock):
    stock(alice, flour=1)
    # invalid_quantity before agent_not_found, agent_not_found before same_agent …
    assert refused(services.transfer_resource, from_agent_id=999, to_agent_id=999, resource_type="gold", quantity=0,
                   source="api").code == "invalid_quantity"
    assert refused(services.transfer_resource, from_agent_id=999, to_agent_id=999, resource_type="gold", quantity=1,
                   source="api").code == "agent_not_found"
    # … same_agent before unknown_resource, unknown_resource before insufficient_resource.
    assert refused(transfer, alice=alice, bob=alice, resource_type="gold").code == "same_agent"
    assert refused(transfer, alice=alice, bob=bob, resource_type="gold", quantity=99).code == "unknown_resource"


def test_transfer_with_an_unknown_ledger_source_is_a_programming_error(alice, bob, stock):
    stock(alice, flour=1)
    with pytest.raises(ValueError):
        transfer(alice, bob, 1, source="telepathy")


# ---------------------------------------------------------------------------- needs


def test_rest_raises_energy_capped_at_100(make_agent):
    tired, rested = make_agent("Tired", energy=30), make_agent("Rested", energy=95)
    assert services.rest(agent_id=tired.pk).energy == 30 + services.REST_ENERGY_GAIN
    assert services.rest(agent_id=rested.pk).energy == 100


def test_rest_of_a_missing_agent_is_agent_not_found(db):
    assert refused(services.rest, agent_id=999).code == "agent_not_found"


def test_eat_consumes_one_unit_and_raises_satiety(make_agent, stock):
    hungry = make_agent("Hungry", satiety=40)
    stock(hungry, bread=2)
    agent, food = services.eat(agent_id=hungry.pk, resource_type="bread")
    assert (food.slug, agent.satiety, holding(hungry, "bread")) == ("bread", 70, 1)
    hungry.refresh_from_db()
    assert hungry.satiety == 70


def test_eat_without_a_food_picks_the_most_filling_one_held(make_agent, stock):
    hungry = make_agent("Hungry", satiety=10)
    stock(hungry, apple=3, bread=1, flour=9)
    _, food = services.eat(agent_id=hungry.pk)
    assert food.slug == "bread"
    _, food = services.eat(agent_id=hungry.pk)
    assert food.slug == "apple"


def test_eat_caps_satiety_at_100(make_agent, stock):
    nearly_full = make_agent("Nearly", satiety=90)
    stock(nearly_full, bread=1)
    assert services.eat(agent_id=nearly_full.pk)[0].satiety == 100


def test_eat_something_inedible_is_not_edible(alice, stock):
    stock(alice, flour=5)
    error = refused(services.eat, agent_id=alice.pk, resource_type="flour")
    assert (error.code, error.message) == ("not_edible", "面粉 不能吃")
    assert holding(alice, "flour") == 5


def test_eat_a_food_not_held_is_insufficient_resource(alice, kinds):
    assert refused(services.eat, agent_id=alice.pk, resource_type="bread").code == "insufficient_resource"


def test_eat_with_no_food_at_all_is_no_food(alice, stock):
    stock(alice, flour=5, bread=0)
    assert refused(services.eat, agent_id=alice.pk).code == "no_food"


def test_eat_when_full_is_not_hungry_and_keeps_the_food(make_agent, stock):
    full = make_agent("Full", satiety=100)
    stock(full, bread=1)
    assert refused(services.eat, agent_id=full.pk).code == "not_hungry"
    assert holding(full, "bread") == 1


def needs(agent) -> tuple[int, int]:
    agent.refresh_from_db()
    return agent.satiety, agent.energy


def test_decay_needs_lowers_satiety_and_energy_by_the_configured_amounts(make_agent, settings):
    settings.CITY_SATIETY_DECAY, settings.CITY_ENERGY_DECAY = 5, 3
    alice = make_agent("Alice", satiety=60, energy=40)
    assert services.decay_needs(agents=Agent.objects.all()) == 1
    assert needs(alice) == (55, 37)


def test_decay_needs_stops_at_zero(make_agent, settings):
    settings.CITY_SATIETY_DECAY, settings.CITY_ENERGY_DECAY = 5, 3
    starving = make_agent("Starving", satiety=2, energy=0)
    services.decay_needs(agents=Agent.objects.all())
    assert needs(starving) == (0, 0)


def test_decay_needs_touches_only_the_given_agents(make_agent, settings):
    settings.CITY_SATIETY_DECAY, settings.CITY_ENERGY_DECAY = 5, 3
    alice = make_agent("Alice", satiety=60, energy=40)
    bob = make_agent("Bob", satiety=60, energy=40)
    services.decay_needs(agents=Agent.objects.filter(pk=alice.pk))
    assert (needs(alice), needs(bob)) == ((55, 37), (60, 40))


def test_decay_needs_of_zero_changes_nothing(make_agent, settings):
    settings.CITY_SATIETY_DECAY, settings.CITY_ENERGY_DECAY = 0, 0
    alice = make_agent("Alice", satiety=60, energy=40)
    assert services.decay_needs(agents=Agent.objects.all()) == 0
    assert needs(alice) == (60, 40)


# ---------------------------------------------------------------------------- jobs


def test_assign_building_gives_a_job(alice, farm):
    employment = services.assign_building(agent_id=alice.pk, building_id=farm.pk)
    assert (employment.agent, employment.building) == (alice, farm)


def test_assign_when_employed_is_already_employed(alice, farm):
    services.assign_building(agent_id=alice.pk, building_id=farm.pk)
    error = refused(services.assign_building, agent_id=alice.pk, building_id=farm.pk)
    assert (error.code, error.status_code, error.message) == ("already_employed", 409, "你已在「城东农田」工作，请先离职")


def test_assign_to_a_full_building_is_no_vacancy(make_agent, farm):
    for name in ("A", "B"):
        services.assign_building(agent_id=make_agent(name).pk, building_id=farm.pk)
    late = make_agent("Late")
    error = refused(services.assign_building, agent_id=late.pk, building_id=farm.pk)
    assert (error.code, error.status_code) == ("no_vacancy", 409)
    assert not Employment.objects.filter(agent=late).exists()


def test_assign_to_a_missing_building_is_building_not_found(alice, db):
    assert refused(services.assign_building, agent_id=alice.pk, building_id=999).code == "building_not_found"


def test_unassign_building_leaves_the_job(alice, farm):
    services.assign_building(agent_id=alice.pk, building_id=farm.pk)
    assert services.unassign_building(agent_id=alice.pk) == farm
    assert not Employment.objects.filter(agent=alice).exists()


def test_unassign_without_a_job_is_not_employed(alice, db):
    assert refused(services.unassign_building, agent_id=alice.pk).code == "not_employed"


def test_checkin_pays_the_wage_yields_the_output_and_tires(make_agent, farm, django_capture_on_commit_callbacks):
    worker = make_agent("Worker", credits=10, energy=50, satiety=5)
    services.assign_building(agent_id=worker.pk, building_id=farm.pk)
    with django_capture_on_commit_callbacks(execute=True):
        record = services.checkin(agent_id=worker.pk)
    worker.refresh_from_db()
    assert (worker.credits, worker.energy, worker.satiety) == (22, 50 - services.WORK_ENERGY_COST, 0)
    assert holding(worker, "wheat") == 6
    assert (record.day, record.wage, record.produced_type.slug, record.produced_quantity) == (timezone.localdate(), 12, "wheat", 6)
    (event,) = events("checkin")
    assert (event["agent_name"], event["wage"], event["produced_type"]) == ("Worker", 12, "wheat")


def test_checkin_twice_a_day_is_already_checked_in(alice, farm):
    services.assign_building(agent_id=alice.pk, building_id=farm.pk)
    services.checkin(agent_id=alice.pk)
    assert refused(services.checkin, agent_id=alice.pk).code == "already_checked_in"
    alice.refresh_from_db()
    assert alice.credits == 112
    assert CheckIn.objects.filter(agent=alice).count() == 1


def test_checkin_without_a_job_is_not_employed(alice, db):
    assert refused(services.checkin, agent_id=alice.pk).code == "not_employed"


def test_checkin_when_exhausted_is_too_tired(make_agent, farm):
    tired = make_agent("Tired", energy=services.WORK_ENERGY_COST - 1)
    services.assign_building(agent_id=tired.pk, building_id=farm.pk)
    error = refused(services.checkin, agent_id=tired.pk)
    assert (error.code, error.message) == ("too_tired", f"精力不足，当前 14，需要 {services.WORK_ENERGY_COST}")
    assert not CheckIn.objects.exists()


# ---------------------------------------------------------------------------- shop


def test_purchase_spends_credits_and_adds_goods(alice, bread_item, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        record = services.purchase(agent_id=alice.pk, item_id=bread_item.pk, quantity=3)
    alice.refresh_from_db()
    assert (alice.credits, holding(alice, "bread")) == (100 - 24, 3)
    assert (record.count, record.total_price, record.quantity) == (3, 24, 3)
    (event,) = events("purchase")
    assert (event["item_name"], event["price"], event["count"]) == ("面包", 24, 3)


def test_purchase_beyond_the_credits_is_insufficient_credits(make_agent, bread_item):
    poor = make_agent("Poor", credits=10)
    error = refused(services.purchase, agent_id=poor.pk, item_id=bread_item.pk, quantity=2)
    assert (error.code, error.status_code, error.message) == ("insufficient_credits", 409, "信用点不足，当前 10，需要 16")
    poor.refresh_from_db()
    assert (poor.credits, holding(poor, "bread"), Purchase.objects.count()) == (10, 0, 0)


def test_purchase_of_a_missing_item_is_item_not_found(alice, db):
    assert refused(services.purchase, agent_id=alice.pk, item_id=999).code == "item_not_found"


def test_purchase_of_an_item_off_sale_is_item_unavailable(alice, bread_item):
    bread_item.is_available = False
    bread_item.save()
    assert refused(services.purchase, agent_id=alice.pk, item_id=bread_item.pk).code == "item_unavailable"


@pytest.mark.parametrize("quantity", [0, -2, 1.5])
def test_purchase_of_a_bad_quantity_is_invalid_quantity(alice, bread_item, quantity):
    assert refused(services.purchase, agent_id=alice.pk, item_id=bread_item.pk, quantity=quantity).code == "invalid_quantity"


# ---------------------------------------------------------------------------- market


def sell(agent, quantity=4, price=20, resource_type="flour"):
    return services.create_market_order(agent_id=agent.pk, resource_type=resource_type, quantity=quantity, price=price)


def test_create_market_order_reserves_the_goods(alice, stock):
    stock(alice, flour=10)
    order = sell(alice, 4, 20)
    assert (order.status, order.quantity, order.price, order.seller) == ("open", 4, 20, alice)
    assert holding(alice, "flour") == 6


@pytest.mark.parametrize("price", [0, -5, 2.5, services.MAX_AMOUNT + 1])
def test_create_market_order_with_a_bad_price_is_invalid_price(alice, stock, price):
    stock(alice, flour=10)
    assert refused(sell, agent=alice, price=price).code == "invalid_price"
    assert holding(alice, "flour") == 10


def test_create_market_order_beyond_the_stock_is_insufficient_resource(alice, stock):
    stock(alice, flour=3)
    assert refused(sell, agent=alice, quantity=4).code == "insufficient_resource"
    assert not MarketOrder.objects.exists()


def test_create_market_order_of_an_unknown_resource_is_unknown_resource(alice, kinds):
    assert refused(sell, agent=alice, resource_type="gold").code == "unknown_resource"


def test_accept_market_order_swaps_credits_and_goods(alice, bob, stock, staff_user, django_capture_on_commit_callbacks):
    stock(alice, flour=10)
    order = sell(alice, 4, 30)
    with django_capture_on_commit_callbacks(execute=True):
        filled = services.accept_market_order(agent_id=bob.pk, order_id=order.pk, user=staff_user)
    alice.refresh_from_db()
    bob.refresh_from_db()
    assert (filled.status, filled.buyer, filled.closed_by) == ("filled", bob, staff_user)
    assert (alice.credits, bob.credits) == (130, 70)
    assert (holding(alice, "flour"), holding(bob, "flour")) == (6, 4)
    (event,) = events("market_order_filled")
    assert (event["order_id"], event["seller_name"], event["buyer_name"], event["price"]) == (order.pk, "Alice", "Bob", 30)


def test_accept_own_order_is_cannot_accept_own_order(alice, stock):
    stock(alice, flour=10)
    order = sell(alice)
    assert refused(services.accept_market_order, agent_id=alice.pk, order_id=order.pk).code == "cannot_accept_own_order"


def test_accept_a_filled_order_is_order_not_open(alice, bob, make_agent, stock):
    stock(alice, flour=10)
    order = sell(alice)
    services.accept_market_order(agent_id=bob.pk, order_id=order.pk)
    carol = make_agent("Carol", credits=500)
    error = refused(services.accept_market_order, agent_id=carol.pk, order_id=order.pk)
    assert (error.code, error.status_code) == ("order_not_open", 409)
    carol.refresh_from_db()
    assert (carol.credits, holding(carol, "flour")) == (500, 0)


def test_accept_without_enough_credits_leaves_the_order_open(alice, make_agent, stock):
    stock(alice, flour=10)
    order = sell(alice, 4, 50)
    poor = make_agent("Poor", credits=49)
    assert refused(services.accept_market_order, agent_id=poor.pk, order_id=order.pk).code == "insufficient_credits"
    order.refresh_from_db()
    alice.refresh_from_db()
    assert (order.status, order.buyer, alice.credits, holding(poor, "flour")) == ("open", None, 100, 0)


def test_accept_a_missing_order_is_order_not_found(alice, db):
    assert refused(services.accept_market_order, agent_id=alice.pk, order_id=999).code == "order_not_found"


def test_accept_by_a_missing_agent_is_agent_not_found(alice, stock):
    stock(alice, flour=10)
    order = sell(alice)
    assert refused(services.accept_market_order, agent_id=999, order_id=order.pk).code == "agent_not_found"


def test_cancel_market_order_returns_the_goods(alice, stock):
    stock(alice, flour=10)
    order = sell(alice, 4)
    cancelled = services.cancel_market_order(agent_id=alice.pk, order_id=order.pk)
    assert (cancelled.status, holding(alice, "flour")) == ("cancelled", 10)


def test_cancel_someone_elses_order_is_not_order_seller(alice, bob, stock):
    stock(alice, flour=10)
    order = sell(alice)
    assert refused(services.cancel_market_order, agent_id=bob.pk, order_id=order.pk).code == "not_order_seller"
    order.refresh_from_db()
    assert order.status == "open"


def test_cancel_a_filled_order_is_order_not_open(alice, bob, stock):
    stock(alice, flour=10)
    order = sell(alice, 4)
    services.accept_market_order(agent_id=bob.pk, order_id=order.pk)
    assert refused(services.cancel_market_order, agent_id=alice.pk, order_id=order.pk).code == "order_not_open"
    assert holding(alice, "flour") == 6


# ---------------------------------------------------------------------------- construction


def test_construct_building_pays_credits_and_materials(alice, stock, farm_kind, django_capture_on_commit_callbacks):
    stock(alice, wood=15, stone=2)
    with django_capture_on_commit_callbacks(execute=True):
        building = services.construct_building(agent_id=alice.pk, kind="farm", name=" 新农田 ")
    alice.refresh_from_db()
    assert (alice.credits, holding(alice, "wood"), holding(alice, "stone")) == (60, 5, 0)
    assert (building.name, building.owner, building.job_slots, building.wage, building.produces.slug) == (
        "新农田", alice, 2, 12, "wheat"
    )
    assert building.construction_cost == {"credits": 40, "materials": {"stone": 2, "wood": 10}}
    (event,) = events("building_constructed")
    assert (event["agent_name"], event["building_name"], event["kind"]) == ("Alice", "新农田", "farm")


def test_construct_an_unknown_kind_is_unknown_building_kind(alice, db):
    assert refused(services.construct_building, agent_id=alice.pk, kind="castle", name="x").code == "unknown_building_kind"


def test_construct_without_credits_takes_nothing(make_agent, stock, farm_kind):
    poor = make_agent("Poor", credits=39)
    stock(poor, wood=20, stone=5)
    assert refused(services.construct_building, agent_id=poor.pk, kind="farm", name="x").code == "insufficient_credits"
    assert (holding(poor, "wood"), Building.objects.count()) == (20, 0)


def test_construct_without_materials_takes_no_credits(alice, stock, farm_kind):
    stock(alice, wood=20, stone=1)
    error = refused(services.construct_building, agent_id=alice.pk, kind="farm", name="x")
    assert (error.code, error.message) == ("insufficient_resource", "石料 不足，当前 1，需要 2")
    alice.refresh_from_db()
    assert (alice.credits, holding(alice, "wood")) == (100, 20)


def test_construct_with_a_taken_name_is_building_name_taken(alice, stock, farm):
    stock(alice, wood=20, stone=5)
    assert refused(services.construct_building, agent_id=alice.pk, kind="farm", name="城东农田").code == "building_name_taken"
    alice.refresh_from_db()
    assert alice.credits == 100


@pytest.mark.parametrize("name", ["", "   ", "x" * 101, None])
def test_construct_with_a_bad_name_is_invalid_name(alice, farm_kind, name):
    assert refused(services.construct_building, agent_id=alice.pk, kind="farm", name=name).code == "invalid_name"


# ---------------------------------------------------------------------------- city channel


def test_post_city_chat_stores_the_line_and_broadcasts_it(alice, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        message = services.post_city_chat(agent_id=alice.pk, content="  大家好  ")
    assert CityChatMessage.objects.get().content == message.content == "大家好"
    (event,) = events("city_chat")
    assert (event["agent_name"], event["content"]) == ("Alice", "大家好")


@pytest.mark.parametrize(("content", "code"), [("", "empty_content"), ("  ", "empty_content"), ("x" * 501, "content_too_long")])
def test_post_city_chat_refuses_empty_or_long_lines(alice, content, code):
    assert refused(services.post_city_chat, agent_id=alice.pk, content=content).code == code


# ---------------------------------------------------------------------------- credits and stock corrections


def credits_of(agent) -> int:
    return Agent.objects.get(pk=agent.pk).credits


def test_grant_credits_pays_and_writes_the_credits_ledger(alice, staff_user):
    entry = services.grant_credits(
        agent_id=alice.pk, amount=25, source="admin", reason="  补发工资 ", user=staff_user
    )
    assert credits_of(alice) == 125
    assert CreditEntry.objects.get() == entry
    assert (entry.amount, entry.source, entry.reason, entry.reference, entry.user) == (25, "admin", "补发工资", "", staff_user)


def test_grant_credits_with_a_negative_amount_takes_credits_back(alice):
    entry = services.grant_credits(agent_id=alice.pk, amount=-40, source="admin", reason="多发了")
    assert (credits_of(alice), entry.amount) == (60, -40)


def test_grant_credits_never_takes_more_than_the_agent_holds(alice):
    error = refused(services.grant_credits, agent_id=alice.pk, amount=-101, source="admin", reason="扣除")
    assert (error.code, error.extra) == ("insufficient_credits", {"have": 100, "need": 101})
    assert (credits_of(alice), CreditEntry.objects.count()) == (100, 0)


@pytest.mark.parametrize("amount", [0, None, "5", 2.5, True, 1_000_001, -1_000_001])
def test_grant_credits_refuses_an_amount_that_is_not_a_non_zero_whole_number(alice, amount):
    error = refused(services.grant_credits, agent_id=alice.pk, amount=amount, source="admin", reason="r")
    assert (error.code, error.field) == ("invalid_amount", "amount")
    assert (credits_of(alice), CreditEntry.objects.count()) == (100, 0)


@pytest.mark.parametrize(("reason", "code"), [("", "reason_required"), ("   ", "reason_required"), ("x" * 201, "reason_too_long")])
def test_grant_credits_needs_a_short_reason(alice, reason, code):
    error = refused(services.grant_credits, agent_id=alice.pk, amount=5, source="admin", reason=reason)
    assert (error.code, error.field) == (code, "reason")
    assert credits_of(alice) == 100


def test_grant_credits_to_a_missing_agent_is_agent_not_found(alice):
    assert refused(services.grant_credits, agent_id=999, amount=5, source="admin", reason="r").code == "agent_not_found"
    assert not CreditEntry.objects.exists()


def test_grant_credits_pays_a_reference_once_and_undoes_the_second_payment(alice):
    services.grant_credits(agent_id=alice.pk, amount=10, source="bounty", reason="修路", reference="bounty:7")
    with transaction.atomic():
        with pytest.raises(IntegrityError):
            services.grant_credits(agent_id=alice.pk, amount=10, source="bounty", reason="修路", reference="bounty:7")
        assert credits_of(alice) == 110  # the failed payment's savepoint is undone, the caller goes on
    assert CreditEntry.objects.count() == 1


def test_the_credits_ledger_refuses_a_zero_amount(alice):
    with pytest.raises(IntegrityError), transaction.atomic():
        CreditEntry.objects.create(agent=alice, amount=0, source="admin", reason="r")


def test_the_credits_ledger_refuses_an_unknown_source(alice):
    with pytest.raises(IntegrityError), transaction.atomic():
        CreditEntry.objects.create(agent=alice, amount=5, source="gift", reason="r")


def test_adjust_stock_adds_goods_and_writes_the_stock_ledger(alice, kinds, staff_user):
    row = services.adjust_stock(agent_id=alice.pk, resource_type="flour", quantity=7, reason="盘点补录", user=staff_user)
    assert holding(alice, "flour") == 7
    assert StockAdjustment.objects.get() == row
    assert (row.resource_type.slug, row.quantity, row.reason, row.user) == ("flour", 7, "盘点补录", staff_user)


def test_adjust_stock_with_a_negative_quantity_removes_goods(alice, stock):
    stock(alice, flour=10)
    services.adjust_stock(agent_id=alice.pk, resource_type="flour", quantity=-4, reason="损耗")
    assert holding(alice, "flour") == 6


def test_adjust_stock_never_leaves_a_negative_stock(alice, stock):
    stock(alice, flour=3)
    error = refused(services.adjust_stock, agent_id=alice.pk, resource_type="flour", quantity=-5, reason="损耗")
    assert (error.code, error.message) == ("insufficient_resource", "面粉 不足，当前 3，需要 5")
    assert (holding(alice, "flour"), StockAdjustment.objects.count()) == (3, 0)


@pytest.mark.parametrize("quantity", [0, None, "3", 1.5, False, 1_000_001])
def test_adjust_stock_refuses_a_quantity_that_is_not_a_non_zero_whole_number(alice, kinds, quantity):
    error = refused(services.adjust_stock, agent_id=alice.pk, resource_type="flour", quantity=quantity, reason="r")
    assert (error.code, error.field) == ("invalid_quantity", "quantity")
    assert not StockAdjustment.objects.exists()


def test_adjust_stock_of_an_unknown_resource_is_unknown_resource(alice, kinds):
    error = refused(services.adjust_stock, agent_id=alice.pk, resource_type="gold", quantity=1, reason="r")
    assert error.code == "unknown_resource"
    assert not StockAdjustment.objects.exists()


def test_adjust_stock_needs_a_reason(alice, kinds):
    error = refused(services.adjust_stock, agent_id=alice.pk, resource_type="flour", quantity=1, reason=" ")
    assert (error.code, error.field) == ("reason_required", "reason")
