"""The generic confirmation flow: propose → confirm / reject / expire, and 确认/取消 in a chat."""

from datetime import timedelta

import pytest
from django.utils import timezone

from agents.chat import run_chat
from agents.confirmations import (
    answer_pending_action,
    confirm_pending_action,
    expire_pending_actions,
    reject_pending_action,
)
from agents.executor import execute
from agents.models import Conversation, Message, PendingAction, Tool, ToolCall
from agents.registry import ToolContext, registry, tool
from core.errors import ApplicationError, Conflict, Forbidden, NotFound
from core.models import EventLog
from funds.models import Fund
from funds.services import create_fund, update_fund
from tests.support.staff import create_staff

pytestmark = pytest.mark.django_db

FUND_TOOLS = ("list_funds", "get_fund_detail", "create_fund", "update_fund", "enable_fund", "disable_fund")


@pytest.fixture
def agent(make_agent):
    return make_agent("基金助理", tools=FUND_TOOLS)


@pytest.fixture
def conversation(agent, staff_user):
    return Conversation.objects.create(agent=agent, user=staff_user)


def propose(agent, conversation, name, arguments, user=None, mode="standalone"):
    result = execute(name, arguments, ToolContext(agent=agent, user=user, conversation=conversation, mode=mode))
    assert result["status"] == "pending_confirmation", result
    return PendingAction.objects.get(pk=result["pending_action_id"])


def assistant_messages(conversation):
    return list(conversation.messages.filter(role="assistant").values_list("content", flat=True))


def test_confirm_runs_the_tool_once_as_the_confirming_staff_member(agent, conversation, staff_user, django_user_model):
    other_staff = create_staff("other")
    action = propose(agent, conversation, "create_fund", {"fund_name": "Alpha"}, user=staff_user)
    decided = confirm_pending_action(action_id=action.pk, user=other_staff)
    fund = Fund.objects.get()
    assert (decided.status, decided.decided_by, fund.fund_name, fund.created_by) == ("confirmed", other_staff, "Alpha", other_staff)
    assert decided.decided_at is not None
    assert decided.result["data"]["fund"]["id"] == fund.pk
    audit = ToolCall.objects.get(source="confirmation")
    assert (audit.tool_name, audit.status, audit.user) == ("create_fund", "success", other_staff)
    assert assistant_messages(conversation) == [f"基金「Alpha」创建成功，ID 为 {fund.pk}"]


def test_confirm_with_edited_arguments_writes_the_edits(agent, conversation, staff_user):
    action = propose(agent, conversation, "create_fund", {"fund_name": "Alpha"})
    decided = confirm_pending_action(action_id=action.pk, user=staff_user, arguments={"remarks": "人工补充"})
    assert Fund.objects.get().remarks == "人工补充"
    assert decided.result["arguments"] == {"fund_name": "Alpha", "remarks": "人工补充"}
    assert PendingAction.objects.get().arguments == {"fund_name": "Alpha"}  # what the agent proposed stays on record


def test_an_invalid_edit_is_refused_and_the_action_stays_pending(agent, conversation, staff_user):
    action = propose(agent, conversation, "create_fund", {"fund_name": "Alpha"})
    with pytest.raises(ApplicationError) as caught:
        confirm_pending_action(action_id=action.pk, user=staff_user, arguments={"fund_name": "   "})
    assert caught.value.field == "fund_name"
    action.refresh_from_db()
    assert (action.status, action.decided_by) == ("pending", None)
    assert not Fund.objects.exists()
    confirm_pending_action(action_id=action.pk, user=staff_user, arguments={"fund_name": "Alpha 2"})
    assert Fund.objects.get().fund_name == "Alpha 2"


