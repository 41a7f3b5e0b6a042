"""Reading the model's decisions: repair what is unambiguous, validate each one.

Model output is untrusted. ``parse_decisions`` accepts prose around the JSON, code
fences, trailing commas, a single object instead of an array, and ``{"decisions": [...]}``;
anything else raises ``DecisionFormatError`` (the batch's residents then rest).
``validate_decisions`` keeps one decision per resident of the batch: an unknown action
becomes ``rest``, params that are not an object or hold what no database column stores (NaN,
Infinity, a NUL character) make the decision fail alone, a resident the model forgot rests
(and is listed in ``omitted``: its rest is the tick's fallback, not a decision), and
decisions for anyone outside the batch are ignored. The actions
are the registered world's (``WorldSource.actions``) unless given.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agents.providers.lenient_json import NoJSON, find_json
from core.params import parse_id
from core.untrusted import UntrustedJSONError, check_value

from .sources import world_source

REST = "rest"
MAX_REASON = 300


class DecisionFormatError(ValueError):
    """The answer holds no usable decision list."""


@dataclass
class Decision:
    agent_id: int
    action: str
    params: dict = field(default_factory=dict)
    reason: str = ""
    # Set when the decision is refused before execution; it then counts as failed. ``params`` is
    # then ``{}`` (what the round log can store) and ``arguments`` what the model sent, which the
    # executor refuses and audits.
    error_code: str = ""
    error: str = ""
    arguments: Any = None

    def as_json(self) -> dict:
        return {"agent_id": self.agent_id, "action": self.action, "params": self.params, "reason": self.reason}


@dataclass
class BatchDecisions:
    decisions: dict[int, Decision]
    ignored: int = 0  # items for residents outside the batch, duplicates, or unreadable items
    omitted: list[int] = field(default_factory=list)  # residents the answer left out: they rest by default


def parse_decisions(text: str) -> list[Any]:
    try:
        value = find_json(text)
    except NoJSON as exc:
        raise DecisionFormatError(str(exc)) from exc
    if isinstance(value, dict):
        lists = [v for v in value.values() if isinstance(v, list)]
        if "agent_id" in value or "action" in value:
            value = [value]  # a single decision instead of an array
        elif len(lists) == 1:
            value = lists[0]  # {"decisions": [...]}
        else:
            raise DecisionFormatError("a JSON object that is neither a decision nor holds one list of decisions")
    return value


def _agent_id(raw: Any) -> int | None:
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)
    return parse_id(raw)


def _refusal(params: Any) -> str:
    """Why these params cannot be run or stored (a non-object, NaN/Infinity, a NUL), or ``""``."""
    if not isinstance(params, dict):
        return "params 必须是 JSON 对象"
    try:
        check_value(params)
    except UntrustedJSONError as exc:
        return f"params 不是可接受的 JSON：{exc}"
    if _holds_nul(params):  # PostgreSQL's jsonb refuses it, and no tool takes it
        return "params 不能含有 NUL 字符"
    return ""


def _holds_nul(value: Any) -> bool:
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str) and "\x00" in node:
            return True
        if isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def validate_decisions(items: list[Any], batch: list[int], actions: Mapping[str, str] | None = None) -> BatchDecisions:
    actions = world_source().actions if actions is None else actions
    members = set(batch)
    chosen: dict[int, Decision] = {}
    ignored = 0
    for item in items:
        agent_id = _agent_id(item.get("agent_id")) if isinstance(item, dict) else None
        if agent_id is None or agent_id not in members or agent_id in chosen:
            ignored += 1
            continue
        reason = item.get("reason")
        reason = reason.replace("\x00", "").strip()[:MAX_REASON] if isinstance(reason, str) else ""
        action = item.get("action")
        params = item.get("params")
        if not isinstance(action, str) or action not in actions:
            shown = str(action)[:40]
            chosen[agent_id] = Decision(agent_id, REST, {}, f"未知行为「{shown}」，改为休息" + (f"（{reason}）" if reason else ""))
            continue
        if params is None:
            params = {}
        refused = _refusal(params)
        decision = Decision(agent_id, action, {} if refused else params, reason)
        if refused:
            decision.error_code, decision.error, decision.arguments = "invalid_arguments", refused, params
        chosen[agent_id] = decision
    omitted = [agent_id for agent_id in batch if agent_id not in chosen]
    for agent_id in omitted:
        chosen[agent_id] = Decision(agent_id, REST, {}, "模型没有给出决定，默认休息")
    return BatchDecisions({agent_id: chosen[agent_id] for agent_id in batch}, ignored, omitted)


def resting(batch: list[int], reason: str) -> BatchDecisions:
    """Every resident of a batch rests (its model call failed or was not made)."""
    return BatchDecisions({agent_id: Decision(agent_id, REST, {}, reason) for agent_id in batch})
