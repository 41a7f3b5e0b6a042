"""Who may do what: every role against every API operation, page, admin action and live event.

One table per surface says which roles may; the tests derive the expected answer for every other
role from it (403 / no action / no event), and check that each table covers its whole surface:
every operation in the OpenAPI schema, every admin action, every declared event.
"""

from __future__ import annotations

import re
from io import StringIO
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib import admin
from django.contrib.auth.models import Permission, User
from django.core.management import call_command
from django.db import transaction
from django.test import Client, RequestFactory
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

import agents.demo
from agents.executor import execute
from agents.models import PendingAction, Tool
from agents.registry import ToolContext
from agents.roles import DEMO_USERS, ROLES, apply_roles
from bounties.models import Bounty
from city.models import AgentResource, ResourceTransfer, ResourceType
from config.asgi import application
from core import events
from core.events import broadcast
from funds.models import Fund
from orders.models import ChannelMessage

OPERATOR, FUNDS, DESK, AUDITOR, AGENT_ADMIN = "city operator", "fund manager", "front desk", "auditor", "agent admin"
NOBODY = "staff without a role"
SUPERUSER = "superuser"
EVERY_ROLE = (*ROLES, NOBODY)
READERS = (OPERATOR, FUNDS, DESK, AUDITOR)
AGENT_WORKERS = (OPERATOR, FUNDS, DESK)
MISSING = 999_999

# (method, path in the schema) -> (roles that may, the status they get). Everyone else gets 403.
# The requests carry no body and name ids that do not exist, so nothing is written.
API = {
    ("GET", "/api/agents/"): ((*READERS, AGENT_ADMIN), 200),
    ("GET", "/api/agents/{id}/"): ((*READERS, AGENT_ADMIN), 404),
    ("POST", "/api/agents/{id}/chat/"): (AGENT_WORKERS, 404),
    ("POST", "/api/agents/transfer-resource/"): ((OPERATOR,), 400),
    ("POST", "/api/autonomy/tick/"): ((OPERATOR,), 200),
    ("GET", "/api/autonomy/ticks/"): ((OPERATOR, AUDITOR), 200),
    ("GET", "/api/autonomy/ticks/{id}/"): ((OPERATOR, AUDITOR), 404),
    ("GET", "/api/tool-calls/"): ((OPERATOR, AUDITOR, AGENT_ADMIN), 200),
    ("GET", "/api/bounties/"): ((OPERATOR, AUDITOR), 200),
    ("POST", "/api/bounties/"): ((OPERATOR,), 400),
    ("GET", "/api/bounties/{id}/"): ((OPERATOR, AUDITOR), 404),
    ("POST", "/api/bounties/{id}/cancel/"): ((OPERATOR,), 404),
    ("POST", "/api/bounties/{id}/claim/"): ((OPERATOR,), 400),
    ("POST", "/api/bounties/{id}/complete/"): ((OPERATOR,), 400),
    ("GET", "/api/funds/"): ((FUNDS, AUDITOR), 200),
    ("POST", "/api/funds/"): ((FUNDS,), 400),
    ("GET", "/api/funds/{id}/"): ((FUNDS, AUDITOR), 404),
    ("PATCH", "/api/funds/{id}/"): ((FUNDS,), 400),
    ("POST", "/api/funds/{id}/disable/"): ((FUNDS,), 400),
    ("POST", "/api/funds/{id}/enable/"): ((FUNDS,), 400),
    ("POST", "/api/funds/batch-upsert/"): ((FUNDS,), 400),
    ("POST", "/api/funds/validate/"): ((FUNDS, AUDITOR), 200),
    ("GET", "/api/market-orders/"): ((OPERATOR, AUDITOR), 200),
    ("POST", "/api/market-orders/{id}/accept/"): ((OPERATOR,), 400),
    ("POST", "/api/market-orders/{id}/cancel/"): ((OPERATOR,), 404),
    ("GET", "/api/order-messages/"): ((DESK, AUDITOR), 400),
    ("GET", "/api/orders/"): ((DESK, AUDITOR), 200),
    ("GET", "/api/orders/{order_no}/"): ((DESK, AUDITOR), 404),
    ("GET", "/api/pending-actions/"): (READERS, 200),
    ("GET", "/api/pending-actions/{id}/"): (READERS, 404),
    ("POST", "/api/pending-actions/{id}/confirm/"): (AGENT_WORKERS, 404),
    ("POST", "/api/pending-actions/{id}/reject/"): (AGENT_WORKERS, 404),
    ("GET", "/api/tools/"): ((*READERS, AGENT_ADMIN), 200),
    ("GET", "/api/transfers/"): ((OPERATOR, AUDITOR), 200),
}

