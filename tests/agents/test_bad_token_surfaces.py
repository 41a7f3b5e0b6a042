"""The API, MCP and the events socket share one bad-token allowance per address (issue 25):
guessing on one of them and then another gains nothing. Past it MCP answers 429 and the socket
closes with 4429; a valid token is let in all the same. An MCP stream re-checks its token and
ends once the token is revoked."""

from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from config.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

ADDRESS = "127.0.0.1"  # the Django test client's REMOTE_ADDR
ACCEPT = (b"accept", b"application/json, text/event-stream")


@pytest.fixture(autouse=True)
def fresh_channel_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


async def from_address(scope, receive, send):
    return await application(dict(scope, client=(ADDRESS, 40000)), receive, send)


async def http_exchange(method: str, path: str, headers: list, body: bytes = b"", *, until=None) -> dict:
    """One HTTP request through the ASGI application: status, headers, body. ``until`` (an
    awaitable) keeps the request open until it is done, then the client hangs up."""
    sent: list[dict] = []
    delivered = False

    async def receive():
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await (until if until is not None else asyncio.Event().wait())
        return {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
        "headers": headers, "client": (ADDRESS, 40000), "server": ("testserver", 80),
    }
    await application(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    return {
        "status": start["status"],
        "headers": {k.decode(): v.decode() for k, v in start["headers"]},
        "body": b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body"),
    }


def mcp_post(agent_id: int, key: str, payload: dict | None = None, extra: list | None = None) -> dict:
    headers = [(b"authorization", f"Bearer {key}".encode()), (b"content-type", b"application/json"), ACCEPT, *(extra or [])]
    body = json.dumps(payload or {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    return async_to_sync(http_exchange)("POST", f"/mcp/agents/{agent_id}/", headers, body)


def socket_close_code(key: str) -> int | None:
    """The close code of a socket opened with ``key``; None when the handshake is refused outright."""

    async def attempt():
        communicator = WebsocketCommunicator(from_address, "/ws/events/", headers=[(b"authorization", f"Token {key}".encode())])
        accepted, _ = await communicator.connect(timeout=3)
        if not accepted:
            return None
        output = await communicator.receive_output(timeout=3)
        await communicator.disconnect()
        return output.get("code")

    return async_to_sync(attempt)()


def test_mcp_answers_429_past_the_allowance_and_still_serves_a_valid_token(make_agent, staff_user):
    agent = make_agent("Alice")
    statuses = [mcp_post(agent.pk, "not-a-key")["status"] for _ in range(20)]
    assert statuses == [401] * 20
    refused = mcp_post(agent.pk, "not-a-key")
    assert refused["status"] == 429 and json.loads(refused["body"])["code"] == "throttled"
    assert int(refused["headers"]["retry-after"]) >= 1
    key = Token.objects.create(user=staff_user).key
    assert mcp_post(agent.pk, key, {"jsonrpc": "2.0", "id": 1, "method": "ping"})["status"] != 429


def test_guesses_on_the_api_count_for_mcp_and_the_socket(make_agent, staff_user):
    agent = make_agent("Alice")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION="Token not-a-key")
    assert {api.get("/api/tools/").status_code for _ in range(10)} == {401}
    assert [mcp_post(agent.pk, "not-a-key")["status"] for _ in range(10)] == [401] * 10
    assert mcp_post(agent.pk, "not-a-key")["status"] == 429
    assert socket_close_code("not-a-key") == 4429
    assert api.get("/api/tools/").status_code == 429


def test_the_socket_closes_4429_past_the_allowance_and_lets_a_valid_token_in(staff_user):
    assert [socket_close_code("not-a-key") for _ in range(20)] == [None] * 20  # refused at the handshake
    assert socket_close_code("not-a-key") == 4429
    key = Token.objects.create(user=staff_user).key

    async def valid():
        communicator = WebsocketCommunicator(from_address, "/ws/events/", headers=[(b"authorization", f"Token {key}".encode())])
        accepted, _ = await communicator.connect(timeout=3)
        await communicator.disconnect()
        return accepted

    assert async_to_sync(valid)() is True


def test_an_mcp_stream_ends_once_its_token_is_revoked(make_agent, staff_user, monkeypatch):
    from agents.mcp import http as mcp_http

    monkeypatch.setattr(mcp_http, "RECHECK_SECONDS", 0.2, raising=False)
    agent = make_agent("Alice")
    key = Token.objects.create(user=staff_user).key
    auth = (b"authorization", f"Bearer {key}".encode())
    path = f"/mcp/agents/{agent.pk}/"
    initialize = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
    }

    async def scenario():
        post = [auth, (b"content-type", b"application/json"), ACCEPT]
        opened = await http_exchange("POST", path, post, json.dumps(initialize).encode())
        assert opened["status"] == 200, opened
        session = (b"mcp-session-id", opened["headers"]["mcp-session-id"].encode())
        version = (b"mcp-protocol-version", b"2025-06-18")
        done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert (await http_exchange("POST", path, [*post, session, version], json.dumps(done).encode()))["status"] == 202
        never = asyncio.Event()
        stream = asyncio.ensure_future(
            http_exchange("GET", path, [auth, (b"accept", b"text/event-stream"), session, version], until=never.wait())
        )
        await asyncio.sleep(0.8)
        assert not stream.done()  # open while the token is good, re-checked a few times
        await database_sync_to_async(Token.objects.filter(key=key).delete)()
        answered = await asyncio.wait_for(stream, timeout=5)  # ended by the server, not the client
        assert answered["status"] == 200

    async_to_sync(scenario)()
