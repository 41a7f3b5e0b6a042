import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from agents.executor import execute
from agents.models import Conversation, PendingAction
from agents.registry import ToolContext
from funds.models import Fund
from funds.services import create_fund, update_fund

pytestmark = pytest.mark.django_db

FUND_TOOLS = ("list_funds", "get_fund_detail", "create_fund", "update_fund", "enable_fund", "disable_fund")


@pytest.fixture
def propose(make_agent, staff_user):
    agent = make_agent("基金助理", tools=FUND_TOOLS)
    conversation = Conversation.objects.create(agent=agent, user=staff_user)

    def run(name, **arguments):
        result = execute(name, arguments, ToolContext(agent=agent, user=staff_user, conversation=conversation))
        return PendingAction.objects.get(pk=result["pending_action_id"])

    return run


def test_list_filters_by_status_with_overdue_actions_as_expired(api_client, propose):
    overdue = propose("create_fund", fund_name="Alpha")
    waiting = propose("create_fund", fund_name="Beta")
    PendingAction.objects.filter(pk=overdue.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    body = api_client.get("/api/pending-actions/", {"status": "pending"}).json()
    assert [a["id"] for a in body["results"]] == [waiting.pk]
    assert body["results"][0]["arguments"] == {"fund_name": "Beta"} and body["results"][0]["agent_name"] == "基金助理"
    expired = api_client.get("/api/pending-actions/", {"status": "expired"}).json()
    assert [a["id"] for a in expired["results"]] == [overdue.pk]


def test_list_refuses_an_unknown_status(api_client):
    response = api_client.get("/api/pending-actions/", {"status": "maybe"})
    assert response.status_code == 400 and response.json()["code"] == "invalid_input"


def test_confirm_runs_the_action_as_the_caller(api_client, propose):
    action = propose("create_fund", fund_name="Alpha")
    response = api_client.post(f"/api/pending-actions/{action.pk}/confirm/", {}, format="json")
    assert response.status_code == 200
    body = response.json()
    fund = Fund.objects.get()
    assert body["ok"] is True and body["message"] == f"基金「Alpha」创建成功，ID 为 {fund.pk}"
    assert (body["pending_action"]["status"], body["pending_action"]["decided_by"]) == ("confirmed", "staff")
    assert fund.created_by.username == "staff"


def test_confirm_reads_the_agent_and_the_users_with_the_action(api_client, propose):
    """The tool's agent and the answer's requested_by / decided_by come with the action's own read,
    not one query each after it."""
    action = propose("create_fund", fund_name="Alpha")
    with CaptureQueriesContext(connection) as captured:
        body = api_client.post(f"/api/pending-actions/{action.pk}/confirm/", {}, format="json").json()
    assert (body["pending_action"]["agent_name"], body["pending_action"]["requested_by"]) == ("基金助理", "staff")
    assert body["pending_action"]["decided_by"] == "staff"
    alone = re.compile(r'SELECT .* FROM "(auth_user|agents_agent)" WHERE')
    assert [query["sql"] for query in captured if alone.match(query["sql"])] == []


def _reads_of(table: str, captured) -> list[str]:
    return [q["sql"] for q in captured if q["sql"].startswith("SELECT") and f'FROM "{table}"' in q["sql"]]


@pytest.mark.parametrize("decision", ["confirm", "reject"])
def test_a_decision_reads_the_action_once_and_answers_with_the_row_as_stored(api_client, propose, decision):
    """The action read before the decision is what its conditional UPDATE left, plus the fields that
    UPDATE set (a pending row changes in no other way): no second read, and the answer is the row."""
    action = propose("create_fund", fund_name="Alpha")
    with CaptureQueriesContext(connection) as captured:
        body = api_client.post(f"/api/pending-actions/{action.pk}/{decision}/", {"reason": "no"}, format="json").json()
    assert len(_reads_of("agents_pendingaction", captured)) == 1
    assert body["pending_action"] == api_client.get(f"/api/pending-actions/{action.pk}/").json()
    assert body["pending_action"]["status"] == {"confirm": "confirmed", "reject": "rejected"}[decision]


def _statement(sql: str) -> str:
    """``SELECT agents_pendingaction``, ``INSERT funds_fund``, ``SAVEPOINT``: the verb and the table."""
    words = sql.replace('"', "").split()
    if words[0] == "SELECT":
        return f"SELECT {words[words.index('FROM') + 1]}"
    if words[0] in ("INSERT", "UPDATE"):
        return f"{words[0]} {words[2 if words[0] == 'INSERT' else 1]}"
    return words[0]


def test_a_confirm_s_statements(api_client, propose):
    """What a confirm costs the database (on SQLite; PostgreSQL writes the events to its outbox and
    relays them after the commit): the action, read once; the claim; the grant; the tool's check and
    write, each in its savepoint, with its event; the audit row; the outcome, its message and event.
    The permissions' models are looked up once per process (``_domain_view_permissions``)."""
    warm = propose("create_fund", fund_name="Warm")
    api_client.post(f"/api/pending-actions/{warm.pk}/confirm/", {}, format="json")
    action = propose("create_fund", fund_name="Alpha")
    with CaptureQueriesContext(connection) as captured:
        assert api_client.post(f"/api/pending-actions/{action.pk}/confirm/", {}, format="json").status_code == 200
    assert [_statement(query["sql"]) for query in captured] == [
        "SELECT agents_pendingaction",
        "SAVEPOINT",
        "UPDATE agents_pendingaction",
        "SELECT agents_agent_tools",
        "SAVEPOINT",
        "SELECT funds_fund",
        "SAVEPOINT",
        "INSERT funds_fund",
        "RELEASE",
        "INSERT agents_eventlog",
        "RELEASE",
        "INSERT agents_toolcall",
        "UPDATE agents_pendingaction",
        "INSERT agents_message",
        "INSERT agents_eventlog",
        "RELEASE",
    ]


def test_confirm_with_edited_arguments(api_client, propose):
    action = propose("create_fund", fund_name="Alpha")
    body = api_client.post(
        f"/api/pending-actions/{action.pk}/confirm/", {"arguments": {"remarks": "edited"}}, format="json"
    ).json()
    assert body["ok"] is True and Fund.objects.get().remarks == "edited"


def test_confirm_with_an_invalid_edit_is_400_and_keeps_the_action(api_client, propose):
    action = propose("create_fund", fund_name="Alpha")
    response = api_client.post(f"/api/pending-actions/{action.pk}/confirm/", {"arguments": {"fund_name": 5}}, format="json")
    assert response.status_code == 400 and response.json()["field"] == "fund_name"
    assert PendingAction.objects.get().status == "pending"


def test_confirming_a_stale_proposal_is_409_with_the_current_values(api_client, propose):
    fund = create_fund(fund_name="Alpha")
    action = propose("update_fund", fund_id=fund.pk, remarks="agent")
    update_fund(fund_id=fund.pk, version=1, remarks="human")
    response = api_client.post(f"/api/pending-actions/{action.pk}/confirm/", {}, format="json")
    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "version_conflict" and body["current"]["remarks"] == "human"
    assert body["pending_action"]["status"] == "failed"


def test_confirming_a_decided_action_is_409(api_client, propose):
    action = propose("create_fund", fund_name="Alpha")
    api_client.post(f"/api/pending-actions/{action.pk}/reject/", {"reason": "no"}, format="json")
    response = api_client.post(f"/api/pending-actions/{action.pk}/confirm/", {}, format="json")
    assert response.status_code == 409 and response.json()["code"] == "pending_action_not_pending"
    assert not Fund.objects.exists()


def test_reject_records_the_reason(api_client, propose):
    action = propose("create_fund", fund_name="Alpha")
    body = api_client.post(f"/api/pending-actions/{action.pk}/reject/", {"reason": "重复"}, format="json").json()
    assert body["pending_action"]["status"] == "rejected" and body["pending_action"]["result"] == {"reason": "重复"}


def test_confirming_an_unknown_action_is_404(api_client):
    response = api_client.post("/api/pending-actions/999/confirm/", {}, format="json")
    assert response.status_code == 404 and response.json()["code"] == "pending_action_not_found"


def test_non_staff_cannot_confirm(propose, django_user_model):
    action = propose("create_fund", fund_name="Alpha")
    client = APIClient()
    client.force_authenticate(django_user_model.objects.create_user("visitor"))
    response = client.post(f"/api/pending-actions/{action.pk}/confirm/", {}, format="json")
    assert response.status_code == 403 and response.json()["code"] == "permission_denied"
    assert PendingAction.objects.get().status == "pending" and not Fund.objects.exists()


def test_the_chat_api_takes_a_confirm_answer_in_the_same_conversation(api_client, make_agent):
    agent = make_agent("基金助理", tools=FUND_TOOLS)
    first = api_client.post(f"/api/agents/{agent.pk}/chat/", {"message": "帮我创建一个叫 Alpha 的基金"}, format="json").json()
    assert first["reply"] == "即将创建基金「Alpha」，请确认是否继续？"
    assert first["tool_calls"][0]["result"]["status"] == "pending_confirmation"
    answer = api_client.post(
        f"/api/agents/{agent.pk}/chat/", {"message": "confirm", "conversation_id": first["conversation_id"]}, format="json"
    ).json()
    fund = Fund.objects.get()
    assert answer["reply"] == f"基金「Alpha」创建成功，ID 为 {fund.pk}"
    assert answer["tool_calls"][0]["name"] == "create_fund"


def test_the_model_of_a_proposal_s_permission_is_looked_up_once_per_process(django_assert_num_queries, monkeypatch):
    """Who may see a proposal depends on the view permission of its domain's model: found once, as
    migrate made it; a permission not found (yet) is looked up again."""
    from agents import confirmations

    monkeypatch.setattr(confirmations, "_VIEW_PERMISSIONS", {})
    with django_assert_num_queries(1):
        assert confirmations._domain_view_permissions({"funds.add_fund"}) == {"funds.add_fund": "funds.view_fund"}
    with django_assert_num_queries(0):
        assert confirmations._domain_view_permissions({"funds.add_fund"}) == {"funds.add_fund": "funds.view_fund"}
    for _ in range(2):
        with django_assert_num_queries(1):
            found = confirmations._domain_view_permissions({"funds.add_fund", "city.transfer_resources", "funds.no_such"})
        assert found == {"funds.add_fund": "funds.view_fund", "city.transfer_resources": "city.view_resourcetransfer"}
