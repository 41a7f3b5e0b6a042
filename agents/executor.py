"""The audited tool executor: the one way any caller (chat, autonomy, API) runs a tool.

``execute`` never raises. Every outcome is a result of the shape in DESIGN §3 and exactly
one ``ToolCall`` audit row.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from datetime import timedelta
from functools import cache
from typing import Any

from django.conf import settings
from django.db import connections, router, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from core import rows
from core.auth import has_permissions, signed_in
from core.database import statement_cursor, without_savepoints
from core.errors import ApplicationError, Forbidden
from core.events import EventBatch
from core.untrusted import UntrustedJSONError, check_value, load_json

from .models import Agent, Tool, ToolCall
from .proposals import propose_action
from .registry import ToolContext, ToolSpec, registry

logger = logging.getLogger(__name__)

# A string parameter without its own maxLength: no tool needs more, and the audit keeps it.
MAX_STRING_LENGTH = 10_000


def success(data: Any) -> dict:
    return {"status": "success", "data": data}


def error(code: str, message: str, **extra: Any) -> dict:
    return {"status": "error", "error": {"code": code, "message": str(message), **extra}}


def validate_arguments(schema: dict, arguments: Any) -> dict:
    """Check ``arguments`` against a tool's schema; returns the cleaned arguments.

    Raises ``ApplicationError("invalid_arguments", ..., field=...)`` naming the first bad field.
    """
    if not isinstance(arguments, dict):
        raise ApplicationError("invalid_arguments", _("参数必须是 JSON 对象"))
    properties: dict = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in arguments or arguments[name] is None:
            raise ApplicationError("invalid_arguments", _("缺少参数 %(field)s") % {"field": name}, field=name)
    cleaned: dict = {}
    for name, value in arguments.items():
        if name not in properties:
            raise ApplicationError("invalid_arguments", _("未知参数 %(field)s") % {"field": name}, field=name)
        if value is None:
            continue  # an optional parameter passed as null means "not given"
        cleaned[name] = _validate_value(name, properties[name], value)
    return cleaned


def _validate_value(field: str, schema: dict, value: Any) -> Any:
    kind = schema.get("type")

    def fail(message: str) -> ApplicationError:
        return ApplicationError("invalid_arguments", f"{field}: {message}", field=field)

    if kind == "integer":
        # bool is an int subclass in Python but not an integer in JSON.
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise fail(_("必须是整数"))
    elif kind == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise fail(_("必须是数字"))
    elif kind == "string":
        if not isinstance(value, str):
            raise fail(_("必须是字符串"))
        if "minLength" in schema and len(value) < schema["minLength"]:
            raise fail(_("长度至少为 %(n)s") % {"n": schema["minLength"]})
        longest = schema.get("maxLength", MAX_STRING_LENGTH)
        if len(value) > longest:
            raise fail(_("长度最多为 %(n)s") % {"n": longest})
        if "\x00" in value:
            raise fail(_("不能含有 NUL 字符"))
    elif kind == "boolean":
        if not isinstance(value, bool):
            raise fail(_("必须是布尔值"))
    elif kind == "array":
        if not isinstance(value, list):
            raise fail(_("必须是数组"))
        if "items" in schema:
            value = [_validate_value(f"{field}[{i}]", schema["items"], item) for i, item in enumerate(value)]
    elif kind == "object":
        if not isinstance(value, dict):
            raise fail(_("必须是对象"))
    if "enum" in schema and value not in schema["enum"]:
        raise fail(_("必须是以下之一：%(values)s") % {"values": ", ".join(map(str, schema["enum"]))})
    if "minimum" in schema and value < schema["minimum"]:
        raise fail(_("不能小于 %(n)s") % {"n": schema["minimum"]})
    if "maximum" in schema and value > schema["maximum"]:
        raise fail(_("不能大于 %(n)s") % {"n": schema["maximum"]})
    return value


def parse_arguments(raw: Any) -> dict:
    """Model output gives arguments as a JSON string; anything else must already be a dict.

    Either way they are untrusted: too long, too deep, NaN or Infinity is ``invalid_arguments``.
    """
    try:
        if isinstance(raw, str):
            raw = load_json(raw) if raw.strip() else {}
        else:
            check_value(raw)
    except UntrustedJSONError as exc:
        raise ApplicationError("invalid_arguments", _("参数不是可接受的 JSON：%(error)s") % {"error": exc}) from None
    if not isinstance(raw, dict):
        raise ApplicationError("invalid_arguments", _("参数必须是 JSON 对象"))
    return raw


def granted_tools(agent: Agent) -> list[ToolSpec]:
    """The registered specs of the agent's granted, active tools."""
    names = agent.tools.filter(is_active=True).values_list("name", flat=True)
    return [spec for name in sorted(names) if (spec := registry.get(name)) is not None]


