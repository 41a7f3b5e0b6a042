"""A staff member chooses the zone the pages show times in (issue 30): saved on their preference,
checked against zoneinfo (invalid_time_zone), activated for their requests; others keep TIME_ZONE."""

from datetime import UTC, datetime

import pytest

from agents.models import Agent
from city.models import ResourceTransfer, ResourceType
from core.errors import ApplicationError
from core.models import UserPreference
from core.services import set_time_zone

pytestmark = pytest.mark.django_db


@pytest.fixture
def transfer_at_noon_utc():
    bread = ResourceType.objects.create(slug="bread", name="面包", edible=True, satiety_gain=10)
    alice, bob = Agent.objects.create(name="Alice"), Agent.objects.create(name="Bob")
    transfer = ResourceTransfer.objects.create(from_agent=alice, to_agent=bob, resource_type=bread, quantity=2, source="page")
    ResourceTransfer.objects.filter(pk=transfer.pk).update(created_at=datetime(2026, 3, 1, 12, 0, tzinfo=UTC))


def test_an_unknown_zone_is_refused_with_a_stable_code(staff_user):
    with pytest.raises(ApplicationError) as refused:
        set_time_zone(user=staff_user, time_zone="Mars/Olympus_Mons")
    assert (refused.value.code, refused.value.field) == ("invalid_time_zone", "time_zone")
    assert not UserPreference.objects.filter(user=staff_user).exists()


def test_a_zone_is_saved_and_empty_goes_back_to_the_default(staff_user):
    UserPreference.objects.create(user=staff_user, language="en")
    assert set_time_zone(user=staff_user, time_zone="Europe/Berlin").time_zone == "Europe/Berlin"
    preference = UserPreference.objects.get(user=staff_user)
    assert (preference.language, preference.time_zone) == ("en", "Europe/Berlin")
    set_time_zone(user=staff_user, time_zone="")
    assert UserPreference.objects.get(user=staff_user).time_zone == ""


def test_the_pages_show_times_in_the_users_chosen_zone(client, staff_user, transfer_at_noon_utc, settings):
    settings.TIME_ZONE = "Asia/Shanghai"
    client.force_login(staff_user)
    html = client.get("/trade/").content.decode()
    assert "2026-03-01 20:00:00 CST" in html
    assert '<option value="Asia/Shanghai" selected>' in html

    response = client.post("/i18n/settz/", {"time_zone": "Europe/Berlin", "next": "/trade/"})
    assert (response.status_code, response["Location"]) == (302, "/trade/")
    html = client.get("/trade/").content.decode()
    assert "2026-03-01 13:00:00 CET" in html
    assert '<option value="Europe/Berlin" selected>' in html


def test_another_user_keeps_the_server_zone(client, staff_user, transfer_at_noon_utc):
    from tests.support.staff import create_staff

    set_time_zone(user=staff_user, time_zone="Europe/Berlin")
    client.force_login(create_staff("other", password="pw-other-123"))
    assert "2026-03-01 20:00:00 CST" in client.get("/trade/").content.decode()


def test_a_bad_zone_or_target_on_the_page_is_no_500(client, staff_user):
    client.force_login(staff_user)
    response = client.post("/i18n/settz/", {"time_zone": "Nowhere/At_All", "next": "/"})
    assert response.status_code == 400
    response = client.post("/i18n/settz/", {"time_zone": "UTC", "next": "https://evil.example/"})
    assert (response.status_code, response["Location"]) == (302, "/")
    assert UserPreference.objects.get(user=staff_user).time_zone == "UTC"


def test_signed_out_the_switch_sends_to_sign_in(client):
    response = client.post("/i18n/settz/", {"time_zone": "UTC"})
    assert response.status_code == 302 and "login" in response["Location"]
    assert client.get("/i18n/settz/").status_code == 405
