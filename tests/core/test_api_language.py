"""The API's `reason` follows Accept-Language, then the user's saved language, then LANGUAGE_CODE;
`code` is the same in every language. A script with a token used to get Chinese unless it sent
Accept-Language, whatever its user had chosen."""

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token

from core.models import UserPreference

pytestmark = pytest.mark.django_db
URL = "/api/agents/transfer-resource/"


@pytest.fixture
def token(staff_user):
    return Token.objects.create(user=staff_user).key


@pytest.fixture
def unknown_resource(make_agent):
    alice, bob = make_agent("Alice"), make_agent("Bob")

    def post(client: Client, **headers):
        body = {"from_agent_id": alice.pk, "to_agent_id": bob.pk, "resource_type": "gold", "quantity": 1}
        response = client.post(URL, body, content_type="application/json", **headers)
        assert response.status_code == 400
        return response.json()

    return post


def test_a_token_script_reads_reason_in_its_users_saved_language(client, staff_user, token, unknown_resource):
    UserPreference.objects.create(user=staff_user, language="en")
    body = unknown_resource(client, HTTP_AUTHORIZATION=f"Token {token}")
    assert (body["code"], body["reason"]) == ("unknown_resource", "Unknown resource: gold")


def test_accept_language_comes_before_the_saved_language(client, staff_user, token, unknown_resource):
    UserPreference.objects.create(user=staff_user, language="en")
    body = unknown_resource(client, HTTP_AUTHORIZATION=f"Token {token}", HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9")
    assert (body["code"], body["reason"]) == ("unknown_resource", "未知资源：gold")


def test_without_either_the_reason_is_in_language_code(client, token, unknown_resource, settings):
    body = unknown_resource(client, HTTP_AUTHORIZATION=f"Token {token}")
    assert (body["code"], body["reason"]) == ("unknown_resource", "未知资源：gold")
    settings.LANGUAGE_CODE = "en"
    assert unknown_resource(client, HTTP_AUTHORIZATION=f"Token {token}")["reason"] == "Unknown resource: gold"


def test_a_session_user_reads_reason_in_their_saved_language(client, staff_user, unknown_resource):
    UserPreference.objects.create(user=staff_user, language="en")
    client.force_login(staff_user)
    assert unknown_resource(client)["reason"] == "Unknown resource: gold"


def test_switching_language_on_the_pages_saves_it_for_the_api(client, staff_user, token, unknown_resource):
    client.force_login(staff_user)
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert UserPreference.objects.get(user=staff_user).language == "en"
    fresh = Client()  # a script: no cookie, no session, only the token
    assert unknown_resource(fresh, HTTP_AUTHORIZATION=f"Token {token}")["reason"] == "Unknown resource: gold"


def test_a_wrong_token_still_gets_the_401_in_language_code(client):
    response = client.get("/api/tools/", HTTP_AUTHORIZATION="Token nope")
    assert response.status_code == 401 and response.json()["code"] == "authentication_failed"


def test_a_token_callers_saved_language_costs_no_query_of_its_own(client, staff_user, token, unknown_resource):
    """The saved language comes with the token's row (DRF reads the token anyway): a request
    relying on it costs what one naming its language does. It cost two more queries (token ->
    user, then the preference) on every API request."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    UserPreference.objects.create(user=staff_user, language="en")
    unknown_resource(client, HTTP_AUTHORIZATION=f"Token {token}")  # the caller's permissions are read once
    with CaptureQueriesContext(connection) as named:
        assert unknown_resource(client, HTTP_AUTHORIZATION=f"Token {token}", HTTP_ACCEPT_LANGUAGE="en")["reason"] == "Unknown resource: gold"
    with CaptureQueriesContext(connection) as saved:
        assert unknown_resource(client, HTTP_AUTHORIZATION=f"Token {token}")["reason"] == "Unknown resource: gold"
    assert len(saved) == len(named)


def test_a_wrong_token_is_answered_in_language_code(client, staff_user, unknown_resource, settings):
    UserPreference.objects.create(user=staff_user, language="en")
    settings.LANGUAGE_CODE = "zh-hans"
    response = client.get("/api/agents/", HTTP_AUTHORIZATION="Token not-a-token")
    assert response.status_code == 401
    assert response.headers["Content-Language"] == "zh-hans"
