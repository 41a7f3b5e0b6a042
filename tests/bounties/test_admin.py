"""Bounty admin: list with filter and search; add, cancel and complete go through the services."""

import pytest

from agents.models import Agent
from bounties.models import Bounty
from core.models import EventLog

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/bounties/bounty/"


@pytest.fixture
def admin_client(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", "root@example.com", "pw-root-123"))
    return client


def test_changelist_filters_by_status_and_searches(admin_client, alice, make_bounty):
    make_bounty("收集100小麦")
    make_bounty("建造磨坊", status="claimed", claimed_by=alice)
    claimed = admin_client.get(CHANGELIST + "?status__exact=claimed").content.decode()
    assert "建造磨坊" in claimed and "收集100小麦" not in claimed
    found = admin_client.get(CHANGELIST + "?q=Alice").content.decode()
    assert "建造磨坊" in found and "收集100小麦" not in found


def test_add_goes_through_the_service(admin_client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(CHANGELIST + "add/", {"title": " 修路 ", "description": "", "reward": "5"})
    assert response.status_code == 302
    bounty = Bounty.objects.get()
    assert (bounty.title, bounty.status, bounty.created_by.username) == ("修路", "open", "root")
    assert EventLog.objects.filter(event="bounty_created").count() == 1


def test_add_shows_the_service_error_inline(admin_client):
    response = admin_client.post(CHANGELIST + "add/", {"title": "修路", "description": "", "reward": "0"})
    assert response.status_code == 200
    assert "奖励必须是 1 到 1000000 之间的整数" in response.content.decode()
    assert not Bounty.objects.exists()


def test_change_form_keeps_state_read_only(admin_client, alice, make_bounty):
    bounty = make_bounty(status="claimed", claimed_by=alice)
    admin_client.post(f"{CHANGELIST}{bounty.pk}/change/", {"title": "新标题", "description": "", "reward": "999"})
    bounty.refresh_from_db()
    assert (bounty.title, bounty.reward, bounty.status) == ("新标题", 50, "claimed")


def test_cancel_action_cancels_open_and_reports_the_rest(admin_client, alice, make_bounty):
    open_one = make_bounty("开放的")
    claimed = make_bounty("进行中的", status="claimed", claimed_by=alice)
    response = admin_client.post(
        CHANGELIST, {"action": "cancel_selected", "_selected_action": [open_one.pk, claimed.pk], "post": "yes"}, follow=True
    )
    assert Bounty.objects.get(pk=open_one.pk).status == "cancelled"
    assert Bounty.objects.get(pk=claimed.pk).status == "claimed"
    html = response.content.decode()
    assert "1 个悬赏已处理" in html and "只能取消开放中的悬赏" in html


def test_complete_action_pays_the_claimers(admin_client, alice, bob, make_bounty):
    first = make_bounty("一", reward=30, status="claimed", claimed_by=alice)
    second = make_bounty("二", reward=70, status="claimed", claimed_by=bob)
    untouched = make_bounty("开放的")
    selection = {"action": "complete_selected", "_selected_action": [first.pk, second.pk, untouched.pk]}
    admin_client.post(CHANGELIST, {**selection, "post": "yes"})
    assert set(Bounty.objects.values_list("status", flat=True)) == {"completed", "open"}
    assert Agent.objects.get(pk=alice.pk).credits == 130
    assert Agent.objects.get(pk=bob.pk).credits == 170


def test_bounties_cannot_be_deleted(admin_client, make_bounty):
    bounty = make_bounty()
    assert admin_client.post(f"{CHANGELIST}{bounty.pk}/delete/", {"post": "yes"}).status_code == 403
    assert Bounty.objects.exists()


def test_complete_action_first_shows_who_gets_paid_how_much_and_changes_nothing(admin_client, alice, make_bounty):
    claimed = make_bounty("送面粉", reward=30, status="claimed", claimed_by=alice)
    untouched = make_bounty("开放的")
    response = admin_client.post(CHANGELIST, {"action": "complete_selected", "_selected_action": [claimed.pk, untouched.pk]})
    html = response.content.decode()
    assert response.status_code == 200
    assert f"#{claimed.pk}「送面粉」：完成，向 Alice 支付 30 信用点" in html
    assert f"#{untouched.pk}「开放的」：不是进行中的悬赏，不会处理" in html
    assert 'name="post" value="yes"' in html
    assert Bounty.objects.get(pk=claimed.pk).status == "claimed"
    assert Agent.objects.get(pk=alice.pk).credits == 100


def test_cancel_action_first_asks(admin_client, make_bounty):
    bounty = make_bounty("开放的", reward=40)
    response = admin_client.post(CHANGELIST, {"action": "cancel_selected", "_selected_action": [bounty.pk]})
    assert f"#{bounty.pk}「开放的」：取消（奖励 40 信用点），之后不能再被接取" in response.content.decode()
    assert Bounty.objects.get(pk=bounty.pk).status == "open"
