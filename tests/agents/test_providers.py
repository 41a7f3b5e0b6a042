"""Model providers: the real ``openai`` SDK against the local scripted server, and the factory."""

from __future__ import annotations

import json
import logging
import socket
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from asgiref.sync import async_to_sync
from django.core import checks

from agents.checks import check_model_endpoint
from agents.models import Agent
from agents.providers import get_provider, model_for
from agents.providers.base import ModelError, ModelTimeout, ModelUnavailable
from agents.providers.openai_compatible import OpenAICompatibleProvider
from agents.providers.rules import RulesProvider
from tests.support.scripted_openai import openai_error

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_my_status",
            "description": "查看自己的状态",
            "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
        },
    }
]
HELLO = [{"role": "system", "content": "你是 Alice"}, {"role": "user", "content": "我的状态"}]


def provider_for(server, timeout: float = 5.0) -> OpenAICompatibleProvider:
    return OpenAICompatibleProvider(model="scripted-model", api_key="test-key", base_url=server.base_url, timeout=timeout)


def complete(provider, messages=HELLO, tools=TOOLS):
    return async_to_sync(provider.complete)(messages, tools)


def test_tool_call_answer_becomes_tool_call_requests_with_usage(scripted_openai):
    scripted_openai.tool_calls([("get_my_status", {})], usage=(120, 8))
    completion = complete(provider_for(scripted_openai))
    assert [(c.name, json.loads(c.arguments)) for c in completion.tool_calls] == [("get_my_status", {})]
    assert completion.tool_calls[0].id.startswith("call_")
    assert completion.usage == {"prompt_tokens": 120, "completion_tokens": 8, "total_tokens": 128}
    request = scripted_openai.requests[0]
    assert request["model"] == "scripted-model"
    assert request["tools"] == TOOLS
    assert request["messages"] == HELLO


def test_text_answer_has_no_tool_calls(scripted_openai):
    scripted_openai.reply("你好")
    completion = complete(provider_for(scripted_openai))
    assert (completion.content, completion.tool_calls) == ("你好", [])


def test_no_tools_offered_sends_no_tools_key(scripted_openai):
    scripted_openai.reply("ok")
    complete(provider_for(scripted_openai), tools=[])
    assert "tools" not in scripted_openai.requests[0]


def test_model_name_can_be_chosen_per_call(scripted_openai):
    scripted_openai.reply("ok")
    async_to_sync(provider_for(scripted_openai).complete)(HELLO, [], model="other-model")
    assert scripted_openai.requests[0]["model"] == "other-model"


def test_server_error_is_retried_once_then_succeeds(scripted_openai):
    scripted_openai.error(500).reply("第二次成功")
    assert complete(provider_for(scripted_openai)).content == "第二次成功"
    assert len(scripted_openai.requests) == 2


def test_two_server_errors_give_up_after_exactly_one_retry(scripted_openai):
    scripted_openai.error(503).error(502).reply("never reached")
    with pytest.raises(ModelError, match="HTTP 502"):
        complete(provider_for(scripted_openai))
    assert len(scripted_openai.requests) == 2
    assert scripted_openai.unconsumed == 1


def test_timeout_is_retried_once_then_reported(scripted_openai):
    scripted_openai.reply("too late", delay=2).reply("too late again", delay=2)
    with pytest.raises(ModelError, match="超时"):
        complete(provider_for(scripted_openai, timeout=0.3))
    assert len(scripted_openai.requests) == 2


def test_timeout_then_answer_succeeds(scripted_openai):
    scripted_openai.reply("too late", delay=2).reply("准时")
    assert complete(provider_for(scripted_openai, timeout=0.5)).content == "准时"


def test_unreachable_endpoint_is_a_model_error():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    provider = OpenAICompatibleProvider(model="m", base_url=f"http://127.0.0.1:{port}/v1", timeout=2)
    with pytest.raises(ModelError, match="无法连接"):
        complete(provider)


