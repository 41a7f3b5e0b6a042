"""The ``openai`` provider: any OpenAI-compatible chat completions endpoint (OpenAI, vLLM,
Ollama, llama.cpp server) through the official SDK's async client.

- One timeout per call (``AGENT_MODEL_TIMEOUT``), and exactly one retry, made here, on a
  transient failure (timeout, connection error, HTTP 5xx): the SDK's own retries are off
  (``max_retries=0``) so the count is ours and visible. A 4xx, or a 5xx whose body says the
  request itself was invalid (llama.cpp answers 500 to a malformed message), is not retried:
  the same request would fail the same way.
- Every request caps the answer (``max_tokens``, ``AGENT_MAX_TOKENS`` unless the caller
  sizes it), so an abandoned request does not keep a single-slot server busy for minutes.
- ``tool_choice: "auto"`` goes with every ``tools``: some servers (llama-cpp-python's
  function-calling formats) leave the tools out of the prompt without it.
- Every request carries ``temperature`` (``AGENT_TEMPERATURE``) and ``seed`` (``AGENT_SEED``);
  an endpoint that refuses ``seed`` (a 400 naming it) is asked without it from then on.
- A caller that wants JSON of a schema (the tick's decisions) gets it decoded under that schema
  where the endpoint can: ``response_format`` in OpenAI's shape (``json_schema``: OpenAI, vLLM,
  llama.cpp's server), else in llama-cpp-python's (``json_object`` with ``schema``), else none.
  The first request probes: a shape the endpoint refuses (a 400/422 naming ``response_format``)
  is dropped for good, the one it takes is logged once.
- Token usage of every answer is returned in ``Completion.usage``.
- ``stream`` (the chat pages) asks with ``stream: true`` and hands each piece of text to a
  listener as it arrives. Tool calls come as deltas; they are put together and returned only
  when the answer is complete (its ``finish_reason`` came), and the executor validates them like
  any other (a stopped answer carries no call). An answer that breaks off (a dropped connection,
  an error event, a body that ends without its last chunk) is a ``ModelError`` carrying the text
  already shown (``partial``) and no call. Between pieces, and while the server is still reading the prompt, the
  listener's ``stopped`` is checked every ``STOP_POLL`` seconds; stopping closes the HTTP
  response, so a single-slot server (llama.cpp) stops generating and is free for the next
  request. ``AGENT_MODEL_TIMEOUT`` then bounds the wait for each piece, not the whole answer
  (``max_tokens`` bounds that). The JSON-in-text and constrained protocols read their answer whole (their text is
  not for people), then hand it over as one piece. Usage is asked for with
  ``stream_options.include_usage``, dropped for good by an endpoint that refuses it. A stream
  offered tools that ends cleanly before its first chunk is asked again whole: llama-cpp-python's
  chatml-function-calling cannot stream a tool call, and answers a 200 with keep-alives only
  (said once in the log; its text replies still stream).
- How tools travel is ``AGENT_TOOL_MODE``. ``native``: the ``tools`` parameter. ``text``: a
  JSON-in-text protocol (tools described in the system prompt, the model answers
  ``{"tool_calls": [...]}`` or plain text). ``constrained``: two answers decoded under a schema,
  which tool (or "none"), then that tool's arguments; each tool at most once a turn. ``auto`` (the default) starts native and
  switches once and for good, logged: to text when the endpoint answers 400 to ``tools`` (no
  function calling), to constrained when it ignores them (its prompt token count shows they
  never reached the model, as with llama.cpp's server without ``--jinja``).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import ssl
import urllib.request
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager, suppress
from contextvars import ContextVar
from typing import Any

import openai
from django.utils.translation import gettext as _
from openai import AsyncOpenAI

from .base import GROUNDED, Completion, ContextOverflow, ModelError, ModelTimeout, ModelUnavailable, ReplyListener, ToolCallRequest, request_sent, sendable
from .frames import SLOT_KINDS
from .lenient_json import NoJSON, find_json

logger = logging.getLogger(__name__)

# Failures worth one more try: the next attempt may well succeed.
TRANSIENT = (openai.APITimeoutError, openai.APIConnectionError, openai.InternalServerError)
# How servers word a 5xx that is really about the request (it would fail again).
INVALID_REQUEST_WORDS = ("invalid", "validation", "must be", "is not valid", "unprocessable", "malformed")


def invalid_request(exc: Exception) -> bool:
    """A server error whose body blames the request: retrying the same request cannot help."""
    if not isinstance(exc, openai.InternalServerError):
        return False
    text = f"{exc.message} {json.dumps(exc.body, default=str) if exc.body else ''}".lower()
    return any(word in text for word in INVALID_REQUEST_WORDS)


def model_error(exc: Exception, *, endpoint: str = "", timeout: float | None = None) -> ModelError:
    """The ModelError that says which way the call failed, in words staff can act on."""
    reason = describe(exc, endpoint=endpoint, timeout=timeout)
    if isinstance(exc, openai.APITimeoutError):
        return ModelTimeout(reason)
    if isinstance(exc, openai.APIStatusError) and exc.status_code < 500 and overflows(exc):
        return ContextOverflow(reason)
    if isinstance(exc, openai.APIConnectionError):
        return ModelUnavailable(reason)
    return ModelError(reason)


# How servers word a refusal because the prompt and the answer do not fit the model's context.
CONTEXT_WORDS = (
    "context length", "context window", "maximum context", "n_ctx", "too many tokens", "exceed context",
    "context size", "exceeds the available context",
)


def overflows(exc: openai.APIStatusError) -> bool:
    return any(word in str(exc.message).lower() for word in CONTEXT_WORDS)


TEXT_PROTOCOL = """你可以调用下列工具（OpenAI function 格式，参数为 JSON Schema）：
{tools}

