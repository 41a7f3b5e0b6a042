"""MCP with the SDK's own client: over HTTP against a real Daphne, over stdio against ``manage.py mcp``.

One Daphne serves the module, on a migrated database file seeded with the demo and one
token per kind of caller (``tests.support.mcp_scenarios``). Tests read what calls left
in that database through one Django worker process. Each test moves its own agents' goods and checks
differences, so the order of the tests does not matter.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import httpx2
import mcp_types as types
import pytest
import websockets
from django.core.management import CommandError, call_command
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from agents.mcp.access import accepted_language
from agents.registry import localized_schema, registry
from tests.support.django_process import (
    PROJECT_ROOT,
    DaphneServer,
    django_environment,
    migrated_database,
)
from tests.support.django_worker import DjangoWorker

SCENARIOS = "tests.support.mcp_scenarios"
# The tests make more calls per agent than the default rate limit allows in a minute.
SERVER_ENV = {"AGENT_TOOL_CALLS_PER_MINUTE": "1000"}
LEGACY_VERSION = "2025-06-18"


@pytest.fixture(scope="module")
def desk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    workdir = tmp_path_factory.mktemp("mcp")
    database = migrated_database("sqlite", workdir)
    with DjangoWorker(database) as worker:
        seeded = worker(f"{SCENARIOS}:seed_mcp_desk", credentials_file=str(workdir / "demo-credentials"))
        yield {"database": database, "worker": worker, **seeded}


@pytest.fixture(scope="module")
def server(desk: dict) -> Iterator[DaphneServer]:
    with DaphneServer(desk["database"], SERVER_ENV) as daphne:
        yield daphne


def child(desk: dict, function: str, **kwargs):
    """What the database holds now, read in the module's Django worker."""
    return desk["worker"](f"{SCENARIOS}:{function}", **kwargs)


def endpoint(server: DaphneServer, agent_id: int) -> str:
    return f"{server.url}/mcp/agents/{agent_id}/"


@asynccontextmanager
async def mcp_over_http(
    url: str, key: str, *, mode: str = "auto", headers: dict | None = None, **options
) -> AsyncIterator[Client]:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {key}", **(headers or {})})
    async with http, Client(streamable_http_client(url, http_client=http), mode=mode, **options) as client:
        yield client


def listed(desk: dict, server: DaphneServer, agent: str, **options) -> list:
    async def scenario():
        async with mcp_over_http(endpoint(server, desk["agents"][agent]), desk["keys"]["operator"], **options) as client:
            return (await client.list_tools()).tools

    return asyncio.run(scenario())


def called(desk: dict, server: DaphneServer, agent: str, name: str, arguments: dict, key: str = "operator"):
    async def scenario():
        async with mcp_over_http(endpoint(server, desk["agents"][agent]), desk["keys"][key]) as client:
            return await client.call_tool(name, arguments)

    return asyncio.run(scenario())


def test_tool_list_is_the_agents_grants_and_get_pending_action(desk, server):
    names = [tool.name for tool in listed(desk, server, "Alice")]

    assert names == [*child(desk, "granted_tool_names", agent_id=desk["agents"]["Alice"]), "get_pending_action"]


def test_listed_schema_is_the_one_the_executor_validates(desk, server):
    tools = {tool.name: tool for tool in listed(desk, server, "Alice")}

    expected = localized_schema(registry.get("transfer_resource").input_schema, "zh-hans")
    assert tools["transfer_resource"].input_schema == expected


def test_query_tools_are_read_only_and_actions_are_not(desk, server):
    tools = {tool.name: tool for tool in listed(desk, server, "基金助理")}

    assert tools["list_funds"].annotations.read_only_hint is True
    assert tools["get_pending_action"].annotations.read_only_hint is True
    assert tools["create_fund"].annotations.read_only_hint is False


def test_confirmation_tools_say_so_in_their_description(desk, server):
    tools = {tool.name: tool for tool in listed(desk, server, "基金助理")}

    assert "get_pending_action" in tools["create_fund"].description
    assert "get_pending_action" not in tools["list_funds"].description


