"""The tool registry: ``@tool`` turns a typed function into a tool agents can call.

Like ``@admin.register``, the decorator records a frozen spec and returns the function
unchanged. ``AgentsConfig.ready()`` autodiscovers every app's ``tools.py``; the
``post_migrate`` sync writes the specs into the ``Tool`` table (see ``agents.sync``).
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from django.core.exceptions import ImproperlyConfigured
from django.utils import translation
from django.utils.functional import Promise

# What OpenAI-compatible endpoints accept as a function name (and what lets a resident's grants
# travel as one comma-joined column in the tick's snapshot).
TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


@dataclass(frozen=True)
class Param:
    """Per-parameter metadata, used as ``Annotated[int, Param(ge=1, description=gettext_lazy("数量"))]``.

    A lazy description is rendered in the language active when the schema is localized.
    """

    description: str | Promise | None = None
    ge: float | None = None
    le: float | None = None
    min_length: int | None = None
    max_length: int | None = None


@dataclass
class ToolContext:
    """Who is calling and from where. Identity comes from here, never from tool arguments."""

    agent: Any  # agents.models.Agent
    source: str = "chat"
    user: Any = None  # the staff member behind the call, when there is one
    conversation: Any = None
    mode: str = "standalone"
    # Set when a staff member confirmed a pending action: the tool then really writes.
    pending_action: Any = None


@dataclass(frozen=True)
class Proposal:
    """What a confirmation-requiring tool proposes: shown to staff before anything is written."""

    message: str
    form_data: dict = field(default_factory=dict)
    version: int | None = None
    # The target's values when the proposal was read (empty for a create): shown beside the proposal.
    current: dict = field(default_factory=dict)
    # Where an embedded chat's page opens the proposal: page URL and form id (DESIGN §10 ui_action).
    url: str = ""
    form: str = ""
    # How staff read it: a label per field, and per field the words for raw values
    # ({"active_status": {"DISABLE": "停用"}}, {"to_agent_id": {2: "Bob"}}).
    labels: dict = field(default_factory=dict)
    display: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ToolSpec:
    name: str
    func: Callable[..., Any]
    # Usually a ``gettext_lazy`` string: the app's catalogue holds the other languages.
    description: str | Promise
    category: str
    requires_confirmation: bool
    input_schema: dict
    source: str
    # Builds the staff-facing proposal of a confirmation-requiring call (see agents.proposals).
    propose: Callable[..., Proposal] | None = None
    # The Django permission ("app_label.codename") a person needs for this call to run on their
    # word (chatting, MCP, confirming its proposal): a view permission for a read, the add or change
    # permission for a write. Every tool names one; a system check reports one that does not.
    permission: str | None = None
    # The arguments the agent composes itself for this call from its turn so far, none of them the
    # user's words: ``compose(said, made)`` (``made``: this turn's calls, ``{"name", "arguments",
    # "result"}``) returns them, or None. Where arguments are schema-decoded they are what is offered
    # (``agents.grounding``): the desk's question to the supplier, from the order it looked up.
    compose: Callable[[str, list[dict]], dict | None] | None = None

    def describe(self, language: str | None = None) -> str:
        """The description in ``language``, or in the active language when none is given."""
        if language is None:
            return str(self.description)
        with translation.override(language):
            return str(self.description)

    def openai_schema(self, language: str | None = None) -> dict:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.describe(language),
                "parameters": localized_schema(self.input_schema, language),
            },
        }


class ToolSchemaError(TypeError):
    """A tool's signature cannot be turned into a JSON Schema."""


_PRIMITIVES: dict[type, str] = {int: "integer", float: "number", str: "string", bool: "boolean"}


def _is_optional(hint: Any) -> tuple[bool, Any]:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) != len(typing.get_args(hint)):
            if len(args) != 1:
                raise ToolSchemaError(f"union types are not supported: {hint!r}")
            return True, args[0]
        raise ToolSchemaError(f"union types are not supported: {hint!r}")
    return False, hint


def schema_for_hint(hint: Any) -> dict:
    """JSON Schema of one type hint (int/float/str/bool/list/dict, Literal, Annotated)."""
    if typing.get_origin(hint) is Annotated:
        base, *extras = typing.get_args(hint)
        schema = schema_for_hint(base)
        for extra in extras:
            if isinstance(extra, Param):
                _apply_param(schema, extra)
        return schema
    if hint in _PRIMITIVES:
        return {"type": _PRIMITIVES[hint]}
    origin = typing.get_origin(hint)
    if origin is Literal:
        values = list(typing.get_args(hint))
        kinds = {type(v) for v in values}
        if len(kinds) != 1 or next(iter(kinds)) not in _PRIMITIVES:
            raise ToolSchemaError(f"Literal values must share one primitive type: {hint!r}")
        return {"type": _PRIMITIVES[next(iter(kinds))], "enum": values}
    if hint is list or origin is list:
        schema: dict = {"type": "array"}
        args = typing.get_args(hint)
        if args:
            schema["items"] = schema_for_hint(args[0])
        return schema
    if hint is dict or origin is dict:
        return {"type": "object"}
    raise ToolSchemaError(f"unsupported type hint: {hint!r}")