def test_client_error_is_not_retried(scripted_openai):
    scripted_openai.error(401).reply("never reached")
    with pytest.raises(ModelError, match="HTTP 401"):
        complete(provider_for(scripted_openai))
    assert len(scripted_openai.requests) == 1


def test_endpoint_refusing_tools_switches_to_the_text_protocol_and_logs_once(scripted_openai, caplog):
    scripted_openai.reject_tools()
    scripted_openai.reply('好的：```json\n{"tool_calls": [{"name": "get_my_status", "arguments": {}}]}\n```')
    scripted_openai.reply("你的信用点是 100。")
    provider = provider_for(scripted_openai)
    with caplog.at_level(logging.WARNING, logger="agents.providers.openai_compatible"):
        first = complete(provider)
        second = complete(provider)
    assert [(c.name, json.loads(c.arguments)) for c in first.tool_calls] == [("get_my_status", {})]
    assert (second.content, second.tool_calls) == ("你的信用点是 100。", [])
    refused, *text_requests = scripted_openai.requests
    assert "tools" in refused
    assert len(text_requests) == 2  # after the switch, no request offers tools again
    assert all("tools" not in r for r in text_requests)
    system = text_requests[0]["messages"][0]
    assert system["role"] == "system" and system["content"].startswith("你是 Alice")
    assert '"name": "get_my_status"' in system["content"] and '{"tool_calls"' in system["content"]
    assert len([r for r in caplog.records if "JSON-in-text" in r.getMessage()]) == 1


def test_text_protocol_rewrites_tool_history_for_the_model(scripted_openai):
    scripted_openai.reject_tools().reply("ok")
    history = [
        *HELLO,
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "get_my_status", "arguments": "{}"}}
        ]},
        {"role": "tool", "tool_call_id": "call_1", "content": '{"status": "success"}'},
    ]
    complete(provider_for(scripted_openai), messages=history)
    sent = scripted_openai.requests[-1]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert json.loads(sent[2]["content"]) == {"tool_calls": [{"name": "get_my_status", "arguments": "{}"}]}
    assert sent[3]["content"].startswith("[tool result]") and '{"status": "success"}' in sent[3]["content"]


def test_bad_request_not_about_tools_is_an_error_not_a_fallback(scripted_openai):
    scripted_openai.error(400, {"error": {"message": "context length exceeded", "type": "invalid_request_error"}})
    provider = provider_for(scripted_openai)
    with pytest.raises(ModelError, match="context length"):
        complete(provider)
    assert provider.native_tools is True


class GarbageHandler(BaseHTTPRequestHandler):
    body = b"<html>not an API</html>"

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args):
        pass


@contextmanager
def garbage_answering(body: bytes):
    """A provider whose endpoint answers every request with ``body``."""
    handler = type("Handler", (GarbageHandler,), {"body": body})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield OpenAICompatibleProvider(model="m", base_url=f"http://127.0.0.1:{server.server_address[1]}/v1", timeout=2)
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("body", [b"<html>not an API</html>", b'{"choices": []}', b'{"choices": "x"}'])
def test_garbage_answer_is_a_model_error(body):
    with garbage_answering(body) as provider, pytest.raises(ModelError):
        complete(provider)


@pytest.mark.parametrize("body", [
    b"<html>not an API</html>", b'{"choices": []}', b'{"choices": "x"}', b'{"choices": [{"message": {"content": 5}}]}', b"[]",
])
def test_garbage_answer_to_a_schema_decoded_request_is_a_model_error(body):
    """The tick's calls read the answer's JSON themselves (``_read_raw``): what the SDK's models
    refused is refused the same way, never an exception of another kind."""
    with garbage_answering(body) as provider, pytest.raises(ModelError):
        async_to_sync(provider.complete)(HELLO, [], json_schema={"type": "object"})