def test_descriptions_follow_accept_language(desk, server):
    tools = {tool.name: tool for tool in listed(desk, server, "Alice", headers={"Accept-Language": "en-US,en;q=0.8"})}

    spec = registry.get("transfer_resource")
    assert tools["transfer_resource"].description == spec.describe("en")
    assert tools["transfer_resource"].input_schema == localized_schema(spec.input_schema, "en")


def test_revoked_grant_is_gone_from_the_next_listing(desk, server):
    child(desk, "revoke_tool", agent_id=desk["agents"]["Eve"], tool_name="rest")

    assert "rest" not in [tool.name for tool in listed(desk, server, "Eve")]


def test_tool_list_leaves_out_tools_the_user_may_not_use(desk, server):
    agent = desk["agents"]["基金助理"]

    async def scenario():
        async with mcp_over_http(endpoint(server, agent), desk["keys"]["fund_clerk"]) as client:
            return [tool.name for tool in (await client.list_tools()).tools]

    names = asyncio.run(scenario())

    assert names == [*child(desk, "usable_tool_names", agent_id=agent, username="fund-clerk"), "get_pending_action"]
    assert "list_funds" in names and "create_fund" in names
    assert "update_fund" not in names and "disable_fund" not in names  # granted, but needs funds.change_fund


async def first_list_changed(notifications: asyncio.Queue, timeout: float = 15) -> str:
    while True:
        message = await asyncio.wait_for(notifications.get(), timeout)
        method = getattr(getattr(message, "root", message), "method", None)
        if method == "notifications/tools/list_changed":
            return method


def test_revoking_a_grant_notifies_an_open_handshake_era_session(desk, server):
    agent = desk["agents"]["Dave"]
    notifications: asyncio.Queue = asyncio.Queue()

    async def collect(message) -> None:
        await notifications.put(message)

    async def scenario() -> tuple[str, list[str], list[str]]:
        async with mcp_over_http(
            endpoint(server, agent), desk["keys"]["operator"], mode="legacy", message_handler=collect
        ) as client:
            before = [tool.name for tool in (await client.list_tools()).tools]
            await asyncio.to_thread(child, desk, "revoke_tool", agent_id=agent, tool_name="rest")
            method = await first_list_changed(notifications)
            after = [tool.name for tool in (await client.list_tools()).tools]
            return method, before, after

    method, before, after = asyncio.run(scenario())
    assert method == "notifications/tools/list_changed"
    assert "rest" in before and "rest" not in after


def test_granting_a_tool_reaches_a_listen_stream_of_that_agent_only(desk, server):
    frank, carol = desk["agents"]["Frank"], desk["agents"]["Carol"]
    child(desk, "revoke_tool", agent_id=frank, tool_name="eat")

    async def listen(agent_id: int, opened: asyncio.Event) -> list:
        async with mcp_over_http(endpoint(server, agent_id), desk["keys"]["operator"]) as client:
            async with client.listen(tools_list_changed=True) as subscription:
                opened.set()
                events = []
                try:
                    async with asyncio.timeout(8):
                        async for event in subscription:
                            events.append(type(event).__name__)
                            tools = [tool.name for tool in (await client.list_tools()).tools]
                            return [*events, "eat" in tools]
                except TimeoutError:
                    return events

    async def scenario() -> tuple[list, list]:
        on_frank, on_carol = asyncio.Event(), asyncio.Event()
        frank_task = asyncio.create_task(listen(frank, on_frank))
        carol_task = asyncio.create_task(listen(carol, on_carol))
        await asyncio.wait_for(asyncio.gather(on_frank.wait(), on_carol.wait()), 15)
        await asyncio.to_thread(child, desk, "grant_tool", agent_id=frank, tool_name="eat")
        return await frank_task, await carol_task

    heard_by_frank, heard_by_carol = asyncio.run(scenario())
    assert heard_by_frank == ["ToolsListChanged", True]
    assert heard_by_carol == []


