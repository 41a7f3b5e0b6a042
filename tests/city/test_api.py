"""City API: statuses and bodies of every outcome, the ledger list, agents with job and resources."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from city import services
from city.models import Employment, ResourceTransfer

from .conftest import holding

pytestmark = pytest.mark.django_db

TRANSFER_URL = "/api/agents/transfer-resource/"


def post_transfer(client, alice, bob, **overrides):
    body = {"from_agent_id": alice.pk, "to_agent_id": bob.pk, "resource_type": "flour", "quantity": 5, **overrides}
    return client.post(TRANSFER_URL, body, format="json")


def test_transfer_returns_ok_reason_and_transfer_id(api_client, alice, bob, stock, staff_user):
    stock(alice, flour=10)
    response = post_transfer(api_client, alice, bob)
    assert response.status_code == 200
    row = ResourceTransfer.objects.get()
    assert response.json() == {"ok": True, "reason": "转移 5 面粉 成功", "transfer_id": row.pk}
    assert (row.source, row.user) == ("api", staff_user)
    assert (holding(alice, "flour"), holding(bob, "flour")) == (5, 5)


def test_transfer_reason_in_english(api_client, alice, bob, stock):
    stock(alice, flour=10)
    response = api_client.post(
        TRANSFER_URL,
        {"from_agent_id": alice.pk, "to_agent_id": bob.pk, "resource_type": "flour", "quantity": 5},
        format="json",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.json()["reason"] == "Transferred 5 flour"


def test_transfer_accepts_a_whole_float_quantity(api_client, alice, bob, stock):
    stock(alice, flour=10)
    assert post_transfer(api_client, alice, bob, quantity=5.0).status_code == 200
    assert holding(bob, "flour") == 5


@pytest.mark.parametrize(
    ("overrides", "status", "code"),
    [
        ({"quantity": 0}, 400, "invalid_quantity"),
        ({"quantity": -3}, 400, "invalid_quantity"),
        ({"quantity": 2.5}, 400, "invalid_quantity"),
        ({"from_agent_id": 999}, 404, "agent_not_found"),
        ({"to_agent_id": 999}, 404, "agent_not_found"),
        ({"resource_type": "gold"}, 400, "unknown_resource"),  # a bad field, not a missing path id (was 404)
        ({"quantity": 50}, 409, "insufficient_resource"),
    ],
)
def test_transfer_errors_have_their_status_and_code(api_client, alice, bob, stock, overrides, status, code):
    stock(alice, flour=10)
    response = post_transfer(api_client, alice, bob, **overrides)
    assert response.status_code == status
    body = response.json()
    assert (body["ok"], body["code"]) == (False, code)
    assert body["reason"]
    assert (holding(alice, "flour"), ResourceTransfer.objects.count()) == (10, 0)


def test_transfer_to_oneself_is_400_same_agent(api_client, alice, stock):
    stock(alice, flour=10)
    response = post_transfer(api_client, alice, alice)
    assert (response.status_code, response.json()["code"]) == (400, "same_agent")


def test_insufficient_resource_body_names_the_stock(api_client, alice, bob, stock):
    stock(alice, flour=3)
    assert post_transfer(api_client, alice, bob).json() == {
        "ok": False,
        "code": "insufficient_resource",
        "reason": "面粉 不足，当前 3，需要 5",
        "field": "quantity",
        "have": 3,
        "need": 5,
    }


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"from_agent_id": "abc"}, "from_agent_id"),
        ({"to_agent_id": None}, "to_agent_id"),
        ({"quantity": "5"}, "quantity"),
        ({"quantity": True}, "quantity"),
        ({"resource_type": ["flour"]}, "resource_type"),
    ],
)
def test_transfer_with_bad_json_types_is_invalid_input(api_client, alice, bob, stock, overrides, field):
    stock(alice, flour=10)
    response = post_transfer(api_client, alice, bob, **overrides)
    assert response.status_code == 400
    body = response.json()
    assert (body["code"], body["field"]) == ("invalid_input", field)
    assert holding(alice, "flour") == 10


def test_transfer_with_a_missing_field_is_invalid_input(api_client, alice):
    response = api_client.post(TRANSFER_URL, {"from_agent_id": alice.pk}, format="json")
    assert (response.status_code, response.json()["code"]) == (400, "invalid_input")


def test_transfer_with_malformed_json_is_400(api_client):
    response = api_client.post(TRANSFER_URL, "{not json", content_type="application/json")
    assert (response.status_code, response.json()["code"]) == (400, "malformed_request")


def test_transfer_needs_a_staff_member(alice, bob, stock, django_user_model):
    stock(alice, flour=10)
    assert post_transfer(APIClient(), alice, bob).status_code == 401
    client = APIClient()
    client.force_authenticate(django_user_model.objects.create_user("guest"))
    assert post_transfer(client, alice, bob).status_code == 403
    assert holding(alice, "flour") == 10


def test_transfer_with_a_token_is_audited_as_its_owner(alice, bob, stock, staff_user):
    stock(alice, flour=10)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=staff_user).key}")
    assert post_transfer(client, alice, bob).status_code == 200
    assert ResourceTransfer.objects.get().user == staff_user


def test_transfers_list_is_newest_first_and_paginated(api_client, alice, bob, stock):
    stock(alice, flour=100)
    for quantity in range(1, 56):
        services.transfer_resource(from_agent_id=alice.pk, to_agent_id=bob.pk, resource_type="flour", quantity=1, source="page")
    body = api_client.get("/api/transfers/").json()
    assert body["count"] == 55
    assert len(body["results"]) == 50 and body["next"]
    ids = [row["id"] for row in body["results"]]
    assert ids == sorted(ids, reverse=True)
    first = body["results"][0]
    assert {k: first[k] for k in ("from_agent_name", "to_agent_name", "resource_type", "quantity", "source", "user")} == {
        "from_agent_name": "Alice", "to_agent_name": "Bob", "resource_type": "flour", "quantity": 1, "source": "page",
        "user": None,
    }
    assert len(api_client.get(body["next"]).json()["results"]) == 5


@pytest.mark.parametrize("zone", ["Asia/Shanghai", "UTC", "America/New_York"])
def test_transfer_entries_are_what_the_serializer_shows(api_client, alice, bob, stock, zone):
    """The ledger's plain entries, key by key and in order, equal TransferSerializer's output for
    the same transfers (with and without a user), in the active time zone."""
    from django.utils import timezone

    from city.api.serializers import TransferSerializer, transfer_entries
    from city.selectors import transfer_history, transfer_rows

    stock(alice, flour=10)
    services.transfer_resource(from_agent_id=alice.pk, to_agent_id=bob.pk, resource_type="flour", quantity=2, source="page")
    assert post_transfer(api_client, bob, alice, quantity=1).status_code == 200  # by the staff member
    with timezone.override(zone):
        expected = [list(row.items()) for row in TransferSerializer(transfer_history(), many=True).data]
        entries = [list(row.items()) for row in transfer_entries(transfer_rows())]
    assert [dict(row)["user"] for row in entries] == ["staff", None]
    assert entries == expected
    shown = TransferSerializer(transfer_history(), many=True).data  # in the zone a request without one gets
    assert api_client.get("/api/transfers/").json()["results"] == [dict(row) for row in shown]


def test_transfers_list_costs_the_same_queries_for_a_page_with_users_and_without(api_client, alice, bob, stock, staff_user):
    stock(alice, flour=100)
    services.transfer_resource(from_agent_id=alice.pk, to_agent_id=bob.pk, resource_type="flour", quantity=1, source="page")
    api_client.get("/api/transfers/")  # the caller's permissions are read once, on the first request
    with CaptureQueriesContext(connection) as one:
        assert api_client.get("/api/transfers/").status_code == 200
    for _ in range(30):
        services.transfer_resource(from_agent_id=alice.pk, to_agent_id=bob.pk, resource_type="flour", quantity=1, source="api", user=staff_user)
    with CaptureQueriesContext(connection) as many:
        assert len(api_client.get("/api/transfers/").json()["results"]) == 31
    assert len(many) == len(one) == 2  # the count and the page


def test_transfers_list_filters_by_agent(api_client, alice, bob, make_agent, stock):
    carol = make_agent("Carol")
    stock(alice, flour=10)
    stock(carol, flour=10)
    sent = services.transfer_resource(from_agent_id=alice.pk, to_agent_id=bob.pk, resource_type="flour", quantity=1, source="api")
    received = services.transfer_resource(from_agent_id=carol.pk, to_agent_id=alice.pk, resource_type="flour", quantity=2, source="api")
    services.transfer_resource(from_agent_id=carol.pk, to_agent_id=bob.pk, resource_type="flour", quantity=3, source="api")
    results = api_client.get(f"/api/transfers/?agent_id={alice.pk}").json()["results"]
    assert [row["id"] for row in results] == [received.pk, sent.pk]


def test_transfers_list_with_a_bad_agent_id_is_invalid_input(api_client):
    response = api_client.get("/api/transfers/?agent_id=abc")
    assert (response.status_code, response.json()["code"]) == (400, "invalid_input")


def test_agents_list_shows_job_and_resources(api_client, alice, bob, stock, farm):
    stock(alice, flour=4, bread=0, wood=1)
    Employment.objects.create(agent=alice, building=farm)
    results = {row["name"]: row for row in api_client.get("/api/agents/").json()["results"]}
    assert results["Alice"]["resources"] == {"flour": 4, "wood": 1}
    assert results["Alice"]["job"] == {"building_id": farm.pk, "building_name": "城东农田", "wage": 12}
    assert (results["Bob"]["resources"], results["Bob"]["job"]) == ({}, None)
    detail = api_client.get(f"/api/agents/{alice.pk}/").json()
    assert (detail["resources"], detail["job"]["building_name"]) == ({"flour": 4, "wood": 1}, "城东农田")


def test_agents_list_costs_the_same_queries_for_2_and_20_agents(api_client, make_agent, stock, farm):
    def make(count: int, prefix: str) -> None:
        for i in range(count):
            agent = make_agent(f"{prefix}{i}")
            stock(agent, flour=i + 1, wood=1)
            if i < farm.job_slots:
                Employment.objects.get_or_create(agent=agent, defaults={"building": farm})

    make(2, "a")
    api_client.get("/api/agents/")  # the caller's permissions are read once, on the first request
    with CaptureQueriesContext(connection) as few:
        assert api_client.get("/api/agents/").status_code == 200
    make(18, "b")
    with CaptureQueriesContext(connection) as many:
        assert len(api_client.get("/api/agents/").json()["results"]) == 20
    assert len(many) == len(few)


def test_agents_page_of_consecutive_ids_reads_tools_and_stock_by_their_range(api_client, make_agent, stock):
    """A page of agents by id names its agents by the range they fill, not one parameter each, and
    shows each its own tools and stock, none of the next page's."""
    agents = [make_agent(f"a{i:02}", tools=("checkin",) if i % 2 else ()) for i in range(52)]
    for i, agent in enumerate(agents):
        stock(agent, flour=i + 1)
    api_client.get("/api/agents/")  # the caller's permissions are read once, on the first request
    with CaptureQueriesContext(connection) as captured:
        first = api_client.get("/api/agents/").json()["results"]
    assert [row["resources"] for row in first] == [{"flour": i + 1} for i in range(50)]
    assert [row["tools"] for row in first] == [["checkin"] if i % 2 else [] for i in range(50)]
    assert not [query["sql"] for query in captured if " IN (" in query["sql"]]
    second = api_client.get("/api/agents/?page=2").json()["results"]
    assert [(row["name"], row["resources"], row["tools"]) for row in second] == [
        ("a50", {"flour": 51}, []), ("a51", {"flour": 52}, ["checkin"])
    ]