def test_a_schema_decoded_answer_keeps_its_usage(scripted_openai):
    scripted_openai.reply('{"n": 1}', usage=(120, 8))
    completion = async_to_sync(provider_for(scripted_openai).complete)(HELLO, [], json_schema={"type": "object"})
    assert completion.content == '{"n": 1}'
    assert completion.usage == {"prompt_tokens": 120, "completion_tokens": 8, "total_tokens": 128}


def test_rules_provider_is_the_default_without_an_endpoint(settings):
    settings.AGENT_PROVIDER = "rules"
    assert isinstance(get_provider(), RulesProvider)
    assert model_for(Agent(name="x", model="gpt-4o")) is None


def test_openai_provider_is_built_from_settings(settings):
    settings.AGENT_PROVIDER = "openai"
    settings.OPENAI_BASE_URL = "http://127.0.0.1:9/v1"
    settings.OPENAI_API_KEY = "k"
    settings.AGENT_MODEL = "default-model"
    settings.AGENT_MODEL_TIMEOUT = 7.0
    provider = get_provider()
    assert isinstance(provider, OpenAICompatibleProvider)
    assert (provider.base_url, provider.api_key, provider.model, provider.timeout) == (
        "http://127.0.0.1:9/v1", "k", "default-model", 7.0
    )
    assert get_provider() is provider  # one instance per configuration: the tools fallback is remembered
    assert model_for(Agent(name="x")) == "default-model"
    assert model_for(Agent(name="x", model="qwen2.5")) == "qwen2.5"


def test_what_a_server_taught_a_provider_is_not_kept_for_the_next_server_on_its_port(settings):
    """A scripted server that refused json_schema freed its port; the next test's server got the same
    port, and its worker asked with json_object (CI, stop 36). A changed setting forgets the providers."""
    settings.AGENT_PROVIDER = "openai"
    settings.OPENAI_BASE_URL = "http://127.0.0.1:9/v1"
    taught = get_provider()
    taught.response_formats.remove("json_schema")

    settings.OPENAI_BASE_URL = "http://127.0.0.1:9/v1"  # another server, the same address

    assert get_provider() is not taught
    assert get_provider().response_formats == ["json_schema", "json_object"]


def test_an_agent_can_be_pinned_to_the_rules_provider(settings):
    settings.AGENT_PROVIDER = "openai"
    settings.OPENAI_BASE_URL = "http://127.0.0.1:9/v1"
    assert isinstance(get_provider(Agent(name="x", model="rules")), RulesProvider)
    assert isinstance(get_provider(Agent(name="y")), OpenAICompatibleProvider)


@pytest.mark.django_db  # the rules provider reads its vocabulary from the database
def test_rules_provider_answers_through_the_async_interface():
    completion = async_to_sync(RulesProvider().complete)(HELLO, TOOLS)
    assert [c.name for c in completion.tool_calls] == ["get_my_status"]
    assert completion.usage == {}


def test_tools_go_with_tool_choice_auto_and_every_request_caps_the_answer(scripted_openai):
    scripted_openai.reply("ok").reply("ok")
    provider = OpenAICompatibleProvider(model="m", api_key="k", base_url=scripted_openai.base_url, max_tokens=300)
    async_to_sync(provider.complete)(HELLO, TOOLS)
    async_to_sync(provider.complete)(HELLO, [], max_tokens=64)
    with_tools, without = scripted_openai.requests
    assert with_tools["tool_choice"] == "auto" and with_tools["max_tokens"] == 300
    assert "tool_choice" not in without and without["max_tokens"] == 64


def test_a_server_error_that_blames_the_request_is_not_retried(scripted_openai):
    # llama-cpp-python answers a null assistant content with a 500 that names the validation error.
    scripted_openai.error(500, openai_error("1 validation error: messages.2.content Input should be a valid string"))
    scripted_openai.reply("never reached")
    with pytest.raises(ModelError) as failed:
        complete(provider_for(scripted_openai))
    assert len(scripted_openai.requests) == 1 and failed.value.code == "model_error"


