import pytest

from agents.executor import execute
from agents.models import Conversation, PendingAction
from agents.registry import ToolContext
from funds.models import Fund
from funds.services import create_fund, update_fund

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
    fund = create_fund(fund_name="Alpha", remarks="<b>old</b>")
    action = propose("update_fund", fund_id=fund.pk, remarks="agent remarks")
    update_fund(fund_id=fund.pk, version=1, remarks="<b>human</b>")
    page = admin_client.get(f"/admin/agents/pendingaction/{action.pk}/change/").content.decode()
    assert "agent remarks" in page and "&lt;b&gt;human&lt;/b&gt;" in page and "<b>human</b>" not in page
    assert "读取时版本 1，当前版本 2" in page
    assert "版本冲突" in page


def test_the_admin_cannot_delete_or_edit_a_proposal(admin_client, propose):
    action = propose("create_fund", fund_name="Alpha")
    assert admin_client.post(f"/admin/agents/pendingaction/{action.pk}/delete/", {"post": "yes"}).status_code == 403
    assert PendingAction.objects.filter(pk=action.pk).exists()


def test_the_proposal_page_reads_as_labels_and_names_and_has_decide_buttons(client, django_user_model):
    from agents.models import Agent, PendingAction, Tool
    from city.models import ResourceType

    admin = django_user_model.objects.create_superuser("boss", password="pw")
    client.force_login(admin)
    bread = ResourceType.objects.create(slug="bread", name="面包")
    alice, bob = Agent.objects.create(name="Alice"), Agent.objects.create(name="Bob")
    alice.tools.set(Tool.objects.filter(name="transfer_resource"))
    Tool.objects.filter(name="transfer_resource").update(requires_confirmation=True, confirmation_set_by_staff=True)
    from agents.executor import execute
    from agents.registry import ToolContext

    result = execute("transfer_resource", {"to_agent_id": bob.pk, "resource_type": bread.slug, "quantity": 2}, ToolContext(agent=alice))
    action = PendingAction.objects.get(pk=result["pending_action_id"])
    html = client.get(f"/admin/agents/pendingaction/{action.pk}/change/").content.decode()
    assert "<th>接收方</th><td>Bob</td>" in html and "<th>发送方</th><td>Alice</td>" in html
    assert "to_agent_id" not in html.split('id="decide-form"')[0].split("提议值与当前值")[-1]
    assert 'name="decide" value="confirm"' in html and 'name="decide" value="reject"' in html

    response = client.post(f"/admin/agents/pendingaction/{action.pk}/decide/", {"decide": "reject"})
    assert response.status_code == 302
    action.refresh_from_db()
    assert action.status == "rejected" and action.decided_by == admin
    assert 'id="decide-form"' not in client.get(f"/admin/agents/pendingaction/{action.pk}/change/").content.decode()


def test_a_fund_proposal_shows_status_words_not_codes(client, django_user_model):
    from agents.executor import execute
    from agents.models import Agent, PendingAction, Tool
    from agents.registry import ToolContext
    from funds.models import Fund

    client.force_login(django_user_model.objects.create_superuser("boss", password="pw"))
    fund = Fund.objects.create(fund_name="Alpha")
    agent = Agent.objects.create(name="基金助理")
    agent.tools.set(Tool.objects.filter(name="disable_fund"))
    result = execute("disable_fund", {"fund_id": fund.pk}, ToolContext(agent=agent))
    html = client.get(f"/admin/agents/pendingaction/{result['pending_action_id']}/change/").content.decode()
    assert "停用" in html and "DISABLE" not in html and "active_status" not in html.split("提议值与当前值")[-1].split("</table>")[0]
    assert PendingAction.objects.get().status == "pending"