# Page address -> roles that may open it (200); other staff get 403.
PAGES = {
    "/": (*EVERY_ROLE,),
    "/trade/": (OPERATOR, AUDITOR),
    "/bounties/": (OPERATOR, AUDITOR),
    "/funds/": (FUNDS, AUDITOR),
    "/orders/": (DESK, AUDITOR),
    "/agents/{agent}/chat/": AGENT_WORKERS,
}

# (model, action) -> roles the admin offers the action to.
ADMIN_ACTIONS = {
    ("axes.accessattempt", "cleanup_expired_attempts"): (),
    ("agents.agent", "run_autonomy_tick"): (OPERATOR,),
    ("agents.agent", "grant_credits"): (OPERATOR,),
    ("agents.agent", "adjust_stock"): (OPERATOR,),
    ("agents.tool", "sync_now"): (AGENT_ADMIN,),
    ("agents.pendingaction", "confirm_selected"): AGENT_WORKERS,
    ("agents.pendingaction", "reject_selected"): AGENT_WORKERS,
    ("bounties.bounty", "cancel_selected"): (OPERATOR,),
    ("bounties.bounty", "complete_selected"): (OPERATOR,),
    ("funds.fund", "enable_selected"): (FUNDS,),
    ("funds.fund", "disable_selected"): (FUNDS,),
    ("city.marketorder", "cancel_orders"): (OPERATOR,),
    ("orders.channelmessage", "mark_read"): (DESK,),
    ("orders.refund", "complete"): (DESK,),
}

# Event -> roles whose open pages receive it.
EVENTS = {
    **dict.fromkeys(
        ["resource_transferred", "checkin", "purchase", "building_constructed", "market_order_created",
         "market_order_filled", "market_order_cancelled", "city_chat", "tick_finished", "agent_action",
         "bounty_created", "bounty_claimed", "bounty_completed", "bounty_cancelled"],
        (OPERATOR, AUDITOR),
    ),
    "fund_changed": (FUNDS, AUDITOR),
    **dict.fromkeys(["order_message", "order_messages_read", "refund_registered", "refund_completed"], (DESK, AUDITOR)),
    # What an agent may use changed (MCP sessions listen for it): whoever may view agents.
    "agent_tools_changed": (OPERATOR, FUNDS, DESK, AUDITOR, AGENT_ADMIN),
    # Sent below as a proposal of create_fund: those who may decide it or view funds (not every reader).
    "pending_action": (FUNDS, AUDITOR),
}
# The tool of the proposal the pending_action probe announces (a proposal's domain is its tool's).
PROBE_PROPOSAL = {"tool": "create_fund"}


@pytest.fixture
def users(django_user_model) -> dict:
    groups = apply_roles()
    people = {role: django_user_model.objects.create_user(role.replace(" ", "-"), is_staff=True) for role in ROLES}
    for role, person in people.items():
        person.groups.set([groups[role]])
    people[NOBODY] = django_user_model.objects.create_user("no-role", is_staff=True)
    people[SUPERUSER] = django_user_model.objects.create_superuser("root", password="pw-root-123")
    return people


def _api_call(user, method: str, path: str):
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    url = path.replace("{id}", str(MISSING)).replace("{order_no}", "NO-SUCH-ORDER")
    return getattr(client, method.lower())(url, {}, format="json")


def test_the_api_table_covers_every_operation_in_the_schema():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    operations = {(method.upper(), path) for path, item in schema["paths"].items() for method in item}
    assert operations == set(API)


@pytest.mark.django_db
@pytest.mark.parametrize(("method", "path"), sorted(API))
def test_each_role_gets_what_the_api_table_says(users, method, path):
    allowed, status = API[(method, path)]
    seen = {}
    for role in (*EVERY_ROLE, SUPERUSER):
        response = _api_call(users[role], method, path)
        seen[role] = response.status_code
        if role in allowed or role == SUPERUSER:
            assert response.status_code == status, (role, response.json())
        else:
            assert response.json()["code"] == "permission_denied", role
    assert sorted(seen.values()).count(403) == len(EVERY_ROLE) - len(allowed)


@pytest.mark.django_db
@pytest.mark.parametrize(("method", "path"), sorted(API))
def test_anonymous_and_non_staff_get_nothing_from_the_api(django_user_model, method, path):
    assert _api_call(None, method, path).status_code == 401
    visitor = django_user_model.objects.create_user("visitor")
    visitor.user_permissions.set(Permission.objects.all())
    assert _api_call(visitor, method, path).status_code == 403  # every permission, but not staff


@pytest.mark.django_db
@pytest.mark.parametrize("page", sorted(PAGES))
def test_each_role_opens_the_pages_the_table_says(users, make_agent, page):
    url = page.format(agent=make_agent("Alice").pk)
    for role in (*EVERY_ROLE, SUPERUSER):
        client = Client()
        client.force_login(users[role])
        expected = 200 if role in PAGES[page] or role == SUPERUSER else 403
        assert client.get(url).status_code == expected, role