def test_failures_say_which_way_they_failed(scripted_openai):
    scripted_openai.reply("late", delay=2).reply("late", delay=2)
    with pytest.raises(ModelTimeout):
        complete(provider_for(scripted_openai, timeout=0.3))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ModelUnavailable) as unreachable:
        complete(OpenAICompatibleProvider(model="m", base_url=f"http://127.0.0.1:{port}/v1", timeout=2))
    assert unreachable.value.code == "model_unavailable"


@pytest.mark.django_db
def test_an_assistant_tool_call_goes_back_with_empty_content_not_null(scripted_openai, settings, make_agent):
    from agents.chat import run_chat

    settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY, settings.AGENT_PROVIDER = scripted_openai.base_url, "k", "openai"
    agent = make_agent("Alice", tools=("get_my_status",))
    scripted_openai.tool_calls([("get_my_status", {})]).reply("你的状态很好")
    run_chat(agent=agent, message="我的状态")
    second = scripted_openai.requests[1]["messages"]
    calls = [m for m in second if m["role"] == "assistant" and m.get("tool_calls")]
    assert calls and all(m["content"] == "" for m in calls)


def test_an_unreadable_answer_keeps_the_tokens_it_reported():
    body = b'{"choices": [], "usage": {"prompt_tokens": 700, "completion_tokens": 50, "total_tokens": 750}}'
    server = ThreadingHTTPServer(("127.0.0.1", 0), type("Handler", (GarbageHandler,), {"body": body}))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        provider = OpenAICompatibleProvider(model="m", base_url=f"http://127.0.0.1:{server.server_address[1]}/v1", timeout=2)
        with pytest.raises(ModelError) as failed:
            complete(provider)
        assert failed.value.usage["total_tokens"] == 750
    finally:
        server.shutdown()
        server.server_close()


# `manage.py check` on the model endpoint: a warning when it is down, never an error.


def closed_port_number() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_unreachable_endpoint_is_a_warning(settings):
    settings.AGENT_PROVIDER, settings.OPENAI_BASE_URL = "openai", f"http://127.0.0.1:{closed_port_number()}/v1"
    [warning] = check_model_endpoint(None)
    assert warning.level == checks.WARNING and warning.id == "agents.W001"
    assert settings.OPENAI_BASE_URL in warning.msg


def test_a_listening_endpoint_passes(settings, scripted_openai):
    settings.AGENT_PROVIDER, settings.OPENAI_BASE_URL = "openai", scripted_openai.base_url
    assert check_model_endpoint(None) == []


def test_no_endpoint_configured_is_not_checked(settings):
    settings.AGENT_PROVIDER, settings.OPENAI_BASE_URL = "rules", ""
    assert check_model_endpoint(None) == []


def test_the_check_command_still_succeeds_offline(settings):
    from django.core.management import call_command

    settings.AGENT_PROVIDER, settings.OPENAI_BASE_URL = "openai", f"http://127.0.0.1:{closed_port_number()}/v1"
    call_command("check")  # warnings do not fail it


def endpoint_provider(settings, server):
    settings.AGENT_PROVIDER, settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY = "openai", server.base_url, "k"
    return get_provider()


def test_every_request_carries_the_configured_temperature_and_seed(settings, scripted_openai):
    settings.AGENT_TEMPERATURE, settings.AGENT_SEED = 0.2, 7
    scripted_openai.reply("ok").reply("ok")
    provider = endpoint_provider(settings, scripted_openai)
    complete(provider)
    complete(provider, tools=[])
    assert [(r["temperature"], r["seed"]) for r in scripted_openai.requests] == [(0.2, 7), (0.2, 7)]


def test_the_default_temperature_is_low():
    from config import settings as configured

    assert configured.AGENT_TEMPERATURE == 0.2