def test_granted_transfer_moves_goods_and_audits_with_source_mcp(desk, server):
    alice, bob = desk["agents"]["Alice"], desk["agents"]["Bob"]
    before_alice, before_bob = child(desk, "stock", agent_id=alice), child(desk, "stock", agent_id=bob)
    last = child(desk, "last_tool_call_id")

    result = called(desk, server, "Alice", "transfer_resource", {"to_agent_id": bob, "resource_type": "bread", "quantity": 1})

    assert result.is_error is False
    assert result.structured_content["quantity"] == 1
    assert child(desk, "stock", agent_id=alice)["bread"] == before_alice["bread"] - 1
    assert child(desk, "stock", agent_id=bob).get("bread", 0) == before_bob.get("bread", 0) + 1
    [audit] = child(desk, "tool_calls", agent_id=alice, after=last)
    assert (audit["tool_name"], audit["status"], audit["source"], audit["user"]) == (
        "transfer_resource", "success", "mcp", "operator"
    )


def test_ungranted_tool_is_a_tool_error_and_writes_nothing(desk, server):
    funds = child(desk, "fund_names")
    last = child(desk, "last_tool_call_id")

    result = called(desk, server, "Alice", "create_fund", {"fund_name": "Alice 的基金"})

    assert result.is_error is True
    assert result.structured_content["code"] == "tool_not_allowed"
    assert "tool_not_allowed" in result.content[0].text
    assert child(desk, "fund_names") == funds
    [audit] = child(desk, "tool_calls", agent_id=desk["agents"]["Alice"], after=last)
    assert (audit["status"], audit["error_code"], audit["source"]) == ("error", "tool_not_allowed", "mcp")


def test_unknown_tool_is_a_tool_error(desk, server):
    result = called(desk, server, "Alice", "drop_database", {})

    assert result.is_error is True
    assert result.structured_content["code"] == "unknown_tool"


def test_forged_from_agent_id_is_refused_and_moves_nothing(desk, server):
    bob, carol = desk["agents"]["Bob"], desk["agents"]["Carol"]
    before_bob, before_carol = child(desk, "stock", agent_id=bob), child(desk, "stock", agent_id=carol)

    result = called(
        desk, server, "Carol", "transfer_resource",
        {"from_agent_id": bob, "to_agent_id": carol, "resource_type": "wheat", "quantity": 5},
    )

    assert result.is_error is True
    assert (result.structured_content["code"], result.structured_content["field"]) == ("invalid_arguments", "from_agent_id")
    assert child(desk, "stock", agent_id=bob) == before_bob
    assert child(desk, "stock", agent_id=carol) == before_carol


def confirm_over_api(server: DaphneServer, key: str, action_id: int) -> httpx2.Response:
    return httpx2.post(
        f"{server.url}/api/pending-actions/{action_id}/confirm/", headers={"Authorization": f"Token {key}"}, json={}
    )


def test_fund_create_waits_for_staff_and_a_staff_api_call_confirms_it(desk, server):
    agent = endpoint(server, desk["agents"]["基金助理"])

    async def propose() -> tuple:
        async with mcp_over_http(agent, desk["keys"]["operator"]) as client:
            proposed = await client.call_tool("create_fund", {"fund_name": "MCP 测试基金", "remarks": "经 MCP 提出"})
            waiting = await client.call_tool("get_pending_action", {"id": proposed.structured_content["pending_action_id"]})
            return proposed, waiting

    proposed, waiting = asyncio.run(propose())
    assert proposed.is_error is False
    assert proposed.structured_content["status"] == "pending_confirmation"
    assert waiting.structured_content["status"] == "pending"
    assert "MCP 测试基金" not in child(desk, "fund_names")

    action_id = proposed.structured_content["pending_action_id"]
    assert confirm_over_api(server, desk["keys"]["supervisor"], action_id).status_code == 200

    async def outcome():
        async with mcp_over_http(agent, desk["keys"]["operator"]) as client:
            return await client.call_tool("get_pending_action", {"id": action_id})

    decided = asyncio.run(outcome())
    assert (decided.structured_content["status"], decided.structured_content["decided_by"]) == ("confirmed", "supervisor")
    assert "MCP 测试基金" in child(desk, "fund_names")


def answering(decision: str | None, **edits):
    """An elicitation callback that records each question and answers it (None: dismiss the form)."""
    questions: list = []

    async def callback(context, params):
        questions.append(params)
        if decision is None:
            return types.ElicitResult(action="cancel")
        if decision == "decline":
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={"decision": decision, **edits})

    return callback, questions