# Overview panel (its section id) -> roles that see it.
OVERVIEW_PANELS = {
    "residents": (OPERATOR, AUDITOR),  # the residents' holdings are the city's
    "economy": (OPERATOR, AUDITOR),
    "agents-work": (OPERATOR, AUDITOR, AGENT_ADMIN),
    "ticks": (OPERATOR, AUDITOR),
}


@pytest.mark.django_db
def test_each_role_sees_the_overview_panels_of_its_role(users):
    for role in (*EVERY_ROLE, SUPERUSER):
        client = Client()
        client.force_login(users[role])
        html = client.get("/").content.decode()
        shown = {panel for panel in OVERVIEW_PANELS if f'<section id="{panel}"' in html}
        assert shown == {panel for panel, roles in OVERVIEW_PANELS.items() if role in roles or role == SUPERUSER}, role


def _admin_actions(user) -> dict[tuple[str, str], bool]:
    request = RequestFactory().get("/admin/")
    request.user = user
    offered = {}
    for model, model_admin in admin.site._registry.items():
        label = model._meta.label_lower
        names = {name for _, name, _ in model_admin._get_base_actions()} - {"delete_selected"}
        available = model_admin.get_actions(request)
        offered.update({(label, name): name in available for name in names})
    return offered


@pytest.mark.django_db
def test_each_role_is_offered_the_admin_actions_the_table_says(users):
    assert set(_admin_actions(users[SUPERUSER])) == set(ADMIN_ACTIONS)
    for role in EVERY_ROLE:
        offered = _admin_actions(users[role])
        assert {key for key, yes in offered.items() if yes} == {key for key, roles in ADMIN_ACTIONS.items() if role in roles}, role


@pytest.mark.django_db
def test_every_admin_action_declares_its_permissions():
    for model, model_admin in admin.site._registry.items():
        for func, name, _ in model_admin._get_base_actions():
            assert getattr(func, "allowed_permissions", ()), f"{model._meta.label}: {name}"


@pytest.mark.django_db
def test_a_view_only_user_cannot_run_an_admin_action_by_posting_it(users):
    fund = Fund.objects.create(fund_name="Alpha")
    client = Client()
    client.force_login(users[AUDITOR])
    client.post("/admin/funds/fund/", {"action": "disable_selected", "_selected_action": [fund.pk]})
    fund.refresh_from_db()
    assert fund.active_status == "ENABLE"


# --- writes on the pages: allowed roles change things, the others change nothing ----------------


def _resident_with_flour(make_agent):
    alice, bob = make_agent("Alice"), make_agent("Bob")
    flour = ResourceType.objects.get_or_create(slug="flour", defaults={"name": "面粉"})[0]
    AgentResource.objects.create(agent=alice, resource_type=flour, quantity=10)
    return alice, bob


PAGE_WRITES = {
    "transfer": ((OPERATOR,), lambda ids: ("/trade/", {"from_agent_id": ids["alice"], "to_agent_id": ids["bob"], "resource_type": "flour", "quantity": 1}), ResourceTransfer.objects.count),
    "create fund": ((FUNDS,), lambda ids: ("/funds/", {"action": "save", "fund_name": "Gamma", "remarks": ""}), Fund.objects.count),
    "create bounty": ((OPERATOR,), lambda ids: ("/bounties/", {"create": "1", "title": "修路", "description": "", "reward": 5}), Bounty.objects.count),
    "send to guest": ((DESK,), lambda ids: ("/orders/", {"send": "1", "channel": "downstream", "content": "您好"}), ChannelMessage.objects.count),
}


@pytest.mark.django_db
@pytest.mark.parametrize("write", sorted(PAGE_WRITES))
def test_only_the_roles_allowed_write_through_the_pages(users, make_agent, write):
    allowed, request, count = PAGE_WRITES[write]
    alice, bob = _resident_with_flour(make_agent)
    path, data = request({"alice": alice.pk, "bob": bob.pk})
    for role in (AUDITOR, *allowed):
        client = Client()
        client.force_login(users[role])
        before = count()
        client.post(path, data, HTTP_HX_REQUEST="true")
        assert count() == before + (role in allowed), role


# Page -> (a control that writes, the role that sees it); a view-only auditor sees none of them.
PAGE_CONTROLS = {
    "/funds/": ('name="action" value="disable"', FUNDS),
    "/bounties/": ('name="create"', OPERATOR),
    "/orders/": ('name="send"', DESK),
    "/trade/": ('name="transfer"', OPERATOR),
}


