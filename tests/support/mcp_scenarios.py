"""MCP test set-up and reads that run in Django child processes via ``run_django``.

The MCP tests drive a real Daphne (HTTP) or ``manage.py mcp`` (stdio) on a database file;
these functions prepare that database and read what the calls left in it.
"""

from __future__ import annotations


def seed_mcp_desk(credentials_file: str) -> dict:
    """The demo city and funds, plus one token per kind of caller; returns keys and agent ids.

    ``operator`` and ``second_operator`` may act as agents (``agents.chat_agent``);
    ``clerk`` is staff without it; ``outsider`` holds it but is not staff; ``revoked`` was
    the operator's key until it was deleted; ``supervisor`` is the staff member who confirms.
    """
    from io import StringIO
    from pathlib import Path

    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Permission
    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    from agents import demo
    from agents.models import Agent

    demo.CREDENTIALS_FILE = Path(credentials_file)
    call_command("seed_demo", stdout=StringIO())
    users = get_user_model().objects

    # Operators hold every permission: what the agents may do is their grants' to decide here.
    everything = Permission.objects.all()
    may_not_act = everything.exclude(content_type__app_label="agents", codename="chat_agent")

    def token(username: str, *, staff: bool = True, permissions=everything) -> str:
        user = users.create_user(username, is_staff=staff)
        user.user_permissions.set(permissions)
        return Token.objects.create(user=user).key

    keys = {
        "operator": token("operator"),
        "second_operator": token("second-operator"),
        "clerk": token("clerk", permissions=may_not_act),
        "outsider": token("outsider", staff=False),
        "supervisor": token("supervisor", permissions=may_not_act),
        # Acts as agents and reads funds, may propose a fund but not decide proposals.
        "fund_clerk": token("fund-clerk", permissions=Permission.objects.filter(
            content_type__app_label__in=["agents", "funds"],
            codename__in=["chat_agent", "view_pendingaction", "view_fund", "add_fund"],
        )),
    }
    revoked = token("former-operator")
    Token.objects.filter(key=revoked).delete()
    keys["revoked"] = revoked
    Agent.objects.create(name="Retired", is_active=False)
    agents = dict(Agent.objects.values_list("name", "id"))
    return {"keys": keys, "agents": agents}


def granted_tool_names(agent_id: int) -> list[str]:
    from agents.models import Agent

    return sorted(Agent.objects.get(pk=agent_id).tools.filter(is_active=True).values_list("name", flat=True))


def revoke_tool(agent_id: int, tool_name: str) -> None:
    from agents.models import Agent, Tool

    Agent.objects.get(pk=agent_id).tools.remove(Tool.objects.get(name=tool_name))


def stock(agent_id: int) -> dict:
    """What the agent holds, by resource slug."""
    from city.models import AgentResource

    return dict(AgentResource.objects.filter(agent_id=agent_id).values_list("resource_type__slug", "quantity"))


def tool_calls(agent_id: int, after: int = 0) -> list[dict]:
    """The agent's audit rows with an id above ``after``, oldest first."""
    from agents.models import ToolCall

    rows = ToolCall.objects.filter(agent_id=agent_id, pk__gt=after).order_by("pk")
    return [
        {
            "id": row.pk,
            "tool_name": row.tool_name,
            "status": row.status,
            "error_code": row.error_code,
            "source": row.source,
            "user": row.user.get_username() if row.user else None,
        }
        for row in rows.select_related("user")
    ]


def last_tool_call_id() -> int:
    from agents.models import ToolCall

    return ToolCall.objects.order_by("-pk").values_list("pk", flat=True).first() or 0


def fund_names() -> list[str]:
    from funds.models import Fund

    return sorted(Fund.objects.values_list("fund_name", flat=True))


def usable_tool_names(agent_id: int, username: str) -> list[str]:
    """The agent's active grants whose tool permission the user holds (read straight from the tables)."""
    from django.contrib.auth import get_user_model

    from agents.models import Agent
    from agents.registry import registry

    user = get_user_model().objects.get(username=username)
    names = Agent.objects.get(pk=agent_id).tools.filter(is_active=True).values_list("name", flat=True)
    return sorted(name for name in names if user.has_perm(registry.get(name).permission))


def grant_tool(agent_id: int, tool_name: str) -> None:
    from agents.models import Agent, Tool

    Agent.objects.get(pk=agent_id).tools.add(Tool.objects.get(name=tool_name))


def pending_action(action_id: int) -> dict:
    from agents.models import PendingAction

    action = PendingAction.objects.select_related("decided_by").get(pk=action_id)
    return {
        "status": action.status,
        "arguments": action.arguments,
        "decided_by": action.decided_by.get_username() if action.decided_by else None,
    }


def fund_id(fund_name: str) -> int:
    from funds.models import Fund

    return Fund.objects.get(fund_name=fund_name).pk


def change_remarks_elsewhere(fund_id: int, remarks: str) -> None:
    """Someone else edits the fund (a new version) while a proposal about it waits."""
    from funds.models import Fund
    from funds.services import update_fund

    fund = Fund.objects.get(pk=fund_id)
    update_fund(fund_id=fund.pk, version=fund.version, remarks=remarks)
