import pytest

from agents.executor import execute
from agents.models import Conversation, PendingAction
from agents.registry import ToolContext
from funds.models import Fund
from funds.services import fund_create, fund_update

pytestmark = pytest.mark.django_db

FUND_TOOLS = ("list_funds", "get_fund_detail", "create_fund", "update_fund", "enable_fund", "disable_fund")


@pytest.fixture
def admin_client(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", "root@example.com", "pw"))
    return client


@pytest.fixture
def propose(make_agent):
    agent = make_agent("基金助理", tools=FUND_TOOLS)
    conversation = Conversation.objects.create(agent=agent)

    def run(name, **arguments):
        result = execute(name, arguments, ToolContext(agent=agent, conversation=conversation))
        return PendingAction.objects.get(pk=result["pending_action_id"])

    return run


def test_confirm_action_runs_the_selected_proposals_as_the_admin_user(admin_client, propose):
    action = propose("create_fund", fund_name="Alpha")
    response = admin_client.post(
        "/admin/agents/pendingaction/", {"action": "confirm_selected", "_selected_action": [action.pk]}, follow=True
    )
    assert response.status_code == 200
    fund = Fund.objects.get()
    assert fund.created_by.username == "root"
    assert f"基金「Alpha」创建成功，ID 为 {fund.pk}" in response.content.decode()
    action.refresh_from_db()
    assert (action.status, action.decided_by.username) == ("confirmed", "root")


def test_reject_action_closes_the_selected_proposals(admin_client, propose):
    action = propose("create_fund", fund_name="Alpha")
    admin_client.post("/admin/agents/pendingaction/", {"action": "reject_selected", "_selected_action": [action.pk]})
    action.refresh_from_db()
    assert action.status == "rejected" and not Fund.objects.exists()


def test_detail_page_shows_proposed_against_current_values_and_a_stale_version(admin_client, propose):
    fund = fund_create(fund_name="Alpha", remarks="<b>old</b>")
    action = propose("update_fund", fund_id=fund.pk, remarks="agent remarks")
    fund_update(fund_id=fund.pk, version=1, remarks="<b>human</b>")
    page = admin_client.get(f"/admin/agents/pendingaction/{action.pk}/change/").content.decode()
    assert "agent remarks" in page and "&lt;b&gt;human&lt;/b&gt;" in page and "<b>human</b>" not in page
    assert "读取时版本 1，当前版本 2" in page
    assert "版本冲突" in page


def test_the_admin_cannot_delete_or_edit_a_proposal(admin_client, propose):
    action = propose("create_fund", fund_name="Alpha")
    assert admin_client.post(f"/admin/agents/pendingaction/{action.pk}/delete/", {"post": "yes"}).status_code == 403
    assert PendingAction.objects.filter(pk=action.pk).exists()
