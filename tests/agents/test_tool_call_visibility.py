"""The audit lists every tool call to whoever may view it; a call's arguments and result only to
those who may read its tool's domain (use the tool, or view its domain). One rule
(``confirmations.readable_tool_names``) for ``GET /api/tool-calls/`` and the admin, per demo role."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from agents.models import ToolCall
from agents.roles import ROLES, apply_roles

pytestmark = pytest.mark.django_db

OPERATOR, FUNDS, DESK, AUDITOR, AGENT_ADMIN = "city operator", "fund manager", "front desk", "auditor", "agent admin"
SECRET = {"order_query": "HT-GUEST-SECRET", "list_funds": "FUND-SECRET", "transfer_resource": "flour"}
# Role -> tools whose contents it reads; None: it may not open the audit at all.
READS = {
    OPERATOR: {"transfer_resource"},
    AUDITOR: set(SECRET),
    AGENT_ADMIN: set(),
    FUNDS: None,
    DESK: None,
    "superuser": set(SECRET),
}


@pytest.fixture
def people(django_user_model) -> dict:
    groups = apply_roles()
    people = {}
    for role in ROLES:
        people[role] = django_user_model.objects.create_user(role.replace(" ", "-"), is_staff=True)
        people[role].groups.set([groups[role]])
    people["superuser"] = django_user_model.objects.create_superuser("root", password="pw-root-123")
    return people


@pytest.fixture
def calls(make_agent) -> dict[str, ToolCall]:
    agent = make_agent("Desk")
    return {
        name: ToolCall.objects.create(
            agent=agent, tool_name=name, arguments={"key": secret}, status="success",
            result={"status": "success", "data": {"echo": secret}}, source="chat",
        )
        for name, secret in SECRET.items()
    }


@pytest.mark.parametrize("role", list(READS))
def test_the_api_shows_contents_only_of_readable_domains(people, calls, role):
    client = APIClient()
    client.force_authenticate(people[role])

    response = client.get("/api/tool-calls/")

    if READS[role] is None:
        assert response.status_code == 403
        return
    rows = {row["tool_name"]: row for row in response.json()["results"]}
    assert set(rows) == set(SECRET)  # every call is listed
    for name, row in rows.items():
        readable = name in READS[role]
        assert row["contents_hidden"] is (not readable), name
        assert (row["arguments"], row["result"]) == (
            (calls[name].arguments, calls[name].result) if readable else (None, None)
        ), name


@pytest.mark.parametrize("role", [role for role, reads in READS.items() if reads is not None])
def test_the_admin_shows_contents_only_of_readable_domains(people, calls, role):
    client = Client()
    client.force_login(people[role])

    for name, call in calls.items():
        page = client.get(f"/admin/agents/toolcall/{call.pk}/change/")
        assert page.status_code == 200
        assert (SECRET[name] in page.content.decode()) is (name in READS[role]), name


@pytest.mark.parametrize("role", [role for role, reads in READS.items() if reads is not None])
def test_admin_search_does_not_reveal_what_calls_hold(people, calls, role):
    client = Client()
    client.force_login(people[role])

    page = client.get("/admin/agents/toolcall/", {"q": SECRET["order_query"]})

    found = page.context["cl"].result_count
    assert found == (1 if role == "superuser" else 0)  # only a superuser reads every domain
