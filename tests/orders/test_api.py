"""Read-only desk API: orders with their refund, channel messages; errors in the common shape."""

import pytest

from orders import services

pytestmark = pytest.mark.django_db


def test_orders_are_listed_with_their_refund(api_client, desk):
    services.register_refund(order_no="HT20260301002")
    body = api_client.get("/api/orders/").json()
    assert body["count"] == 3
    rows = {row["order_no"]: row for row in body["results"]}
    assert rows["HT20260301001"]["supplier_order_no"] == "SUP-88901"
    assert rows["HT20260301001"]["refund"] is None
    assert rows["HT20260301002"]["refund"]["status"] == "registered"


def test_one_order_by_its_number(api_client, desk):
    body = api_client.get("/api/orders/HT20260301003/").json()
    assert (body["supplier_order_no"], body["guest_name"], body["check_in"], body["room_type"]) == (
        "SUP-88903", "王五", "2026-03-15", "套房"
    )


def test_an_unknown_order_is_404_order_not_found(api_client, desk):
    response = api_client.get("/api/orders/HT00000000000/")
    assert response.status_code == 404
    assert response.json()["code"] == "order_not_found" and response.json()["ok"] is False


def test_channel_messages_filtered_by_order_and_unread(api_client, desk):
    services.send_message(channel="upstream", content="一", order_no="HT20260301001")
    services.send_message(channel="upstream", content="二", order_no="HT20260301002")
    services.mark_messages_read(channel="upstream")
    services.send_message(channel="upstream", content="三", order_no="HT20260301001")
    contents = lambda **q: [m["content"] for m in api_client.get("/api/order-messages/", q).json()]  # noqa: E731
    assert contents(channel="upstream") == ["一", "二", "三"]
    assert contents(channel="upstream", order_no="HT20260301001") == ["一", "三"]
    assert contents(channel="upstream", unread_only="true") == ["三"]
    assert contents(channel="downstream") == []


def test_channel_messages_need_a_known_channel(api_client, desk):
    response = api_client.get("/api/order-messages/", {"channel": "sideways"})
    assert (response.status_code, response.json()["code"]) == (400, "invalid_channel")
    assert api_client.get("/api/order-messages/").status_code == 400


def test_the_desk_api_is_staff_only(client, desk):
    assert client.get("/api/orders/").status_code in (401, 403)


def test_the_schema_documents_the_desk_api(api_client):
    schema = api_client.get("/api/schema/", {"format": "json"}).json()
    assert {"/api/orders/", "/api/orders/{order_no}/", "/api/order-messages/"} <= set(schema["paths"])


def test_the_schema_documents_channel_messages_as_the_plain_list_they_are(api_client, desk):
    # The view answers a plain list (latest 50), so the schema must not promise a page object.
    operation = api_client.get("/api/schema/", {"format": "json"}).json()["paths"]["/api/order-messages/"]["get"]
    assert "page" not in {p["name"] for p in operation["parameters"]}
    assert operation["responses"]["200"]["content"]["application/json"]["schema"]["type"] == "array"
    assert isinstance(api_client.get("/api/order-messages/", {"channel": "downstream"}).json(), list)