def test_agents_list_with_gaps_in_its_ids_shows_each_its_own_tools_and_stock(api_client, make_agent, stock):
    first, gone, last = make_agent("A", tools=("checkin",)), make_agent("B", tools=("rest",)), make_agent("C", tools=("rest",))
    stock(first, flour=1)
    stock(last, wood=2)
    gone.tools.clear()
    gone.delete()
    results = {row["name"]: row for row in api_client.get("/api/agents/").json()["results"]}
    assert sorted(results) == ["A", "C"]
    assert (results["A"]["tools"], results["A"]["resources"]) == (["checkin"], {"flour": 1})
    assert (results["C"]["tools"], results["C"]["resources"]) == (["rest"], {"wood": 2})


def test_agents_list_and_detail_payload_is_the_contract(api_client, make_agent, stock, farm):
    """Every key of an agent as DESIGN §11 shows it, in order: tools by name, stock by slug without zeros."""
    alice = make_agent("Alice", tools=("transfer_resource", "get_my_resources", "checkin"), persona="面包师", credits=7)
    stock(alice, wood=1, flour=4, bread=0)
    Employment.objects.create(agent=alice, building=farm)
    bob = make_agent("Bob", is_active=False)
    expected_alice = {
        "id": alice.pk, "name": "Alice", "persona": "面包师", "model": "", "credits": 7, "satiety": 80, "energy": 80,
        "is_active": True, "job": {"building_id": farm.pk, "building_name": "城东农田", "wage": 12},
        "resources": {"flour": 4, "wood": 1}, "tools": sorted(alice.tools.values_list("name", flat=True)),
    }
    assert len(expected_alice["tools"]) == 3
    expected_bob = {
        "id": bob.pk, "name": "Bob", "persona": "", "model": "", "credits": 100, "satiety": 80, "energy": 80,
        "is_active": False, "job": None, "resources": {}, "tools": [],
    }
    body = api_client.get("/api/agents/").json()
    assert (body["count"], body["next"], body["previous"]) == (2, None, None)
    assert [list(row.items()) for row in body["results"]] == [list(expected_alice.items()), list(expected_bob.items())]
    assert list(api_client.get(f"/api/agents/{alice.pk}/").json().items()) == list(expected_alice.items())
    assert api_client.get(f"/api/agents/{bob.pk}/").json() == expected_bob
    missing = api_client.get(f"/api/agents/{bob.pk + 100}/")
    assert (missing.status_code, missing.json()["code"]) == (404, "not_found")