def test_an_endpoint_that_refuses_seed_is_asked_without_it_from_then_on(settings, scripted_openai, caplog):
    scripted_openai.error(400, openai_error("Unrecognized request argument supplied: seed", param="seed"))
    scripted_openai.reply("first").reply("second")
    provider = endpoint_provider(settings, scripted_openai)
    with caplog.at_level(logging.WARNING):
        assert complete(provider).content == "first"
        assert complete(provider).content == "second"
    assert ["seed" in r for r in scripted_openai.requests] == [True, False, False]
    assert sum("refused `seed`" in record.getMessage() for record in caplog.records) == 1


def test_the_none_provider_never_calls_a_tool(settings):
    settings.AGENT_PROVIDER = "none"
    completion = complete(get_provider())
    assert completion.tool_calls == [] and completion.content


def chooser(tool: str, arguments: dict):
    """A model behind an endpoint that ignores ``tools``: under a schema it answers the tool, then its arguments."""

    def answer(request):
        schema = (request.get("response_format") or {}).get("json_schema", {}).get("schema", {})
        if "tool" in schema.get("properties", {}):
            return {"content": json.dumps({"tool": tool})}
        if request.get("response_format"):
            return {"content": json.dumps(arguments)}
        return {"content": "好的"}

    return answer


MANY_TOOLS = [
    {"type": "function", "function": {"name": f"tool_{i}", "description": "查看自己的状态和资源" * 3,
                                      "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}}}
    for i in range(12)
]


def test_constrained_mode_picks_a_tool_then_fills_its_arguments_each_under_a_schema(settings, scripted_openai):
    settings.AGENT_TOOL_MODE = "constrained"
    scripted_openai.respond_with(chooser("tool_3", {"n": 4}), delay=0)
    completion = complete(endpoint_provider(settings, scripted_openai), tools=MANY_TOOLS)
    assert [(c.name, json.loads(c.arguments)) for c in completion.tool_calls] == [("tool_3", {"n": 4})]
    pick, fill = scripted_openai.requests
    assert "tools" not in pick and "tools" not in fill
    assert pick["response_format"]["json_schema"]["schema"]["properties"]["tool"]["enum"] == [
        *(t["function"]["name"] for t in MANY_TOOLS), "none",
    ]
    assert fill["response_format"]["json_schema"]["schema"] == MANY_TOOLS[3]["function"]["parameters"]
    assert completion.usage["prompt_tokens"] > 0


def test_constrained_mode_answers_in_words_when_no_tool_is_needed(settings, scripted_openai):
    settings.AGENT_TOOL_MODE = "constrained"
    scripted_openai.respond_with(chooser("none", {}), delay=0)
    completion = complete(endpoint_provider(settings, scripted_openai), tools=MANY_TOOLS)
    assert (completion.content, completion.tool_calls) == ("好的", [])
    assert "response_format" not in scripted_openai.requests[-1]


def test_an_endpoint_that_ignores_tools_is_switched_to_constrained_mode_once(settings, scripted_openai, caplog):
    settings.AGENT_TOOL_MODE = "auto"
    schema_decoded = chooser("tool_1", {"n": 1})

    def answer(request):
        if request.get("tools"):  # counts only the messages' tokens: the tools never reached the prompt
            return {"content": "我没有工具可用。", "usage": (20, 5)}
        return schema_decoded(request)

    scripted_openai.respond_with(answer, delay=0)
    provider = endpoint_provider(settings, scripted_openai)
    with caplog.at_level(logging.WARNING):
        first = complete(provider, tools=MANY_TOOLS)
        second = complete(provider, tools=MANY_TOOLS)
    assert [c.name for c in first.tool_calls] == [c.name for c in second.tool_calls] == ["tool_1"]
    assert "tools" in scripted_openai.requests[0] and all("tools" not in r for r in scripted_openai.requests[1:])
    assert provider.tool_mode == "constrained"
    assert sum("ignores `tools`" in r.getMessage() for r in caplog.records) == 1


def test_an_endpoint_that_answers_nothing_to_tools_is_switched_to_constrained_mode_and_asked_again(settings, scripted_openai, caplog):
    # Gemma 3 270M behind llama-cpp-python's chatml-function-calling: the tools reach its prompt,
    # and it answers an empty message. Before, the turn ended with "（模型没有给出回复）" every time.
    settings.AGENT_TOOL_MODE = "auto"
    schema_decoded = chooser("tool_2", {"n": 2})

    def answer(request):
        if request.get("tools"):
            return {"content": "", "usage": (2000, 1)}  # the tools were in the prompt; it said nothing
        return schema_decoded(request)

    scripted_openai.respond_with(answer, delay=0)
    provider = endpoint_provider(settings, scripted_openai)
    with caplog.at_level(logging.WARNING):
        first = complete(provider, tools=MANY_TOOLS)
    assert [(c.name, json.loads(c.arguments)) for c in first.tool_calls] == [("tool_2", {"n": 2})]
    assert provider.tool_mode == "constrained"
    assert sum("answered nothing" in r.getMessage() for r in caplog.records) == 1


def test_constrained_mode_offers_none_first_once_a_tool_has_answered(settings, scripted_openai):
    settings.AGENT_TOOL_MODE = "constrained"
    scripted_openai.respond_with(chooser("none", {}), delay=0)
    messages = [
        {"role": "user", "content": "查一下"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "tool_0", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": '{"status": "success"}'},
    ]
    async_to_sync(endpoint_provider(settings, scripted_openai).complete)(messages, MANY_TOOLS)
    assert scripted_openai.requests[0]["response_format"]["json_schema"]["schema"]["properties"]["tool"]["enum"][0] == "none"


def test_constrained_mode_offers_each_tool_once_a_turn(settings, scripted_openai):
    # Gemma 3 270M called "rest" four times for one "rest": the tool it just called was the first option again.
    settings.AGENT_TOOL_MODE = "constrained"
    scripted_openai.respond_with(chooser("none", {}), delay=0)
    call = {"id": "c1", "type": "function", "function": {"name": "tool_0", "arguments": "{}"}}
    messages = [
        {"role": "user", "content": "earlier"},
        {"role": "assistant", "content": "", "tool_calls": [{**call, "function": {"name": "tool_5", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": '{"status": "success"}'},
        {"role": "user", "content": "休息一下"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": '{"status": "success"}'},
    ]
    provider = endpoint_provider(settings, scripted_openai)
    async_to_sync(provider.complete)(messages, MANY_TOOLS)
    options = scripted_openai.requests[0]["response_format"]["json_schema"]["schema"]["properties"]["tool"]["enum"]
    assert "tool_0" not in options and "tool_5" in options
    async_to_sync(provider.complete)(messages, MANY_TOOLS[:1])  # nothing left to offer: the reply, no choice
    assert "response_format" not in scripted_openai.requests[-1] and len(scripted_openai.requests) == 3


def test_constrained_mode_fills_arguments_beside_the_users_words(settings, scripted_openai):
    settings.AGENT_TOOL_MODE = "constrained"
    scripted_openai.respond_with(chooser("tool_3", {"n": 4}), delay=0)
    messages = [{"role": "user", "content": "给 Bob 4 个"}]
    async_to_sync(endpoint_provider(settings, scripted_openai).complete)(messages, MANY_TOOLS)
    _pick, fill = scripted_openai.requests
    assert "给 Bob 4 个" in fill["messages"][-1]["content"] and "tool_3" in fill["messages"][-1]["content"]


def test_an_endpoint_whose_prompt_holds_the_tools_stays_native(settings, scripted_openai):
    settings.AGENT_TOOL_MODE = "auto"
    scripted_openai.reply("不需要工具。").reply("还是不需要。")
    provider = endpoint_provider(settings, scripted_openai)
    complete(provider, tools=MANY_TOOLS)
    complete(provider, tools=MANY_TOOLS)
    assert all("tools" in r for r in scripted_openai.requests) and provider.tool_mode == "auto"


def test_whether_tools_reach_the_prompt_is_judged_once(settings, scripted_openai):
    settings.AGENT_TOOL_MODE = "auto"
    answers = iter([{"content": "不需要工具。"}, {"content": "还是不需要。", "usage": (20, 5)}])  # a cached prefix later
    scripted_openai.respond_with(lambda request: next(answers), delay=0)
    provider = endpoint_provider(settings, scripted_openai)
    complete(provider, tools=MANY_TOOLS)
    complete(provider, tools=MANY_TOOLS)
    assert provider.tool_mode == "auto" and len(scripted_openai.requests) == 2


def test_calls_inside_pooled_share_one_client_and_its_connections(scripted_openai, monkeypatch):
    """A tick's batches: one client (and kept-alive connections) for all of its calls, not one each."""
    import asyncio

    provider = provider_for(scripted_openai)
    made = []
    make = provider._client
    monkeypatch.setattr(provider, "_client", lambda: made.append(1) or make())
    for _ in range(4):
        scripted_openai.reply("ok")

    async def tick() -> list[str]:
        async with provider.pooled():
            answers = await asyncio.gather(*(provider.complete(HELLO, []) for _ in range(3)))
        return [a.content for a in answers]

    assert async_to_sync(tick)() == ["ok"] * 3
    assert len(made) == 1
    complete(provider)  # outside the block: a client of its own again
    assert len(made) == 2


def grounded_tools(*schemas):
    """MANY_TOOLS[:len(schemas)], each with its grounded schema (``False``: a write the words cannot fill)."""
    from agents.providers.base import GROUNDED

    return [{**tool, GROUNDED: schema} for tool, schema in zip(MANY_TOOLS, schemas)]


def test_constrained_mode_fills_arguments_under_the_grounded_schema_and_never_offers_an_unfillable_write(settings, scripted_openai):
    # Gemma 3 270M filled its own id and counts of millions under the tools' own schemas.
    settings.AGENT_TOOL_MODE = "constrained"
    scripted_openai.respond_with(chooser("tool_1", {"n": 4}), delay=0)
    narrowed = {"type": "object", "properties": {"n": {"type": "integer", "enum": [4, 5]}}, "required": ["n"]}
    tools = grounded_tools(False, narrowed, narrowed)
    complete(endpoint_provider(settings, scripted_openai), tools=tools)
    pick, fill = scripted_openai.requests
    assert pick["response_format"]["json_schema"]["schema"]["properties"]["tool"]["enum"] == ["tool_1", "tool_2", "none"]
    assert fill["response_format"]["json_schema"]["schema"] == narrowed


def test_constrained_mode_asks_for_no_arguments_that_the_grounded_schema_leaves_one_way(settings, scripted_openai):
    settings.AGENT_TOOL_MODE = "constrained"
    scripted_openai.respond_with(chooser("tool_0", {"n": 99}), delay=0)
    only = {"type": "object", "properties": {"n": {"type": "integer", "enum": [4]}}, "required": ["n"]}
    completion = complete(endpoint_provider(settings, scripted_openai), tools=grounded_tools(only))
    assert [(c.name, json.loads(c.arguments)) for c in completion.tool_calls] == [("tool_0", {"n": 4})]
    assert len(scripted_openai.requests) == 1  # the pick only


def test_native_requests_never_carry_the_grounded_schemas(settings, scripted_openai):
    settings.AGENT_TOOL_MODE = "native"
    scripted_openai.tool_calls([("tool_0", {"n": 1})])
    only = {"type": "object", "properties": {"n": {"type": "integer", "enum": [4]}}, "required": ["n"]}
    completion = complete(endpoint_provider(settings, scripted_openai), tools=grounded_tools(only, False))
    assert [c.name for c in completion.tool_calls] == ["tool_0"]  # native: the model's call as it made it
    assert scripted_openai.requests[0]["tools"] == MANY_TOOLS[:2]


def test_auto_switches_to_constrained_when_a_native_call_invents_an_argument(settings, scripted_openai, caplog):
    # Gemma 3 270M behind chatml-function-calling: the right tool, and its own id for the receiver.
    settings.AGENT_TOOL_MODE = "auto"

    schema_decoded = chooser("tool_0", {"to_agent_id": 4})

    def answer(request):
        if request.get("tools"):
            return {"tool_calls": [("tool_0", {"to_agent_id": 17})]}  # its own id, not the one named
        return schema_decoded(request)

    scripted_openai.respond_with(answer, delay=0)
    narrowed = {"type": "object", "properties": {"to_agent_id": {"type": "integer", "enum": [4, 5]}}, "required": ["to_agent_id"]}
    provider = endpoint_provider(settings, scripted_openai)
    with caplog.at_level(logging.WARNING):
        first = complete(provider, tools=grounded_tools(narrowed))
    assert [(c.name, json.loads(c.arguments)) for c in first.tool_calls] == [("tool_0", {"to_agent_id": 4})]
    assert provider.tool_mode == "constrained"
    assert sum("do not give (tool_0.to_agent_id=17)" in r.getMessage() for r in caplog.records) == 1


def test_auto_keeps_a_native_call_whose_arguments_the_words_give(settings, scripted_openai):
    settings.AGENT_TOOL_MODE = "auto"
    scripted_openai.tool_calls([("tool_0", {"to_agent_id": "5"})])  # "5" for 5: the same value
    narrowed = {"type": "object", "properties": {"to_agent_id": {"type": "integer", "enum": [4, 5]}}, "required": ["to_agent_id"]}
    provider = endpoint_provider(settings, scripted_openai)
    completion = complete(provider, tools=grounded_tools(narrowed))
    assert [c.name for c in completion.tool_calls] == ["tool_0"] and provider.tool_mode == "auto"
    assert len(scripted_openai.requests) == 1


def test_auto_keeps_a_capable_models_own_wording_of_free_text(settings, scripted_openai):
    """A model that words the guest's message itself (a proposal shows it before it is sent) or adds
    an optional argument the message left open is not a model that invents ids: no switch."""
    settings.AGENT_TOOL_MODE = "auto"
    scripted_openai.tool_calls([("tool_0", {"content": "Dear guest, your refund is on its way.", "extra": 2, "n": 4})])
    narrowed = {
        "type": "object",
        "properties": {"content": {"type": "string", "enum": ["the refund is on its way"]}, "n": {"type": "integer", "enum": [4]}},
        "required": ["content", "n"],
    }
    provider = endpoint_provider(settings, scripted_openai)
    completion = complete(provider, tools=grounded_tools(narrowed))
    assert [json.loads(c.arguments)["content"] for c in completion.tool_calls] == ["Dear guest, your refund is on its way."]
    assert provider.tool_mode == "auto" and len(scripted_openai.requests) == 1


def test_a_schema_reaches_the_endpoint_whole_without_the_sdk_walking_it(monkeypatch, scripted_openai):
    """A tick batch's schema (11 kB, an enum per parameter) went through the SDK's typed-dict
    transform on every call: 3 ms of its ~8 ms of client CPU, seven times on the tick's critical
    path. The request is posted as its JSON body by the same client: the same JSON on the wire,
    nothing walked (neither the schema nor the messages)."""
    from openai.resources.chat.completions import completions

    walked = []
    transform = completions.async_maybe_transform

    async def spy(data, expected_type):
        walked.append(data.get("response_format") if isinstance(data, dict) else None)
        return await transform(data, expected_type)

    monkeypatch.setattr(completions, "async_maybe_transform", spy)
    scripted_openai.respond_with(lambda request: {"content": '{"n": 1}'}, delay=0)
    schema = {"type": "object", "properties": {"n": {"type": "integer", "enum": [1, 2]}}, "required": ["n"]}
    completion = async_to_sync(provider_for(scripted_openai).complete)(HELLO, [], json_schema=schema)
    assert completion.content == '{"n": 1}'
    (request,) = scripted_openai.requests
    assert request["response_format"] == {"type": "json_schema", "json_schema": {"name": "decisions", "schema": schema}}
    assert walked == [], walked
