"""The asker's rights bound every agent call (issue 25 §1).

The matrix is generated from the registry at collection time: every demo role × every registered
tool, so a tool written tomorrow is covered the day it is written. A call is allowed iff the role's
user holds the tool's permission; a refused one is ``permission_denied``, audited, and changes nothing.
"""

from __future__ import annotations

from io import StringIO

import pytest
from django.apps import apps
from django.contrib.auth.models import Permission, User
from django.core import checks
from rest_framework.test import APIClient

import agents.demo
from agents.checks import check_tool_permissions
from agents.executor import execute
from agents.mcp.server import Caller, call_tool
from agents.models import Agent, Conversation, PendingAction, Tool, ToolCall
from agents.registry import ToolContext, registry, tool
from agents.roles import DEMO_USERS, ROLES, apply_roles

TOOLS = sorted(registry.names())
# Models a refused call could have touched: every table of the apps agents act on, but the audit.
DOMAIN_APPS = ("agents", "city", "bounties", "funds", "orders")


def test_the_matrix_is_generated_from_the_whole_registry():
    assert TOOLS, "the registry was empty at collection time: the matrix would test nothing"
    assert TOOLS == sorted(registry.names())


def test_every_demo_role_is_in_the_matrix():
    assert sorted(DEMO_USERS.values()) == sorted(ROLES)


@pytest.mark.django_db
@pytest.mark.parametrize("name", TOOLS)
def test_every_tool_names_a_permission_that_exists(name):
    permission = registry.get(name).permission
    assert permission, f"{name} declares no permission"
    app_label, _dot, codename = permission.partition(".")
    assert Permission.objects.filter(content_type__app_label=app_label, codename=codename).exists(), permission


def test_the_system_check_reports_a_tool_without_a_permission():
    @tool(description="无权限声明", register_to=None)
    def forgetful(ctx: ToolContext) -> dict:
        return {}

    with registry.register_temporarily(forgetful):
        errors = check_tool_permissions(None)
    assert [error.id for error in errors] == ["agents.E002"] and "forgetful" in errors[0].msg
    assert all(isinstance(error, checks.Error) for error in errors)
    assert check_tool_permissions(None) == []


def _arguments(schema: dict) -> dict:
    """The smallest arguments the schema accepts: an allowed call then runs (or fails on business grounds)."""
    samples = {"integer": 1, "number": 1, "boolean": False, "array": [], "object": {}}
    arguments = {}
    for name in schema.get("required", []):
        prop = schema["properties"][name]
        if "enum" in prop:
            arguments[name] = prop["enum"][0]
        elif prop["type"] == "string":
            arguments[name] = "x" * max(prop.get("minLength", 1), 1)
        else:
            arguments[name] = max(samples[prop["type"]], prop.get("minimum", 1)) if prop["type"] in ("integer", "number") else samples[prop["type"]]
    return arguments


def _row_counts() -> dict[str, int]:
    return {
        model._meta.label: model.objects.count()
        for app in DOMAIN_APPS
        for model in apps.get_app_config(app).get_models()
        if model is not ToolCall
    }


@pytest.fixture
def role_users(django_user_model) -> dict:
    groups = apply_roles()
    people = {}
    for role in ROLES:
        people[role] = django_user_model.objects.create_user(role.replace(" ", "-"), is_staff=True)
        people[role].groups.set([groups[role]])
    return people


@pytest.mark.django_db
@pytest.mark.parametrize("name", TOOLS)
@pytest.mark.parametrize("role", sorted(ROLES))
def test_a_call_through_an_agent_is_allowed_iff_the_asker_holds_the_tools_permission(role_users, role, name):
    spec = registry.get(name)
    user = role_users[role]
    agent = Agent.objects.create(name="Probe")
    agent.tools.set(Tool.objects.filter(name=name))
    before = _row_counts()
    result = execute(name, _arguments(spec.input_schema), ToolContext(agent=agent, user=user, source="chat"))
    refused = result["status"] == "error" and result["error"]["code"] == "permission_denied"
    assert refused is not user.has_perm(spec.permission), (role, name, spec.permission, result)
    audit = ToolCall.objects.get(tool_name=name)
    assert (audit.user, audit.source) == (user, "chat")
    if refused:
        assert audit.error_code == "permission_denied"
        assert set(result) == {"status", "error"} and set(result["error"]) == {"code", "message"}  # no data
        assert _row_counts() == before