@pytest.mark.django_db
@pytest.mark.parametrize("page", sorted(PAGE_CONTROLS))
def test_pages_offer_write_controls_only_to_roles_that_may_use_them(users, page):
    Fund.objects.create(fund_name="Alpha")
    control, role = PAGE_CONTROLS[page]
    for who, shown in ((role, True), (AUDITOR, False)):
        client = Client()
        client.force_login(users[who])
        assert (control in client.get(page).content.decode()) is shown, who


# --- confirmations: the confirm permission and the write's own ----------------------------------


@pytest.mark.django_db
def test_confirming_needs_the_permission_of_the_proposed_write(users, make_agent):
    agent = make_agent("基金助理", tools=("create_fund",))
    proposed = execute("create_fund", {"fund_name": "Harmless Fund"}, ToolContext(agent=agent, user=users[FUNDS]))
    action = PendingAction.objects.get(pk=proposed["pending_action_id"])
    # May confirm proposals, but neither create funds nor view them: the proposal is not theirs to see.
    for role in (DESK, OPERATOR):
        client = APIClient()
        client.force_authenticate(users[role])
        response = client.post(f"/api/pending-actions/{action.pk}/confirm/", {}, format="json")
        assert (response.status_code, response.json()["code"]) == (404, "pending_action_not_found")
    client = APIClient()
    client.force_authenticate(users[FUNDS])
    assert client.post(f"/api/pending-actions/{action.pk}/confirm/", {}, format="json").status_code == 200
    assert Fund.objects.filter(fund_name="Harmless Fund").exists()


@pytest.mark.django_db
def test_a_staff_member_cannot_have_an_agent_write_what_they_may_not(users, make_agent):
    alice, bob = _resident_with_flour(make_agent)
    alice.tools.add(*Tool.objects.filter(name__in=("find_agent", "transfer_resource")))
    client = APIClient()
    client.force_authenticate(users[FUNDS])  # may chat with agents, may not move goods
    response = client.post(f"/api/agents/{alice.pk}/chat/", {"message": "把 1 flour 给 Bob"}, format="json")
    assert response.status_code == 200
    transfer = [call for call in response.json()["tool_calls"] if call["name"] == "transfer_resource"]
    assert [call["result"]["error"]["code"] for call in transfer] == ["permission_denied"]
    assert not ResourceTransfer.objects.exists()


# --- live events -------------------------------------------------------------------------------


def test_the_event_table_covers_every_declared_and_broadcast_event():
    assert set(EVENTS) == set(events._EVENT_PERMISSIONS)
    source = "\n".join(path.read_text() for app in ("agents", "city", "bounties", "funds", "orders") for path in Path(app).rglob("*.py"))
    broadcast_names = set(re.findall(r'broadcast\(\s*"(\w+)"', source))
    assert broadcast_names <= set(EVENTS)


@pytest.mark.django_db(transaction=True)
def test_each_role_receives_the_events_the_table_says(users, settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    names = list(EVENTS)

    def headers(user):
        client = Client()
        client.force_login(user)
        return [(b"cookie", f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}".encode()),
                (b"origin", b"http://127.0.0.1:8000")]

    def commit_all():
        with transaction.atomic():
            for name in names:
                broadcast(name, probe=name, **(PROBE_PROPOSAL if name == "pending_action" else {}))

    async def scenario() -> dict[str, list[str]]:
        sockets = {}
        for role in (*EVERY_ROLE, SUPERUSER):
            sockets[role] = WebsocketCommunicator(application, "/ws/events/", headers=await database_sync_to_async(headers)(users[role]))
            assert (await sockets[role].connect())[0]
        await database_sync_to_async(commit_all)()
        received = {}
        for role, socket in sockets.items():
            got = []
            expected = names if role == SUPERUSER else [name for name in names if role in EVENTS[name]]
            while len(got) < len(expected):  # hidden markers come only before a visible event
                frame = await socket.receive_json_from(timeout=5)
                if frame["type"] == "system_event":
                    got.append(frame["data"]["event"])
                else:
                    assert frame["type"] == "events_hidden", frame
            assert await socket.receive_nothing(timeout=0.5)  # and nothing more
            received[role] = got
            await socket.disconnect()
        return received

    received = async_to_sync(scenario)()
    assert received[SUPERUSER] == names
    for role in EVERY_ROLE:
        assert received[role] == [name for name in names if role in EVENTS[name]], role


def test_seed_demo_gives_every_role_a_user(db, monkeypatch, tmp_path):
    monkeypatch.setattr(agents.demo, "CREDENTIALS_FILE", tmp_path / ".demo-credentials")
    call_command("seed_demo", stdout=StringIO())
    members = {user.username: [group.name for group in user.groups.all()] for user in User.objects.filter(username__in=DEMO_USERS)}
    assert members == {username: [role] for username, role in DEMO_USERS.items()}
    assert sorted(DEMO_USERS.values()) == sorted(ROLES)