def usable_tools(agent: Agent, user: Any) -> list[ToolSpec]:
    """The agent's granted tools that ``user`` may have it call (``may_use``): what MCP lists."""
    return [spec for spec in granted_tools(agent) if may_use(user, spec)]


def may_use(user: Any, spec: ToolSpec) -> bool:
    """The asker's rule of ``_check_person``: with a person behind the call, they need the tool's permission."""
    person = signed_in(user)
    return person is None or bool(spec.permission and has_permissions(person, spec.permission))


def openai_tools(agent: Agent, language: str | None = None) -> list[dict]:
    """The agent's granted active tools in OpenAI function-calling format."""
    return [spec.openai_schema(language) for spec in granted_tools(agent)]


def _check_rate(agent: Agent) -> None:
    limit = settings.AGENT_TOOL_CALLS_PER_MINUTE
    since = timezone.now() - timedelta(minutes=1)
    if ToolCall.objects.filter(agent=agent, created_at__gte=since).count() >= limit:
        raise ApplicationError(
            "rate_limited", _("调用过于频繁：每分钟最多 %(limit)s 次工具调用") % {"limit": limit}
        )


def _resolve(name: str, agent: Agent | None, batch: ExecutionBatch | None) -> tuple[ToolSpec, bool]:
    """The tool's spec and whether it needs confirmation; one query for grant and state."""
    spec = registry.get(name)
    if spec is None:
        raise ApplicationError("unknown_tool", _("未知工具：%(name)s") % {"name": name})
    if agent is None:
        grant = None
    elif batch is not None and batch.holds(agent.pk, name):
        grant = batch.grants[agent.pk].get(name)
    else:
        grant = _read_grants([agent.pk], {agent.pk: name})[agent.pk].get(name)  # composed once, as a batch's
    if grant is None:
        raise ApplicationError("tool_not_allowed", _("未授权使用该工具：%(name)s") % {"name": name})
    is_active, requires_confirmation = grant
    if not is_active:
        raise ApplicationError("tool_inactive", _("工具已停用：%(name)s") % {"name": name})
    return spec, requires_confirmation


def _check_person(spec: ToolSpec, context: ToolContext) -> None:
    """The asker's rights bound the call: a person behind it (chat, MCP, a confirmation) needs the
    tool's permission on top of the agent's grant, so an agent never reads or writes for them what
    they may not themselves. Without a person (the autonomy tick) the grant alone decides."""
    if not may_use(context.user, spec):
        raise Forbidden(
            "permission_denied",
            _("您没有通过居民使用 %(name)s 的权限（需要 %(permission)s）")
            % {"name": spec.name, "permission": spec.permission or "—"},
        )


def execute(
    name: str, arguments: Any, context: ToolContext, *, batch: ExecutionBatch | None = None, propose: bool = False,
) -> dict:
    """Validate, check the grant, run (or propose) the tool, audit it. Never raises.

    ``propose``: the caller asks that a write wait for staff's confirmation even where its grant
    does not require it (the offline chat's words to a guest or supplier); it never waives one.

    With a ``batch`` (many calls in one transaction), the grants come from it and the audit
    row joins its rows; without, the grant is read and the row written for this call alone.
    """
    started = time.perf_counter()
    if batch is not None:
        batch.begin_call()
    # Until they are validated, the arguments are kept only as (a capped piece of) their text
    # (the placeholder is translated only when it is audited: a tick validates thousands).
    audited_args: dict | None = None
    try:
        spec, requires_confirmation = _resolve(name, context.agent, batch)
        _check_person(spec, context)
        cleaned = validate_arguments(spec.input_schema, parse_arguments(arguments))
        audited_args = cleaned
        # A confirmed proposal was counted when proposed; the autonomy tick is bounded by
        # construction (one action per resident per tick), so the count is spared there.
        if context.pending_action is None and context.source != ToolCall.Source.AUTONOMY:
            _check_rate(context.agent)
        if (requires_confirmation or (propose and spec.category == "action")) and context.pending_action is None:
            result = propose_action(spec=spec, arguments=cleaned, ctx=context)
        elif batch is not None and batch.optimistic:
            result = _run_unguarded(spec, cleaned, context, batch)
        else:
            with transaction.atomic():
                data = spec.func(context, **cleaned)
                result = data if _is_result(data) else success(data)
                if result["status"] == "error":
                    transaction.set_rollback(True)  # an error result never leaves a partial write
    except ApplicationError as exc:
        result = {"status": "error", "error": exc.as_dict()}
    except Exception:
        logger.exception("tool %s failed", name)
        result = error("tool_failed", _("工具执行失败：%(name)s") % {"name": name})
    if batch is not None:
        batch.end_call(ok=result["status"] != "error")
    if audited_args is None:
        audited_args = {"_raw": arguments[:2000] if isinstance(arguments, str) else _("（未通过校验的参数）")}
    _audit(name, audited_args, result, context, started, batch)
    return result


