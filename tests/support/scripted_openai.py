"""A local OpenAI-compatible chat completions server for tests and benchmarks.

Use it with the real SDK::

    with ScriptedOpenAI() as server:
        server.tool_calls([("create_bounty", {"title": "x"})]).reply("done")
        client = AsyncOpenAI(base_url=server.base_url, api_key="test", max_retries=0)

Scripted entries answer requests in order; an empty script answers 500 "script exhausted".
``respond_with`` switches to a responder callable that answers every request instead.

A request with ``stream: true`` gets the same answer as server-sent events, the way OpenAI
sends them: the text in pieces, each tool call as deltas (id and name first, then its
arguments in pieces), ``finish_reason`` in the last chunk, the usage after it when the request
asked (``stream_options.include_usage``), then ``data: [DONE]``. ``chunk_delay`` spaces the
chunks; a client that goes away mid-answer is noticed between chunks (``aborted_streams``,
``streams_finished``), which is how tests prove that Stop closed the model request.
``cut_after=N`` breaks a streamed answer after its first N pieces (text pieces and call deltas):
``cut="drop"`` closes the connection mid-body (chunked framing, as uvicorn and llama.cpp send,
so the client sees a broken body), ``"end"`` ends the body cleanly but without the last chunk
and ``[DONE]``, ``"error"`` sends an error event (OpenAI's ``{"error": ...}``) and ends.
``cannot_stream_tool_calls()`` answers as llama-cpp-python 0.3.36 does when its model picks a
tool in a streamed request: a 200 event stream with a keep-alive comment and no chunk at all.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

JSON = dict[str, Any]
# (name, arguments): a dict is sent as its JSON, a string as it is (to simulate malformed JSON).
ToolCall = tuple[str, JSON | str]
Responder = Callable[[JSON], JSON]

COMPLETIONS_PATH = "/v1/chat/completions"


def openai_error(
    message: str, type_: str = "invalid_request_error", param: str | None = None, code: str | None = None
) -> JSON:
    """An error body in the shape the OpenAI API sends."""
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


def tool_call(name: str, arguments: JSON | str, call_id: str | None = None) -> JSON:
    """One assistant tool call in the OpenAI shape; a dict of arguments is sent as its JSON."""
    encoded = arguments if isinstance(arguments, str) else json.dumps(arguments)
    call_id = call_id or f"call_{uuid.uuid4().hex[:24]}"
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": encoded}}


def _estimate_tokens(text: str) -> int:
    # About four characters a token, like OpenAI's rule of thumb; deterministic for tests.
    return max(1, len(text) // 4)


def assistant_message(content: str | None, calls: Sequence[ToolCall | JSON] = ()) -> JSON:
    """An assistant message in the OpenAI shape; calls are (name, arguments) or OpenAI dicts."""
    message: JSON = {"role": "assistant", "content": content, "refusal": None}
    if calls:
        message["tool_calls"] = [
            tool_call(*call)
            if isinstance(call, tuple)
            else tool_call(call["function"]["name"], call["function"]["arguments"], call.get("id"))
            for call in calls
        ]
    return message


@dataclass
class _Entry:
    status: int
    body: JSON | str
    delay: float
    usage: tuple[int, int] | None = None
    # Streamed answers: the text in these pieces (default: about four characters each), this far apart.
    chunks: Sequence[str] | None = None
    chunk_delay: float = 0.0
    cut_after: int | None = None  # a streamed answer breaks after this many pieces, the way ``cut`` says
    cut: str = "drop"
    silent: bool = False  # a stream with no chunk at all (cannot_stream_tool_calls)


def _pieces(text: str, size: int = 4) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def stream_chunks(completion: JSON, entry: _Entry, *, include_usage: bool) -> list[JSON]:
    """``completion`` as the ``chat.completion.chunk`` objects an OpenAI stream sends."""
    message = completion["choices"][0]["message"]
    base = {"id": completion["id"], "object": "chat.completion.chunk", "created": completion["created"], "model": completion["model"]}

    def chunk(delta: JSON, finish: str | None = None) -> JSON:
        return {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}

    out = [chunk({"role": "assistant", "content": ""})]
    content = message.get("content") or ""
    out += [chunk({"content": piece}) for piece in (entry.chunks if entry.chunks is not None else _pieces(content))]
    for index, call in enumerate(message.get("tool_calls") or []):
        head = {"index": index, "id": call["id"], "type": "function", "function": {"name": call["function"]["name"], "arguments": ""}}
        out.append(chunk({"tool_calls": [head]}))
        for piece in _pieces(call["function"]["arguments"], 6):
            out.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    out.append(chunk({}, completion["choices"][0]["finish_reason"]))
    if include_usage:
        out.append({**base, "choices": [], "usage": completion["usage"]})
    return out


class ScriptedOpenAI:
    """``POST /v1/chat/completions`` on a free 127.0.0.1 port, answered from a script."""

    def __init__(self) -> None:
        self.port = 0
        self._lock = threading.Lock()
        self._in_flight = self._most_in_flight = 0
        self._script: deque[_Entry] = deque()
        self._requests: list[JSON] = []
        self._reject_tools = False
        self._cannot_stream_calls = False
        # What GET answers, by path (llama.cpp's /props, /v1/models): a 404 for anything else.
        self.get_answers: dict[str, JSON] = {}
        self._rejected_formats: frozenset[str] = frozenset()
        self._rejected_status = 422
        self._responder: Responder | None = None
        self._responder_delay = 0.0
        self._stopping = threading.Event()
        # Streamed answers a client closed before their last chunk, and those sent to the end.
        self._aborted_streams = self._streams_finished = 0
        self._chunk_times: list[float] = []  # time.monotonic() as each streamed chunk was written
        self.stream_aborted = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def requests(self) -> list[JSON]:
        """The JSON bodies received so far, oldest first."""
        with self._lock:
            return list(self._requests)

    @property
    def unconsumed(self) -> int:
        """How many scripted entries no request has taken yet."""
        with self._lock:
            return len(self._script)

    def _add(self, entry: _Entry) -> ScriptedOpenAI:
        with self._lock:
            self._script.append(entry)
        return self

    @property
    def aborted_streams(self) -> int:
        """Streamed answers whose client closed the connection before the last chunk was sent."""
        with self._lock:
            return self._aborted_streams

    @property
    def streams_finished(self) -> int:
        """Streamed answers sent to the end (``[DONE]``)."""
        with self._lock:
            return self._streams_finished

    def reply(
        self, content: str | Sequence[str], *, delay: float = 0.0, usage: tuple[int, int] | None = None, chunk_delay: float = 0.0,
        cut_after: int | None = None, cut: str = "drop",
    ) -> ScriptedOpenAI:
        """Script an assistant text answer (finish_reason "stop"); a list of strings is streamed in those pieces."""
        chunks = None if isinstance(content, str) else list(content)
        text = content if isinstance(content, str) else "".join(content)
        return self._add(_Entry(200, assistant_message(text), delay, usage, chunks, chunk_delay, cut_after, cut))

    def tool_calls(
        self,
        calls: Sequence[ToolCall],
        content: str | None = None,
        *,
        delay: float = 0.0,
        usage: tuple[int, int] | None = None,
        chunk_delay: float = 0.0,
        cut_after: int | None = None,
        cut: str = "drop",
    ) -> ScriptedOpenAI:
        """Script an answer with tool calls (finish_reason "tool_calls")."""
        return self._add(
            _Entry(200, assistant_message(content, calls), delay, usage, chunk_delay=chunk_delay, cut_after=cut_after, cut=cut)
        )

    def error(self, status: int, body: JSON | str | None = None, *, delay: float = 0.0) -> ScriptedOpenAI:
        """Script an HTTP error; the default body is an OpenAI error JSON."""
        if body is None:
            kind = "server_error" if status >= 500 else "invalid_request_error"
            body = openai_error(f"scripted error {status}", kind)
        return self._add(_Entry(status, body, delay))

    def reject_tools(self, reject: bool = True) -> ScriptedOpenAI:
        """Answer 400 to every request that offers ``tools``, without using the script."""
        self._reject_tools = reject
        return self

    def cannot_stream_tool_calls(self, cannot: bool = True) -> ScriptedOpenAI:
        """Answer a streamed request whose answer is a tool call with a silent stream, as
        llama-cpp-python 0.3.36 does (its chatml-function-calling raises "Automatic streaming tool
        choice is not supported" inside the stream): a scripted entry stays for the next request."""
        self._cannot_stream_calls = cannot
        return self

    def reject_response_format(self, *types: str, status: int = 422) -> ScriptedOpenAI:
        """Refuse a ``response_format`` of these types: a 422 naming it (FastAPI's validation), or with
        ``status=500`` as llama-cpp-python 0.3.36's server really does (its validation error as a 500)."""
        self._rejected_formats, self._rejected_status = frozenset(types), status
        return self

    def respond_with(self, responder: Responder, delay: float = 0.2) -> ScriptedOpenAI:
        """Answer every request with ``responder(request_json)``, each after ``delay`` s.

        The responder returns a message dict: ``{"content": ...}`` and/or ``{"tool_calls": [...]}``
        with calls as (name, arguments) tuples or OpenAI dicts, and optionally ``"usage": (prompt, completion)``. It runs on the server's request
        threads, concurrently.
        """
        with self._lock:
            self._responder, self._responder_delay = responder, delay
        return self

    def _answer(self, request: JSON) -> _Entry:
        with self._lock:
            self._requests.append(request)
            responder, responder_delay = self._responder, self._responder_delay
            if self._reject_tools and request.get("tools"):
                message = "tools is not supported with this model"
                return _Entry(400, openai_error(message, param="tools", code="unsupported_parameter"), 0.0)
            shape = (request.get("response_format") or {}).get("type")
            if shape in self._rejected_formats:
                if self._rejected_status == 500:  # llama-cpp-python's body, word for word
                    message = (
                        "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
                        f"'msg': \"Input should be 'text' or 'json_object'\", 'input': '{shape}'}}"
                    )
                    return _Entry(500, openai_error(message, "internal_server_error"), 0.0)
                detail = [{"loc": ["body", "response_format", "type"], "msg": f"unsupported type {shape}"}]
                return _Entry(422, {"detail": detail}, 0.0)
            silent = self._cannot_stream_calls and bool(request.get("stream") and request.get("tools"))
            if responder is None:
                if not self._script:
                    return _Entry(500, openai_error("ScriptedOpenAI: script exhausted", "server_error"), 0.0)
                if silent and isinstance(self._script[0].body, dict) and self._script[0].body.get("tool_calls"):
                    return _Entry(200, {}, 0.0, silent=True)
                return self._script.popleft()
        try:
            answer = responder(request)
        except Exception as exc:
            # A clear 500 instead of a dropped connection, so the failing test says why.
            return _Entry(500, openai_error(f"ScriptedOpenAI responder raised {exc!r}", "server_error"), 0.0)
        message = assistant_message(answer.get("content"), answer.get("tool_calls") or ())
        if silent and message.get("tool_calls"):
            return _Entry(200, {}, 0.0, silent=True)
        return _Entry(200, message, responder_delay, answer.get("usage"))

    def _completion(self, request: JSON, entry: _Entry) -> JSON:
        message = entry.body if isinstance(entry.body, dict) else {}
        if entry.usage is not None:
            prompt_tokens, completion_tokens = entry.usage
        else:
            prompt_tokens = _estimate_tokens(json.dumps([request.get("messages"), request.get("tools")]))
            calls = [call["function"] for call in message.get("tool_calls", [])]
            completion_tokens = _estimate_tokens((message.get("content") or "") + json.dumps(calls))
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model", "scripted"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    @property
    def most_in_flight(self) -> int:
        """The most requests this server was answering at one moment: proof of concurrency
        that does not depend on how fast the machine is."""
        with self._lock:
            return self._most_in_flight

    def _enter(self) -> None:
        with self._lock:
            self._in_flight += 1
            self._most_in_flight = max(self._most_in_flight, self._in_flight)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _handle(self, path: str, raw: bytes) -> tuple[int, JSON | str, float, list[JSON] | None, float, str | None]:
        """Status, body and delay of the answer; for a streamed one also its chunks, their spacing,
        and how it breaks off after the last of them (None: it ends as it should)."""
        if path.split("?")[0].rstrip("/") != COMPLETIONS_PATH:
            return 404, openai_error(f"ScriptedOpenAI serves only POST {COMPLETIONS_PATH}, not {path}"), 0.0, None, 0.0, None
        try:
            request = json.loads(raw)
        except ValueError:
            return 400, openai_error("request body is not JSON"), 0.0, None, 0.0, None
        entry = self._answer(request)
        if entry.status != 200:
            return entry.status, entry.body, entry.delay, None, 0.0, None
        if entry.silent:
            return 200, {}, entry.delay, [], 0.0, "silent"
        body = self._completion(request, entry)
        if not request.get("stream"):
            return 200, body, entry.delay, None, 0.0, None
        include_usage = bool((request.get("stream_options") or {}).get("include_usage"))
        chunks = stream_chunks(body, entry, include_usage=include_usage)
        if entry.cut_after is None:
            return 200, body, entry.delay, chunks, entry.chunk_delay, None
        return 200, body, entry.delay, chunks[: 1 + entry.cut_after], entry.chunk_delay, entry.cut  # the first only says the role

    @property
    def chunk_times(self) -> list[float]:
        """When each streamed chunk was written (``time.monotonic()``), all streams, in order."""
        with self._lock:
            return list(self._chunk_times)

    def _chunk_sent(self) -> None:
        with self._lock:
            self._chunk_times.append(time.monotonic())

    def _streamed(self) -> None:
        with self._lock:
            self._streams_finished += 1

    def _abandoned(self) -> None:
        with self._lock:
            self._aborted_streams += 1
        self.stream_aborted.set()

    def _client_gone(self, connection: socket.socket, wait: float) -> bool:
        """Wait up to ``wait`` s (less when the server stops) and tell whether the client closed the connection."""
        readable, _, _ = select.select([connection], [], [], max(wait, 0.0))
        if not readable:
            return False
        try:
            return connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def __enter__(self) -> ScriptedOpenAI:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            # Keep-alive, as the SDK's connection pool expects.
            protocol_version = "HTTP/1.1"
            # Headers and body are two writes: under Nagle the body waited for the client's delayed
            # ACK, ~40 ms an answer on a kept connection. Real servers (uvicorn, asyncio) set TCP_NODELAY.
            disable_nagle_algorithm = True

            def do_GET(self) -> None:
                body = owner.get_answers.get(self.path.split("?")[0].rstrip("/"))
                data = json.dumps(body if body is not None else openai_error(f"no GET {self.path}")).encode()
                self.send_response(200 if body is not None else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status, body, delay, chunks, chunk_delay, cut = owner._handle(self.path, raw)
                owner._enter()
                try:
                    # Wakes early when the server stops, so shutdown never waits on a delay.
                    stopped = bool(delay) and owner._stopping.wait(delay)
                finally:
                    owner._leave()
                if stopped:
                    self.close_connection = True
                    return
                if chunks is not None:
                    self._send_stream(chunks, chunk_delay, cut)
                    return
                payload = body if isinstance(body, str) else json.dumps(body)
                data = payload.encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "text/plain" if isinstance(body, str) else "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    # The client gave up (its timeout); nothing to answer.
                    self.close_connection = True

            def _send_stream(self, chunks: list[JSON], spacing: float, cut: str | None = None) -> None:
                """Server-sent events, one chunk at a time; stops when the client goes away, breaks off as ``cut`` says."""
                self.close_connection = True  # the stream ends with the connection, as chunked SSE would
                framed = cut == "drop"  # chunked: closing before the last (empty) chunk is a broken body

                def write(data: bytes) -> None:
                    self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n" if framed else data)
                    self.wfile.flush()

                events: list[JSON | None] = [*chunks, None] if cut is None else list(chunks)
                comments = [b": ping\n\n"] if cut == "silent" else []  # sse-starlette's keep-alive, then nothing
                if cut == "error":
                    events.append(openai_error("scripted failure mid-answer", "server_error"))
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Cache-Control", "no-cache")
                    if framed:
                        self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for comment in comments:
                        write(comment)
                    for position, chunk in enumerate(events):
                        if position and (owner._client_gone(self.connection, spacing) or owner._stopping.is_set()):
                            owner._abandoned()
                            return
                        data = "[DONE]" if chunk is None else json.dumps(chunk, ensure_ascii=False)
                        write(f"data: {data}\n\n".encode())
                        owner._chunk_sent()
                except (BrokenPipeError, ConnectionResetError):
                    owner._abandoned()
                    return
                if cut is None:
                    owner._streamed()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            # Benchmarks open many connections at once; the default backlog of 5 drops some.
            request_queue_size = 256

        self._httpd = Server(("127.0.0.1", 0), Handler)
        self.port = self._httpd.server_address[1]
        # A short poll interval keeps shutdown (once per test) quick.
        serve = partial(self._httpd.serve_forever, poll_interval=0.05)
        self._thread = threading.Thread(target=serve, name="scripted-openai", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
