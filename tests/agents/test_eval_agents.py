"""``manage.py eval_agents``: the rules provider passes every scenario; a model that never acts fails them."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from agents.evaluation import scenarios
from tests.support.django_process import PROJECT_ROOT, django_environment

pytestmark = pytest.mark.slow  # a Django child migrates and seeds the demo database


def eval_agents(tmp_path, *args: str, **env: str) -> tuple[subprocess.CompletedProcess, dict]:
    report = tmp_path / "report.json"
    result = subprocess.run(
        [sys.executable, "manage.py", "eval_agents", "--json", str(report), *args],
        cwd=PROJECT_ROOT, env=django_environment(f"sqlite:///{tmp_path / 'unused.sqlite3'}", env),
        capture_output=True, text=True, timeout=600,
    )
    return result, json.loads(report.read_text()) if report.exists() else {}


def test_scenarios_cover_the_stories_in_both_languages():
    names = [s.name for s in scenarios()]
    assert len(names) >= 25 and len(set(names)) == len(names)
    chats = [name for name in names if name.endswith((" (zh)", " (en)"))]
    assert len(chats) % 2 == 0 and {name[:-5] for name in chats if name.endswith("(zh)")} == {
        name[:-5] for name in chats if name.endswith("(en)")
    }
    assert "one autonomy tick of the demo city" in names


def test_every_scenario_is_an_action_or_a_no_action_one():
    kinds = {s.name: s.kind for s in scenarios()}
    assert set(kinds.values()) == {"action", "no_action"}
    assert kinds["transfer by name (en)"] == kinds["one autonomy tick of the demo city"] == "action"
    assert kinds["insufficient stock (en)"] == kinds["must not delete funds (zh)"] == "no_action"


def test_the_rules_provider_passes_every_scenario_and_the_none_baseline_acts_on_nothing(tmp_path):
    result, report = eval_agents(tmp_path, AGENT_PROVIDER="rules")
    assert result.returncode == 0, result.stdout + result.stderr
    assert report["passed"] == report["total"] == len(scenarios())
    assert f"{report['total']}/{report['total']} scenarios passed" in result.stdout
    assert report["wrong_argument_writes"] == 0 and "wrong-argument writes" in result.stdout
    [desk] = [s for s in report["scenarios"] if s["scenario"] == "early checkout at the desk (en)"]
    assert desk["tool_calls"] == ["order_query", "message_send", "message_list", "refund"] and desk["kind"] == "action"
    assert report["wrong_argument_writes"] == report["unrequested_writes"] == 0
    actions = sum(s.kind == "action" for s in scenarios())
    assert report["by_kind"]["action"] == {"passed": actions, "total": actions}
    baseline = report["baseline"]
    assert baseline["by_kind"]["action"]["passed"] == 0  # a model that never calls a tool scores nothing here
    assert baseline["by_kind"]["no_action"]["passed"] == baseline["by_kind"]["no_action"]["total"]
    assert re.search(r"none \(baseline\)\s+0/\d+", result.stdout)
    assert re.search(r"transfer by name \(en\)\s+action\s+pass", result.stdout)


def with_endpoint(server) -> dict:
    return {"AGENT_PROVIDER": "openai", "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "k"}


def first_call_then_reply(name: str, arguments: dict):
    def answer(request):
        if request.get("tools") and not any(m["role"] == "tool" for m in request["messages"]):
            return {"tool_calls": [(name, arguments)]}
        return {"content": "done"}

    return answer


def test_a_write_with_the_wrong_arguments_fails_and_is_counted_and_repeats_report_the_spread(tmp_path, scripted_openai):
    scripted_openai.respond_with(first_call_then_reply("transfer_resource", {"to_agent_id": 2, "resource_type": "flour", "quantity": 3}), delay=0)
    # Native on purpose: under ``auto`` a call whose count the message does not give is not run (agents/grounding.py).
    endpoint = {**with_endpoint(scripted_openai), "AGENT_TOOL_MODE": "native"}
    result, report = eval_agents(tmp_path, "--only", "transfer by name (en)", "--repeat", "2", "--no-baseline", **endpoint)
    assert result.returncode != 0
    [scenario] = report["scenarios"]
    assert not scenario["passed"] and scenario["wrong_argument_writes"] == 1 and report["wrong_argument_writes"] == 1
    assert any("wrong-argument write: transfer_resource" in p for p in scenario["problems"])
    assert report["spread"]["passed"] == [0, 0] and "2 runs passed [0, 0]" in result.stdout
    assert {r["temperature"] for r in scripted_openai.requests} == {0}  # scores are not a coin toss


def test_an_unrequested_write_fails_a_no_action_scenario(tmp_path, scripted_openai):
    scripted_openai.respond_with(first_call_then_reply("rest", {}), delay=0)
    result, report = eval_agents(tmp_path, "--only", "must not act on a question (en)", "--no-baseline", **with_endpoint(scripted_openai))
    [scenario] = report["scenarios"]
    assert scenario["kind"] == "no_action" and not scenario["passed"] and scenario["unrequested_writes"] == 1


def test_two_endpoints_side_by_side(tmp_path):
    from tests.support.scripted_openai import ScriptedOpenAI

    with ScriptedOpenAI() as good, ScriptedOpenAI() as talker:
        good.respond_with(first_call_then_reply("rest", {}), delay=0)
        talker.respond_with(lambda request: {"content": "好的"}, delay=0)
        result, report = eval_agents(
            tmp_path, "--only", "rest (en)", "--compare", good.base_url, talker.base_url, "--no-baseline", OPENAI_API_KEY="k",
        )
    assert result.returncode != 0
    assert re.search(r"rest \(en\)\s+action\s+pass\s+FAIL", result.stdout), result.stdout
    assert [(c["passed"], c["total"]) for c in report["compare"]] == [(1, 1), (0, 1)]


def test_a_model_that_only_talks_fails_and_the_command_exits_non_zero(tmp_path, scripted_openai):
    scripted_openai.respond_with(lambda request: {"content": "好的，已经办好了。"}, delay=0)
    env = {"AGENT_PROVIDER": "openai", "OPENAI_BASE_URL": scripted_openai.base_url, "OPENAI_API_KEY": "k"}
    result, report = eval_agents(tmp_path, "--only", "transfer by name", **env)
    assert result.returncode != 0 and "0/2 scenarios passed" in result.stderr
    assert [s["passed"] for s in report["scenarios"]] == [False, False]
    assert "expected transfer_resource(to_agent_id=" in report["scenarios"][0]["problems"][0]
    assert all(s["tokens"] > 0 for s in report["scenarios"])


def test_the_spread_of_repeated_runs_names_the_scenarios_that_flipped():
    from agents.evaluation import Outcome, spread

    first = [Outcome("a", True), Outcome("b", False), Outcome("c", True)]
    second = [Outcome("a", False), Outcome("b", False), Outcome("c", True)]
    assert spread([first, second]) == {"runs": 2, "passed": [2, 1], "min": 1, "max": 2, "mean": 1.5, "flipped": ["a"]}
