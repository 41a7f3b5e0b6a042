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
    # Guessing is closed for the period, a right token included; another address is not affected.
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=staff_user).key}")
    assert client.get("/api/tools/").status_code == 429
    assert client.get("/api/tools/", REMOTE_ADDR="10.0.0.9").status_code == 200


def test_a_right_token_is_not_counted(staff_user):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=staff_user).key}")
    assert {client.get("/api/tools/").status_code for _ in range(30)} == {200}