def propose_fund(desk, server, fund_name: str, callback, *, key: str = "operator", mode: str = "auto"):
    agent = endpoint(server, desk["agents"]["基金助理"])

    async def scenario():
        async with mcp_over_http(agent, desk["keys"][key], mode=mode, elicitation_callback=callback) as client:
            return await client.call_tool("create_fund", {"fund_name": fund_name, "remarks": "经 MCP 提出"})

    return asyncio.run(scenario())


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_proposal_is_put_to_the_person_who_approves_it_with_an_edit(desk, server, mode):
    callback, questions = answering("approve", fund_name=f"改过的基金 {mode}")

    result = propose_fund(desk, server, f"提议的基金 {mode}", callback, mode=mode)

    [question] = questions
    assert question.requested_schema["properties"]["fund_name"]["default"] == f"提议的基金 {mode}"
    assert question.requested_schema["properties"]["decision"]["enum"] == ["approve", "reject"]
    assert result.is_error is False
    assert result.structured_content["status"] == "confirmed"
    action = child(desk, "pending_action", action_id=result.structured_content["pending_action_id"])
    assert (action["status"], action["decided_by"]) == ("confirmed", "operator")
    assert f"改过的基金 {mode}" in child(desk, "fund_names")
    assert f"提议的基金 {mode}" not in child(desk, "fund_names")


@pytest.mark.parametrize(("decision", "status"), [("reject", "rejected"), ("decline", "rejected"), (None, "pending")])
def test_rejecting_declining_or_dismissing_the_question(desk, server, decision, status):
    callback, questions = answering(decision)
    name = f"被问的基金 {decision}"

    result = propose_fund(desk, server, name, callback)

    assert len(questions) == 1
    action_id = result.structured_content["pending_action_id"]
    assert child(desk, "pending_action", action_id=action_id)["status"] == status
    assert name not in child(desk, "fund_names")
    if decision is None:  # as without elicitation: staff decide later
        assert result.structured_content["status"] == "pending_confirmation"


def test_approving_a_stale_proposal_is_a_version_conflict_as_on_the_pages(desk, server):
    fund_name = child(desk, "fund_names")[0]
    fund = child(desk, "fund_id", fund_name=fund_name)
    agent = endpoint(server, desk["agents"]["基金助理"])

    async def approve_after_someone_else_edits(context, params):
        await asyncio.to_thread(child, desk, "change_remarks_elsewhere", fund_id=fund, remarks="别人先改了")
        return types.ElicitResult(action="accept", content={"decision": "approve"})

    async def scenario():
        async with mcp_over_http(agent, desk["keys"]["operator"], elicitation_callback=approve_after_someone_else_edits) as client:
            return await client.call_tool("update_fund", {"fund_id": fund, "remarks": "MCP 想改成这样"})

    result = asyncio.run(scenario())

    assert result.is_error is True
    assert result.structured_content["code"] == "version_conflict"
    assert child(desk, "pending_action", action_id=result.structured_content["pending_action_id"])["status"] == "failed"


def test_a_person_who_may_not_decide_is_not_asked(desk, server):
    callback, questions = answering("approve")

    result = propose_fund(desk, server, "办事员提议的基金", callback, key="fund_clerk")

    assert questions == []
    assert result.structured_content["status"] == "pending_confirmation"
    assert "办事员提议的基金" not in child(desk, "fund_names")


def test_get_pending_action_shows_only_this_agents_actions(desk, server):
    proposed = called(desk, server, "基金助理", "create_fund", {"fund_name": "别人的提议"})

    result = called(desk, server, "Alice", "get_pending_action", {"id": proposed.structured_content["pending_action_id"]})

    assert result.is_error is True
    assert result.structured_content["code"] == "pending_action_not_found"