def test_agent_detail_costs_the_same_queries_whatever_its_tools_and_stock(api_client, make_agent, stock, farm):
    few = make_agent("Few")
    many = make_agent("Many", tools=("transfer_resource", "get_my_resources", "checkin", "rest"))
    stock(many, flour=3, wood=2, bread=1, stone=5)
    Employment.objects.create(agent=many, building=farm)
    api_client.get(f"/api/agents/{few.pk}/")  # the caller's permissions are read once, on the first request
    with CaptureQueriesContext(connection) as for_few:
        assert api_client.get(f"/api/agents/{few.pk}/").status_code == 200
    with CaptureQueriesContext(connection) as for_many:
        body = api_client.get(f"/api/agents/{many.pk}/").json()
    assert (len(body["tools"]), len(body["resources"])) == (4, 4)
    assert len(for_many) == len(for_few)


def test_market_orders_list_accept_and_cancel(api_client, alice, bob, stock, staff_user):
    stock(alice, flour=10)
    sold = services.create_market_order(agent_id=alice.pk, resource_type="flour", quantity=4, price=30)
    kept = services.create_market_order(agent_id=alice.pk, resource_type="flour", quantity=2, price=10)
    listed = api_client.get("/api/market-orders/").json()["results"]
    assert [row["id"] for row in listed] == [kept.pk, sold.pk]

    response = api_client.post(f"/api/market-orders/{sold.pk}/accept/", {"agent_id": bob.pk}, format="json")
    assert response.status_code == 200
    assert (response.json()["status"], response.json()["buyer_name"]) == ("filled", "Bob")
    again = api_client.post(f"/api/market-orders/{sold.pk}/accept/", {"agent_id": bob.pk}, format="json")
    assert (again.status_code, again.json()["code"]) == (409, "order_not_open")

    cancelled = api_client.post(f"/api/market-orders/{kept.pk}/cancel/", {}, format="json")
    assert (cancelled.status_code, cancelled.json()["status"]) == (200, "cancelled")
    assert holding(alice, "flour") == 6
    assert [row["status"] for row in api_client.get("/api/market-orders/?status=all").json()["results"]] == ["cancelled", "filled"]


