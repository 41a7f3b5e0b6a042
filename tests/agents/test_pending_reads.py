"""Reading pending actions never writes: an overdue proposal is shown as expired until the
autonomy loop's expiry step (or a late decision) closes it."""

import json
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from agents.chat import conversation_transcript
from agents.executor import execute
from agents.models import Conversation, Message, PendingAction
from agents.registry import ToolContext

pytestmark = pytest.mark.django_db

FUND_TOOLS = ("list_funds", "get_fund_detail", "create_fund", "update_fund", "enable_fund", "disable_fund")


@pytest.fixture
def admin_client(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", "root@example.com", "pw"))
    return client


@pytest.fixture
def conversation(make_agent, staff_user):
    return Conversation.objects.create(agent=make_agent("基金助理", tools=FUND_TOOLS), user=staff_user)


@pytest.fixture
def overdue(conversation, staff_user):
    context = ToolContext(agent=conversation.agent, user=staff_user, conversation=conversation)
    result = execute("create_fund", {"fund_name": "Alpha"}, context)
    action = PendingAction.objects.get(pk=result["pending_action_id"])
    PendingAction.objects.filter(pk=action.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    return action


def writes(queries) -> list[str]:
    return [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(("UPDATE", "INSERT", "DELETE"))]


def test_listing_writes_nothing_and_shows_an_overdue_action_as_expired(api_client, overdue):
    with CaptureQueriesContext(connection) as queries:
        body = api_client.get("/api/pending-actions/").json()
    assert writes(queries) == []
    assert [(a["id"], a["status"]) for a in body["results"]] == [(overdue.pk, "expired")]
    overdue.refresh_from_db()
    assert (overdue.status, overdue.decided_at) == ("pending", None)
    assert overdue.conversation.messages.count() == 0


def test_the_detail_writes_nothing_and_shows_an_overdue_action_as_expired(api_client, overdue):
    with CaptureQueriesContext(connection) as queries:
        body = api_client.get(f"/api/pending-actions/{overdue.pk}/").json()
    assert writes(queries) == []
    assert body["status"] == "expired"
    overdue.refresh_from_db()
    assert overdue.status == "pending"


def test_deciding_an_overdue_action_through_the_api_expires_it_and_says_so(api_client, overdue):
    response = api_client.post(f"/api/pending-actions/{overdue.pk}/confirm/", {}, format="json")
    assert response.status_code == 409 and response.json()["code"] == "pending_action_expired"
    overdue.refresh_from_db()
    assert overdue.status == "expired"
    assert overdue.conversation.messages.get().content.startswith("操作已过期，未执行：")


def test_the_admin_list_writes_nothing_and_shows_an_overdue_action_as_expired(admin_client, overdue):
    with CaptureQueriesContext(connection) as queries:
        page = admin_client.get("/admin/agents/pendingaction/").content.decode()
    assert [sql for sql in writes(queries) if "agents_pendingaction" in sql] == []
    assert '<td class="field-shown_status">已过期</td>' in page
    overdue.refresh_from_db()
    assert overdue.status == "pending"


def test_the_admin_status_filter_lists_an_overdue_action_under_expired(admin_client, overdue):
    pending = admin_client.get("/admin/agents/pendingaction/", {"status": "pending"}).content.decode()
    expired = admin_client.get("/admin/agents/pendingaction/", {"status": "expired"}).content.decode()
    assert f"/admin/agents/pendingaction/{overdue.pk}/change/" not in pending
    assert f"/admin/agents/pendingaction/{overdue.pk}/change/" in expired


def test_the_chat_transcript_offers_no_decision_on_an_overdue_action(overdue):
    result = {"status": "pending_confirmation", "pending_action_id": overdue.pk, "message": overdue.summary}
    Message.objects.create(conversation=overdue.conversation, role="tool", name="create_fund", content=json.dumps(result))
    [proposal] = [entry for entry in conversation_transcript(overdue.conversation) if entry.get("pending_action_id")]
    assert (proposal["pending_status"], proposal["pending_label"]) == ("expired", "已过期")
