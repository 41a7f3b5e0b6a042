"""API base: staff-only access (session and token), error shape, tools and agents, schema."""

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def test_anonymous_is_refused_with_the_error_shape():
    response = APIClient().get("/api/tools/")
    assert response.status_code == 401
    assert response.json() == {"ok": False, "code": "not_authenticated", "reason": response.json()["reason"]}


def test_non_staff_is_refused(django_user_model):
    user = django_user_model.objects.create_user("visitor", password="pw-visitor-1")
    client = APIClient()
    client.force_authenticate(user)
    response = client.get("/api/agents/")
    assert response.status_code == 403
    assert response.json()["code"] == "permission_denied"


def test_staff_session_is_accepted(client, staff_user):
    client.force_login(staff_user)
    assert client.get("/api/tools/").status_code == 200


def test_staff_token_is_accepted(staff_user):
    token = Token.objects.create(user=staff_user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert client.get("/api/tools/").status_code == 200


def test_bad_token_is_refused():
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token nope")
    response = client.get("/api/tools/")
    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"


def test_tools_list_shows_the_registry(api_client):
    tools = {t["name"]: t for t in api_client.get("/api/tools/").json()}
    status = tools["get_my_status"]
    assert status["category"] == "query"
    assert status["is_active"] is True
    assert status["input_schema"]["type"] == "object"
    assert status["description"].startswith("查看自己的状态")


def test_tools_list_in_english(api_client):
    tools = {t["name"]: t for t in api_client.get("/api/tools/", HTTP_ACCEPT_LANGUAGE="en").json()}
    assert tools["get_my_status"]["description"].startswith("Show my own status")


def test_agents_list_and_detail(api_client, make_agent):
    alice = make_agent("Alice", tools=("get_my_status",), credits=42)
    listing = api_client.get("/api/agents/").json()
    assert listing["count"] == 1
    assert listing["results"][0]["name"] == "Alice"
    detail = api_client.get(f"/api/agents/{alice.pk}/").json()
    assert detail["credits"] == 42
    assert detail["tools"] == ["get_my_status"]


def test_unknown_agent_is_404_with_code(api_client):
    response = api_client.get("/api/agents/999999/")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_openapi_schema_and_local_docs(api_client, client, staff_user):
    schema = api_client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    assert "/api/tools/" in schema.json()["paths"]
    client.force_login(staff_user)
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    html = docs.content.decode()
    assert "swagger-ui" in html
    assert "cdn" not in html.lower()  # assets are served locally: the product works offline


def test_the_docs_send_a_signed_out_browser_to_sign_in_and_back(client):
    response = client.get("/api/docs/", HTTP_ACCEPT="text/html,application/xhtml+xml,*/*;q=0.8")
    assert response.status_code == 302
    assert response["Location"] == "/admin/login/?next=/api/docs/"


def test_schema_and_docs_are_for_staff_only(client, django_user_model):
    assert client.get("/api/schema/").status_code in (401, 403)
    client.force_login(django_user_model.objects.create_user("visitor", password="pw-visitor-1"))
    assert client.get("/api/schema/").status_code == 403
    assert client.get("/api/docs/").status_code == 403


def test_too_many_form_fields_is_a_json_400(api_client, settings):
    # Django raises TooManyFieldsSent (a SuspiciousOperation) while DRF parses the body;
    # it must come back in the API's error shape, not Django's HTML "Bad Request (400)".
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 3
    body = "&".join(f"f{i}=x" for i in range(10))
    response = api_client.post("/api/autonomy/tick/", body, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert response.json()["ok"] is False
    assert response.json()["code"] == "malformed_request"
    assert response.json()["reason"]


def test_too_many_query_params_is_a_json_400(api_client, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 3
    response = api_client.get("/api/agents/?" + "&".join(f"f{i}=x" for i in range(10)))
    assert response.status_code == 400
    assert response.json()["code"] == "malformed_request"


BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


@pytest.mark.parametrize("path", ["/api/docs/", "/api/schema/"])
def test_signed_out_browser_is_sent_to_sign_in_and_back(client, path):
    # It used to be a bare JSON "401 Unauthorized" page with no way to sign in.
    response = client.get(path, HTTP_ACCEPT=BROWSER_ACCEPT)
    assert response.status_code == 302
    assert response["Location"] == f"/admin/login/?next={path}"


@pytest.mark.parametrize(
    "headers",
    [
        {"HTTP_ACCEPT": "application/json"},
        {"HTTP_ACCEPT": "*/*"},  # curl
        {"HTTP_ACCEPT": BROWSER_ACCEPT, "HTTP_AUTHORIZATION": "Token not-a-real-token"},
    ],
)
def test_signed_out_scripts_keep_the_json_401(client, headers):
    response = client.get("/api/schema/", **headers)
    assert response.status_code == 401
    assert b"not_authenticated" in response.content or b"authentication_failed" in response.content


def test_signed_in_non_staff_browser_still_gets_403(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("visitor2", password="pw-visitor-2"))
    assert client.get("/api/docs/", HTTP_ACCEPT=BROWSER_ACCEPT).status_code == 403