需要调用工具时，只输出一个 JSON 对象，不要输出其他文字：
{{"tool_calls": [{{"name": "<工具名>", "arguments": {{<参数>}}}}]}}
不需要工具时，直接用自然语言回答。工具结果会以 "[tool result]" 开头的消息返回给你。
(To call tools, answer only {{"tool_calls": [{{"name": ..., "arguments": {{...}}}}]}}; otherwise answer in plain text.)"""


def refuses_tools(exc: openai.APIStatusError) -> bool:
    """A 400/422 that complains about ``tools`` / function calling, as servers word it."""
    if exc.status_code not in (400, 422):
        return False
    if getattr(exc, "param", None) in ("tools", "tool_choice"):
        return True
    text = f"{exc.message} {json.dumps(exc.body, default=str) if exc.body else ''}".lower()
    return any(word in text for word in ("tool", "function call", "function_call", "function-call"))


def refuses_param(exc: openai.APIStatusError, param: str) -> bool:
    """A 400/422 that names ``param`` as what the endpoint does not take, or a 5xx that blames the
    request and names it: llama-cpp-python answers its request validation errors with a 500
    (``response_format.type``: "Input should be 'text' or 'json_object'")."""
    if exc.status_code not in (400, 422) and not invalid_request(exc):
        return False
    text = f"{exc.message} {json.dumps(exc.body, default=str) if exc.body else ''}".lower()
    return getattr(exc, "param", None) == param or param in text


AUTO, NATIVE, CONSTRAINED, TEXT = "auto", "native", "constrained", "text"
TOOL_MODES = (AUTO, NATIVE, CONSTRAINED, TEXT)
NO_TOOL = "none"

CHOOSE_TOOL = """可用的工具：
{tools}
先决定下一步：需要调用工具就选一个工具名，不需要（可以直接回答用户，或已有工具结果）就选 none。只输出 {{"tool": "<工具名或 none>"}}。
(Pick the one tool to call next, or none to answer directly.)"""
FILL_ARGUMENTS = "用户的话：{said}\n调用 {tool}：只输出它的参数 JSON 对象，参数取自用户的话。(Only the JSON arguments of {tool}, from the user's words.)"


def ignored_tools(messages: list[dict[str, Any]], tools: list[dict[str, Any]], usage: dict) -> bool | None:
    """Whether the endpoint counted fewer prompt tokens than the tools alone would take (they never
    reached the model: llama.cpp's server without ``--jinja``); None where it cannot be told (no
    count, or tools too small beside the messages)."""
    from .tokens import messages_tokens, tools_tokens

    prompt, listed, said = int(usage.get("prompt_tokens") or 0), tools_tokens(tools), messages_tokens(messages)
    if not prompt or listed < max(200, said):
        return None
    return prompt < said + listed / 4


def _props_context(body: Any) -> Any:
    """llama.cpp's ``GET /props``: ``{"default_generation_settings": {"n_ctx": 4096, ...}}``."""
    settings = body.get("default_generation_settings") if isinstance(body, dict) else None
    return settings.get("n_ctx") if isinstance(settings, dict) else None


def _models_context(body: Any) -> Any:
    """``GET /v1/models``: vLLM's ``max_model_len``, or an ``n_ctx`` in the model's ``meta``."""
    models = body.get("data") if isinstance(body, dict) else None
    if not isinstance(models, list) or not models or not isinstance(models[0], dict):
        return None
    meta = models[0].get("meta") if isinstance(models[0].get("meta"), dict) else {}
    return models[0].get("max_model_len") or meta.get("n_ctx")


def _json_field(text: str, name: str) -> Any:
    try:
        value = find_json(text)
    except NoJSON:
        return None
    return value.get(name) if isinstance(value, dict) else None


def _added(first: dict, second: dict) -> dict:
    return {key: int(first.get(key, 0) or 0) + int(second.get(key, 0) or 0) for key in {*first, *second}}


# How often a streamed answer looks whether its listener stopped it (seconds).
STOP_POLL = 0.1


class Stopped(Exception):
    """The listener stopped the answer; the request has been closed."""


class NothingStreamed(Exception):
    """A stream whose body ended cleanly before its first chunk."""


