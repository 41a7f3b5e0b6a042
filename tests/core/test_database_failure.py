"""The database failing under a request: a 503 that says so, nothing half-written, and the next
request served without a restart. The failure is simulated by the OperationalError the driver
raises (a killed PostgreSQL connection, SQLite's full disk); bench/faults.py does it for real."""

from unittest import mock

import pytest
from django.db import OperationalError, connection

from city import selectors
from city.models import AgentResource, ResourceTransfer, ResourceType
from core.models import EventLog

TRANSFER_URL = "/api/agents/transfer-resource/"
KILLED = OperationalError("terminating connection due to administrator command")
DISK_FULL = OperationalError("database or disk is full")


@pytest.fixture
def stock(make_agent):
    flour = ResourceType.objects.create(slug="flour", name="面粉")
    alice, bob = make_agent("Alice"), make_agent("Bob")
    AgentResource.objects.create(agent=alice, resource_type=flour, quantity=10)
    return alice, bob


def transfer(client, alice, bob):
    body = {"from_agent_id": alice.pk, "to_agent_id": bob.pk, "resource_type": "flour", "quantity": 4}
    return client.post(TRANSFER_URL, body, format="json")


@pytest.mark.django_db
def test_api_read_on_a_killed_connection_is_a_503_json_error_and_the_next_read_succeeds(api_client):
    with mock.patch.object(selectors, "transfer_history", side_effect=KILLED):
        response = api_client.get("/api/transfers/")
    assert response.status_code == 503
    assert response.json() == {"ok": False, "code": "database_unavailable", "reason": mock.ANY}
    assert "稍后再试" in response.json()["reason"]
    assert api_client.get("/api/transfers/").status_code == 200


@pytest.mark.django_db
def test_api_write_on_a_full_disk_is_a_503_and_leaves_the_stock_as_it_was(api_client, stock):
    alice, bob = stock
    with mock.patch("city.stock.record_transfer", side_effect=DISK_FULL):
        response = transfer(api_client, alice, bob)
    assert response.status_code == 503
    assert response.json()["code"] == "database_full"
    assert dict(AgentResource.objects.values_list("agent__name", "quantity")) == {"Alice": 10}
    assert not ResourceTransfer.objects.exists()
    assert transfer(api_client, alice, bob).status_code == 200
    assert dict(AgentResource.objects.values_list("agent__name", "quantity")) == {"Alice": 6, "Bob": 4}


@pytest.mark.django_db
def test_api_error_is_in_english_when_asked(api_client):
    with mock.patch.object(selectors, "transfer_history", side_effect=KILLED):
        response = api_client.get("/api/transfers/", HTTP_ACCEPT_LANGUAGE="en")
    assert response.json()["reason"] == "The database is unavailable for the moment, and nothing was changed. Please try again later."


@pytest.mark.django_db
def test_page_on_a_killed_connection_is_a_plain_503_page_not_a_500(client, staff_user):
    client.force_login(staff_user)
    with mock.patch.object(selectors, "resource_table", side_effect=KILLED):
        response = client.get("/trade/")
    assert response.status_code == 503
    html = response.content.decode()
    assert "服务暂时不可用" in html and "数据库暂时不可用" in html and "Traceback" not in html
    assert client.get("/trade/").status_code == 200


@pytest.mark.django_db
def test_a_bug_that_is_not_the_database_still_raises(api_client):
    with mock.patch.object(selectors, "transfer_history", side_effect=RuntimeError("bug")), pytest.raises(RuntimeError):
        api_client.get("/api/transfers/")


def test_a_postgres_url_checks_kept_connections_before_use(monkeypatch):
    from config.settings import database_from_env

    monkeypatch.setenv("DATABASE_URL", "postgres://u@127.0.0.1:5432/desk")
    monkeypatch.setenv("DATABASE_CONN_MAX_AGE", "60")
    config = database_from_env()
    assert config["CONN_MAX_AGE"] == 60 and config["CONN_HEALTH_CHECKS"] is True


@pytest.mark.django_db(transaction=True)
def test_a_full_disk_when_storing_the_event_fails_the_change_too(api_client, stock):
    # The event is written inside the change's transaction on both databases (the log on SQLite,
    # the outbox on PostgreSQL): the two commit together or not at all.
    assert EventLog.objects.count() == 0
    with mock.patch("core.events._insert_one", side_effect=DISK_FULL):
        response = transfer(api_client, *stock)
    assert response.status_code == 503 and response.json()["code"] == "database_full"
    assert not ResourceTransfer.objects.exists() and not EventLog.objects.exists()
    assert dict(AgentResource.objects.values_list("agent__name", "quantity")) == {"Alice": 10}
    assert transfer(api_client, *stock).status_code == 200
    assert list(EventLog.objects.values_list("event", flat=True)) == ["resource_transferred"]


def test_a_postgres_pool_shares_connections_and_excludes_kept_ones(monkeypatch):
    from django.core.exceptions import ImproperlyConfigured

    from config.settings import database_from_env

    monkeypatch.setenv("DATABASE_URL", "postgres://u@127.0.0.1:5432/desk")
    monkeypatch.setenv("DATABASE_POOL_SIZE", "8")
    config = database_from_env()
    assert config["OPTIONS"]["pool"]["max_size"] == 8 and config["CONN_MAX_AGE"] == 0 and config["CONN_HEALTH_CHECKS"]
    monkeypatch.setenv("DATABASE_CONN_MAX_AGE", "60")
    with pytest.raises(ImproperlyConfigured, match="exclude each other"):
        database_from_env()
