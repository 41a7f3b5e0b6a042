"""The chat runner fits ``AGENT_CONTEXT_TOKENS``: one long message never makes a conversation unusable."""

from __future__ import annotations

import json

import pytest

from agents.chat import run_chat
from agents.models import Conversation
from agents.providers.tokens import estimate_tokens, messages_tokens
from core.errors import ApplicationError
from tests.support.scripted_openai import ScriptedOpenAI, _Entry, _estimate_tokens, openai_error

pytestmark = pytest.mark.django_db

CONTEXT = 4096


class SmallContext(ScriptedOpenAI):
    """The scripted server with a 4096-token context, refusing as llama.cpp does: prompt + max_tokens must fit."""

    def _answer(self, request):
        needed = _estimate_tokens(json.dumps([request.get("messages"), request.get("tools")])) + request.get("max_tokens", 0)
        if needed > CONTEXT:
            with self._lock:
                self._requests.append(request)
            message = f"Requested tokens ({needed}) exceed context window of {CONTEXT}: maximum context length is {CONTEXT}"
            return _Entry(400, openai_error(message), 0.0)
        return super()._answer(request)


@pytest.fixture
def small_model(settings):
    settings.AGENT_PROVIDER, settings.OPENAI_API_KEY, settings.AGENT_MODEL = "openai", "k", "small"
    settings.AGENT_CONTEXT_TOKENS, settings.AGENT_MAX_TOKENS = CONTEXT, 512
    with SmallContext() as server:
        settings.OPENAI_BASE_URL = server.base_url
        server.respond_with(lambda request: {"content": "好的"}, delay=0)
        yield server


@pytest.fixture
def alice(make_agent):
    return make_agent("Alice", tools=("get_my_status",))


def say(agent, message, conversation=None):
    return run_chat(agent=agent, message=message, conversation_id=conversation.pk if conversation else None)


def test_a_3900_character_message_does_not_break_the_turns_after_it(small_model, alice):
    with pytest.raises(ApplicationError) as failed:
        say(alice, "长" * 3900)  # too long for this model even alone: an honest 502
    assert failed.value.status_code == 502 and "缩短" in failed.value.message
    conversation = Conversation.objects.get(pk=failed.value.extra["conversation_id"])

    for message in ("你好", "我的状态", "谢谢"):
        assert say(alice, message, conversation).reply == "好的"
    last = small_model.requests[-1]["messages"]
    assert last[0]["role"] == "system" and last[-1]["content"] == "谢谢"
    assert all(m["content"] != "长" * 3900 for m in last)


def test_long_english_turns_keep_fitting_as_the_history_grows(small_model, alice):
    conversation = say(alice, "word " * 780).conversation  # 3,900 characters
    for _turn in range(6):
        assert say(alice, "more " * 780, conversation).reply == "好的"
    last = small_model.requests[-1]["messages"]
    assert 2 < len(last) < 14  # older turns were left out, the newest kept
    assert all(request.get("max_tokens") == 512 for request in small_model.requests)


def test_history_that_fits_is_sent_whole(small_model, alice):
    conversation = say(alice, "你好").conversation
    say(alice, "再见", conversation)
    sent = small_model.requests[-1]["messages"]
    assert [m["content"] for m in sent if m["role"] == "user"] == ["你好", "再见"]


def test_the_estimate_errs_high():
    assert estimate_tokens("长" * 100) >= 100  # real tokenizers: 70 to 150
    assert estimate_tokens("word " * 100) >= 125  # real tokenizers: about 100 to 125
    assert messages_tokens([{"role": "user", "content": ""}]) > 0


def test_the_servers_own_context_wins_when_it_says_less(small_model, alice, settings):
    # Issue 27: AGENT_CONTEXT_TOKENS said 8192 while the llama.cpp server had 4096.
    settings.AGENT_CONTEXT_TOKENS = 8192
    small_model.get_answers["/props"] = {"default_generation_settings": {"n_ctx": CONTEXT}}
    conversation = say(alice, "word " * 780).conversation
    for _turn in range(4):
        assert say(alice, "more " * 780, conversation).reply == "好的"
    assert all(len(json.dumps(r["messages"])) / 4 + 512 <= CONTEXT for r in small_model.requests)  # none refused


def test_a_context_overflow_is_retried_once_with_a_shorter_history(small_model, alice, settings):
    settings.AGENT_CONTEXT_TOKENS = 8192  # and the server does not say it has less
    conversation = say(alice, "word " * 780).conversation
    for _turn in range(4):
        assert say(alice, "more " * 780, conversation).reply == "好的"
    sizes = [len(r["messages"]) for r in small_model.requests]
    assert any(later < earlier for earlier, later in zip(sizes, sizes[1:], strict=False))  # a refused one, then shorter


def test_the_context_is_read_from_vllms_model_list(scripted_openai, settings):
    from agents.providers import context_tokens, get_provider

    settings.AGENT_PROVIDER, settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY = "openai", scripted_openai.base_url, "k"
    settings.AGENT_CONTEXT_TOKENS = 8192
    scripted_openai.get_answers["/v1/models"] = {"data": [{"id": "qwen", "max_model_len": 2048}]}
    assert context_tokens(get_provider()) == 2048


def test_without_a_word_from_the_server_the_setting_holds(scripted_openai, settings):
    from agents.providers import context_tokens, get_provider

    settings.AGENT_PROVIDER, settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY = "openai", scripted_openai.base_url, "k"
    settings.AGENT_CONTEXT_TOKENS = 3000
    assert context_tokens(get_provider()) == 3000