def _run_unguarded(spec: ToolSpec, cleaned: dict, context: ToolContext, batch: ExecutionBatch) -> dict:
    """Run the tool in the batch's transaction without a savepoint (``core.database.without_savepoints``).

    A call that fails having written nothing (a service's check refused it: the common failure)
    is forgotten and the batch goes on. One that wrote before failing, or broke the transaction,
    marks the batch ``broken``: its caller rolls the batch back and runs it again with a
    savepoint around this call (``agents.autonomy.execution``), so an error never leaves a
    partial write.
    """
    with without_savepoints() as guard:
        try:
            data = spec.func(context, **cleaned)
        except Exception:
            batch.broken = batch.broken or not guard.forget_failure()
            raise
        result = data if _is_result(data) else success(data)
        if result["status"] == "error":
            batch.broken = batch.broken or not guard.forget_failure()
        elif not guard.intact():
            batch.broken = True
    return result


def _is_result(data: Any) -> bool:
    return isinstance(data, dict) and data.get("status") in {"success", "error", "pending_confirmation"}


class ExecutionBatch:
    """What many tool calls made in one transaction share (the autonomy tick's batch).

    Create it inside that transaction, pass it to each ``execute(..., batch=...)``, and
    ``close()`` it before the transaction ends:

    - grants: these agents' grants (and their tools' state) are read once, here. On SQLite
      the transaction holds the write lock, so no grant can change while it runs; on
      PostgreSQL a grant staff change meanwhile (a batch lasts milliseconds) applies from
      the next batch. An agent outside the batch is looked up as usual. With ``calls`` (agent
      id → the one tool it will call: a tick's decisions) only those grants are read, not
      every tool of every agent; a call of another tool is looked up as usual.
    - audit rows: ``close()`` writes them in one insert, so they commit, or roll back,
      with the calls.
    - events: every event broadcast meanwhile, by the tools' services too, is written in
      one statement inside the transaction (``core.events.EventBatch``).
    - round: the autonomy tick the calls belong to, recorded on their audit rows.
    - world: what the world read once for the batch (``WorldSource.open_batch``), told when each
      call begins and ends, and when a call's savepoint is discarded, so that it can forget the
      rows a rolled-back call touched.
    - savepoints: while ``optimistic`` is set, calls run with none (``_run_unguarded``); a call
      that fails having written nothing is forgotten, one that wrote sets ``broken``, and the
      caller must then roll the transaction back.
    """

    def __init__(
        self, agent_ids: Iterable[int], *, round_id: int | None = None, world: Any = None, calls: Mapping[int, str] | None = None,
    ) -> None:
        # Calls run without a savepoint while ``optimistic``; ``broken`` says one of them failed
        # having written something, and only rolling the transaction back undoes it.
        self.optimistic = False
        self.broken = False
        self.events = EventBatch()
        self.calls = dict(calls) if calls is not None else None
        self.grants = _read_grants(list(agent_ids), self.calls)
        self.audit_rows: list[dict[str, Any]] = []  # ToolCall rows as their column values
        self.round_id = round_id
        self.world = world

    def holds(self, agent_id: int, name: str) -> bool:
        """Whether the batch read this agent's grant of this tool (every grant, or its one call's)."""
        return agent_id in self.grants and (self.calls is None or self.calls.get(agent_id) == name)

    def begin_call(self) -> None:
        if self.world is not None:
            self.world.begin_call()

    def end_call(self, *, ok: bool) -> None:
        if self.world is not None:
            self.world.end_call(ok=ok)

    def flush(self) -> None:
        """Write the audit rows gathered so far (inside a savepoint, they then share its fate)."""
        written, self.audit_rows = self.audit_rows, []
        for row in written:
            row["round_id"] = self.round_id
        rows.insert(ToolCall, written)  # one INSERT, composed once (core.rows)

    def discard(self) -> None:
        """Forget the audit rows not yet written (their calls were rolled back with a savepoint)."""
        self.audit_rows = []
        if self.world is not None:
            self.world.discard_call()

    def close(self) -> None:
        self.flush()
        self.events.seal()


