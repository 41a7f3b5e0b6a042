"""Tests of the test harness itself: services, child Django processes, ScriptedOpenAI, browser."""

from __future__ import annotations

import asyncio
import os
import pwd
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import openai
import pytest
from openai.types.chat import ChatCompletionMessage, ChatCompletionMessageFunctionToolCall

from tests.support.django_process import DaphneServer, DatabaseKind, run_django
from tests.support.scripted_openai import ScriptedOpenAI, openai_error
from tests.support.services import (
    RedisServer,
    postgres_available,
    postgres_bin_dir,
    redis_ping,
    require_service,
    server_user,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

ChildDatabase = Callable[[DatabaseKind], str]


def function_calls(message: ChatCompletionMessage) -> list[ChatCompletionMessageFunctionToolCall]:
    """The message's tool calls, all of which must be function calls."""
    calls = message.tool_calls or []
    functions = [call for call in calls if isinstance(call, ChatCompletionMessageFunctionToolCall)]
    assert len(functions) == len(calls)
    return functions


def test_require_service_skips_locally_and_fails_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    require_service("Thing", True, "unused")
    monkeypatch.delenv("AGENTDESK_REQUIRE_SERVICES", raising=False)
    with pytest.raises(pytest.skip.Exception, match="Thing is not available: not installed"):
        require_service("Thing", False, "not installed")
    monkeypatch.setenv("AGENTDESK_REQUIRE_SERVICES", "1")
    with pytest.raises(pytest.fail.Exception, match="AGENTDESK_REQUIRE_SERVICES=1"):
        require_service("Thing", False, "not installed")


def test_child_process_runs_on_the_database_kind(django_child: ChildDatabase, database_kind: DatabaseKind) -> None:
    url = django_child(database_kind)
    expected_vendor = {"sqlite": "sqlite", "postgres": "postgresql"}[database_kind]
    assert run_django(url, "tests.support.probe:database_vendor") == expected_vendor
    # auth, contenttypes, sessions, admin, authtoken and the project's apps are all migrated.
    assert run_django(url, "tests.support.probe:migrated_table_count") > 10


def test_migrated_databases_are_independent(django_child: ChildDatabase, database_kind: DatabaseKind) -> None:
    first, second = django_child(database_kind), django_child(database_kind)
    assert first != second
    run_django(first, "tests.support.probe:create_group", name="only-in-first")
    assert run_django(first, "tests.support.probe:group_names") == ["only-in-first"]
    assert run_django(second, "tests.support.probe:group_names") == []


def test_run_django_passes_arguments_through_stdout_noise(django_child: ChildDatabase) -> None:
    value = {"text": "汉字 and \"quotes\"", "numbers": [1, 2.5], "nothing": None}
    assert run_django(django_child("sqlite"), "tests.support.probe:noisy_echo", value=value) == value


def test_run_django_failure_shows_the_child_error(django_child: ChildDatabase) -> None:
    with pytest.raises(AssertionError, match="RuntimeError: the child broke"):
        run_django(django_child("sqlite"), "tests.support.probe:fail", message="the child broke")


def test_redis_server_answers_and_carries_the_channel_layer(
    redis_server: RedisServer, django_child: ChildDatabase
) -> None:
    assert redis_ping("127.0.0.1", redis_server.port)
    url = django_child("sqlite")
    result = run_django(url, "tests.support.probe:channel_layer_roundtrip", env={"REDIS_URL": redis_server.url})
    assert result == {"backend": "RedisChannelLayer", "text": "hello"}
    assert run_django(url, "tests.support.probe:channel_layer_roundtrip")["backend"] == "InMemoryChannelLayer"


def test_daphne_server_serves_the_project(django_child: ChildDatabase) -> None:
    with DaphneServer(django_child("sqlite")) as server:
        with urllib.request.urlopen(f"{server.url}/admin/login/", timeout=30) as response:
            assert response.status == 200
            assert b"csrfmiddlewaretoken" in response.read()


def test_scripted_openai_tool_calls_with_the_sync_sdk(scripted_openai: ScriptedOpenAI) -> None:
    scripted_openai.tool_calls(
        [("create_bounty", {"title": "修路", "reward": 5}), ("broken", '{"title": ')], content="thinking"
    )
    scripted_openai.reply("done", usage=(11, 3))
    client = openai.OpenAI(base_url=scripted_openai.base_url, api_key="test", max_retries=0)
    tools: Any = [{"type": "function", "function": {"name": "create_bounty", "parameters": {"type": "object"}}}]

    first = client.chat.completions.create(model="m1", messages=[{"role": "user", "content": "hi"}], tools=tools)
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "thinking"
    calls = function_calls(choice.message)
    assert [(call.type, call.function.name, call.function.arguments) for call in calls] == [
        ("function", "create_bounty", '{"title": "\\u4fee\\u8def", "reward": 5}'),
        ("function", "broken", '{"title": '),
    ]
    assert calls[0].id != calls[1].id
    assert first.usage is not None
    assert first.usage.total_tokens == first.usage.prompt_tokens + first.usage.completion_tokens

    second = client.chat.completions.create(model="m1", messages=[{"role": "user", "content": "again"}])
    assert second.choices[0].finish_reason == "stop"
    assert second.choices[0].message.content == "done"
    assert second.choices[0].message.tool_calls is None
    assert second.usage is not None and (second.usage.prompt_tokens, second.usage.completion_tokens) == (11, 3)

    requests = scripted_openai.requests
    assert [request["model"] for request in requests] == ["m1", "m1"]
    assert requests[0]["tools"][0]["function"]["name"] == "create_bounty"
    assert requests[1]["messages"] == [{"role": "user", "content": "again"}]
    assert scripted_openai.unconsumed == 0


def test_scripted_openai_errors_with_the_async_sdk(scripted_openai: ScriptedOpenAI) -> None:
    scripted_openai.error(500)
    scripted_openai.error(400, openai_error("bad", param="x", code="c"))
    client = openai.AsyncOpenAI(base_url=scripted_openai.base_url, api_key="test", max_retries=0)
    messages: Any = [{"role": "user", "content": "hi"}]

    async def scenario() -> None:
        with pytest.raises(openai.InternalServerError):
            await client.chat.completions.create(model="m", messages=messages)
        with pytest.raises(openai.BadRequestError) as bad:
            await client.chat.completions.create(model="m", messages=messages)
        assert bad.value.code == "c" and bad.value.param == "x"
        with pytest.raises(openai.InternalServerError, match="script exhausted"):
            await client.chat.completions.create(model="m", messages=messages)
        await client.close()

    asyncio.run(scenario())
    assert len(scripted_openai.requests) == 3


def test_scripted_openai_rejects_tools_and_delays(scripted_openai: ScriptedOpenAI) -> None:
    scripted_openai.reject_tools().reply('{"tool": "x"}').reply("late", delay=2)
    client = openai.OpenAI(base_url=scripted_openai.base_url, api_key="test", max_retries=0)
    messages: Any = [{"role": "user", "content": "hi"}]
    tools: Any = [{"type": "function", "function": {"name": "x", "parameters": {"type": "object"}}}]

    with pytest.raises(openai.BadRequestError, match="tools"):
        client.chat.completions.create(model="m", messages=messages, tools=tools)
    assert scripted_openai.unconsumed == 2
    fallback = client.chat.completions.create(model="m", messages=messages)
    assert fallback.choices[0].message.content == '{"tool": "x"}'
    started = time.monotonic()
    with pytest.raises(openai.APITimeoutError):
        client.chat.completions.create(model="m", messages=messages, timeout=0.3)
    assert time.monotonic() - started < 1.5


def test_scripted_openai_answers_a_kept_connection_without_a_delayed_ack_stall(scripted_openai: ScriptedOpenAI) -> None:
    """Its headers and body are two writes: with Nagle's algorithm on, the body waited for the client's
    delayed ACK of the headers, about 40 ms on every answer after a connection's first (the 200 ms model
    of ``bench.autonomy_tick`` answered in 240). Real servers (uvicorn, asyncio) send at once."""
    scripted_openai.respond_with(lambda request: {"content": "ok"}, delay=0)
    client = openai.OpenAI(base_url=scripted_openai.base_url, api_key="test", max_retries=0)
    took = []
    for _ in range(15):  # one kept connection: the client's pool
        started = time.monotonic()
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        took.append(time.monotonic() - started)
    median = sorted(took)[len(took) // 2]
    assert median < 0.03, f"median answer {median * 1000:.0f} ms: {[round(t * 1000) for t in took]}"


def test_scripted_openai_responder_serves_concurrent_requests(scripted_openai: ScriptedOpenAI) -> None:
    def responder(request: dict[str, Any]) -> dict[str, Any]:
        text = request["messages"][-1]["content"]
        if text.startswith("call"):
            return {"tool_calls": [("echo", {"text": text})]}
        return {"content": text.upper()}

    async def burst(delay: float) -> tuple[float, list[Any]]:
        scripted_openai.respond_with(responder, delay=delay)
        async with openai.AsyncOpenAI(base_url=scripted_openai.base_url, api_key="test", max_retries=0) as client:
            started = time.monotonic()
            calls = (
                client.chat.completions.create(model="m", messages=[{"role": "user", "content": f"m{i}"}])
                for i in range(100)
            )
            answers = await asyncio.gather(*calls)
            return time.monotonic() - started, answers

    elapsed, answers = asyncio.run(burst(0.2))
    assert sorted(answer.choices[0].message.content for answer in answers) == sorted(f"M{i}" for i in range(100))
    # Counted at the server, not timed: a busy machine slows every request but cannot fake
    # overlap. A pool of 10 threads would cap this at 10; serial at 1.
    assert scripted_openai.most_in_flight > 20, f"at most {scripted_openai.most_in_flight} at once ({elapsed:.2f} s)"

    sync_client = openai.OpenAI(base_url=scripted_openai.base_url, api_key="test", max_retries=0)
    called = sync_client.chat.completions.create(model="m", messages=[{"role": "user", "content": "call me"}])
    calls = function_calls(called.choices[0].message)
    assert called.choices[0].finish_reason == "tool_calls"
    assert [(call.function.name, call.function.arguments) for call in calls] == [("echo", '{"text": "call me"}')]
    assert len(scripted_openai.requests) == 101


@pytest.mark.e2e
def test_chromium_renders_a_page(browser: Browser) -> None:
    page = browser.new_page()
    page.goto("data:text/html,<h1>x</h1>")
    assert page.inner_text("h1") == "x"
    page.close()


@pytest.mark.e2e
def test_staff_page_is_logged_in_on_the_live_server(staff_page: Page) -> None:
    staff_page.goto("/admin/")
    assert "/admin/login/" not in staff_page.url
    assert "browser-staff" in staff_page.locator("#user-tools").inner_text().lower()


def test_postgres_binaries_come_from_agentdesk_pg_bin_when_set(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AGENTDESK_PG_BIN", str(tmp_path))
    assert postgres_bin_dir() is None
    available, reason = postgres_available()
    assert not available and f"AGENTDESK_PG_BIN={tmp_path} has no initdb and pg_ctl" in reason
    for name in ("initdb", "pg_ctl"):
        (tmp_path / name).write_text("")
    assert postgres_bin_dir() == tmp_path


def test_postgres_programs_drop_root_to_the_postgres_user(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert server_user() == {}
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    account = pwd.struct_passwd(("postgres", "x", 4321, 8765, "", "/var/lib/postgresql", "/bin/sh"))
    monkeypatch.setattr(pwd, "getpwnam", lambda name: account if name == "postgres" else None)
    arguments = server_user()
    assert (arguments["user"], arguments["group"], arguments["extra_groups"]) == (4321, 8765, [])
    assert isinstance(arguments["env"], dict) and arguments["env"]["HOME"] == "/var/lib/postgresql"
