"""The offline ``rules`` provider's chat half: a small deterministic intent parser.

Each app contributes its phrases in its own ``intents.py`` (autodiscovered), next to its
tools, with ``@intent(pattern, ...)``. A handler sees the user's message and the results
of the tool calls made since, and returns the next ``Step``: more tool calls, or a reply.
The provider only ever calls tools it was offered, exactly like a real model. Replies are
gettext strings, rendered in the language the user wrote in (``Turn.language``).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _

from .base import Completion, ToolCallRequest

CJK = re.compile(r"[\u4e00-\u9fff]")


@dataclass(frozen=True)
class Outcome:
    """One tool call of this turn and what it returned."""

    name: str
    arguments: dict
    result: dict

    @property
    def ok(self) -> bool:
        return self.result.get("status") == "success"

    @property
    def data(self) -> Any:
        return self.result.get("data")


@dataclass
class Turn:
    text: str
    offered: set[str]
    outcomes: list[Outcome] = field(default_factory=list)
    system: str = ""

    @property
    def language(self) -> str:
        """The language the user wrote in: a model answers in it, whatever the page's language."""
        return "zh-hans" if CJK.search(self.text) else "en"

    def last(self, name: str) -> Outcome | None:
        return next((o for o in reversed(self.outcomes) if o.name == name), None)


@dataclass(frozen=True)
class Step:
    calls: tuple[tuple[str, dict], ...] = ()
    reply: str = ""

    @classmethod
    def call(cls, name: str, **arguments: Any) -> Step:
        return cls(calls=((name, arguments),))

    @classmethod
    def say(cls, text: str) -> Step:
        return cls(reply=text)


Handler = Callable[[Turn, re.Match], "Step | None"]


@dataclass(frozen=True)
class Intent:
    name: str
    patterns: tuple[re.Pattern, ...]
    handler: Handler
    priority: int


_intents: list[Intent] = []


def intent(*patterns: str, priority: int = 0) -> Callable[[Handler], Handler]:
    """Register a chat intent; patterns are searched case-insensitively in the user's message."""

    def decorator(handler: Handler) -> Handler:
        name = f"{handler.__module__}.{handler.__qualname__}"
        _intents[:] = [i for i in _intents if i.name != name]  # re-import replaces, never duplicates
        _intents.append(Intent(name, tuple(re.compile(p, re.IGNORECASE) for p in patterns), handler, priority))
        _intents.sort(key=lambda i: -i.priority)
        return handler

    return decorator


def registered_intents() -> list[Intent]:
    return list(_intents)


def match_intent(text: str) -> tuple[Intent, re.Match] | None:
    for item in _intents:
        for pattern in item.patterns:
            if found := pattern.search(text):
                return item, found
    return None


def summarize(turn: Turn) -> str:
    """The default reply once the calls of a turn have run: each result in one line."""
    lines = []
    for outcome in turn.outcomes:
        if outcome.ok:
            data = outcome.data
            message = data.get("message") if isinstance(data, dict) else None
            lines.append(message or json.dumps(data, ensure_ascii=False))
        elif outcome.result.get("status") == "pending_confirmation":
            lines.append(outcome.result.get("message", ""))
        else:
            lines.append(outcome.result.get("error", {}).get("message", ""))
    return "\n".join(line for line in lines if line)


def read_turn(messages: list[dict], offered: set[str]) -> Turn:
    """Rebuild the current turn from OpenAI-format messages: the last user message and the
    tool calls (with their results) that followed it."""
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    text = str(messages[last_user].get("content") or "") if last_user >= 0 else ""
    system = "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "system")
    results = {m.get("tool_call_id"): m for m in messages[last_user + 1 :] if m.get("role") == "tool"}
    outcomes = []
    for message in messages[last_user + 1 :]:
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            answer = results.get(call.get("id"))
            try:
                arguments = json.loads(function.get("arguments") or "{}")
                result = json.loads(answer["content"]) if answer else {}
            except (json.JSONDecodeError, TypeError):
                arguments, result = {}, {}
            outcomes.append(Outcome(function.get("name", ""), arguments, result))
    return Turn(text=text, offered=offered, outcomes=outcomes, system=system)


class RulesChatPolicy:
    """Deterministic chat: first matching intent decides; unknown sentences get plain text."""

    def __init__(self) -> None:
        self._ids = itertools.count(1)

    def decide(self, messages: list[dict], tools: list[dict]) -> Completion:
        offered = {t["function"]["name"] for t in tools if t.get("type") == "function"}
        turn = read_turn(messages, offered)
        with translation.override(turn.language):
            return self._decide(turn)

    def _decide(self, turn: Turn) -> Completion:
        found = match_intent(turn.text)
        if found is None:
            return Completion(content=self.not_understood(turn))
        item, match = found
        step = item.handler(turn, match)
        if step is None:
            step = Step.say(summarize(turn))
        missing = [name for name, _arguments in step.calls if name not in turn.offered]
        if missing:
            return Completion(content=_("我没有被授权使用工具：%(tools)s。") % {"tools": ", ".join(missing)})
        if not step.calls:
            return Completion(content=step.reply or summarize(turn))
        calls = [
            ToolCallRequest(id=f"call_rules_{next(self._ids)}", name=name, arguments=json.dumps(args, ensure_ascii=False))
            for name, args in step.calls
        ]
        return Completion(content=step.reply, tool_calls=calls)

    @staticmethod
    def not_understood(turn: Turn) -> str:
        return _("收到：「%(text)s」。我暂时无法据此执行操作，可以换个说法试试，比如「我的状态」。") % {"text": turn.text}


class RulesProvider:
    """The offline default model: ``RulesChatPolicy`` behind the async provider interface.

    It spends no tokens and needs no network; the chat runner treats it exactly like a
    remote model (same messages in, same tool calls out).
    """

    name = "rules"

    def __init__(self) -> None:
        self.policy = RulesChatPolicy()

    async def complete(
        self, messages: list[dict], tools: list[dict], *, model: str | None = None, max_tokens: int | None = None
    ) -> Completion:
        return self.policy.decide(messages, tools)
