"""The /funds/ page: list, modal form, enable/disable, proposals and the embedded chat panel."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from agents.models import Conversation, PendingAction
from agents.confirmations import reject_pending_action
from funds.models import Fund
from funds.services import create_fund, update_fund

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def staff_client(client, staff_user):
    client.force_login(staff_user)
    return client


def test_the_page_is_for_staff_only(client, django_user_model):
    assert client.get("/funds/").status_code == 302
    client.force_login(django_user_model.objects.create_user("visitor"))
    assert client.get("/funds/").status_code == 302
    assert client.get("/funds/?part=list").status_code == 302
    assert client.post("/funds/", {"action": "save", "fund_name": "Alpha"}).status_code == 302
    assert not Fund.objects.exists()


def test_the_list_searches_filters_and_paginates(staff_client):
    for number in range(25):
        create_fund(fund_name=f"Fund {number:02}")
    create_fund(fund_name="Alpha", active_status="DISABLE")
    page = staff_client.get("/funds/").content.decode()
    assert "Fund 00" in page and "Fund 20" not in page and "第 1 / 2 页" in page
    second = staff_client.get("/funds/?part=list&page=2", **HTMX).content.decode()
    assert "Fund 20" in second and "<html" not in second
    searched = staff_client.get("/funds/?part=list&fund_name=alp", **HTMX).content.decode()
    assert "Alpha" in searched and "Fund 00" not in searched
    active = staff_client.get("/funds/?part=list&fund_name=alp&active_only=1", **HTMX).content.decode()
    assert "Alpha" not in active and "没有找到基金" in active


def test_creating_in_the_modal_closes_it_and_refreshes_the_page(staff_client, staff_user):
    response = staff_client.post("/funds/", {"action": "save", "fund_name": "Alpha", "remarks": "r"}, **HTMX)
    fund = Fund.objects.get()
    assert (fund.fund_name, fund.created_by) == ("Alpha", staff_user)
    assert set(json.loads(response["HX-Trigger"])) == {"funds-changed", "fund-form-done"}
    assert f"ID 为 {fund.pk}" in response.content.decode()


def test_service_errors_show_inline_in_the_form(staff_client):
    create_fund(fund_name="Alpha")
    response = staff_client.post("/funds/", {"action": "save", "fund_name": "alpha", "remarks": "x" * 501}, **HTMX)
    html = response.content.decode()
    assert "基金名称「alpha」已存在" in html and "备注最多 500 个字符" in html
    assert "HX-Trigger" not in response and Fund.objects.count() == 1


def test_without_javascript_a_bad_form_rerenders_the_page_with_the_form_open(staff_client):
    response = staff_client.post("/funds/", {"action": "save", "fund_name": ""})
    html = response.content.decode()
    assert response.status_code == 200 and "基金名称不能为空" in html and '<dialog id="fund-dialog"' in html and " open>" in html


def test_without_javascript_a_good_form_redirects(staff_client):
    response = staff_client.post("/funds/", {"action": "save", "fund_name": "Alpha"})
    assert response.status_code == 302 and response["Location"] == "/funds/"


def test_editing_with_a_stale_version_shows_the_current_values(staff_client):
    fund = create_fund(fund_name="Alpha")
    form = staff_client.get(f"/funds/?part=form&fund={fund.pk}", **HTMX).content.decode()
    assert 'name="version" value="1"' in form
    update_fund(fund_id=fund.pk, version=1, remarks="someone else")
    html = staff_client.post(
        "/funds/", {"action": "save", "fund_id": fund.pk, "version": 1, "fund_name": "Alpha", "remarks": "mine"}, **HTMX
    ).content.decode()
    assert "已被他人修改" in html and "someone else" in html and "载入最新内容" in html
    fund.refresh_from_db()
    assert fund.remarks == "someone else"


def test_enable_and_disable_buttons_carry_the_version(staff_client):
    fund = create_fund(fund_name="Alpha")
    html = staff_client.post("/funds/", {"action": "disable", "fund_id": fund.pk, "version": 1}, **HTMX).content.decode()
    fund.refresh_from_db()
    assert fund.active_status == "DISABLE" and "已停用" in html
    stale = staff_client.post("/funds/", {"action": "enable", "fund_id": fund.pk, "version": 1}, **HTMX).content.decode()
    fund.refresh_from_db()
    assert fund.active_status == "DISABLE" and "已被他人修改" in stale


def chat(client, message):
    return client.post("/funds/chat/", {"message": message}, **HTMX)


def test_the_chat_panel_proposes_in_embedded_mode_and_opens_the_form(staff_client, fund_agent, staff_user):
    response = chat(staff_client, "帮我创建一个叫 Alpha 的基金")
    assert "表单已预填，请确认后点击提交按钮" in response.content.decode()
    action = PendingAction.objects.get()
    assert (action.mode, action.conversation.mode, action.conversation.page) == ("embedded", "embedded", "/funds/")
    trigger = json.loads(response["HX-Trigger"])["desk:ui_action"]
    assert trigger == {
        "action": "open_form", "url": "/funds/", "form": "fund-form",
        "pending_action_id": action.pk, "fields": {"fund_name": "Alpha", "remarks": ""},
    }
    assert not Fund.objects.exists()
    # The conversation continues across requests (kept in the session).
    chat(staff_client, "有哪些基金？")
    assert Conversation.objects.count() == 1


def test_a_proposal_opens_prefilled_and_marked_as_the_agents(staff_client, fund_agent):
    chat(staff_client, "帮我创建一个叫 Alpha 的基金")
    action = PendingAction.objects.get()
    html = staff_client.get(f"/funds/?part=form&proposal={action.pk}", **HTMX).content.decode()
    assert 'value="Alpha"' in html and "data-proposed-by-agent" in html and "基金助理" in html
    assert 'value="confirm"' in html and 'value="reject"' in html
    # A reload keeps it: the page lists pending proposals from the database.
    page = staff_client.get("/funds/").content.decode()
    assert f'id="proposal-{action.pk}"' in page and "即将创建基金「Alpha」" in page


def test_confirming_the_edited_proposal_writes_it_and_the_chat_reports_success(staff_client, fund_agent, staff_user):
    chat(staff_client, "帮我创建一个叫 Alpha 的基金")
    action = PendingAction.objects.get()
    response = staff_client.post(
        "/funds/",
        {"action": "confirm", "pending_action_id": action.pk, "fund_name": "Alpha", "remarks": "人工补充"},
        **HTMX,
    )
    fund = Fund.objects.get()
    assert (fund.fund_name, fund.remarks, fund.created_by) == ("Alpha", "人工补充", staff_user)
    assert "fund-form-done" in json.loads(response["HX-Trigger"])
    log = staff_client.get("/funds/?part=chat", **HTMX).content.decode()
    assert f"基金「Alpha」创建成功，ID 为 {fund.pk}" in log


def test_an_invalid_edit_keeps_the_proposal_open(staff_client, fund_agent):
    chat(staff_client, "帮我创建一个叫 Alpha 的基金")
    action = PendingAction.objects.get()
    html = staff_client.post(
        "/funds/", {"action": "confirm", "pending_action_id": action.pk, "fund_name": " ", "remarks": ""}, **HTMX
    ).content.decode()
    assert "基金名称不能为空" in html and 'value="confirm"' in html
    assert PendingAction.objects.get().status == "pending"


def test_confirming_a_stale_proposal_shows_the_conflict_with_current_values(staff_client, fund_agent):
    fund = create_fund(fund_name="Alpha")
    chat(staff_client, "把 Alpha 基金的备注改成 agent")
    action = PendingAction.objects.get()
    update_fund(fund_id=fund.pk, version=1, remarks="human")
    form = staff_client.get(f"/funds/?part=form&proposal={action.pk}", **HTMX).content.decode()
    assert "确认将以版本冲突失败" in form
    html = staff_client.post(
        "/funds/", {"action": "confirm", "pending_action_id": action.pk, "fund_name": "Alpha", "remarks": "agent"}, **HTMX
    ).content.decode()
    assert "data-current-values" in html and "human" in html and 'value="confirm"' not in html
    assert PendingAction.objects.get().status == "failed"
    fund.refresh_from_db()
    assert fund.remarks == "human"


def test_rejecting_from_the_list_closes_the_proposal(staff_client, fund_agent):
    chat(staff_client, "帮我创建一个叫 Alpha 的基金")
    action = PendingAction.objects.get()
    staff_client.post("/funds/", {"action": "reject", "pending_action_id": action.pk}, **HTMX)
    assert PendingAction.objects.get().status == "rejected" and not Fund.objects.exists()
    assert f'id="proposal-{action.pk}"' not in staff_client.get("/funds/?part=pending", **HTMX).content.decode()


def test_model_text_is_escaped_in_the_chat_panel(staff_client, fund_agent):
    chat(staff_client, "<script>alert(1)</script>")
    log = staff_client.get("/funds/?part=chat", **HTMX).content.decode()
    assert "<script>alert(1)</script>" not in log and "&lt;script&gt;" in log


def test_the_page_speaks_english_too(staff_client):
    create_fund(fund_name="Alpha")
    html = staff_client.get("/funds/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "New fund" in html and "Enabled" in html and "Agent proposals" in html
    assert "新建基金" not in html


def test_an_overdue_proposal_is_not_listed_and_reading_the_page_writes_nothing(staff_client, fund_agent):
    chat(staff_client, "帮我创建一个叫 Alpha 的基金")
    action = PendingAction.objects.get()
    PendingAction.objects.filter(pk=action.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    page = staff_client.get("/funds/").content.decode()
    assert f'id="proposal-{action.pk}"' not in page
    assert PendingAction.objects.get().status == "pending"  # expiring it is the autonomy loop's job


def test_an_unknown_part_is_a_400(staff_client):
    assert staff_client.get("/funds/?part=secret", **HTMX).status_code == 400


def test_deciding_a_proposal_decided_elsewhere_shows_it_closed_with_the_reason(staff_client, fund_agent, staff_user):
    chat(staff_client, "帮我创建一个叫 Alpha 的基金")
    action = PendingAction.objects.get()
    reject_pending_action(action_id=action.pk, user=staff_user)
    response = staff_client.post(
        "/funds/", {"action": "confirm", "pending_action_id": action.pk, "fund_name": "Beta", "remarks": ""}, **HTMX
    )
    html = response.content.decode()
    assert "不能重复决定" in html and "data-outcome" in html and 'value="confirm"' not in html
    assert 'value="Alpha"' in html and 'value="Beta"' not in html  # what was proposed, not the edit
    assert set(json.loads(response["HX-Trigger"])) == {"funds-changed"}
    assert not Fund.objects.exists()


def test_a_proposal_that_does_not_exist_opens_closed_with_the_error(staff_client):
    html = staff_client.get("/funds/?part=form&proposal=999999", **HTMX).content.decode()
    assert "待确认操作不存在" in html and 'value="confirm"' not in html and "关闭" in html