def test_mcp_call_reaches_live_pages_as_its_domain_event(desk, server):
    alice, dave = desk["agents"]["Alice"], desk["agents"]["Dave"]
    headers = {"Authorization": f"Token {desk['keys']['supervisor']}"}

    async def scenario() -> dict:
        async with websockets.connect(f"ws://127.0.0.1:{server.port}/ws/events/", additional_headers=headers) as ws:
            async with mcp_over_http(endpoint(server, alice), desk["keys"]["operator"]) as client:
                await client.call_tool("transfer_resource", {"to_agent_id": dave, "resource_type": "flour", "quantity": 1})
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 15))
                if message["data"].get("event") == "resource_transferred":
                    return message["data"]

    event = asyncio.run(scenario())
    assert (event["from_agent_id"], event["to_agent_id"], event["quantity"]) == (alice, dave, 1)


def test_two_sessions_for_two_agents_at_once_stay_separate(desk, server):
    alice, bob = desk["agents"]["Alice"], desk["agents"]["Bob"]

    async def status(agent_id: int, key: str) -> list[str]:
        async with mcp_over_http(endpoint(server, agent_id), key, mode="legacy") as client:
            names = []
            for _ in range(3):
                names.append((await client.call_tool("get_my_status", {})).structured_content["name"])
                await asyncio.sleep(0.05)
            return names

    async def both() -> list:
        return await asyncio.gather(status(alice, desk["keys"]["operator"]), status(bob, desk["keys"]["second_operator"]))

    on_alice, on_bob = asyncio.run(both())
    assert on_alice == ["Alice"] * 3
    assert on_bob == ["Bob"] * 3


# Refusals: plain HTTP, so the status code itself is checked; nothing reaches the SDK.

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": LEGACY_VERSION, "capabilities": {}, "clientInfo": {"name": "tests", "version": "1"}},
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def post(url: str, body: dict, key: str | None = None, **headers: str) -> httpx2.Response:
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    return httpx2.post(url, json=body, headers={**MCP_HEADERS, **headers}, timeout=30)


@pytest.mark.parametrize(
    ("who", "status", "code"),
    [
        (None, 401, "not_authenticated"),
        ("revoked", 401, "authentication_failed"),
        ("clerk", 403, "permission_denied"),
        ("outsider", 403, "permission_denied"),
    ],
)
def test_callers_who_may_not_act_as_agents_are_refused(desk, server, who, status, code):
    response = post(endpoint(server, desk["agents"]["Alice"]), INITIALIZE, desk["keys"].get(who))

    assert (response.status_code, response.json()["code"]) == (status, code)


def test_refused_token_is_answered_with_a_bearer_challenge(desk, server):
    response = post(endpoint(server, desk["agents"]["Alice"]), INITIALIZE)

    assert response.headers["WWW-Authenticate"].startswith("Bearer")


def test_token_scheme_is_accepted_as_well_as_bearer(desk, server):
    url = endpoint(server, desk["agents"]["Alice"])

    response = post(url, INITIALIZE, Authorization=f"Token {desk['keys']['operator']}")

    assert response.status_code == 200


def test_foreign_origin_is_refused(desk, server):
    response = post(endpoint(server, desk["agents"]["Alice"]), INITIALIZE, desk["keys"]["operator"], Origin="https://evil.example")

    assert (response.status_code, response.json()["code"]) == (403, "origin_not_allowed")


def test_origin_of_an_allowed_host_is_served(desk, server):
    response = post(endpoint(server, desk["agents"]["Alice"]), INITIALIZE, desk["keys"]["operator"], Origin=server.url)

    assert response.status_code == 200


@pytest.mark.parametrize("agent", ["Retired", None])
def test_inactive_or_unknown_agent_is_404(desk, server, agent):
    agent_id = desk["agents"][agent] if agent else 999_999

    response = post(endpoint(server, agent_id), INITIALIZE, desk["keys"]["operator"])

    assert (response.status_code, response.json()["code"]) == (404, "agent_not_found")


def open_session(url: str, key: str) -> str:
    response = post(url, INITIALIZE, key)
    assert response.status_code == 200
    session = response.headers["Mcp-Session-Id"]
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert post(url, initialized, key, **session_headers(session)).status_code == 202
    return session


def session_headers(session: str) -> dict:
    return {"Mcp-Session-Id": session, "MCP-Protocol-Version": LEGACY_VERSION}


