"""``autonomy_tick --record DIR`` stores every batch; ``manage.py replay_tick DIR --endpoint URL`` shows what another model decides differently."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tests.agents.fixtures import city, decisions, endpoint, prompt_ids, resident  # noqa: F401  (fixtures)
from tests.support.scripted_openai import ScriptedOpenAI

pytestmark = pytest.mark.django_db


def test_each_batch_is_recorded_with_its_prompt_answer_and_decisions(endpoint, resident, tmp_path):
    alice, bob = resident("Alice"), resident("Bob")
    endpoint.respond_with(lambda r: {"content": decisions(*({"agent_id": i, "action": "rest"} for i in prompt_ids(r)))}, delay=0)
    call_command("autonomy_tick", "--count", "2", "--batch-size", "1", "--record", str(tmp_path), stdout=StringIO())
    files = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.json"))
    assert files == ["tick-0001/batch-001.json", "tick-0001/batch-002.json", "tick-0002/batch-001.json", "tick-0002/batch-002.json"]
    records = [json.loads(p.read_text()) for p in sorted((tmp_path / "tick-0001").glob("*.json"))]
    assert sorted(r["agent_ids"][0] for r in records) == [alice.pk, bob.pk]
    record = records[0]
    assert "ID=" in record["prompt"] and "checkin{}" in record["system"] and record["answer"].startswith("[")
    assert record["decisions"] == [{"agent_id": record["agent_ids"][0], "action": "rest", "params": {}, "reason": ""}]


def test_replay_prints_the_decisions_another_model_makes_differently(endpoint, resident, tmp_path):
    alice, bob = resident("Alice"), resident("Bob")
    endpoint.respond_with(lambda r: {"content": decisions(*({"agent_id": i, "action": "rest"} for i in prompt_ids(r)))}, delay=0)
    call_command("autonomy_tick", "--record", str(tmp_path), stdout=StringIO())
    with ScriptedOpenAI() as other:
        other.respond_with(lambda r: {"content": decisions(
            {"agent_id": alice.pk, "action": "rest"}, {"agent_id": bob.pk, "action": "chat", "params": {"content": "hi"}},
        )}, delay=0)
        out = StringIO()
        call_command("replay_tick", str(tmp_path), "--endpoint", other.base_url, "--api-key", "k", stdout=out)
        [request] = other.requests
    assert request["messages"][1]["content"] == json.loads(next(tmp_path.rglob("batch-*.json")).read_text())["prompt"]
    assert "response_format" in request  # replayed as the tick asks: under the batch's schema
    text = out.getvalue()
    assert f'#{bob.pk}: rest {{}} → chat {{"content": "hi"}}' in text and f"#{alice.pk}:" not in text
    assert "1 of 2 decisions differ" in text


def test_replay_of_an_empty_directory_is_refused(tmp_path):
    with pytest.raises(CommandError, match="no recorded batch"):
        call_command("replay_tick", str(tmp_path), "--endpoint", "http://127.0.0.1:9/v1")