async def unless_stopped(awaitable: Awaitable, listener: ReplyListener) -> Any:
    """``awaitable``'s result, or ``Stopped`` as soon as the listener stops it (the awaitable is cancelled).
    A stop already asked for wins before any wait: a fast model's chunks never leave a ``STOP_POLL`` gap."""
    task = asyncio.ensure_future(awaitable)
    if listener.stopped:
        task.cancel()
        with suppress(BaseException):
            await task
        raise Stopped
    while True:
        done, _ = await asyncio.wait({task}, timeout=STOP_POLL)
        if done:
            return task.result()
        if listener.stopped:
            task.cancel()
            with suppress(BaseException):
                await task
            raise Stopped


# OpenAI's structured outputs (also vLLM and llama.cpp's server), then llama-cpp-python's own shape.
RESPONSE_FORMATS = ("json_schema", "json_object")


def called_this_turn(messages: list[dict[str, Any]]) -> set[str]:
    """The tools called since the last user message."""
    called: set[str] = set()
    for message in reversed(messages):
        if message.get("role") == "user":
            break
        called.update(call["function"]["name"] for call in message.get("tool_calls") or [] if call.get("function"))
    return called


def outside_schema(arguments: str | dict, schema: dict) -> str:
    """The first entity that a grounded schema does not allow (a value not in its enum), as
    ``name=value``; "" when all are allowed. Free text (a message a model composed, a remark it
    tidied), counts it worked out and optional arguments the message left open never switch the
    protocol: a capable model words and reckons for itself, and a proposal shows the words before
    anything is sent. Arguments that are no JSON object are left to the executor."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except ValueError:
            return ""
    if not isinstance(arguments, dict):
        return ""
    properties = schema.get("properties") or {}
    for key, value in arguments.items():
        spec = properties.get(key)
        # Only an entity (a resident, fund, order, bounty, item, building, resource) the words do not
        # name: a count is often the model's to work out ("加两次" is twice an amount of 1).
        if spec is None or SLOT_KINDS.get(key) in (None, "text", "number") or "enum" not in spec:
            continue
        if _folded(value) not in {_folded(option) for option in spec["enum"]}:
            return f"{key}={value!r}"[:80]
    return ""


def _folded(value: Any) -> str:
    """5 and "5", "Flour" and "flour" are one value (the executor takes either)."""
    return str(value).strip().casefold()


def only_value(schema: dict) -> dict | None:
    """The one object ``schema`` allows, when every property is required and has one value (an enum of
    one); None when there is a choice to make."""
    properties = schema.get("properties") or {}
    if set(schema.get("required") or ()) != set(properties):
        return None
    if not all(len(spec.get("enum") or ()) == 1 for spec in properties.values()):
        return None
    return {key: spec["enum"][0] for key, spec in properties.items()}


def response_format(shape: str, schema: dict, name: str = "decisions") -> dict:
    if shape == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}
    return {"type": "json_object", "schema": schema}


def describe(exc: Exception, *, endpoint: str = "", timeout: float | None = None) -> str:
    """A one-line reason safe to show staff (no keys, no stack) that says what would help."""
    endpoint = endpoint or "api.openai.com"
    if isinstance(exc, openai.APITimeoutError):
        return _(
            "模型在 %(seconds)s 秒内没有回答（%(endpoint)s 超时）：服务可能正忙于别的请求；可以再发一次，"
            "或请管理员调大 AGENT_MODEL_TIMEOUT、换用更快的模型"
        ) % {"seconds": f"{timeout:g}" if timeout else "?", "endpoint": endpoint}
    if isinstance(exc, openai.APIConnectionError):
        return _("无法连接模型服务 %(endpoint)s：请确认它已启动，或请管理员检查 OPENAI_BASE_URL") % {"endpoint": endpoint}
    if isinstance(exc, openai.APIStatusError):
        message = str(exc.message)[:200]
        if overflows(exc):
            return _(
                "这条消息超出了模型的上下文长度（HTTP %(status)s：%(message)s）：请缩短这条消息后再发；更早的对话会自动略去"
            ) % {"status": exc.status_code, "message": message}
        if exc.status_code >= 500:
            return _("模型服务出错（HTTP %(status)s：%(message)s）：请管理员查看模型服务的日志") % {
                "status": exc.status_code, "message": message,
            }
        return _("模型服务拒绝了请求（HTTP %(status)s：%(message)s）：请管理员检查模型名 AGENT_MODEL 与服务的设置") % {
            "status": exc.status_code, "message": message,
        }
    return _("模型调用失败：%(error)s") % {"error": type(exc).__name__}


def broken_off(exc: Exception | None, *, partial: str, usage: dict, timeout: float | None = None) -> ModelError:
    """The error of a streamed answer that broke off part-way, by ``exc`` or (None) by ending without
    its last chunk. It carries the text the listener already has, so the runner can keep it; the
    calls that were still coming are dropped with the rest."""
    if isinstance(exc, openai.APITimeoutError):
        reason = _("%(seconds)s 秒内没有等到下一段") % {"seconds": f"{timeout:g}" if timeout else "?"}
    elif exc is None or isinstance(exc, openai.APIConnectionError):
        reason = _("连接在回答结束前断开")
    else:  # an error event in the stream
        reason = _("模型服务报错：%(message)s") % {"message": str(getattr(exc, "message", "") or type(exc).__name__)[:200]}
    message = _("模型的回答中途断了（%(reason)s）：可以再发一次；若反复出现，请管理员查看模型服务的日志") % {"reason": reason}
    kind = ModelTimeout if isinstance(exc, openai.APITimeoutError) else ModelError
    return kind(message, usage=usage, partial=partial)


# The client the calls of a ``pooled()`` block share, with the provider it belongs to.
_pooled: ContextVar[tuple[Any, AsyncOpenAI] | None] = ContextVar("openai_pooled_client", default=None)


async def _announce_sent(request: Any) -> None:
    """The HTTP client's hook as a request leaves: tell the calling task's listener (``request_sent``)."""
    listener = request_sent.get()
    if listener is not None:
        listener()


class OpenAICompatibleProvider:
    name = "openai"
    announces_requests = True  # ``request_sent`` hears of each request

    def __init__(
        self, *, model: str, api_key: str = "", base_url: str = "", timeout: float = 60.0, max_tokens: int = 512,
        temperature: float | None = None, seed: int | None = None, tool_mode: str = "auto",
    ) -> None:
        self.model = model
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.seed = seed
        self.api_key = api_key
        self.base_url = base_url
        self.timeout = timeout
        # How tools travel: "auto" starts native and switches to "text" when the endpoint refuses
        # them or to "constrained" when it ignores them; the other modes are fixed (AGENT_TOOL_MODE).
        self.tool_mode = tool_mode
        self._tools_judged = False
        # The response_format shapes still worth trying, best first; the one in use is logged once.
        self.response_formats = list(RESPONSE_FORMATS)
        self._format_logged = False
        self._context: int | None | bool = False  # not asked yet
        self._ssl: ssl.SSLContext | None = None
        self._text_ids = itertools.count(1)
        self.stream_usage = True  # ask a stream for its token usage until the endpoint refuses
        self._silent_calls_logged = False

    def _client(self) -> AsyncOpenAI:
        """A client for one call. An async HTTP pool belongs to one event loop and sync callers
        (``async_to_sync``) bring a new loop each time, so clients are not kept; sharing the
        SSL context keeps creating one cheap (about 1 ms instead of 50)."""
        if self._ssl is None:
            self._ssl = ssl.create_default_context()
        return AsyncOpenAI(
            api_key=self.api_key or "not-needed",  # local servers (vLLM, Ollama) ignore it
            base_url=self.base_url or None,
            timeout=self.timeout,
            max_retries=0,
            http_client=openai.DefaultAsyncHttpxClient(verify=self._ssl, event_hooks={"request": [_announce_sent]}),
        )

    @asynccontextmanager
    async def pooled(self) -> AsyncIterator[None]:
        """The calls made inside (and in the tasks started inside) share one client, and its HTTP
        connections stay open between them: a tick's batches, all on one event loop. A client per
        call cost a new client and a new connection each (``bench.autonomy_tick``'s model tick)."""
        async with self._client() as client:
            token = _pooled.set((self, client))
            try:
                yield
            finally:
                _pooled.reset(token)

    async def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        *,
        model: str | None = None,
        max_tokens: int | None = None,
        json_schema: dict | None = None,
    ) -> Completion:
        model = model or self.model
        cap = self._cap(max_tokens)
        if tools and self.tool_mode in (AUTO, NATIVE):
            try:
                completion = self._read(
                    await self._create(model=model, messages=messages, tools=sendable(tools), tool_choice="auto", **cap)
                )
            except openai.APIStatusError as exc:
                if not refuses_tools(exc):
                    raise self._failure(exc) from exc
                self._switch(TEXT, f"refused `tools` ({str(exc.message)[:200]})")
            else:
                if (invented := self._invents(tools, completion)):
                    self._switch(CONSTRAINED, f"called a tool with arguments the user's words do not give ({invented})")
                elif not self._ignores_tools(messages, tools, completion):
                    return completion
                else:
                    self._switch(CONSTRAINED, "ignores `tools` (they never reached the prompt, or it answered nothing)")
        if tools and self.tool_mode == CONSTRAINED:
            return await self._constrained(model, messages, tools, cap)
        if tools:
            response = await self._create_or_fail(model=model, messages=self._as_text_protocol(messages, tools), **cap)
            return self._read_text_protocol(response)
        if json_schema is not None and (completion := await self._complete_json(model, messages, json_schema, cap)):
            return completion
        return self._read(await self._create_or_fail(model=model, messages=messages, **cap))

    def _cap(self, max_tokens: int | None = None) -> dict[str, Any]:
        cap: dict[str, Any] = {"max_tokens": max_tokens or self.max_tokens}
        if self.temperature is not None:
            cap["temperature"] = self.temperature
        return cap

    async def stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], *, model: str | None = None,
        listener: ReplyListener,
    ) -> Completion:
        """The answer with its text handed to ``listener`` piece by piece (see the module doc)."""
        if tools and not self.native_tools:
            return await self._whole(messages, tools, model, listener)
        model = model or self.model
        offered = {"tools": sendable(tools), "tool_choice": "auto"} if tools else {}
        try:
            completion = await self._stream(listener, model=model, messages=messages, **offered, **self._cap())
        except NothingStreamed:
            if not tools:
                raise broken_off(None, partial="", usage={}) from None
            if not self._silent_calls_logged:
                self._silent_calls_logged = True
                logger.warning(
                    "model endpoint %s ended a streamed answer with tools before its first chunk (it cannot stream a "
                    "tool call: llama-cpp-python); such an answer is asked again whole", self.endpoint,
                )
            return await self._whole(messages, tools, model, listener)
        except openai.APIStatusError as exc:
            if not (tools and refuses_tools(exc)):
                raise self._failure(exc) from exc
            self._switch(TEXT, f"refused `tools` ({str(exc.message)[:200]})")
            return await self._whole(messages, tools, model, listener)
        if tools and not completion.stopped and (invented := self._invents(tools, completion)):
            # Its calls are not run: the answer is asked again under the grounded schemas.
            self._switch(CONSTRAINED, f"called a tool with arguments the user's words do not give ({invented})")
            return await self._whole(messages, tools, model, listener)
        if tools and not completion.stopped and self._ignores_tools(messages, tools, completion):
            # From now on the constrained protocol; an empty answer is asked again in it, a said one is on the page already.
            self._switch(CONSTRAINED, "ignores `tools` (they never reached the prompt, or it answered nothing)")
            if not completion.content.strip():
                return await self._whole(messages, tools, model, listener)
        return completion

    async def _whole(self, messages: list[dict], tools: list[dict], model: str | None, listener: ReplyListener) -> Completion:
        """An answer read whole (the text protocols), then handed to the listener as one piece."""
        try:
            completion = await unless_stopped(self.complete(messages, tools, model=model), listener)
        except Stopped:
            return Completion(stopped=True)
        if completion.content:
            listener.text(completion.content)
        return completion

    async def _stream(self, listener: ReplyListener, **kwargs: Any) -> Completion:
        """One streamed request, its deltas put together; stopped by the listener, it closes the response."""
        async with self._client() as client:
            while True:
                extra = {"stream_options": {"include_usage": True}} if self.stream_usage else {}
                try:
                    response = await unless_stopped(self._create(client=client, stream=True, **extra, **kwargs), listener)
                except Stopped:
                    return Completion(stopped=True)
                except openai.APIStatusError as exc:
                    if not (extra and refuses_param(exc, "stream_options")):
                        raise
                    self.stream_usage = False
                    logger.warning("model endpoint %s refused stream_options; streaming without usage", self.endpoint)
                    continue
                break
            pieces: list[str] = []
            calls: dict[int, dict] = {}
            usage: dict = {}
            finished = False  # the answer's last chunk (its finish_reason) came
            received = 0
            chunks = response.__aiter__()
            try:
                while True:
                    try:
                        chunk = await unless_stopped(chunks.__anext__(), listener)
                    except StopAsyncIteration:
                        break
                    received += 1
                    if getattr(chunk, "usage", None) is not None:
                        usage = self._usage(chunk)
                    for choice in (chunk.choices or [])[:1]:
                        self._take_delta(choice.delta, pieces, calls, listener)
                        finished = finished or bool(choice.finish_reason)
            except Stopped:
                return Completion(content="".join(pieces), usage=usage, stopped=True)
            except openai.OpenAIError as exc:  # the SDK wraps a broken connection or an error event mid-stream
                raise broken_off(exc, partial="".join(pieces), usage=usage, timeout=self.timeout) from exc
            finally:
                with suppress(Exception):
                    await response.close()  # closes the connection: the server stops generating
        if not received:
            raise NothingStreamed
        if not finished:  # a body that simply ended (a dropped close-delimited response): its calls may be cut
            raise broken_off(None, partial="".join(pieces), usage=usage)
        return Completion(content="".join(pieces), tool_calls=self._assembled(calls), usage=usage)

    @staticmethod
    def _take_delta(delta: Any, pieces: list[str], calls: dict[int, dict], listener: ReplyListener) -> None:
        if delta is None:
            return
        if delta.content:
            pieces.append(delta.content)
            listener.text(delta.content)
        for part in delta.tool_calls or []:
            slot = calls.setdefault(part.index or 0, {"id": "", "name": "", "arguments": []})
            slot["id"] = slot["id"] or (part.id or "")
            function = part.function
            if function is not None:
                slot["name"] = slot["name"] or (function.name or "")  # sent once, with the call's first delta
                slot["arguments"].append(function.arguments or "")

    @staticmethod
    def _assembled(calls: dict[int, dict]) -> list[ToolCallRequest]:
        """The streamed calls, whole, in order; the executor validates their arguments like any call's."""
        return [
            ToolCallRequest(id=slot["id"] or f"call_{index + 1}", name=slot["name"], arguments="".join(slot["arguments"]) or "{}")
            for index, slot in sorted(calls.items())
            if slot["name"]
        ]

    def _ignores_tools(self, messages: list[dict], tools: list[dict], completion: Completion) -> bool:
        """Judged once, on the first answer without a call where the tools dominate the prompt (later
        counts may leave out a cached prefix, and would look like tools that never arrived)."""
        if self.tool_mode != AUTO or self._tools_judged or completion.tool_calls:
            return False
        if not completion.content.strip():  # offered tools, it said nothing at all: it cannot work them
            self._tools_judged = True
            return True
        verdict = ignored_tools(messages, sendable(tools), completion.usage)
        if verdict is not None:
            self._tools_judged = True
        return bool(verdict)

    def _invents(self, tools: list[dict], completion: Completion) -> str:
        """Under ``auto``, the first call of ``completion`` whose arguments leave its grounded schema
        (``GROUNDED``: what the user's words give), as ``tool.argument=value``; "" when none does or
        nothing says (no grounded schema, or a write the words cannot fill: a look-up may)."""
        if self.tool_mode != AUTO:
            return ""
        schemas = {tool["function"]["name"]: tool.get(GROUNDED) for tool in tools}
        for call in completion.tool_calls:
            schema = schemas.get(call.name)
            if not isinstance(schema, dict):
                continue
            if (outside := outside_schema(call.arguments, schema)):
                return f"{call.name}.{outside}"
        return ""

    def _switch(self, mode: str, why: str) -> None:
        """From now on, tools travel in ``mode``; said once (concurrent calls may all find out)."""
        if self.tool_mode in (AUTO, NATIVE):
            self.tool_mode = mode
            label = {TEXT: "JSON-in-text", CONSTRAINED: "constrained (schema-decoded)"}[mode]
            logger.warning("model endpoint %s %s; using the %s tool protocol from now on", self.endpoint, why, label)

    async def _complete_json(self, model: str, messages: list[dict], schema: dict, cap: dict) -> Completion | None:
        """An answer decoded under ``schema`` in the first response_format shape the endpoint takes; None if it takes none."""
        while self.response_formats:
            shape = self.response_formats[0]
            try:
                # As ``extra_body``: the same JSON on the wire, but the SDK does not walk the schema
                # through its typed-dict transform first (3 ms of a tick batch's ~8 ms of client CPU).
                shaped = {"response_format": response_format(shape, schema)}
                answer = await self._create(model=model, messages=messages, extra_body=shaped, raw=True, **cap)
            except openai.APIStatusError as exc:
                if not refuses_param(exc, "response_format"):
                    raise self._failure(exc) from exc
                if shape in self.response_formats:  # concurrent batches may all be refused; say it once
                    self.response_formats.remove(shape)
                    logger.warning("model endpoint %s refused response_format %s (%s)", self.endpoint, shape, str(exc.message)[:200])
                continue
            if not self._format_logged:
                self._format_logged = True
                logger.info("model endpoint %s decodes under a JSON schema (response_format %s)", self.endpoint, shape)
            return self._read_raw(answer)
        return None

    async def _constrained(self, model: str, messages: list[dict], tools: list[dict], cap: dict) -> Completion:
        """Two small decisions instead of one big one: which tool (or none), then that tool's arguments,
        each decoded under its schema; "none" gets a plain reply. Without response_format: the text protocol."""
        # Each tool once a turn under this protocol: a small model otherwise calls the tool it just
        # called until the round cap (Gemma 3 270M rested four times for one "rest").
        called = called_this_turn(messages)
        # A write whose arguments the user's words cannot fill (``GROUNDED`` False) is not offered either.
        tools = [tool for tool in tools if tool["function"]["name"] not in called and tool.get(GROUNDED) is not False]
        if not tools:
            return self._read(await self._create_or_fail(model=model, messages=self._as_text_protocol(messages, []), **cap))
        names = [tool["function"]["name"] for tool in tools]
        listing = "\n".join(f"- {t['function']['name']}: {t['function'].get('description', '')}" for t in tools)
        conversation = self._as_text_protocol(messages, [], protocol=CHOOSE_TOOL.format(tools=listing))
        # The options in the tools' order (best first); once a tool has answered, "none" leads:
        # a small model leans to the first option, and after a result the usual next step is the reply.
        answered = bool(messages) and messages[-1].get("role") == "tool"
        options = [NO_TOOL, *names] if answered else [*names, NO_TOOL]
        choice_schema = {
            "type": "object", "properties": {"tool": {"type": "string", "enum": options}},
            "required": ["tool"], "additionalProperties": False,
        }
        choice = await self._complete_json(model, conversation, choice_schema, {**cap, "max_tokens": 32})
        if choice is None:  # the endpoint decodes under no schema after all
            response = await self._create_or_fail(model=model, messages=self._as_text_protocol(messages, tools), **cap)
            return self._read_text_protocol(response)
        usage = dict(choice.usage)
        picked = _json_field(choice.content, "tool")
        if picked not in names:
            reply = self._read(await self._create_or_fail(model=model, messages=self._as_text_protocol(messages, []), **cap))
            return Completion(content=reply.content, usage=_added(usage, reply.usage))
        tool = tools[names.index(picked)]["function"]
        # The arguments' schema grounded in the user's words where the caller gave one (``agents.grounding``).
        schema = tools[names.index(picked)].get(GROUNDED) or tool.get("parameters") or {"type": "object"}
        if (only := only_value(schema)) is not None:  # the schema leaves one answer: no need to ask for it
            call = ToolCallRequest(id=f"call_constrained_{next(self._text_ids)}", name=picked, arguments=json.dumps(only, ensure_ascii=False))
            return Completion(tool_calls=[call], usage=usage)
        said = next((m.get("content") or "" for m in reversed(messages) if m.get("role") == "user"), "")
        ask = [*conversation, {"role": "user", "content": FILL_ARGUMENTS.format(tool=picked, said=said)}]
        filled = await self._complete_json(model, ask, schema, cap)
        arguments = filled.content if filled is not None else "{}"
        call = ToolCallRequest(id=f"call_constrained_{next(self._text_ids)}", name=picked, arguments=arguments or "{}")
        return Completion(tool_calls=[call], usage=_added(usage, filled.usage if filled else {}))
    def context_tokens(self) -> int | None:
        """The context the server says it has (llama.cpp's ``/props``, or ``max_model_len`` / ``n_ctx`` in
        ``/v1/models``), asked once; None when it does not say."""
        if self._context is False:
            self._context = self._ask_context()
            if self._context:
                logger.info("model endpoint %s has a context of %s tokens", self.endpoint, self._context)
        return self._context or None

    def _ask_context(self) -> int | None:
        if not self.base_url:
            return None  # OpenAI itself: AGENT_CONTEXT_TOKENS
        root = self.base_url.rstrip("/").removesuffix("/v1")
        for url, read in ((f"{root}/props", _props_context), (f"{self.base_url.rstrip('/')}/models", _models_context)):
            request = urllib.request.Request(url, headers={"Authorization": f"Bearer {self.api_key or 'not-needed'}"})
            try:
                with urllib.request.urlopen(request, timeout=min(self.timeout, 5.0)) as response:  # noqa: S310 (the configured endpoint)
                    found = read(json.loads(response.read(1_000_000)))
            except (OSError, ValueError):  # refused, 404, not JSON: the server does not say
                found = None
            if isinstance(found, int) and not isinstance(found, bool) and found > 0:
                return found
        return None

    @property
    def native_tools(self) -> bool:
        return self.tool_mode in (AUTO, NATIVE)

    @property
    def endpoint(self) -> str:
        return self.base_url or "api.openai.com"

    async def _create_or_fail(self, **kwargs: Any) -> Any:
        try:
            return await self._create(**kwargs)
        except openai.APIStatusError as exc:
            raise self._failure(exc) from exc

    async def _create(self, **kwargs: Any) -> Any:
        """One request (with the seed, while the endpoint takes it), retried exactly once on a transient failure."""
        if self.seed is not None:
            try:
                return await self._create_once(seed=self.seed, **kwargs)
            except openai.APIStatusError as exc:
                if not refuses_param(exc, "seed"):
                    raise
                if self.seed is not None:
                    self.seed = None
                    logger.warning("model endpoint %s refused `seed` (%s); asking without it from now on",
                                   self.base_url or "api.openai.com", str(exc.message)[:200])
        return await self._create_once(**kwargs)

    async def _create_once(self, client: AsyncOpenAI | None = None, *, raw: bool = False, **kwargs: Any) -> Any:
        """``client``: the caller's, kept open after the call (a stream reads from it); else the
        ``pooled()`` block's; else one for this call. ``raw``: the answer's text (``_send``)."""
        pooled = _pooled.get()
        if client is None and pooled is not None and pooled[0] is self:
            client = pooled[1]
        for attempt in (1, 2):
            try:
                if client is not None:
                    return await self._send(client, raw, kwargs)
                async with self._client() as own:
                    return await self._send(own, raw, kwargs)
            except TRANSIENT as exc:
                if invalid_request(exc):  # not retried; the caller reads it (a refused parameter?) as a 4xx
                    raise
                if attempt == 2:
                    raise self._failure(exc) from exc
                logger.info("model call failed (%s), retrying once", describe(exc, endpoint=self.base_url, timeout=self.timeout))
            except openai.APIStatusError:
                raise
            except openai.OpenAIError as exc:
                raise self._failure(exc) from exc
            except ValueError as exc:  # a 200 whose body is not JSON
                raise ModelError(_("模型返回了无法解析的响应")) from exc
        raise AssertionError("unreachable")

    async def _send(self, client: AsyncOpenAI, raw: bool, kwargs: dict[str, Any]) -> Any:
        if not raw:
            return await client.chat.completions.create(timeout=self.timeout, **kwargs)
        # The body ``create`` would send, posted by the same client (headers, errors, timeout) without
        # its typed-dict walk of the parameters and its models for the answer: ~1 ms of CPU a call,
        # the busiest part of the event loop that runs a tick's concurrent calls. The answer's text.
        body = {key: value for key, value in kwargs.items() if key != "extra_body"} | kwargs.get("extra_body", {})
        return await client.post("/chat/completions", cast_to=str, body=body, options={"timeout": self.timeout})

    def _failure(self, exc: Exception) -> ModelError:
        return model_error(exc, endpoint=self.base_url, timeout=self.timeout)

    @staticmethod
    def _read_raw(text: str) -> Completion:
        """A ``raw`` answer read as ``_read`` reads the SDK's: the first choice's text and the usage."""
        try:
            body = json.loads(text)
        except ValueError as exc:  # a 200 whose body is not JSON
            raise ModelError(_("模型返回了无法解析的响应")) from exc
        counted = body.get("usage") if isinstance(body, dict) else None
        try:
            keys = ("prompt_tokens", "completion_tokens", "total_tokens")
            usage = {key: int(counted.get(key) or 0) for key in keys} if isinstance(counted, dict) else {}
        except (TypeError, ValueError):
            usage = {}
        try:
            content = body["choices"][0]["message"].get("content")
        except (AttributeError, IndexError, KeyError, TypeError) as exc:
            raise ModelError(_("模型返回了无法解析的响应"), usage=usage) from exc
        if content is not None and not isinstance(content, str):
            raise ModelError(_("模型返回了无法解析的响应"), usage=usage)
        return Completion(content=content or "", usage=usage)

    @staticmethod
    def _usage(response: Any) -> dict:
        usage = getattr(response, "usage", None)
        if usage is None:
            return {}
        return {
            key: int(getattr(usage, key, 0) or 0) for key in ("prompt_tokens", "completion_tokens", "total_tokens")
        }

    @classmethod
    def _message(cls, response: Any) -> Any:
        try:
            message = response.choices[0].message
            message.content  # noqa: B018  (a garbage body fails here, not later)
            return message
        except (AttributeError, IndexError, KeyError, TypeError) as exc:
            try:
                usage = cls._usage(response)
            except (AttributeError, TypeError, ValueError):
                usage = {}
            raise ModelError(_("模型返回了无法解析的响应"), usage=usage) from exc

    def _read(self, response: Any) -> Completion:
        message = self._message(response)
        calls = []
        for index, call in enumerate(getattr(message, "tool_calls", None) or []):
            function = getattr(call, "function", None)
            if function is None or not getattr(function, "name", None):
                continue  # not a function call (e.g. a custom tool); nothing we offered
            calls.append(
                ToolCallRequest(
                    id=getattr(call, "id", None) or f"call_{index + 1}",
                    name=str(function.name),
                    arguments=function.arguments if function.arguments is not None else "{}",
                )
            )
        return Completion(content=message.content or "", tool_calls=calls, usage=self._usage(response))

    @staticmethod
    def _as_text_protocol(
        messages: list[dict[str, Any]], tools: list[dict[str, Any]], *, protocol: str | None = None
    ) -> list[dict[str, Any]]:
        """The conversation rewritten for a model without function calling (``protocol`` replaces the
        tool instructions; with no tools and no protocol, only the calls and results become text)."""
        if protocol is None and tools:
            protocol = TEXT_PROTOCOL.format(tools=json.dumps([t["function"] for t in tools], ensure_ascii=False))
        out: list[dict[str, Any]] = []
        for message in messages:
            role = message.get("role")
            if role == "tool":
                out.append(
                    {
                        "role": "user",
                        "content": f"[tool result] {message.get('name') or ''} ({message.get('tool_call_id', '')}): "
                        f"{message.get('content', '')}",
                    }
                )
            elif role == "assistant" and message.get("tool_calls"):
                calls = [
                    {"name": c["function"]["name"], "arguments": c["function"].get("arguments", "{}")}
                    for c in message["tool_calls"]
                ]
                out.append({"role": "assistant", "content": json.dumps({"tool_calls": calls}, ensure_ascii=False)})
            else:
                out.append({"role": role, "content": message.get("content") or ""})
        if not protocol:
            return out
        if out and out[0]["role"] == "system":
            out[0] = {"role": "system", "content": f"{out[0]['content']}\n\n{protocol}"}
        else:
            out.insert(0, {"role": "system", "content": protocol})
        return out

    def _read_text_protocol(self, response: Any) -> Completion:
        message = self._message(response)
        content = message.content or ""
        usage = self._usage(response)
        try:
            value = find_json(content)
        except NoJSON:
            return Completion(content=content, usage=usage)
        if not isinstance(value, dict) or not isinstance(value.get("tool_calls"), list):
            return Completion(content=content, usage=usage)
        calls = []
        for item in value["tool_calls"]:
            if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                continue
            arguments = item.get("arguments", {})
            calls.append(
                ToolCallRequest(
                    id=f"call_text_{next(self._text_ids)}",
                    name=item["name"],
                    arguments=arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False),
                )
            )
        if not calls:
            return Completion(content=content, usage=usage)
        return Completion(content="", tool_calls=calls, usage=usage)
