"""The interface every model provider implements: messages + tools in, a completion out."""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol

from core.errors import ApplicationError, BadGateway, GatewayTimeout, ServiceUnavailable


# The key of an offered tool (OpenAI format) holding its arguments' schema grounded in the user's
# words (``agents.grounding``), or False for a write those words cannot fill. Providers that
# decode arguments under a schema use it; it never travels to an endpoint (``sendable``).
GROUNDED = "grounded"


# Told, in the calling task, each time one of its model requests has been handed to the network. A
# caller running many calls on one event loop (the autonomy tick) builds its next request meanwhile
# instead of letting it queue behind other work. Providers that tell say so (``announces_requests``).
request_sent: ContextVar[Callable[[], None] | None] = ContextVar("request_sent", default=None)


def sendable(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``tools`` as an endpoint takes them: without the grounded schemas."""
    return [{key: value for key, value in tool.items() if key != GROUNDED} for tool in tools]


@dataclass(frozen=True)
class ToolCallRequest:
    id: str
    name: str
    # As the model sent it: usually a JSON string; the executor parses and validates it.
    arguments: str | dict
    # The model asks that staff confirm this write before it runs (free text to a third party):
    # a provider may add this caution to any write, never take a grant's away.
    propose: bool = False

    def as_message_part(self) -> dict:
        import json

        raw = self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments, ensure_ascii=False)
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": raw}}


@dataclass
class Completion:
    content: str = ""
    tool_calls: list[ToolCallRequest] = field(default_factory=list)
    usage: dict = field(default_factory=dict)  # prompt_tokens, completion_tokens, total_tokens
    # The listener stopped the answer part-way: ``content`` is what came until then, and no tool
    # call is in it (a call is only ever taken whole).
    stopped: bool = False


class ReplyListener(Protocol):
    """Who reads an answer while it is written (the chat page): each piece of text as it comes,
    and whether to stop. ``text`` may be called from any thread; ``stopped`` is read between pieces."""

    def text(self, piece: str) -> None: ...

    @property
    def stopped(self) -> bool: ...


class ModelError(Exception):
    """The model could not answer; the message is safe to show staff.

    ``code`` says which way, for scripts and status codes: ``model_unavailable`` (the
    endpoint cannot be reached), ``model_timeout`` (no answer in time) or ``model_error``
    (it answered with an error or with something unreadable).
    """

    code = "model_error"

    def __init__(self, message: str = "", *, usage: dict | None = None, partial: str = "") -> None:
        super().__init__(message)
        # Tokens the endpoint reported for the failed answer, when it reported any (budgets count them).
        self.usage = usage or {}
        # A streamed answer that broke off: the text its listener was already given (never a tool call).
        self.partial = partial


class ContextOverflow(ModelError):
    """The endpoint refused the request because the prompt and the answer do not fit its context."""


class ModelUnavailable(ModelError):
    code = "model_unavailable"


class ModelTimeout(ModelError):
    code = "model_timeout"


def model_failure(code: str, message: str, *, extra: dict | None = None) -> ApplicationError:
    """The API's error for a model failure of ``code``: 503 unreachable, 504 timeout, 502 anything else."""
    kind = {ModelUnavailable.code: ServiceUnavailable, ModelTimeout.code: GatewayTimeout}.get(code, BadGateway)
    return kind(code, message, extra=extra)


class ModelProvider(Protocol):
    name: str

    async def complete(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], *, model: str | None = None,
        max_tokens: int | None = None, json_schema: dict | None = None,
    ) -> Completion:
        """``json_schema``: the answer must be JSON of this schema, decoded under it where the endpoint can."""


async def stream_reply(
    provider: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]], *, model: str | None, listener: ReplyListener,
) -> Completion:
    """The answer, its text handed to ``listener`` as it comes. A provider with its own ``stream``
    (an endpoint) streams; any other (the offline rules) answers whole, sent as one piece, so a
    page reads every provider the same way."""
    if hasattr(provider, "stream"):
        return await provider.stream(messages, tools, model=model, listener=listener)
    completion = await provider.complete(messages, tools, model=model)
    if completion.content and not listener.stopped:
        listener.text(completion.content)
    return completion
