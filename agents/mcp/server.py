"""The MCP server of one agent: its granted tools listed, and called through the executor.

tools/list is read from the grants on every request and lists only what the caller may use:
granted to the agent, and the user holds the tool's permission (``executor.usable_tools``, the
executor's own rule). A grant or revoke reaches open sessions as
``notifications/tools/list_changed`` (``grants``). tools/call is ``executor.execute`` with
``source="mcp"``: the same validation, rate limit, audit row and error codes as chat, autonomy
and the API. A confirmation-requiring tool writes nothing: where the client supports
elicitation and the caller may decide, the person is asked there and then (``elicitation``);
otherwise it answers ``pending_confirmation``, staff decide in Agent Desk, and
``get_pending_action`` (every session has it) reads the outcome.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

import anyio
import mcp_types as types
from channels.db import database_sync_to_async
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from mcp.server import NotificationOptions, Server, ServerRequestContext
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from core.errors import ApplicationError, NotFound

from ..confirmations import may_view, outcome_message
from ..executor import execute, usable_tools, validate_arguments
from ..models import Agent, Tool, ToolCall
from ..registry import Param, ToolContext, ToolSpec, localized_schema, tool
from ..selectors import pending_action_get
from . import elicitation
from .grants import loop_watch

SERVER_NAME = "agent-desk"
INSTRUCTIONS = (
    "Agent Desk: the tools staff granted this agent. A write that needs a human returns "
    "status pending_confirmation with a pending_action_id; staff decide it in Agent Desk, "
    "and get_pending_action(id) reads the outcome."
)
CONFIRMATION_NOTE = gettext_lazy(
    "（需要员工确认：调用只返回待确认操作 ID，员工确认后才执行；用 get_pending_action 查看结果）"
)
PENDING_NOTE = gettext_lazy("待确认操作 #%(id)s：员工在 Agent Desk 确认后才会执行；用 get_pending_action 查看结果。")


@dataclass(frozen=True)
class Caller:
    """Who an MCP request acts for: the agent, the staff member behind it, their language."""

    agent: Agent
    user: Any
    language: str


def in_language(text, language: str) -> str:
    with translation.override(language):
        return str(text)


@tool(
    description=gettext_lazy("查看待确认操作的状态与结果（只限本居民提出的操作）"),
    permission="agents.view_pendingaction",
    register_to=None,
)
def get_pending_action(
    ctx: ToolContext, id: Annotated[int, Param(ge=1, description=gettext_lazy("待确认操作 ID"))]
) -> dict:
    action = pending_action_get(action_id=id)
    if action.agent_id != ctx.agent.pk or not may_view(ctx.user, action):
        raise NotFound("pending_action_not_found", _("待确认操作不存在"))
    return {
        "id": action.pk,
        "tool_name": action.tool_name,
        "status": action.status,
        "summary": action.summary,
        "arguments": action.arguments,
        "result": action.result,
        "decided_by": action.decided_by.get_username() if action.decided_by else None,
        "decided_at": action.decided_at.isoformat() if action.decided_at else None,
        "expires_at": action.expires_at.isoformat(),
        "message": outcome_message(action),
    }


PENDING_ACTION_TOOL: ToolSpec = get_pending_action.tool_spec


def mcp_tool(spec: ToolSpec, *, requires_confirmation: bool, language: str) -> types.Tool:
    description = spec.describe(language)
    if requires_confirmation:
        description += in_language(CONFIRMATION_NOTE, language)
    return types.Tool(
        name=spec.name,
        description=description,
        input_schema=localized_schema(spec.input_schema, language),
        annotations=types.ToolAnnotations(read_only_hint=spec.category == Tool.Category.QUERY),
    )


def list_tools(caller: Caller) -> list[types.Tool]:
    """The agent's granted active tools the caller may use, then ``get_pending_action``."""
    # Staff may have changed a tool's confirmation in the admin; the grant row says what applies.
    confirmation = dict(caller.agent.tools.filter(is_active=True).values_list("name", "requires_confirmation"))
    tools = [
        mcp_tool(spec, requires_confirmation=confirmation.get(spec.name, spec.requires_confirmation), language=caller.language)
        for spec in usable_tools(caller.agent, caller.user)
    ]
    return [*tools, mcp_tool(PENDING_ACTION_TOOL, requires_confirmation=False, language=caller.language)]


def call_tool(caller: Caller, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    return tool_result(run_tool(caller, name, arguments), caller.language)


def run_tool(caller: Caller, name: str, arguments: dict[str, Any]) -> dict:
    """The executor's result of the call (``get_pending_action`` answered here)."""
    context = ToolContext(agent=caller.agent, user=caller.user, source=ToolCall.Source.MCP)
    with translation.override(caller.language):
        if name == PENDING_ACTION_TOOL.name:
            return read_pending_action(context, arguments)
        return execute(name, arguments, context)


def read_pending_action(context: ToolContext, arguments: dict[str, Any]) -> dict:
    """A read outside the registry: no grant to check, nothing to audit."""
    try:
        cleaned = validate_arguments(PENDING_ACTION_TOOL.input_schema, arguments)
        return {"status": "success", "data": PENDING_ACTION_TOOL.func(context, **cleaned)}
    except ApplicationError as exc:
        return {"status": "error", "error": exc.as_dict()}


def tool_result(result: dict, language: str) -> types.CallToolResult:
    """An executor result as MCP: errors are tool errors carrying the stable code."""
    with translation.override(language):
        return _tool_result(result, language)


def _tool_result(result: dict, language: str) -> types.CallToolResult:
    if result["status"] == "error":
        error = result["error"]
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=f"{error['code']}: {error['message']}")],
            structured_content=error,
            is_error=True,
        )
    if result["status"] == "pending_confirmation":
        note = in_language(PENDING_NOTE, language) % {"id": result["pending_action_id"]}
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=f"{result['message']}\n{note}")], structured_content=result
        )
    data = result["data"] if isinstance(result["data"], dict) else {"result": result["data"]}
    text = data.get("message") or json.dumps(data, ensure_ascii=False)
    return types.CallToolResult(content=[types.TextContent(type="text", text=str(text))], structured_content=data)


