"""The schema documents every status and error code each operation returns (issue 25 §5): each
error response lists its stable ``code`` values (an enum on ``code`` and in the description), and
what the API answers is among them. Schemathesis (tests/core/test_api_conformance.py) checks every
answer it provokes against these enums too."""

from __future__ import annotations

import pytest
from drf_spectacular.generators import SchemaGenerator

from bounties.models import Bounty
from city.models import AgentResource, ResourceType
from funds.services import create_fund

# The one response whose codes no list can hold: confirming runs the proposed tool, whose own
# input errors (fund_name_taken, ...) come back as they are.
OPEN_ENDED = {("post", "/api/pending-actions/{id}/confirm/", "400")}


@pytest.fixture(scope="module")
def schema() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def error_responses(schema: dict):
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                if int(status) >= 400:
                    yield method, path, status, response


def documented_codes(schema: dict, method: str, path: str, status: int) -> list[str]:
    response = schema["paths"][path][method]["responses"][str(status)]
    [media] = response["content"].values()
    [_base, narrowed] = media["schema"]["allOf"]
    return narrowed["properties"]["code"]["enum"]


def test_every_error_response_lists_its_codes(schema):
    responses = list(error_responses(schema))
    assert len(responses) > 150
    for method, path, status, response in responses:
        where = f"{method.upper()} {path} {status}"
        assert response["description"].startswith("code: `"), where
        if (method, path, status) in OPEN_ENDED:
            continue
        codes = documented_codes(schema, method, path, int(status))
        assert codes and all(f"`{code}`" in response["description"] for code in codes), where


def test_the_handlers_own_codes_are_listed_wherever_they_can_happen(schema):
    for method, path, status, _response in error_responses(schema):
        if (method, path, status) in OPEN_ENDED:
            continue
        codes = documented_codes(schema, method, path, int(status))
        expected = {
            "401": "authentication_failed", "403": "permission_denied", "429": "throttled",
            "415": "unsupported_media_type", "503": "database_unavailable",
        }
        if status in expected:
            assert expected[status] in codes, (method, path, status)


def test_every_operation_documents_a_failing_database(schema):
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            assert "database_unavailable" in documented_codes(schema, method, path, 503), f"{method.upper()} {path}"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("method", "path", "template", "status", "code"),
    [
        ("get", "/api/funds/999999/", "/api/funds/{id}/", 404, "fund_not_found"),
        ("get", "/api/bounties/999999/", "/api/bounties/{id}/", 404, "bounty_not_found"),
        ("get", "/api/tool-calls/?source=bogus", "/api/tool-calls/", 400, "invalid_input"),
        ("get", "/api/bounties/?status=", "/api/bounties/", 400, "invalid_status"),
        ("post", "/api/pending-actions/999999/confirm/", "/api/pending-actions/{id}/confirm/", 404, "pending_action_not_found"),
        ("get", "/api/autonomy/ticks/999999/", "/api/autonomy/ticks/{id}/", 404, "tick_not_found"),
        ("get", "/api/orders/NOPE/", "/api/orders/{order_no}/", 404, "order_not_found"),
    ],
)
def test_a_refusal_is_among_the_documented_codes(api_client, schema, method, path, template, status, code):
    response = getattr(api_client, method)(path, {}, format="json") if method == "post" else api_client.get(path)

    assert (response.status_code, response.json()["code"]) == (status, code)
    assert code in documented_codes(schema, method, template, status)


@pytest.mark.django_db
def test_business_refusals_are_among_the_documented_codes(api_client, schema, make_agent):
    fund = create_fund(fund_name="Alpha")
    stale = api_client.patch(f"/api/funds/{fund.pk}/", {"remarks": "x", "version": fund.version + 5}, format="json")
    alice, bob = make_agent("Alice"), make_agent("Bob")
    flour = ResourceType.objects.create(slug="flour", name="面粉")
    AgentResource.objects.create(agent=alice, resource_type=flour, quantity=1)
    short = api_client.post(
        "/api/agents/transfer-resource/",
        {"from_agent_id": alice.pk, "to_agent_id": bob.pk, "resource_type": "flour", "quantity": 5}, format="json",
    )
    bounty = Bounty.objects.create(title="修墙", description="", reward=10, status=Bounty.Status.CLAIMED, claimed_by=bob)
    taken = api_client.post(f"/api/bounties/{bounty.pk}/claim/?agent_id={alice.pk}", {}, format="json")

    for response, method, template, code in [
        (stale, "patch", "/api/funds/{id}/", "version_conflict"),
        (short, "post", "/api/agents/transfer-resource/", "insufficient_resource"),
        (taken, "post", "/api/bounties/{id}/claim/", "bounty_not_open"),
    ]:
        assert response.json()["code"] == code
        assert code in documented_codes(schema, method, template, response.status_code)