def _read_grants(ids: list[int], calls: Mapping[int, str] | None = None) -> dict[int, dict[str, tuple[bool, bool]]]:
    """The agents' grants with their tools' state, in one statement composed once (a tick reads
    them for every batch; the ORM's two queries cost more than the batch's own reads). With
    ``calls``, only the grant of each agent's one tool: a statement per tool, for its agents (a
    tick's batch read eight grants a resident to use one)."""
    grants: dict[int, dict[str, tuple[bool, bool]]] = {agent_id: {} for agent_id in ids}
    if not ids:
        return grants
    alias = router.db_for_read(Tool)
    if calls is None:
        reads = [(_grants_statement(alias), ids, [])]
    else:
        by_tool: dict[str, list[int]] = {}
        for agent_id in ids:
            if agent_id in calls:
                by_tool.setdefault(calls[agent_id], []).append(agent_id)
        reads = [(_grants_statement(alias, one_tool=True), agents, [name]) for name, agents in by_tool.items()]
    with statement_cursor(connections[alias]) as cursor:
        for statement, agents, more in reads:
            cursor.execute(statement.format(ids=", ".join(["%s"] * len(agents))), [*agents, *more])
            for agent_id, name, is_active, requires_confirmation in cursor.fetchall():
                grants[agent_id][name] = (bool(is_active), bool(requires_confirmation))
    return grants


@cache
def _grants_statement(alias: str, *, one_tool: bool = False) -> str:
    quote, through = connections[alias].ops.quote_name, Agent.tools.through._meta
    tools, grant = quote(Tool._meta.db_table), quote(through.db_table)
    agent, tool = (quote(through.get_field(name).column) for name in ("agent", "tool"))
    columns = ", ".join(f"{tools}.{quote(Tool._meta.get_field(name).column)}" for name in ("name", "is_active", "requires_confirmation"))
    return (
        f"SELECT {grant}.{agent}, {columns} FROM {grant} INNER JOIN {tools} ON {tools}.{quote(Tool._meta.pk.column)} = {grant}.{tool} "
        f"WHERE {grant}.{agent} IN ({{ids}})" + (f" AND {tools}.{quote(Tool._meta.get_field('name').column)} = %s" if one_tool else "")
    )


def audit_call(name: str, arguments: dict, result: dict, context: ToolContext, *, batch: ExecutionBatch | None = None) -> None:
    """Write one audit row for a call whose own row was rolled back with its transaction
    (with a ``batch``, the row joins the batch's rows)."""
    _audit(name, arguments, result, context, time.perf_counter(), batch)


def refuse_calls(names: list[str], context: ToolContext, *, limit: int) -> dict:
    """Refuse, without running any, the calls an answer made past ``limit``: one result, one audit row.

    A model asking for thousands of calls in one answer gets them neither run nor audited one
    by one; the row names the tools and how many calls of each were refused.
    """
    counts = Counter(str(name)[:100] for name in names)
    result = error(
        "too_many_tool_calls",
        _("一次回答最多调用 %(limit)s 个工具；其余 %(count)s 个调用没有执行") % {"limit": limit, "count": len(names)},
        refused=len(names),
    )
    tools = ", ".join(sorted(counts))
    arguments = {"refused": len(names), "tools": dict(counts.most_common(20))}
    _audit(tools if len(tools) <= 100 else tools[:99] + "…", arguments, result, context, time.perf_counter(), None)
    return result


def _audit(name: str, arguments: dict, result: dict, context: ToolContext, started: float, batch: ExecutionBatch | None) -> None:
    try:
        row = {
            "agent_id": context.agent.pk if isinstance(context.agent, Agent) else None,  # ids: a tick audits thousands
            "tool_name": name[:100],
            "arguments": arguments,
            "status": result["status"],
            "error_code": result.get("error", {}).get("code", "") if result["status"] == "error" else "",
            "result": result,
            "source": context.source,
            "conversation_id": context.conversation.pk if context.conversation is not None else None,
            "user_id": getattr(signed_in(context.user), "pk", None),
            "duration_ms": int((time.perf_counter() - started) * 1000),
        }
        if batch is not None:
            batch.audit_rows.append(row)  # a plain row: a tick audits thousands, an instance each cost more than its insert
        else:
            rows.insert(ToolCall, [row])  # composed once (core.rows): the ORM's insert cost more than the database's
    except Exception:
        logger.exception("could not audit tool call %s", name)