@pytest.mark.django_db
@pytest.mark.parametrize("name", TOOLS)
def test_the_autonomy_tick_acts_with_the_agents_grant_alone(name):
    agent = Agent.objects.create(name="Probe")
    agent.tools.set(Tool.objects.filter(name=name))
    result = execute(name, _arguments(registry.get(name).input_schema), ToolContext(agent=agent, source="autonomy"))
    assert result["status"] != "error" or result["error"]["code"] != "permission_denied"


# --- the findings of issue 25 §1 and §2, each through the surface it was found on ---------------


@pytest.fixture
def demo(db, monkeypatch, tmp_path):
    """The demo's roles and users, funds, orders and the two assistants."""
    from funds import demo as funds_demo
    from orders import demo as orders_demo

    monkeypatch.setattr(agents.demo, "CREDENTIALS_FILE", tmp_path / ".demo-credentials")
    for module in (agents.demo, funds_demo, orders_demo):
        module.seed(StringIO())
    users = {role: User.objects.get(username=username) for username, role in DEMO_USERS.items()}
    return {
        "users": users,
        "desk": Agent.objects.get(name=orders_demo.DESK_AGENT_NAME),
        "funds": Agent.objects.get(name=funds_demo.FUND_AGENT_NAME),
    }


def _client(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _chat(user, agent, message, **extra):
    return _client(user).post(f"/api/agents/{agent.pk}/chat/", {"message": message, **extra}, format="json")


def test_a_fund_manager_cannot_read_an_order_through_the_front_desk_agent(demo):
    response = _chat(demo["users"]["fund manager"], demo["desk"], "查询订单 HT20260301001")
    assert response.status_code == 200
    body = response.json()
    assert [call["result"]["error"]["code"] for call in body["tool_calls"]] == ["permission_denied"]
    assert "张三" not in response.content.decode() and "西湖" not in response.content.decode()
    assert "权限" in body["reply"]  # the agent says so
    assert ToolCall.objects.get(tool_name="order_query").error_code == "permission_denied"


def test_a_front_desk_user_cannot_list_funds_through_the_fund_assistant(demo):
    response = _chat(demo["users"]["front desk"], demo["funds"], "查询基金列表")
    codes = [call["result"]["error"]["code"] for call in response.json()["tool_calls"]]
    assert codes == ["permission_denied"], response.json()


def test_over_mcp_a_read_tool_needs_the_askers_permission(demo):
    fund_manager = demo["users"]["fund manager"]
    result = call_tool(Caller(agent=demo["desk"], user=fund_manager, language="zh-hans"), "order_query", {"order_no": "HT20260301001"})
    assert result.is_error and result.structured_content["code"] == "permission_denied"
    assert "张三" not in str(result.content)
    desk = demo["users"]["front desk"]
    allowed = call_tool(Caller(agent=demo["desk"], user=desk, language="zh-hans"), "order_query", {"order_no": "HT20260301001"})
    assert not allowed.is_error and allowed.structured_content["guest_name"] == "张三"


def test_manage_py_chat_acts_as_the_named_user(demo):
    from django.core.management import call_command

    out = StringIO()
    call_command("chat", demo["desk"].name, "查询订单 HT20260301001", "--user", "fund-manager", stdout=out)
    assert "permission_denied" in out.getvalue() and "张三" not in out.getvalue()


def _fund_proposal(demo) -> PendingAction:
    manager = demo["users"]["fund manager"]
    result = execute("create_fund", {"fund_name": "稳健一号"}, ToolContext(agent=demo["funds"], user=manager, source="chat"))
    return PendingAction.objects.get(pk=result["pending_action_id"])


def test_a_front_desk_user_cannot_reject_a_fund_proposal(demo):
    action = _fund_proposal(demo)
    response = _client(demo["users"]["front desk"]).post(f"/api/pending-actions/{action.pk}/reject/", {}, format="json")
    assert (response.status_code, response.json()["code"]) == (404, "pending_action_not_found")
    action.refresh_from_db()
    assert action.status == "pending"


def test_the_admin_reject_action_does_not_reach_another_domains_proposal(demo):
    from django.test import Client

    action = _fund_proposal(demo)
    client = Client()
    client.force_login(demo["users"]["front desk"])
    client.post("/admin/agents/pendingaction/", {"action": "reject_selected", "_selected_action": [action.pk]})
    action.refresh_from_db()
    assert action.status == "pending"
    assert client.get(f"/admin/agents/pendingaction/{action.pk}/change/").status_code in (302, 404)


def test_a_fund_manager_does_not_see_refund_proposals(demo):
    desk = demo["users"]["front desk"]
    refund = execute("refund", {"order_no": "HT20260301001"}, ToolContext(agent=demo["desk"], user=desk, source="chat"))
    fund = _fund_proposal(demo)
    manager = _client(demo["users"]["fund manager"])
    listed = [row["id"] for row in manager.get("/api/pending-actions/").json()["results"]]
    assert listed == [fund.pk]
    assert manager.get(f"/api/pending-actions/{refund['pending_action_id']}/").status_code == 404
    # the auditor views both domains; the front desk sees its refunds only
    auditor = _client(demo["users"]["auditor"])
    assert {row["id"] for row in auditor.get("/api/pending-actions/").json()["results"]} == {fund.pk, refund["pending_action_id"]}
    front = _client(desk)
    assert [row["id"] for row in front.get("/api/pending-actions/").json()["results"]] == [refund["pending_action_id"]]


def test_the_admin_changelist_lists_only_the_proposals_of_the_users_domains(demo):
    from django.test import Client

    desk = demo["users"]["front desk"]
    refund = execute("refund", {"order_no": "HT20260301001"}, ToolContext(agent=demo["desk"], user=desk, source="chat"))
    _fund_proposal(demo)
    client = Client()
    client.force_login(demo["users"]["fund manager"])
    html = client.get("/admin/agents/pendingaction/").content.decode()
    assert "稳健一号" in html and f'value="{refund["pending_action_id"]}"' not in html


# --- conversations belong to the user who started them -----------------------------------------


def test_posting_into_another_users_conversation_is_404(demo):
    manager, desk = demo["users"]["fund manager"], demo["users"]["front desk"]
    theirs = Conversation.objects.get(pk=_chat(desk, demo["funds"], "你好").json()["conversation_id"])
    kept = theirs.messages.count()
    response = _chat(manager, demo["funds"], "你好", conversation_id=theirs.pk)
    assert (response.status_code, response.json()["code"]) == (404, "conversation_not_found")
    assert theirs.messages.count() == kept


def test_cancel_n_in_another_users_conversation_is_404_and_decides_nothing(demo):
    action = _fund_proposal(demo)
    conversation = Conversation.objects.create(agent=demo["funds"], user=demo["users"]["fund manager"])
    PendingAction.objects.filter(pk=action.pk).update(conversation=conversation)
    response = _chat(demo["users"]["front desk"], demo["funds"], f"取消 #{action.pk}", conversation_id=conversation.pk)
    assert response.status_code == 404
    action.refresh_from_db()
    assert action.status == "pending" and not conversation.messages.exists()


def test_reading_another_users_conversation_on_the_page_is_404_but_a_superuser_may(demo, django_user_model):
    from django.test import Client

    manager = demo["users"]["fund manager"]
    conversation = Conversation.objects.create(agent=demo["funds"], user=manager)
    url = f"/agents/{demo['funds'].pk}/chat/?conversation={conversation.pk}"
    client = Client()
    client.force_login(demo["users"]["front desk"])
    assert client.get(url).status_code == 404
    client.force_login(manager)
    assert client.get(url).status_code == 200
    client.force_login(django_user_model.objects.create_superuser("root", password="pw-root-123"))
    assert client.get(url).status_code == 200


def test_the_admin_shows_a_conversation_only_to_its_starter_and_superusers(demo, django_user_model):
    from django.test import Client

    manager = demo["users"]["fund manager"]
    conversation = Conversation.objects.create(agent=demo["funds"], user=manager)
    url = f"/admin/agents/conversation/{conversation.pk}/change/"
    client = Client()
    client.force_login(demo["users"]["front desk"])
    assert client.get(url).status_code == 302  # the admin's "no such object": back to the list
    assert f"/{conversation.pk}/change/" not in client.get("/admin/agents/conversation/").content.decode()
    client.force_login(manager)
    assert client.get(url).status_code == 200
    client.force_login(django_user_model.objects.create_superuser("root", password="pw-root-123"))
    assert client.get(url).status_code == 200


# --- the admin: agents are the agent admins' ----------------------------------------------------


def test_a_city_operator_sees_the_fund_assistant_read_only_in_the_admin(demo):
    from django.test import Client

    from agents.roles import ROLES as roles

    operator = demo["users"]["city operator"]
    assert "agents.change_agent" not in roles["city operator"]
    fund_agent = demo["funds"]
    client = Client()
    client.force_login(operator)
    url = f"/admin/agents/agent/{fund_agent.pk}/change/"
    assert client.get(url).status_code == 200  # may view
    response = client.post(url, {"name": fund_agent.name, "persona": "被改写的人设", "model": "evil", "is_active": ""})
    assert response.status_code == 403
    fund_agent.refresh_from_db()
    assert fund_agent.persona != "被改写的人设" and fund_agent.is_active and fund_agent.model == ""


def test_the_agent_admin_may_edit_an_agent(demo):
    from django.test import Client

    fund_agent = demo["funds"]
    client = Client()
    client.force_login(demo["users"]["agent admin"])
    url = f"/admin/agents/agent/{fund_agent.pk}/change/"
    response = client.post(url, {
        "name": fund_agent.name, "kind": fund_agent.kind, "persona": "新的人设", "model": "", "is_active": "on",
        "tools": list(fund_agent.tools.values_list("pk", flat=True)),
        **_empty_inlines(client, url),
    })
    assert response.status_code == 302, response.content.decode()[:2000]
    fund_agent.refresh_from_db()
    assert fund_agent.persona == "新的人设"


def _empty_inlines(client, url) -> dict:
    """The management form of every inline on the change page, as the browser would send it."""
    import re

    html = client.get(url).content.decode()
    fields = dict(re.findall(r'name="([\w-]+-(?:TOTAL|INITIAL|MIN_NUM|MAX_NUM)_FORMS)"[^>]*value="(\d+)"', html))
    return {name: ("0" if name.endswith(("TOTAL_FORMS", "INITIAL_FORMS")) else value) for name, value in fields.items()}


def test_a_city_operator_cannot_grant_credits_to_an_assistant_but_may_to_a_resident(demo):
    from city.services import correct_credits
    from core.errors import Forbidden

    operator = demo["users"]["city operator"]
    resident = Agent.objects.create(name="Alice")
    resident.tools.set(Tool.objects.filter(name="checkin"))
    with pytest.raises(Forbidden):
        correct_credits(agent_id=demo["funds"].pk, amount=50, reason="奖励", user=operator)
    demo["funds"].refresh_from_db()
    assert demo["funds"].credits == 100
    correct_credits(agent_id=resident.pk, amount=5, reason="奖励", user=operator)
    resident.refresh_from_db()
    assert resident.credits == 105


def test_the_admin_grant_credits_action_refuses_an_assistant_for_the_city_operator(demo):
    from django.test import Client

    client = Client()
    client.force_login(demo["users"]["city operator"])
    response = client.post("/admin/agents/agent/", {
        "action": "grant_credits", "_selected_action": [demo["funds"].pk], "apply": "1", "amount": 50, "reason": "奖励",
    })
    assert response.status_code == 200
    demo["funds"].refresh_from_db()
    assert demo["funds"].credits == 100


# --- the README's table of every permission each role holds --------------------------------------


@pytest.mark.django_db
def test_the_readme_lists_every_permission_each_role_holds():
    from pathlib import Path

    from agents.roles import role_permissions

    held = {role: {f"{p.content_type.app_label}.{p.codename}" for p in role_permissions(role)} for role in ROLES}
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    header = "| permission | " + " | ".join(ROLES) + " |"
    assert header in readme, "the README's table must have one column per role, in agents/roles.py's order"
    rows = readme.split(header, 1)[1].split("\n\n", 1)[0].strip().splitlines()[1:]
    documented = {}
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        documented[cells[0].strip("`")] = {role for role, cell in zip(ROLES, cells[1:]) if cell == "✓"}
    expected = {permission: {role for role in ROLES if permission in held[role]} for permission in set().union(*held.values())}
    table = "\n".join(
        [header, "| --- | " + " | ".join(":-:" for _ in ROLES) + " |"]
        + [f"| `{p}` | " + " | ".join("✓" if r in expected[p] else "" for r in ROLES) + " |" for p in sorted(expected)]
    )
    assert documented == expected, f"replace the README's table with:\n{table}"