ELICITATION = types.ClientCapabilities(elicitation=types.ElicitationCapability())


def asks_the_person(ctx: ServerRequestContext) -> bool:
    """Whether the client declared elicitation and this request can carry the question."""
    if not ctx.session.check_client_capability(ELICITATION):
        return False
    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS or ctx.session.can_send_request


def is_modern(ctx: ServerRequestContext) -> bool:
    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS


class AgentServer(Server):
    """The lowlevel server, announcing that tool lists change (handshake era; 2026-07-28 derives it
    from ``subscriptions/listen`` being served)."""

    def create_initialization_options(self, notification_options=None, *args, **kwargs):
        options = notification_options or NotificationOptions(tools_changed=True)
        return super().create_initialization_options(options, *args, **kwargs)


def build_server(caller_of: Callable[[ServerRequestContext], Caller], *, announce_grants: bool = False) -> Server:
    """A low-level MCP server whose handlers act for ``caller_of(ctx)``: the HTTP request's or stdio's caller.

    With ``announce_grants`` its sessions hear of grant changes (``notifications/tools/list_changed``).
    """

    def remember(ctx: ServerRequestContext, caller: Caller) -> None:
        if announce_grants and not is_modern(ctx):
            # Lowlevel handlers get no public handle on their session's connection; its standalone
            # stream is where a handshake-era client listens.
            loop_watch().remember(caller.agent.pk, ctx.session._connection)

    async def on_list_tools(ctx: ServerRequestContext, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        caller = caller_of(ctx)
        remember(ctx, caller)
        return types.ListToolsResult(tools=await database_sync_to_async(list_tools)(caller))

    async def on_call_tool(ctx: ServerRequestContext, params: types.CallToolRequestParams):
        caller = caller_of(ctx)
        remember(ctx, caller)
        if is_modern(ctx) and params.request_state is not None:  # the person's answer to our question
            return await answered(caller, params)
        result = await database_sync_to_async(run_tool)(caller, params.name, params.arguments or {})
        if result["status"] == "pending_confirmation" and asks_the_person(ctx):
            asked = await ask(ctx, caller, result["pending_action_id"])
            if asked is not None:
                return asked
        return tool_result(result, caller.language)

    async def ask(ctx: ServerRequestContext, caller: Caller, action_id: int):
        """Put the proposal to the person; None when they may not decide it (the proposal stays pending)."""

        def form():
            action = elicitation.askable(user=caller.user, agent_id=caller.agent.pk, action_id=action_id)
            return None if action is None else elicitation.proposal_form(action, caller.language)

        asked = await database_sync_to_async(form)()
        if asked is None:
            return None
        message, schema = asked
        if is_modern(ctx):
            question = types.ElicitRequest(params=types.ElicitRequestFormParams(message=message, requested_schema=schema))
            return types.InputRequiredResult(input_requests={elicitation.DECISION: question}, request_state=str(action_id))
        try:
            reply = await ctx.session.elicit_form(message, schema, related_request_id=ctx.request_id)
        except MCPError:
            return None  # the client could not ask: the proposal waits for staff as without elicitation
        return await decide(caller, action_id, reply)

    async def answered(caller: Caller, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            action_id = int(params.request_state or "")
        except ValueError:
            raise MCPError(types.INVALID_PARAMS, "Invalid or expired requestState") from None
        reply = (params.input_responses or {}).get(elicitation.DECISION)
        return await decide(caller, action_id, reply)

    async def decide(caller: Caller, action_id: int, reply) -> types.CallToolResult:
        result = await database_sync_to_async(elicitation.answer)(
            user=caller.user, agent_id=caller.agent.pk, action_id=action_id, reply=reply, language=caller.language
        )
        return tool_result(result, caller.language)

    async def on_listen(ctx: ServerRequestContext, params: types.SubscriptionsListenRequestParams):
        return await loop_watch().listen_handler(caller_of(ctx).agent.pk)(ctx, params)

    server = AgentServer(
        SERVER_NAME,
        instructions=INSTRUCTIONS,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
        on_subscriptions_listen=on_listen if announce_grants else None,
    )
    server.middleware.append(RequestStateBoundary(request_state_security(), default_audience=SERVER_NAME))
    return server


def request_state_security() -> RequestStateSecurity:
    """Sealing the ``requestState`` of a question (the proposal's id) with a key every server
    process shares: the answer may reach another Daphne process than the question."""
    key = hashlib.sha256(b"agent-desk/mcp/request-state/" + settings.SECRET_KEY.encode()).digest()
    return RequestStateSecurity(keys=[key])


def serve_stdio(caller: Caller) -> None:
    """Serve ``caller``'s agent on stdin/stdout until the client closes them."""
    server = build_server(lambda ctx: caller)

    async def serve() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(serve)