def test_market_order_errors(api_client, alice, bob, stock):
    stock(alice, flour=10)
    order = services.create_market_order(agent_id=alice.pk, resource_type="flour", quantity=4, price=30)
    own = api_client.post(f"/api/market-orders/{order.pk}/accept/", {"agent_id": alice.pk}, format="json")
    assert (own.status_code, own.json()["code"]) == (400, "cannot_accept_own_order")
    missing = api_client.post("/api/market-orders/999/accept/", {"agent_id": bob.pk}, format="json")
    assert (missing.status_code, missing.json()["code"]) == (404, "order_not_found")
    not_seller = api_client.post(f"/api/market-orders/{order.pk}/cancel/", {"agent_id": bob.pk}, format="json")
    assert (not_seller.status_code, not_seller.json()["code"]) == (400, "not_order_seller")
    assert api_client.post("/api/market-orders/999/cancel/", {}, format="json").status_code == 404
    bad = api_client.get("/api/market-orders/?status=lost")
    assert (bad.status_code, bad.json()["code"]) == (400, "invalid_input")


def test_schema_documents_the_city_endpoints(api_client):
    schema = api_client.get("/api/schema/?format=json").json()
    transfer = schema["paths"]["/api/agents/transfer-resource/"]["post"]
    # 401, 403, 415, 429 and 503 are the ones every operation with a body can give (core.api.schema)
    assert set(transfer["responses"]) == {"200", "400", "401", "403", "404", "409", "415", "429", "503"}
    assert "/api/transfers/" in schema["paths"]
    assert "/api/market-orders/{id}/accept/" in schema["paths"]
    agent = schema["components"]["schemas"]["Agent"]["properties"]
    assert agent["resources"]["additionalProperties"]["type"] == "integer"
    assert "job" in agent
