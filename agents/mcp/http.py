"""``/mcp/agents/<agent_id>/``: Streamable HTTP in the project's ASGI application (Daphne).

Every HTTP request is checked before the SDK reads a byte of it: a foreign ``Origin`` is
403 (the rule of ``/ws/events/``: an Origin must name an ``ALLOWED_HOSTS`` host; scripts
send none), no or a bad token 401, a user who may not act as agents 403, an unknown or
inactive agent 404. The SDK's session manager then serves the request; it binds each
session to the user and agent that opened it, so nobody else can use its id.

A wrong token counts against the API's bad-token throttle (429 past it). A request that stays
open (the GET event stream, a long tool call's stream) re-checks its caller every
``RECHECK_SECONDS``, as the events socket does: once the token is revoked, the user may no longer
act as agents or the agent is deactivated, the stream ends as if the client had left.

Daphne runs no ASGI lifespan, so the session manager starts with the first request, once
per event loop (tests run several loops in one process).
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from dataclasses import dataclass, field
from urllib.parse import urlparse
from weakref import WeakKeyDictionary

from channels.db import database_sync_to_async
from channels.security.websocket import AllowedHostsOriginValidator
from django.urls import path
from django.utils import translation
from django.utils.translation import gettext as _
from mcp.server import Server
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from core.errors import ApplicationError, Forbidden, TooManyRequests
from core.throttling import scope_address

from ..socket_auth import header
from .access import NotAuthenticated, accepted_language, agent_for, token_user
from .server import Caller, build_server

logger = logging.getLogger(__name__)

CALLER_KEY = "agent_desk.mcp_caller"
# How often an open request re-checks its caller (the events socket's period).
RECHECK_SECONDS = 30


def origin_allowed(origin: str | None) -> bool:
    """No Origin (a script) is fine; one a browser sends must name an allowed host."""
    if origin is None:
        return True
    try:
        parsed = urlparse(origin)
    except ValueError:
        return False
    return AllowedHostsOriginValidator(None).validate_origin(parsed)


@database_sync_to_async
def request_caller(authorization: str | None, agent_id: int, language: str, address: str | None = None) -> Caller:
    with translation.override(language):
        user = token_user(authorization, address=address)
        return Caller(agent=agent_for(user=user, agent_id=agent_id), user=user, language=language)


def until_refused(receive, authorization: str | None, agent_id: int, language: str):
    """``receive`` that answers ``http.disconnect`` once the caller is refused on a re-check.

    Whatever the SDK is streaming listens for the client leaving (sse-starlette does), so the
    stream ends the way it ends when the client hangs up.
    """
    refused = asyncio.Event()

    async def keep_checking() -> None:
        while True:
            await asyncio.sleep(RECHECK_SECONDS)
            try:
                await request_caller(authorization, agent_id, language)
            except ApplicationError:
                refused.set()
                return
            except Exception:
                logger.exception("could not re-check the caller of an MCP request")

    async def checked_receive():
        message = asyncio.ensure_future(receive())
        ended = asyncio.ensure_future(refused.wait())
        try:
            await asyncio.wait({message, ended}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            message.cancel()
            raise
        finally:
            ended.cancel()
        if message.done():
            return message.result()
        message.cancel()
        return {"type": "http.disconnect"}

    return checked_receive, keep_checking


def session_owner(caller: Caller) -> AuthenticatedUser:
    """The identity the SDK binds a session to: a session opened for one user and agent serves only them."""
    principal = AccessToken(token="", client_id=f"user:{caller.user.pk}", subject=f"agent:{caller.agent.pk}", scopes=[])
    return AuthenticatedUser(principal)


async def refuse(send, error: ApplicationError) -> None:
    body = json.dumps({"ok": False, "code": error.code, "reason": error.message}, ensure_ascii=False).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if isinstance(error, NotAuthenticated):
        headers.append((b"www-authenticate", b'Bearer realm="Agent Desk"'))
    if isinstance(error, TooManyRequests) and error.wait is not None:
        headers.append((b"retry-after", str(max(1, math.ceil(error.wait))).encode()))
    await send({"type": "http.response.start", "status": error.status_code, "headers": headers})
    await send({"type": "http.response.body", "body": body})


@dataclass
class RunningManager:
    manager: StreamableHTTPSessionManager
    started: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task | None = None


class AgentEndpoint:
    """The ASGI application of ``/mcp/agents/<agent_id>/``."""

    def __init__(self) -> None:
        self.server: Server = build_server(lambda ctx: ctx.request.scope[CALLER_KEY], announce_grants=True)
        self.running: WeakKeyDictionary[asyncio.AbstractEventLoop, RunningManager] = WeakKeyDictionary()

    async def __call__(self, scope, receive, send) -> None:
        language = accepted_language(header(scope, b"accept-language"))
        try:
            if not origin_allowed(header(scope, b"origin")):
                with translation.override(language):
                    raise Forbidden("origin_not_allowed", _("You do not have permission to perform this action."))
            agent_id = scope["url_route"]["kwargs"]["agent_id"]
            authorization = header(scope, b"authorization")
            caller = await request_caller(authorization, agent_id, language, scope_address(scope))
        except ApplicationError as error:
            await refuse(send, error)
            return
        manager = await self.session_manager()
        checked_receive, keep_checking = until_refused(receive, authorization, agent_id, language)
        checker = asyncio.create_task(keep_checking())
        try:
            await manager.handle_request(dict(scope, user=session_owner(caller), **{CALLER_KEY: caller}), checked_receive, send)
        finally:
            checker.cancel()

    async def session_manager(self) -> StreamableHTTPSessionManager:
        loop = asyncio.get_running_loop()
        running = self.running.get(loop)
        if running is None:
            running = self.running[loop] = RunningManager(StreamableHTTPSessionManager(app=self.server))
            running.task = loop.create_task(self.run(running))
        await running.started.wait()
        return running.manager

    async def run(self, running: RunningManager) -> None:
        async with running.manager.run():
            running.started.set()
            await asyncio.Event().wait()  # until the loop ends: sessions live in this task group


mcp_urlpatterns = [
    path("mcp/agents/<int:agent_id>/", AgentEndpoint()),
]
