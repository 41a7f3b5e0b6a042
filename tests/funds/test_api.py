import pytest
from rest_framework.test import APIClient

from funds.models import Fund
from funds.services import create_fund

pytestmark = pytest.mark.django_db


def test_list_is_paginated_and_filtered(api_client):
    for name in ["Alpha", "Alphabet", "Beta"]:
        create_fund(fund_name=name)
    Fund.objects.filter(fund_name="Alphabet").update(active_status="DISABLE")
    body = api_client.get("/api/funds/", {"fund_name": "ALPH", "active_only": "true"}).json()
    assert body["count"] == 1 and [f["fund_name"] for f in body["results"]] == ["Alpha"]
    assert api_client.get("/api/funds/").json()["count"] == 3


def test_list_refuses_a_malformed_active_only(api_client):
    response = api_client.get("/api/funds/", {"active_only": "maybe"})
    assert response.status_code == 400 and response.json()["code"] == "invalid_input"


def test_create_returns_201_and_records_the_caller(api_client, staff_user):
    response = api_client.post("/api/funds/", {"fund_name": " Alpha ", "remarks": "r"}, format="json")
    assert response.status_code == 201
    body = response.json()
    assert (body["fund_name"], body["version"], body["active_status"], body["created_by"]) == ("Alpha", 1, "ENABLE", "staff")


def test_create_with_a_taken_name_is_400_with_the_field(api_client):
    create_fund(fund_name="Alpha")
    body = api_client.post("/api/funds/", {"fund_name": "alpha"}, format="json").json()
    assert (body["ok"], body["code"], body["field"]) == (False, "fund_name_taken", "fund_name")


def test_detail_of_a_missing_fund_is_404(api_client):
    response = api_client.get("/api/funds/999/")
    assert response.status_code == 404 and response.json()["code"] == "fund_not_found"


def test_patch_needs_a_version(api_client):
    fund = create_fund(fund_name="Alpha")
    response = api_client.patch(f"/api/funds/{fund.pk}/", {"remarks": "x"}, format="json")
    assert response.status_code == 400 and response.json()["field"] == "version"


def test_patch_with_the_current_version_updates(api_client):
    fund = create_fund(fund_name="Alpha")
    body = api_client.patch(f"/api/funds/{fund.pk}/", {"version": 1, "remarks": "x"}, format="json").json()
    assert (body["remarks"], body["version"], body["updated_by"]) == ("x", 2, "staff")


def test_patch_with_a_stale_version_is_409_with_the_current_values(api_client):
    fund = create_fund(fund_name="Alpha")
    api_client.patch(f"/api/funds/{fund.pk}/", {"version": 1, "remarks": "first"}, format="json")
    response = api_client.patch(f"/api/funds/{fund.pk}/", {"version": 1, "remarks": "second"}, format="json")
    assert response.status_code == 409
    body = response.json()
    assert (body["ok"], body["code"]) == (False, "version_conflict")
    assert (body["current"]["remarks"], body["current"]["version"]) == ("first", 2)
    fund.refresh_from_db()
    assert fund.remarks == "first"


def test_delete_is_not_allowed(api_client):
    fund = create_fund(fund_name="Alpha")
    response = api_client.delete(f"/api/funds/{fund.pk}/")
    assert response.status_code == 405 and response.json()["code"] == "method_not_allowed"
    assert Fund.objects.filter(pk=fund.pk).exists()


def test_disable_and_enable_take_the_version(api_client):
    fund = create_fund(fund_name="Alpha")
    disabled = api_client.post(f"/api/funds/{fund.pk}/disable/", {"version": 1}, format="json")
    assert disabled.status_code == 200 and disabled.json()["active_status"] == "DISABLE"
    stale = api_client.post(f"/api/funds/{fund.pk}/enable/", {"version": 1}, format="json")
    assert stale.status_code == 409 and stale.json()["current"]["active_status"] == "DISABLE"
    enabled = api_client.post(f"/api/funds/{fund.pk}/enable/", {"version": 2}, format="json")
    assert enabled.json()["active_status"] == "ENABLE"


def test_validate_checks_a_draft_without_saving(api_client):
    fund = create_fund(fund_name="Alpha")
    bad = api_client.post("/api/funds/validate/", {"fund_name": "alpha"}, format="json").json()
    assert bad["ok"] is False and "fund_name" in bad["errors"]
    own = api_client.post("/api/funds/validate/", {"id": fund.pk, "fund_name": "alpha"}, format="json").json()
    assert own == {"ok": True, "errors": {}}
    assert Fund.objects.count() == 1


def test_batch_upsert_saves_all_rows(api_client):
    fund = create_fund(fund_name="Alpha")
    rows = [{"fund_name": "Beta"}, {"id": fund.pk, "version": 1, "remarks": "r"}]
    body = api_client.post("/api/funds/batch-upsert/", rows, format="json").json()
    assert body["ok"] is True and [f["fund_name"] for f in body["funds"]] == ["Beta", "Alpha"]


def test_batch_upsert_with_one_bad_row_saves_nothing_and_names_the_row(api_client):
    fund = create_fund(fund_name="Alpha")
    rows = [{"fund_name": "Beta"}, {"id": fund.pk, "version": 7, "remarks": "r"}, {"fund_name": "Gamma"}]
    response = api_client.post("/api/funds/batch-upsert/", rows, format="json")
    assert response.status_code == 409
    body = response.json()
    assert (body["code"], body["row"]) == ("version_conflict", 2) and "2" in body["reason"]
    assert list(Fund.objects.values_list("fund_name", "version")) == [("Alpha", 1)]


def test_non_staff_are_refused(django_user_model):
    client = APIClient()
    client.force_authenticate(django_user_model.objects.create_user("visitor"))
    assert client.get("/api/funds/").status_code == 403
    assert client.post("/api/funds/", {"fund_name": "Alpha"}, format="json").status_code == 403
    assert not Fund.objects.exists()


def test_the_schema_matches_what_the_api_answers(api_client):
    # A fund made without a user has null created_by/updated_by, and only a version_conflict
    # carries "current": the schema said otherwise, so clients validating responses broke.
    create_fund(fund_name="Alpha")
    assert api_client.get("/api/funds/").json()["results"][0]["created_by"] is None
    assert "current" not in api_client.post("/api/funds/", {}, format="json").json()
    components = api_client.get("/api/schema/", {"format": "json"}).json()["components"]["schemas"]
    assert components["Fund"]["properties"]["created_by"]["nullable"] is True
    assert components["Fund"]["properties"]["updated_by"]["nullable"] is True
    assert "current" not in components["FundError"]["required"]
    assert components["FundError"]["properties"]["current"]


def test_the_schema_documents_the_conflict_current_as_sent(api_client):
    fund = create_fund(fund_name="Alpha")
    response = api_client.patch(f"/api/funds/{fund.pk}/", {"version": 9, "remarks": "x"}, format="json")
    assert response.status_code == 409
    components = api_client.get("/api/schema/", {"format": "json"}).json()["components"]["schemas"]
    current_ref = components["FundError"]["properties"]["current"]
    name = (current_ref.get("$ref") or current_ref["allOf"][0]["$ref"]).rsplit("/", 1)[1]
    assert set(components[name]["required"]) <= set(response.json()["current"])