def test_an_edit_may_not_retarget_another_fund(agent, conversation, staff_user):
    alpha, beta = create_fund(fund_name="Alpha"), create_fund(fund_name="Beta")
    action = propose(agent, conversation, "update_fund", {"fund_id": alpha.pk, "remarks": "x"})
    with pytest.raises(ApplicationError) as caught:
        confirm_pending_action(action_id=action.pk, user=staff_user, arguments={"fund_id": beta.pk})
    assert caught.value.field == "fund_id"
    beta.refresh_from_db()
    assert beta.remarks == "" and PendingAction.objects.get().status == "pending"


def test_confirming_a_stale_proposal_fails_with_the_current_values(agent, conversation, staff_user):
    fund = create_fund(fund_name="Alpha")
    action = propose(agent, conversation, "update_fund", {"fund_id": fund.pk, "remarks": "agent"})
    update_fund(fund_id=fund.pk, version=1, remarks="someone else")
    decided = confirm_pending_action(action_id=action.pk, user=staff_user)
    assert decided.status == "failed"
    error = decided.result["error"]
    assert error["code"] == "version_conflict"
    assert error["current"]["remarks"] == "someone else" and error["current"]["version"] == 2
    fund.refresh_from_db()
    assert (fund.remarks, fund.version) == ("someone else", 2)
    [reply] = assistant_messages(conversation)
    assert "someone else" in reply and "版本" in reply


def test_confirming_twice_runs_once_and_the_second_is_a_conflict(agent, conversation, staff_user):
    action = propose(agent, conversation, "create_fund", {"fund_name": "Alpha"})
    confirm_pending_action(action_id=action.pk, user=staff_user)
    with pytest.raises(Conflict) as caught:
        confirm_pending_action(action_id=action.pk, user=staff_user)
    assert caught.value.code == "pending_action_not_pending"
    assert Fund.objects.count() == 1


def test_reject_closes_the_action_without_running_it(agent, conversation, staff_user):
    action = propose(agent, conversation, "create_fund", {"fund_name": "Alpha"})
    decided = reject_pending_action(action_id=action.pk, user=staff_user, reason="名称不规范")
    assert (decided.status, decided.decided_by, decided.result) == ("rejected", staff_user, {"reason": "名称不规范"})
    assert not Fund.objects.exists()
    assert "名称不规范" in assistant_messages(conversation)[0]
    with pytest.raises(Conflict):
        confirm_pending_action(action_id=action.pk, user=staff_user)
    assert not Fund.objects.exists()


