"""Guessing is slowed down: wrong passwords lock a username from an address (django-axes),
wrong API tokens from an address are throttled (429), and the API throttles per user."""

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def test_five_wrong_passwords_lock_the_admin_sign_in_even_for_the_right_one(staff_user, settings):
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        response = client.post("/admin/login/", {"username": "staff", "password": "wrong"})
        assert response.status_code == 200  # the form again, with its error
    assert client.post("/admin/login/", {"username": "staff", "password": "wrong"}).status_code == 429
    locked = client.post("/admin/login/", {"username": "staff", "password": "pw-staff-123"})
    assert locked.status_code == 429
    assert "_auth_user_id" not in client.session


def test_a_right_password_before_the_limit_signs_in_and_resets_the_count(staff_user):
    client = Client()
    for _ in range(3):
        client.post("/admin/login/", {"username": "staff", "password": "wrong"})
    response = client.post("/admin/login/", {"username": "staff", "password": "pw-staff-123"})
    assert response.status_code == 302 and client.session["_auth_user_id"] == str(staff_user.pk)


def test_wrong_tokens_from_one_address_are_throttled(staff_user, settings):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-key")
    statuses = [client.get("/api/tools/").status_code for _ in range(20)]
    assert set(statuses) == {401}
    response = client.get("/api/tools/")
    assert response.status_code == 429 and response.json()["code"] == "throttled"
    assert "Retry-After" in response
    # Another address is not affected.
    assert client.get("/api/tools/", REMOTE_ADDR="10.0.0.9").status_code == 401


def test_a_valid_token_is_let_in_from_an_address_over_the_limit(staff_user):
    # Issue 25: the throttle counts failures; it used to refuse a right token from the address too
    # (a deliberate change of the contract tested above until then).
    guesser = APIClient()
    guesser.credentials(HTTP_AUTHORIZATION="Token not-a-key")
    for _ in range(25):
        guesser.get("/api/tools/")
    assert guesser.get("/api/tools/").status_code == 429
    owner = APIClient()
    owner.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=staff_user).key}")
    assert owner.get("/api/tools/").status_code == 200


def test_x_forwarded_for_is_ignored_without_trusted_proxies(staff_user):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-key")
    statuses = [client.get("/api/tools/", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}").status_code for n in range(21)]
    assert statuses[:20] == [401] * 20 and statuses[20] == 429


def test_x_forwarded_for_names_the_client_behind_a_trusted_proxy(staff_user, settings):
    settings.TRUSTED_PROXIES = ["127.0.0.1"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-key")
    # The client may prepend anything; the proxy appends the address it saw, read from the right.
    for _ in range(21):
        response = client.get("/api/tools/", HTTP_X_FORWARDED_FOR="203.0.113.7, 198.51.100.1")
    assert response.status_code == 429
    assert client.get("/api/tools/", HTTP_X_FORWARDED_FOR="198.51.100.2").status_code == 401
    # The header from anyone but the proxy is not read.
    assert client.get("/api/tools/", REMOTE_ADDR="192.0.2.5", HTTP_X_FORWARDED_FOR="198.51.100.1").status_code == 401


@pytest.mark.parametrize(
    ("remote", "forwarded", "proxies", "client"),
    [
        ("10.0.0.1", "1.2.3.4", [], "10.0.0.1"),
        ("10.0.0.1", "1.2.3.4", ["10.0.0.0/8"], "1.2.3.4"),
        ("10.0.0.1", "9.9.9.9, 1.2.3.4, 10.0.0.2", ["10.0.0.0/8"], "1.2.3.4"),
        ("10.0.0.1", "not-an-address", ["10.0.0.1"], "10.0.0.1"),
        ("10.0.0.1", None, ["10.0.0.1"], "10.0.0.1"),
    ],
)
def test_client_address(settings, remote, forwarded, proxies, client):
    from core.throttling import client_address

    settings.TRUSTED_PROXIES = proxies
    assert client_address(remote, forwarded) == client


def test_a_right_token_is_not_counted(staff_user):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=staff_user).key}")
    assert {client.get("/api/tools/").status_code for _ in range(30)} == {200}