LIST_TOOLS = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def test_session_serves_the_user_and_agent_that_opened_it(desk, server):
    url = endpoint(server, desk["agents"]["Alice"])
    session = open_session(url, desk["keys"]["operator"])

    assert post(url, LIST_TOOLS, desk["keys"]["operator"], **session_headers(session)).status_code == 200


def test_session_is_refused_to_another_user(desk, server):
    url = endpoint(server, desk["agents"]["Alice"])
    session = open_session(url, desk["keys"]["operator"])

    assert post(url, LIST_TOOLS, desk["keys"]["second_operator"], **session_headers(session)).status_code == 404


def test_session_is_refused_for_another_agent(desk, server):
    session = open_session(endpoint(server, desk["agents"]["Alice"]), desk["keys"]["operator"])

    other = endpoint(server, desk["agents"]["Bob"])
    assert post(other, LIST_TOOLS, desk["keys"]["operator"], **session_headers(session)).status_code == 404


# stdio: ``manage.py mcp`` as a local client would start it.


def stdio_parameters(desk: dict, agent: str, user: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp", "--agent", agent, "--user", user],
        cwd=str(PROJECT_ROOT),
        env=django_environment(desk["database"], SERVER_ENV),
    )


def test_stdio_lists_the_grants_and_moves_goods_as_the_user(desk):
    frank, bob = desk["agents"]["Frank"], desk["agents"]["Bob"]
    before = child(desk, "stock", agent_id=frank)
    last = child(desk, "last_tool_call_id")

    async def scenario() -> tuple:
        with tempfile.TemporaryFile("w+") as errlog:
            async with Client(stdio_client(stdio_parameters(desk, "Frank", "operator"), errlog=errlog)) as client:
                tools = [tool.name for tool in (await client.list_tools()).tools]
                moved = await client.call_tool("transfer_resource", {"to_agent_id": bob, "resource_type": "stone", "quantity": 2})
                return tools, moved

    tools, moved = asyncio.run(scenario())
    assert tools == [*child(desk, "granted_tool_names", agent_id=frank), "get_pending_action"]
    assert moved.is_error is False
    assert child(desk, "stock", agent_id=frank)["stone"] == before["stone"] - 2
    [audit] = child(desk, "tool_calls", agent_id=frank, after=last)
    assert (audit["tool_name"], audit["source"], audit["user"]) == ("transfer_resource", "mcp", "operator")


@pytest.fixture
def act_as_agent(db):
    from django.contrib.auth.models import Permission

    return Permission.objects.get(content_type__app_label="agents", codename="chat_agent")


@pytest.mark.parametrize(
    ("staff", "may_act", "active_agent", "code"),
    [
        (True, False, True, "permission_denied"),
        (False, True, True, "permission_denied"),
        (True, True, False, "agent_not_found"),
    ],
)
def test_stdio_refuses_what_http_refuses(django_user_model, make_agent, act_as_agent, staff, may_act, active_agent, code):
    # The refusal comes before the transport starts, so the command runs in-process here.
    user = django_user_model.objects.create_user("someone", is_staff=staff)
    if may_act:
        user.user_permissions.add(act_as_agent)
    make_agent("Alice", is_active=active_agent)

    with pytest.raises(CommandError, match=code):
        call_command("mcp", agent="Alice", user="someone")


def test_stdio_serves_a_superuser_without_the_explicit_permission(django_user_model, make_agent, monkeypatch):
    from agents.management.commands import mcp as command

    served = []
    monkeypatch.setattr(command, "serve_stdio", served.append)
    django_user_model.objects.create_superuser("root", is_staff=True)
    make_agent("Alice")

    call_command("mcp", agent="Alice", user="root", language="en")

    assert [(caller.agent.name, caller.user.username, caller.language) for caller in served] == [("Alice", "root", "en")]


@pytest.mark.parametrize(
    ("accept_language", "language"), [("en-GB,en;q=0.9", "en"), ("fr-FR,de;q=0.5", "zh-hans"), (None, "zh-hans")]
)
def test_language_is_the_first_supported_one_the_client_accepts(accept_language, language):
    assert accepted_language(accept_language) == language
