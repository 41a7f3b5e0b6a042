"""Bounty API (DESIGN §11): codes in the body, 400/404/409, never a 500."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from agents.models import Agent
from bounties.api.serializers import BountySerializer
from bounties.models import Bounty

pytestmark = pytest.mark.django_db


def claim(api_client, bounty_id, agent_id, **kwargs):
    return api_client.post(f"/api/bounties/{bounty_id}/claim/?agent_id={agent_id}", **kwargs)


def test_regression_create_list_claim_complete_list_by_status(api_client, alice):
    created = api_client.post("/api/bounties/", {"title": "收集100小麦", "description": "给磨坊", "reward": 50}, format="json")
    assert created.status_code == 201
    bounty = created.json()
    assert (bounty["title"], bounty["reward"], bounty["status"], bounty["claimed_by"]) == ("收集100小麦", 50, "open", None)

    listed = api_client.get("/api/bounties/").json()
    assert [b["id"] for b in listed["results"]] == [bounty["id"]]

    claimed = claim(api_client, bounty["id"], alice.pk)
    assert claimed.status_code == 200
    assert (claimed.json()["status"], claimed.json()["claimed_by"], claimed.json()["claimed_by_name"]) == (
        "claimed", alice.pk, "Alice"
    )

    completed = api_client.post(f"/api/bounties/{bounty['id']}/complete/?agent_id={alice.pk}")
    assert completed.status_code == 200
    assert completed.json()["status"] == "completed"
    assert Agent.objects.get(pk=alice.pk).credits == 150

    done = api_client.get("/api/bounties/?status=completed").json()
    assert [b["id"] for b in done["results"]] == [bounty["id"]]
    assert api_client.get("/api/bounties/?status=open").json()["results"] == []


def test_create_records_the_staff_member(api_client, staff_user):
    api_client.post("/api/bounties/", {"title": "修路", "reward": 5}, format="json")
    assert Bounty.objects.get().created_by == staff_user


@pytest.mark.parametrize(
    ("payload", "code", "field"),
    [
        ({"title": "修路", "reward": 0}, "invalid_reward", "reward"),
        ({"title": "修路", "reward": -3}, "invalid_reward", "reward"),
        ({"title": "修路"}, "invalid_reward", "reward"),
        ({"title": "修路", "reward": "lots"}, "invalid_input", "reward"),
        ({"title": "   ", "reward": 5}, "title_required", "title"),
        ({"reward": 5}, "title_required", "title"),
    ],
)
def test_create_refuses_bad_input_with_a_code(api_client, payload, code, field):
    response = api_client.post("/api/bounties/", payload, format="json")
    assert response.status_code == 400
    body = response.json()
    assert (body["ok"], body["code"], body["field"]) == (False, code, field)
    assert body["reason"]
    assert not Bounty.objects.exists()


def test_list_with_an_unknown_status_is_400(api_client):
    response = api_client.get("/api/bounties/?status=lost")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_status"


def test_bounty_list_payload_is_the_serializers(api_client, alice, bob, make_bounty):
    """The list is built from plain values (``bounty_cards``): key by key, in order, what
    ``BountySerializer`` shows of each bounty, in every status, with and without a claimer."""
    now = timezone.now().replace(microsecond=123456)
    make_bounty("开放", description="说明")
    make_bounty("已接", status="claimed", claimed_by=alice, claimed_at=now)
    make_bounty("完成", reward=7, status="completed", claimed_by=bob, claimed_at=now, completed_at=now + timedelta(hours=1))
    make_bounty("取消", status="cancelled", cancelled_at=now - timedelta(days=400))
    for query in ("", "?status=open", "?status=claimed", "?status=completed", "?status=cancelled"):
        body = api_client.get(f"/api/bounties/{query}").json()
        expected = Bounty.objects.order_by("-created_at", "-id")
        if query:
            expected = expected.filter(status=query.removeprefix("?status="))
        expected = BountySerializer(expected, many=True).data
        assert [list(row.items()) for row in body["results"]] == [list(row.items()) for row in expected]
        assert body["count"] == len(expected) >= 1
    claimed = api_client.get("/api/bounties/?status=claimed").json()["results"][0]
    assert (claimed["claimed_by"], claimed["claimed_by_name"]) == (alice.pk, "Alice")


def test_bounty_list_costs_the_same_queries_for_2_and_20_bounties(api_client, make_agent, make_bounty):
    def claimed(title):  # one claimed bounty per agent: each its own claimer, its name on the card
        make_bounty(title, status="claimed", claimed_by=make_agent(title), claimed_at=timezone.now())

    for number in range(2):
        claimed(f"悬赏{number}")
    api_client.get("/api/bounties/")  # the caller's permissions are read once, on the first request
    with CaptureQueriesContext(connection) as few:
        assert len(api_client.get("/api/bounties/").json()["results"]) == 2
    for number in range(18):
        claimed(f"更多{number}")
    with CaptureQueriesContext(connection) as many:
        assert len(api_client.get("/api/bounties/").json()["results"]) == 20
    assert len(many) == len(few) == 2  # count, page


def test_detail_returns_one_bounty(api_client, make_bounty):
    bounty = make_bounty()
    assert api_client.get(f"/api/bounties/{bounty.pk}/").json()["title"] == "收集100小麦"


def test_detail_of_a_missing_bounty_is_404(api_client):
    response = api_client.get("/api/bounties/999/")
    assert response.status_code == 404
    assert response.json() == {"ok": False, "code": "bounty_not_found", "reason": "悬赏不存在"}


def test_claim_accepts_agent_id_in_the_json_body(api_client, alice, make_bounty):
    bounty = make_bounty()
    response = api_client.post(f"/api/bounties/{bounty.pk}/claim/", {"agent_id": alice.pk}, format="json")
    assert response.status_code == 200
    assert Bounty.objects.get().claimed_by == alice


def test_claim_of_a_missing_bounty_is_404(api_client, alice):
    response = claim(api_client, 999, alice.pk)
    assert (response.status_code, response.json()["code"]) == (404, "bounty_not_found")


def test_claim_by_a_missing_agent_is_404(api_client, make_bounty):
    response = claim(api_client, make_bounty().pk, 999)
    assert (response.status_code, response.json()["code"]) == (404, "agent_not_found")
    assert response.json()["reason"] == "居民不存在"


def test_claim_limit_of_one_is_409(api_client, alice, make_bounty):
    first, second = make_bounty("一"), make_bounty("二")
    assert claim(api_client, first.pk, alice.pk).status_code == 200
    response = claim(api_client, second.pk, alice.pk)
    assert response.status_code == 409
    assert response.json() == {
        "ok": False, "code": "active_bounty_exists", "reason": "Alice 已有进行中的悬赏，完成后才能接取新的"
    }


def test_claim_of_a_taken_bounty_is_409(api_client, alice, bob, make_bounty):
    bounty = make_bounty()
    claim(api_client, bounty.pk, bob.pk)
    response = claim(api_client, bounty.pk, alice.pk)
    assert (response.status_code, response.json()["code"]) == (409, "bounty_not_open")


@pytest.mark.parametrize("query", ["", "?agent_id=", "?agent_id=abc", "?agent_id=1.5", "?agent_id=0", "?agent_id=-2"])
def test_claim_with_a_bad_agent_id_is_400(api_client, make_bounty, query):
    response = api_client.post(f"/api/bounties/{make_bounty().pk}/claim/{query}")
    assert response.status_code == 400
    assert (response.json()["code"], response.json()["field"]) == ("invalid_input", "agent_id")
    assert Bounty.objects.get().status == "open"


def test_claim_with_a_json_array_body_is_400(api_client, make_bounty):
    response = api_client.post(f"/api/bounties/{make_bounty().pk}/claim/", [1, 2], format="json")
    assert (response.status_code, response.json()["code"]) == (400, "invalid_input")


def test_claim_with_malformed_json_is_400(api_client, make_bounty):
    response = api_client.post(
        f"/api/bounties/{make_bounty().pk}/claim/", data='{"agent_id": ', content_type="application/json"
    )
    assert (response.status_code, response.json()["code"]) == (400, "malformed_request")


def test_complete_by_another_agent_is_409(api_client, alice, bob, make_bounty):
    bounty = make_bounty(status="claimed", claimed_by=alice)
    response = api_client.post(f"/api/bounties/{bounty.pk}/complete/?agent_id={bob.pk}")
    assert (response.status_code, response.json()["code"]) == (409, "not_claimer")
    assert Agent.objects.get(pk=bob.pk).credits == 100


def test_complete_of_an_open_bounty_is_409(api_client, alice, make_bounty):
    response = api_client.post(f"/api/bounties/{make_bounty().pk}/complete/", {"agent_id": alice.pk}, format="json")
    assert (response.status_code, response.json()["code"]) == (409, "bounty_not_claimed")


def test_cancel_an_open_bounty(api_client, make_bounty):
    response = api_client.post(f"/api/bounties/{make_bounty().pk}/cancel/")
    assert (response.status_code, response.json()["status"]) == (200, "cancelled")


def test_cancel_a_claimed_bounty_is_409(api_client, alice, make_bounty):
    response = api_client.post(f"/api/bounties/{make_bounty(status='claimed', claimed_by=alice).pk}/cancel/")
    assert (response.status_code, response.json()["code"]) == (409, "bounty_not_open")


def test_errors_follow_the_request_language(api_client):
    response = api_client.get("/api/bounties/999/", HTTP_ACCEPT_LANGUAGE="en")
    assert response.json()["reason"] == "Bounty not found"


def test_anonymous_clients_are_refused(make_bounty):
    response = APIClient().post(f"/api/bounties/{make_bounty().pk}/claim/?agent_id=1")
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


def test_non_staff_users_are_refused(django_user_model, make_bounty):
    client = APIClient()
    client.force_authenticate(django_user_model.objects.create_user("guest", password="pw-guest-123"))
    assert client.get("/api/bounties/").status_code == 403


def test_token_authentication_works_for_scripts(staff_user, alice, make_bounty):
    from rest_framework.authtoken.models import Token

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=staff_user).key}")
    assert claim(client, make_bounty().pk, alice.pk).status_code == 200


def test_schema_documents_the_bounty_endpoints(api_client):
    schema = api_client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    paths = schema["paths"]
    assert {"/api/bounties/", "/api/bounties/{id}/", "/api/bounties/{id}/claim/", "/api/bounties/{id}/complete/"} <= set(paths)
    claim_op = paths["/api/bounties/{id}/claim/"]["post"]
    assert {"agent_id", "id"} <= {p["name"] for p in claim_op["parameters"]}
    assert {"200", "400", "404", "409"} <= set(claim_op["responses"])
    listing = paths["/api/bounties/"]["get"]
    status = next(p for p in listing["parameters"] if p["name"] == "status")
    assert set(status["schema"]["enum"]) == {"open", "claimed", "completed", "cancelled"}
    assert "201" in paths["/api/bounties/"]["post"]["responses"]
