"""The MCP server of one agent: its granted tools listed, and called through the executor.

tools/list is read from the grants on every request, so a grant or revoke applies to the
next listing. tools/call is ``executor.execute`` with ``source="mcp"``: the same
validation, rate limit, audit row and error codes as chat, autonomy and the API. A
confirmation-requiring tool answers ``pending_confirmation`` and writes nothing; staff
decide in Agent Desk, and ``get_pending_action`` (every session has it) reads the outcome.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

import anyio
import mcp_types as types
from channels.db import database_sync_to_async
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

from core.errors import ApplicationError, NotFound

from ..confirmations import may_view, outcome_message
from ..executor import execute, granted_tools, validate_arguments
from ..models import Agent, Tool, ToolCall
from ..registry import Param, ToolContext, ToolSpec, localized_schema, tool
from ..selectors import pending_action_get

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
    """The agent's granted active tools, then ``get_pending_action``."""
    # Staff may have changed a tool's confirmation in the admin; the grant row says what applies.
    confirmation = dict(caller.agent.tools.filter(is_active=True).values_list("name", "requires_confirmation"))
    tools = [
        mcp_tool(spec, requires_confirmation=confirmation.get(spec.name, spec.requires_confirmation), language=caller.language)
        for spec in granted_tools(caller.agent)
    ]
    return [*tools, mcp_tool(PENDING_ACTION_TOOL, requires_confirmation=False, language=caller.language)]


def call_tool(caller: Caller, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    context = ToolContext(agent=caller.agent, user=caller.user, source=ToolCall.Source.MCP)
    with translation.override(caller.language):
        if name == PENDING_ACTION_TOOL.name:
            result = read_pending_action(context, arguments)
        else:
            result = execute(name, arguments, context)
        return tool_result(result, caller.language)


def read_pending_action(context: ToolContext, arguments: dict[str, Any]) -> dict:
    """A read outside the registry: no grant to check, nothing to audit."""
    try:
        cleaned = validate_arguments(PENDING_ACTION_TOOL.input_schema, arguments)
        return {"status": "success", "data": PENDING_ACTION_TOOL.func(context, **cleaned)}
    except ApplicationError as exc:
        return {"status": "error", "error": exc.as_dict()}


def tool_result(result: dict, language: str) -> types.CallToolResult:
    """An executor result as MCP: errors are tool errors carrying the stable code."""
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


def build_server(caller_of: Callable[[ServerRequestContext], Caller]) -> Server:
    """A low-level MCP server whose handlers act for ``caller_of(ctx)``: the HTTP request's or stdio's caller."""

    async def on_list_tools(ctx: ServerRequestContext, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=await database_sync_to_async(list_tools)(caller_of(ctx)))

    async def on_call_tool(ctx: ServerRequestContext, params: types.CallToolRequestParams) -> types.CallToolResult:
        return await database_sync_to_async(call_tool)(caller_of(ctx), params.name, params.arguments or {})

    return Server(SERVER_NAME, instructions=INSTRUCTIONS, on_list_tools=on_list_tools, on_call_tool=on_call_tool)


def serve_stdio(caller: Caller) -> None:
    """Serve ``caller``'s agent on stdin/stdout until the client closes them."""
    server = build_server(lambda ctx: caller)

    async def serve() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(serve)
