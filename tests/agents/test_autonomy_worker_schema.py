"""A Celery worker and a replay decode under the batch's own schema, though neither reads the world.

Found re-reading issue 27 against issue 29: the tick's decoding schema names only what the batch's
snapshot offers (the shop's items, buildings with a free job, the residents), but a worker got the
tools' bare types, since a worker does not build the snapshot; a tiny model on Celery could buy item
#2000000000000000 again. The coordinator now sends each batch the choices it read, and a recording
keeps them for its replay."""

from __future__ import annotations

import contextlib
import json
from io import StringIO

import pytest
from django.core.management import call_command

from agents.autonomy import distributed
from agents.autonomy.sources import world_source
from agents.models import AgentActionLog, AutonomyRound
from tests.agents.fixtures import city, decisions, endpoint, prompt_ids, resident  # noqa: F401  (fixtures)
from tests.support.scripted_openai import ScriptedOpenAI

pytestmark = pytest.mark.django_db


def offered(request) -> dict:
    """action → parameter → the enum the request's decoding schema allows (absent: no enum)."""
    schema = request["response_format"]["json_schema"]["schema"]
    return {
        shape["properties"]["action"]["enum"][0]: {
            name: spec.get("enum") for name, spec in shape["properties"]["params"]["properties"].items()
        }
        for shape in schema["properties"]["decisions"]["items"]["anyOf"]
    }


def test_the_coordinator_sends_each_batch_the_choices_of_its_snapshot(endpoint, resident, city, monkeypatch):
    alice, bob = resident("Alice"), resident("Bob")
    sent = []

    class Broker:  # what the coordinator sends, each batch reported done at once
        def sending(self):
            return contextlib.nullcontext()

        def send(self, args):
            sent.append(json.loads(json.dumps(args)))  # it travels through the broker
            return f"task{len(sent)}"

        def reports(self, task_ids):
            return {task_id: {} for task_id in task_ids}

    monkeypatch.setattr(distributed, "Broker", Broker)
    source = world_source()
    world = source.build([alice.pk, bob.pk])
    from agents.autonomy.policy import policy_from_settings

    policy = policy_from_settings(source)
    round_ = AutonomyRound.objects.create(provider=policy.name)
    distributed.run(source, world, policy, [([alice.pk, bob.pk], "prompt")], round_, snapshot_s=0.0, started=0.0)

    [task] = sent
    *_, answer, choices = task
    assert answer is None  # a model batch: the worker asks
    assert choices == json.loads(json.dumps(policy.choices(world, [alice.pk, bob.pk])))
    assert choices["purchase"]["item_id"] == [city.bread_item.pk]


def test_a_worker_asks_under_the_schema_the_coordinator_sent(endpoint, resident, city):
    alice, bob = resident("Alice"), resident("Bob")
    source = world_source()
    world = source.build([alice.pk, bob.pk])
    from agents.autonomy.policy import policy_from_settings

    choices = json.loads(json.dumps(policy_from_settings(source).choices(world, [alice.pk, bob.pk])))  # as the broker delivers
    round_ = AutonomyRound.objects.create(provider="openai")
    endpoint.reply(decisions({"agent_id": alice.pk, "action": "rest"}, {"agent_id": bob.pk, "action": "rest"}))

    report = distributed.run_batch(round_.pk, 0, [alice.pk, bob.pk], "the coordinator's prompt", None, "w1", choices)

    assert report["error"] is None
    [request] = endpoint.requests
    params = offered(request)
    assert params["purchase"]["item_id"] == [city.bread_item.pk]
    assert params["assign_building"]["building_id"] == [city.mill.pk]
    assert params["transfer_resource"]["to_agent_id"] == sorted([alice.pk, bob.pk])
    assert AgentActionLog.objects.filter(round_id=round_.pk).count() == 2


def test_a_replay_decodes_under_the_recorded_batchs_schema(endpoint, resident, city, tmp_path):
    alice, bob = resident("Alice"), resident("Bob")
    endpoint.respond_with(lambda r: {"content": decisions(*({"agent_id": i, "action": "rest"} for i in prompt_ids(r)))}, delay=0)
    call_command("autonomy_tick", "--record", str(tmp_path), stdout=StringIO())
    record = json.loads(next(tmp_path.rglob("batch-*.json")).read_text())
    assert record["choices"]["purchase"]["item_id"] == [city.bread_item.pk]

    with ScriptedOpenAI() as other:
        other.respond_with(lambda r: {"content": decisions(*({"agent_id": i, "action": "rest"} for i in (alice.pk, bob.pk)))}, delay=0)
        call_command("replay_tick", str(tmp_path), "--endpoint", other.base_url, "--api-key", "k", stdout=StringIO())
        [request] = other.requests
    assert offered(request) == offered(endpoint.requests[0])
    assert offered(request)["purchase"]["item_id"] == [city.bread_item.pk]