def test_expired_actions_are_closed_and_cannot_be_confirmed(agent, conversation, staff_user):
    action = propose(agent, conversation, "create_fund", {"fund_name": "Alpha"})
    fresh = propose(agent, conversation, "create_fund", {"fund_name": "Beta"})
    PendingAction.objects.filter(pk=action.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert expire_pending_actions() == 1
    action.refresh_from_db()
    fresh.refresh_from_db()
    assert (action.status, fresh.status) == ("expired", "pending")
    with pytest.raises(Conflict) as caught:
        confirm_pending_action(action_id=action.pk, user=staff_user)
    assert caught.value.code == "pending_action_expired"
    assert not Fund.objects.exists()


def test_confirming_late_expires_the_action_instead_of_running_it(agent, conversation, staff_user, settings):
    settings.PENDING_ACTION_TTL = 60
    action = propose(agent, conversation, "create_fund", {"fund_name": "Alpha"})
    assert action.expires_at - action.created_at == pytest.approx(timedelta(seconds=60), abs=timedelta(seconds=1))
    PendingAction.objects.filter(pk=action.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    with pytest.raises(Conflict) as caught:
        confirm_pending_action(action_id=action.pk, user=staff_user)
    assert caught.value.code == "pending_action_expired"
    action.refresh_from_db()
    assert action.status == "expired" and not Fund.objects.exists()
    assert "过期" in assistant_messages(conversation)[0]


def test_a_non_staff_user_cannot_decide(agent, conversation, django_user_model):
    visitor = django_user_model.objects.create_user("visitor")
    action = propose(agent, conversation, "create_fund", {"fund_name": "Alpha"})
    with pytest.raises(Forbidden):
        confirm_pending_action(action_id=action.pk, user=visitor)
    with pytest.raises(Forbidden):
        reject_pending_action(action_id=action.pk, user=None)
    action.refresh_from_db()
    assert action.status == "pending" and not Fund.objects.exists()


def test_decisions_are_broadcast_as_pending_action_events(agent, conversation, staff_user, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        action = propose(agent, conversation, "create_fund", {"fund_name": "Alpha"})
        confirm_pending_action(action_id=action.pk, user=staff_user)
    events = [(row.event, row.data) for row in EventLog.objects.order_by("seq")]
    pending = [data for event, data in events if event == "pending_action"]
    assert [(e["id"], e["tool"], e["status"]) for e in pending] == [
        (action.pk, "create_fund", "pending"),
        (action.pk, "create_fund", "confirmed"),
    ]
    assert pending[0]["conversation_id"] == conversation.pk
    assert [data["change"] for event, data in events if event == "fund_changed"] == ["created"]


def test_a_tool_without_a_propose_hook_gets_a_generic_proposal(agent, conversation, staff_user):
    @tool(description="测试写入", category="action", requires_confirmation=True, permission="agents.change_agent", register_to=None)
    def stamp(ctx: ToolContext, text: str) -> dict:
        return {"message": f"已盖章：{text}"}

    with registry.register_temporarily(stamp):
        row = Tool.objects.create(name="stamp", category="action", requires_confirmation=True, source="tests")
        agent.tools.add(row)
        action = propose(agent, conversation, "stamp", {"text": "A"})
        assert "stamp" in action.summary and action.version_read is None
        assert confirm_pending_action(action_id=action.pk, user=staff_user).result["data"]["message"] == "已盖章：A"


def test_answering_confirm_in_the_conversation_runs_the_latest_proposal(agent, staff_user):
    first = run_chat(agent=agent, message="帮我创建一个叫 Alpha 的基金", user=staff_user)
    assert first.reply == "即将创建基金「Alpha」，请确认是否继续？"
    assert not Fund.objects.exists()
    answer = run_chat(agent=agent, message="确认", user=staff_user, conversation_id=first.conversation.pk)
    fund = Fund.objects.get()
    assert answer.reply == f"基金「Alpha」创建成功，ID 为 {fund.pk}"
    assert answer.tool_calls[0]["name"] == "create_fund" and answer.tool_calls[0]["result"]["status"] == "success"
    roles = list(first.conversation.messages.values_list("role", "content"))
    assert roles[-2:] == [("user", "确认"), ("assistant", answer.reply)]


@pytest.mark.parametrize("word", ["取消", "cancel", "No."])
def test_answering_cancel_rejects_the_proposal(agent, staff_user, word):
    first = run_chat(agent=agent, message="帮我创建一个叫 Alpha 的基金", user=staff_user)
    answer = run_chat(agent=agent, message=word, user=staff_user, conversation_id=first.conversation.pk)
    assert PendingAction.objects.get().status == "rejected"
    assert answer.reply.startswith("已取消") and not Fund.objects.exists()


def test_a_yes_without_a_pending_proposal_goes_to_the_model(agent, staff_user):
    conversation = Conversation.objects.create(agent=agent, user=staff_user)
    assert answer_pending_action(conversation=conversation, message="确认", user=staff_user) is None
    assert answer_pending_action(conversation=conversation, message="确认一下 Alpha", user=staff_user) is None
    assert not conversation.messages.exists()


def test_a_confirm_answer_from_a_non_staff_user_is_refused_in_the_reply(agent, staff_user, django_user_model):
    first = run_chat(agent=agent, message="帮我创建一个叫 Alpha 的基金", user=staff_user)
    visitor = django_user_model.objects.create_user("visitor")
    conversation = run_chat(agent=agent, message="你好", user=visitor).conversation  # the visitor's own
    PendingAction.objects.update(conversation=conversation)
    answer = run_chat(agent=agent, message="确认", user=visitor, conversation_id=conversation.pk)
    assert "员工" in answer.reply
    assert PendingAction.objects.get().status == "pending" and not Fund.objects.exists()
    assert Message.objects.filter(conversation=conversation, content=answer.reply).exists()


def test_a_confirm_answer_posted_into_another_users_conversation_is_not_found(agent, staff_user, django_user_model):
    first = run_chat(agent=agent, message="帮我创建一个叫 Alpha 的基金", user=staff_user)
    intruder = django_user_model.objects.create_user("intruder", is_staff=True)
    with pytest.raises(NotFound):
        run_chat(agent=agent, message=f"取消 #{PendingAction.objects.get().pk}", user=intruder, conversation_id=first.conversation.pk)
    assert PendingAction.objects.get().status == "pending"
    assert not first.conversation.messages.filter(content__startswith="取消").exists()


def test_manage_py_chat_answers_a_proposal_as_the_named_staff_member(agent, staff_user):
    import io

    from django.core.management import call_command

    out = io.StringIO()
    call_command("chat", agent.name, "帮我创建一个叫 Alpha 的基金", "--user", "staff", stdout=out)
    assert "即将创建基金「Alpha」，请确认是否继续？" in out.getvalue()
    conversation = PendingAction.objects.get().conversation
    out = io.StringIO()
    call_command("chat", agent.name, "确认", "--conversation", str(conversation.pk), "--user", "staff", stdout=out)
    fund = Fund.objects.get()
    assert f"基金「Alpha」创建成功，ID 为 {fund.pk}" in out.getvalue() and fund.created_by == staff_user


def test_a_bare_yes_with_two_proposals_open_decides_nothing_and_lists_them(agent, conversation, staff_user):
    # A model proposed two writes in one turn and its prose mentioned only the harmless one.
    fund = Fund.objects.create(fund_name="Core")
    harmless = propose(agent, conversation, "create_fund", {"fund_name": "Harmless Fund"})
    hidden = propose(agent, conversation, "disable_fund", {"fund_id": fund.pk})
    answer = answer_pending_action(conversation=conversation, message="yes", user=staff_user)
    assert answer.action is None
    assert f"#{harmless.pk} {harmless.summary}" in answer.reply and f"#{hidden.pk} {hidden.summary}" in answer.reply
    assert set(PendingAction.objects.values_list("status", flat=True)) == {"pending"}
    fund.refresh_from_db()
    assert fund.active_status == "ENABLE" and not Fund.objects.filter(fund_name="Harmless Fund").exists()


@pytest.mark.parametrize("words", ["确认 #{id}", "confirm {id}", "确认#{id}。"])
def test_naming_one_proposal_decides_that_one_only(agent, conversation, staff_user, words):
    fund = Fund.objects.create(fund_name="Core")
    harmless = propose(agent, conversation, "create_fund", {"fund_name": "Harmless Fund"})
    hidden = propose(agent, conversation, "disable_fund", {"fund_id": fund.pk})
    answer = answer_pending_action(conversation=conversation, message=words.format(id=harmless.pk), user=staff_user)
    assert answer.action.pk == harmless.pk and answer.action.status == "confirmed"
    hidden.refresh_from_db()
    fund.refresh_from_db()
    assert hidden.status == "pending" and fund.active_status == "ENABLE"


def test_naming_a_proposal_of_another_conversation_decides_nothing(agent, conversation, staff_user):
    other = Conversation.objects.create(agent=agent, user=staff_user)
    elsewhere = propose(agent, other, "create_fund", {"fund_name": "Elsewhere"})
    here = propose(agent, conversation, "create_fund", {"fund_name": "Here"})
    answer = answer_pending_action(conversation=conversation, message=f"确认 #{elsewhere.pk}", user=staff_user)
    assert answer.action is None and f"#{here.pk}" in answer.reply
    assert set(PendingAction.objects.values_list("status", flat=True)) == {"pending"}
