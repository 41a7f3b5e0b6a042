import json

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from agents.executor import execute
from agents.models import Conversation, PendingAction, Tool, ToolCall
from agents.registry import ToolContext
from core.events import user_group
from funds.models import Fund
from funds.services import create_fund, update_fund

from .conftest import FUND_TOOLS

pytestmark = pytest.mark.django_db


def context(agent, **fields):
    return ToolContext(agent=agent, **fields)


def test_fund_write_tools_require_confirmation_and_queries_do_not():
    flags = dict(Tool.objects.filter(name__in=FUND_TOOLS).values_list("name", "requires_confirmation"))
    assert flags == {
        "list_funds": False,
        "get_fund_detail": False,
        "create_fund": True,
        "update_fund": True,
        "enable_fund": True,
        "disable_fund": True,
    }


def test_list_funds_filters_by_name_and_active_status(fund_agent):
    create_fund(fund_name="Alpha")
    create_fund(fund_name="Alphabet", active_status="DISABLE")
    create_fund(fund_name="Beta")
    result = execute("list_funds", {"fund_name": "alpha", "active_only": True}, context(fund_agent))
    assert result["status"] == "success"
    assert [f["fund_name"] for f in result["data"]["funds"]] == ["Alpha"]
    assert "Alpha" in result["data"]["message"]


def test_get_fund_detail_of_a_missing_fund_is_a_structured_error(fund_agent):
    result = execute("get_fund_detail", {"fund_id": 42}, context(fund_agent))
    assert result["status"] == "error" and result["error"]["code"] == "fund_not_found"


def test_create_fund_proposes_and_never_writes_a_fund_row(fund_agent, staff_user):
    conversation = Conversation.objects.create(agent=fund_agent, user=staff_user)
    result = execute(
        "create_fund",
        {"fund_name": "Alpha", "remarks": "测试"},
        context(fund_agent, user=staff_user, conversation=conversation),
    )
    assert result["status"] == "pending_confirmation"
    assert result["message"] == "即将创建基金「Alpha」，请确认是否继续？"
    assert result["form_data"] == {"fund_name": "Alpha", "remarks": "测试"}
    assert not Fund.objects.exists()
    action = PendingAction.objects.get(pk=result["pending_action_id"])
    assert (action.tool_name, action.arguments, action.status, action.mode) == (
        "create_fund", {"fund_name": "Alpha", "remarks": "测试"}, "pending", "standalone",
    )
    assert action.conversation == conversation and action.requested_by == staff_user
    assert ToolCall.objects.get().status == "pending_confirmation"


def test_update_fund_proposal_records_the_version_it_read(fund_agent):
    fund = create_fund(fund_name="Alpha")
    update_fund(fund_id=fund.pk, version=1, remarks="old")
    result = execute("update_fund", {"fund_id": fund.pk, "remarks": "new"}, context(fund_agent))
    assert result["status"] == "pending_confirmation"
    assert result["form_data"] == {"fund_id": fund.pk, "fund_name": "Alpha", "remarks": "new"}
    assert PendingAction.objects.get().version_read == 2
    fund.refresh_from_db()
    assert (fund.remarks, fund.version) == ("old", 2)


def test_a_proposal_that_could_never_succeed_is_refused_at_once(fund_agent):
    create_fund(fund_name="Alpha")
    taken = execute("create_fund", {"fund_name": "alpha"}, context(fund_agent))
    enabled = execute("enable_fund", {"fund_id": Fund.objects.get().pk}, context(fund_agent))
    assert taken["error"]["code"] == "fund_name_taken"
    assert enabled["error"]["code"] == "fund_already_enabled"
    assert not PendingAction.objects.exists()


def test_disable_fund_proposal_leaves_the_fund_enabled(fund_agent):
    fund = create_fund(fund_name="Alpha")
    result = execute("disable_fund", {"fund_id": fund.pk}, context(fund_agent))
    assert result["status"] == "pending_confirmation"
    assert "停用" in result["message"] and result["form_data"]["active_status"] == "DISABLE"
    fund.refresh_from_db()
    assert fund.active_status == "ENABLE"


def test_embedded_proposal_opens_the_prefilled_form_on_the_staff_members_page(
    fund_agent, staff_user, django_capture_on_commit_callbacks
):
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(user_group(staff_user.pk), channel)
    conversation = Conversation.objects.create(agent=fund_agent, user=staff_user, mode="embedded", page="/funds/")
    with django_capture_on_commit_callbacks(execute=True):
        result = execute(
            "create_fund",
            {"fund_name": "Alpha"},
            context(fund_agent, user=staff_user, conversation=conversation, mode="embedded"),
        )
    assert result["message"] == "表单已预填，请确认后点击提交按钮"
    assert result["summary"] == "即将创建基金「Alpha」，请确认是否继续？"
    message = async_to_sync(layer.receive)(channel)
    frame = json.loads(message["text"])
    assert frame == {
        "type": "ui_action",
        "data": {
            "action": "open_form",
            "url": "/funds/",
            "form": "fund-form",
            "pending_action_id": result["pending_action_id"],
            "fields": {"fund_name": "Alpha", "remarks": ""},
        },
    }
    assert PendingAction.objects.get().mode == "embedded"
    assert not Fund.objects.exists()


def test_a_write_tool_staff_freed_from_confirmation_writes_with_the_current_version(fund_agent):
    Tool.objects.filter(name="update_fund").update(requires_confirmation=False, confirmation_set_by_staff=True)
    fund = create_fund(fund_name="Alpha")
    result = execute("update_fund", {"fund_id": fund.pk, "remarks": "direct"}, context(fund_agent))
    assert result["status"] == "success"
    fund.refresh_from_db()
    assert (fund.remarks, fund.version) == ("direct", 2)


def test_list_funds_in_english_counts_one_fund_in_the_singular_and_punctuates_in_english(fund_agent):
    from django.utils import translation

    create_fund(fund_name="Alpha")
    with translation.override("en"):
        one = execute("list_funds", {}, context(fund_agent))["data"]["message"]
        create_fund(fund_name="Beta")
        two = execute("list_funds", {}, context(fund_agent))["data"]["message"]
    assert one.startswith("1 fund: ")  # was "1 funds"
    assert two.startswith("2 funds: ") and "、" not in two and "，" not in two and ", " in two


def test_update_fund_proposal_in_english_joins_its_changes_with_an_english_comma(fund_agent):
    from django.utils import translation

    fund = create_fund(fund_name="Alpha")
    with translation.override("en"):
        result = execute("update_fund", {"fund_id": fund.pk, "fund_name": "Gamma", "remarks": "new"}, context(fund_agent))
    assert "，" not in result["message"] and ", " in result["message"]
