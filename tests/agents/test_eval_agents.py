"""``manage.py eval_agents``: the rules provider passes every scenario; a model that never acts fails them."""

from __future__ import annotations

import json
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


def test_the_rules_provider_passes_every_scenario(tmp_path):
    result, report = eval_agents(tmp_path, AGENT_PROVIDER="rules")
    assert result.returncode == 0, result.stdout + result.stderr
    assert report["passed"] == report["total"] == len(scenarios())
    assert f"{report['total']}/{report['total']} scenarios passed" in result.stdout
    assert report["wrong_argument_writes"] == 0 and "0 wrong-argument writes" in result.stdout
    [desk] = [s for s in report["scenarios"] if s["scenario"] == "early checkout at the desk (en)"]
    assert desk["tool_calls"] == ["order_query", "message_send", "message_list", "refund"]


def test_a_model_that_only_talks_fails_and_the_command_exits_non_zero(tmp_path, scripted_openai):
    scripted_openai.respond_with(lambda request: {"content": "好的，已经办好了。"}, delay=0)
    env = {"AGENT_PROVIDER": "openai", "OPENAI_BASE_URL": scripted_openai.base_url, "OPENAI_API_KEY": "k"}
    result, report = eval_agents(tmp_path, "--only", "transfer by name", **env)
    assert result.returncode != 0 and "0/2 scenarios passed" in result.stderr
    assert [s["passed"] for s in report["scenarios"]] == [False, False]
    assert "expected transfer_resource to act" in report["scenarios"][0]["problems"][0]
    assert all(s["tokens"] > 0 for s in report["scenarios"])
