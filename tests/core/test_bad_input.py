"""Bad input that used to give a 500: integers past 2^63, Unicode digits, a body nested
100,000 deep, and an /api/ path no endpoint serves. Each is a clean 4xx in the usual shape."""

import pytest

pytestmark = pytest.mark.django_db

HUGE = 2**63


@pytest.fixture
def residents(make_agent):
    from city.models import AgentResource, ResourceType

    flour = ResourceType.objects.create(slug="flour", name="面粉")
    alice, bob = make_agent("Alice"), make_agent("Bob")
    AgentResource.objects.create(agent=alice, resource_type=flour, quantity=5)
    return alice, bob


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", "/api/agents/transfer-resource/", {"from_agent_id": HUGE, "to_agent_id": 1, "resource_type": "flour", "quantity": 1}),
        ("get", f"/api/transfers/?agent_id={HUGE}", None),
        ("post", "/api/autonomy/tick/", {"agent_ids": [HUGE]}),
        ("post", f"/api/bounties/1/claim/?agent_id={HUGE}", None),
        ("post", "/api/agents/1/chat/", {"message": "hi", "conversation_id": HUGE}),
        ("post", "/api/market-orders/1/accept/", {"agent_id": HUGE}),
        ("post", "/api/market-orders/1/cancel/", {"agent_id": HUGE}),
    ],
)
def test_an_integer_past_2_63_is_a_400(api_client, residents, method, path, body):
    response = getattr(api_client, method)(path, body, format="json")
    assert response.status_code == 400, response.content[:300]
    assert response.json()["ok"] is False


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/agents/transfer-resource/", {"from_agent_id": 1, "to_agent_id": -HUGE - 1, "resource_type": "flour", "quantity": 1}),
        ("/api/market-orders/1/accept/", {"agent_id": -HUGE - 1}),
        ("/api/market-orders/1/cancel/", {"agent_id": -HUGE - 1}),
    ],
)
def test_an_integer_below_minus_2_63_is_a_400(api_client, residents, path, body):
    response = api_client.post(path, body, format="json")
    assert response.status_code == 400 and response.json()["field"] in body


@pytest.mark.parametrize("path", [f"/api/funds/{HUGE}/", f"/api/bounties/{HUGE}/", f"/api/agents/{HUGE}/"])
def test_an_id_past_2_63_in_a_path_is_a_json_404(api_client, path):
    response = api_client.get(path)
    assert response.status_code == 404 and response.json()["code"] == "not_found"


@pytest.mark.parametrize("method", ["get", "post", "patch"])
@pytest.mark.parametrize("path", ["/api/funds/null,null/", "/api/funds/g%0A/", "/api/agents/0/chat/"])
def test_an_unknown_api_path_is_the_apis_json_404(django_user_model, method, path):
    from django.test import Client

    # With CSRF checks on, as in a browser: a POST gets this 404, not Django's CSRF failure page.
    client = Client(enforce_csrf_checks=True)
    client.force_login(django_user_model.objects.create_superuser("root", password="pw-root-123"))
    response = getattr(client, method)(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json" and response.json()["ok"] is False


def test_a_body_nested_100000_deep_is_a_400(api_client):
    response = api_client.post("/api/funds/validate/", "[" * 100_000, content_type="application/json")
    assert response.status_code == 400 and response.json()["code"] == "malformed_request"


@pytest.mark.parametrize("path", ["/agents/{id}/chat/?conversation=²", "/orders/?conversation=²", f"/agents/{{id}}/chat/?conversation={HUGE}"])
def test_a_unicode_digit_or_huge_id_in_a_page_query_is_ignored(client, staff_user, residents, path):
    client.force_login(staff_user)
    assert client.get(path.format(id=residents[0].pk)).status_code == 200


@pytest.mark.parametrize("number", ["1e309", "-1e309", "Infinity", "-Infinity", "NaN", "9" * 5000])
def test_a_non_finite_or_out_of_range_number_is_a_400_invalid_number(api_client, number):
    body = '{"fund_name": "Alpha", "remarks": "", "version": ' + number + "}"
    response = api_client.post("/api/funds/validate/", body, content_type="application/json")
    assert response.status_code == 400, response.content[:300]
    assert response.json()["code"] == "invalid_number"


def _list_paths(api_client) -> list[str]:
    schema = api_client.get("/api/schema/?format=json").json()
    return [path for path, item in schema["paths"].items() if "get" in item and "{" not in path]


def test_every_list_endpoint_answers_json_to_a_browser_asking_for_html(api_client):
    paths = _list_paths(api_client)
    assert len(paths) >= 7
    for path in paths:
        response = api_client.get(path, HTTP_ACCEPT="text/html")
        assert response.status_code < 500 and response["Content-Type"] == "application/json", (path, response.content[:200])
    browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    assert api_client.get("/api/funds/", HTTP_ACCEPT=browser)["Content-Type"] == "application/json"


@pytest.mark.parametrize(
    "query",
    [
        "/api/bounties/?status=", "/api/bounties/?status=bogus",
        "/api/market-orders/?status=", "/api/market-orders/?status=bogus",
        "/api/pending-actions/?status=", "/api/pending-actions/?status=bogus",
        "/api/transfers/?agent_id=", "/api/funds/?active_only=",
        "/api/order-messages/?channel=", "/api/order-messages/?channel=downstream&unread_only=",
    ],
)
def test_an_empty_or_unknown_query_value_is_a_400(api_client, query):
    response = api_client.get(query)
    assert response.status_code == 400, response.content[:300]
    assert response.json()["field"] == query.rsplit("&", 1)[-1].split("?")[-1].split("=")[0]


@pytest.mark.parametrize(
    "query", ["/api/bounties/", "/api/bounties/?status=open", "/api/market-orders/?status=all", "/api/funds/?fund_name=", "/api/funds/?active_only=true"]
)
def test_an_absent_or_valid_query_value_is_served(api_client, query):
    assert api_client.get(query).status_code == 200