def _apply_param(schema: dict, param: Param) -> None:
    if param.description is not None:  # a truth test would render a lazy text before any language is chosen
        schema["description"] = param.description
    if param.ge is not None:
        schema["minimum"] = param.ge
    if param.le is not None:
        schema["maximum"] = param.le
    if param.min_length is not None:
        schema["minLength"] = param.min_length
    if param.max_length is not None:
        schema["maxLength"] = param.max_length


def schema_for_function(func: Callable[..., Any]) -> dict:
    """Parameters schema of a tool function; its first parameter is the ToolContext."""
    try:
        hints = typing.get_type_hints(func, include_extras=True)
    except Exception as exc:  # a NameError in a string annotation, for instance
        raise ToolSchemaError(f"cannot resolve type hints: {exc}") from exc
    params = list(inspect.signature(func).parameters.values())
    if not params or params[0].name != "ctx":
        raise ToolSchemaError("the first parameter must be `ctx: ToolContext`")
    properties: dict[str, dict] = {}
    required: list[str] = []
    for param in params[1:]:
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ToolSchemaError(f"*args/**kwargs are not supported ({param.name})")
        if param.name not in hints:
            raise ToolSchemaError(f"parameter {param.name!r} has no type hint")
        optional, hint = _is_optional(hints[param.name])
        prop = schema_for_hint(hint)
        if param.default is not inspect.Parameter.empty:
            if param.default is not None:
                prop["default"] = param.default
        elif not optional:
            required.append(param.name)
        properties[param.name] = prop
    schema: dict = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


def localized_schema(schema: dict, language: str | None = None) -> dict:
    """A plain JSON copy of the schema, lazy descriptions rendered in ``language`` (default: the active one)."""

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            return {key: walk(value) for key, value in node.items()}
        if isinstance(node, list):
            return [walk(value) for value in node]
        if isinstance(node, Promise):
            return str(node)
        return node

    if language is None:
        return walk(schema)
    with translation.override(language):
        return walk(schema)


class ToolRegistry:
    def __init__(self) -> None:
        self._registry: dict[str, ToolSpec] = {}
        # Functions whose signature could not be turned into a schema, reported by a system check.
        self.broken: dict[str, str] = {}

    def register(self, spec: ToolSpec) -> None:
        existing = self._registry.get(spec.name)
        if existing is not None and existing.source != spec.source:
            raise ImproperlyConfigured(
                f"duplicate tool name {spec.name!r}: {existing.source} and {spec.source}"
            )
        self._registry[spec.name] = spec

    def get(self, name: str) -> ToolSpec | None:
        return self._registry.get(name)

    def all(self) -> list[ToolSpec]:
        return sorted(self._registry.values(), key=lambda spec: spec.name)

    def names(self) -> set[str]:
        return set(self._registry)

    @contextmanager
    def register_temporarily(self, *funcs: Callable[..., Any]) -> Iterator[None]:
        """Register extra tools for the duration of a test; ``funcs`` are ``@tool``-less functions
        decorated with ``tool(..., register_to=None)`` or plain specs."""
        added: list[str] = []
        try:
            for item in funcs:
                spec = item if isinstance(item, ToolSpec) else item.tool_spec
                self.register(spec)
                added.append(spec.name)
            yield
        finally:
            for name in added:
                self._registry.pop(name, None)


registry = ToolRegistry()


def tool(
    *,
    description: str | Promise,
    category: Literal["query", "action"] = "query",
    requires_confirmation: bool = False,
    name: str | None = None,
    propose: Callable[..., Proposal] | None = None,
    permission: str | None = None,
    compose: Callable[[str, list[dict]], dict | None] | None = None,
    register_to: ToolRegistry | None = registry,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register ``func`` as a tool and return it unchanged (with ``func.tool_spec`` attached)."""
    if category not in ("query", "action"):
        raise ImproperlyConfigured(f"tool category must be 'query' or 'action', got {category!r}")

    def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
        tool_name = name or func.__name__
        source = f"{func.__module__}.{func.__qualname__}"
        if not TOOL_NAME.fullmatch(tool_name):
            raise ImproperlyConfigured(f"{source}: tool name {tool_name!r} must be 1-64 letters, digits, '_' or '-'")
        try:
            schema = schema_for_function(func)
        except ToolSchemaError as exc:
            if register_to is not None:
                register_to.broken[tool_name] = f"{source}: {exc}"
            return func
        spec = ToolSpec(
            name=tool_name,
            func=func,
            description=description,
            category=category,
            requires_confirmation=requires_confirmation,
            input_schema=schema,
            source=source,
            propose=propose,
            permission=permission,
            compose=compose,
        )
        func.tool_spec = spec  # type: ignore[attr-defined]
        if register_to is not None:
            register_to.register(spec)
        return func

    return decorator
