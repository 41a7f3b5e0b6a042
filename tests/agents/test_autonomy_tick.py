"""The autonomy tick end to end, with the real ``openai`` SDK against the scripted server."""

from __future__ import annotations

import json

import pytest
from django.db import connection

from agents.autonomy.tick import run_tick
from agents.models import AgentActionLog, AutonomyRound, ToolCall
from bounties.models import Bounty
from core.models import EventLog
from tests.agents.fixtures import (  # noqa: F401  (fixtures)
    city,
    decisions,
    endpoint,
    prompt_ids,
    resident,
    write_from_another_connection,
)

pytestmark = pytest.mark.django_db


def events(name):
    return [row.data for row in EventLog.objects.filter(event=name).order_by("seq")]


def test_execute_claim_bounty_success(endpoint, resident, django_capture_on_commit_callbacks):
    alice = resident("Alice")
    bounty = Bounty.objects.create(title="收集100小麦", reward=50)
    endpoint.reply(decisions({"agent_id": alice.pk, "action": "claim_bounty", "params": {"bounty_id": bounty.pk}, "reason": "测试"}))
    with django_capture_on_commit_callbacks(execute=True):
        result = run_tick()

    bounty.refresh_from_db()
    assert (bounty.status, bounty.claimed_by) == ("claimed", alice)
    assert result.stats["success"] == 1 and result.stats["by_action"] == {"claim_bounty": 1}
    [action] = events("agent_action")
    assert (action["agent_id"], action["agent_name"], action["action"], action["reason"]) == (alice.pk, "Alice", "claim_bounty", "测试")
    [claimed] = events("bounty_claimed")
    assert (claimed["bounty_id"], claimed["claimed_by"], claimed["claimed_by_name"]) == (bounty.pk, alice.pk, "Alice")
    call = ToolCall.objects.get()
    assert (call.tool_name, call.source, call.status) == ("claim_bounty", "autonomy", "success")
    log = AgentActionLog.objects.get()
    assert (log.agent, log.action, log.status, log.reason) == (alice, "claim_bounty", "success", "测试")
    assert AutonomyRound.objects.get().stats["success"] == 1


def test_execute_claim_bounty_failure_consumes_tick(endpoint, resident, django_capture_on_commit_callbacks):
    alice, bob = resident("Alice"), resident("Bob")
    bounty = Bounty.objects.create(title="修路", reward=20, status="claimed", claimed_by=bob)
    endpoint.reply(decisions({"agent_id": alice.pk, "action": "claim_bounty", "params": {"bounty_id": bounty.pk}}))
    with django_capture_on_commit_callbacks(execute=True):
        result = run_tick(agent_ids=[alice.pk])

    assert result.stats["failed"] == 1 and result.stats["success"] == 0
    assert events("bounty_claimed") == [] and events("agent_action") == []
    log = AgentActionLog.objects.get()
    assert (log.status, log.error_code) == ("failed", "bounty_not_open")


def test_execute_claim_bounty_missing_params(endpoint, resident):
    alice = resident("Alice")
    endpoint.reply(decisions({"agent_id": alice.pk, "action": "claim_bounty", "params": {}}))
    result = run_tick()
    assert result.stats["failed"] == 1
    assert AgentActionLog.objects.get().error_code == "invalid_arguments"


def test_failure_reason_appears_in_the_next_rounds_prompt(endpoint, resident):
    alice = resident("Alice")
    endpoint.reply(decisions({"agent_id": alice.pk, "action": "claim_bounty", "params": {"bounty_id": 999}}))
    endpoint.reply(decisions({"agent_id": alice.pk, "action": "rest"}))
    run_tick()
    run_tick()
    second_prompt = endpoint.requests[1]["messages"][-1]["content"]
    previous = second_prompt.split("== 上一轮行为 ==")[1]
    assert f"ID={alice.pk} Alice: claim_bounty 失败：悬赏不存在" in previous


def test_unknown_action_becomes_rest(endpoint, resident, settings):
    settings.CITY_ENERGY_DECAY = 0  # the energy below is the rest's alone
    alice = resident("Alice", energy=50)
    endpoint.reply(decisions({"agent_id": alice.pk, "action": "fly_to_moon", "params": {"speed": 9}}))
    result = run_tick()
    alice.refresh_from_db()
    assert alice.energy == 70
    assert result.stats["by_action"] == {"rest": 1} and result.stats["success"] == 1


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"item_id": "abc"}, "invalid_arguments"),
        ({"item_id": 1, "from_agent_id": 2}, "invalid_arguments"),
        ({"item_id": 99999}, "item_not_found"),
        ([1, 2], "invalid_arguments"),
    ],
)
def test_bad_params_fail_without_writing(endpoint, resident, params, code):
    alice = resident("Alice", credits=100)
    endpoint.reply(decisions({"agent_id": alice.pk, "action": "purchase", "params": params}))
    result = run_tick()
    alice.refresh_from_db()
    assert alice.credits == 100
    assert result.stats["failed"] == 1
    log = AgentActionLog.objects.get()
    assert log.error_code == code and log.message


def test_an_action_the_agent_was_not_granted_fails(endpoint, resident):
    alice = resident("Alice", tools=("rest",))
    bounty = Bounty.objects.create(title="修路", reward=20)
    endpoint.reply(decisions({"agent_id": alice.pk, "action": "claim_bounty", "params": {"bounty_id": bounty.pk}}))
    run_tick()
    bounty.refresh_from_db()
    assert bounty.status == "open"
    assert AgentActionLog.objects.get().error_code == "tool_not_allowed"


def test_autonomy_transfer_resource_success(endpoint, resident, django_capture_on_commit_callbacks):
    """Seed 000 AC-07: the tick decides transfer_resource and it runs from the deciding agent."""
    from city.models import AgentResource, ResourceTransfer

    alice = resident("Alice", holdings={"flour": 10})
    bob = resident("Bob")
    endpoint.reply(decisions({
        "agent_id": alice.pk, "action": "transfer_resource",
        "params": {"to_agent_id": bob.pk, "resource_type": "flour", "quantity": 3}, "reason": "Bob 没有面粉，分一些给他",
    }, {"agent_id": bob.pk, "action": "rest"}))
    with django_capture_on_commit_callbacks(execute=True):
        result = run_tick()

    assert result.stats["success"] == 2
    assert AgentResource.objects.get(agent=alice).quantity == 7
    assert AgentResource.objects.get(agent=bob).quantity == 3
    transfer = ResourceTransfer.objects.get()
    assert (transfer.from_agent, transfer.to_agent, transfer.source) == (alice, bob, "autonomy")
    # A batch runs the decisions that lock other residents' rows last (CityWorld.contended_actions).
    assert [e["action"] for e in events("agent_action")] == ["rest", "transfer_resource"]
    assert len(events("resource_transferred")) == 1


def test_autonomy_transfer_resource_missing_params(endpoint, resident):
    from city.models import AgentResource

    alice = resident("Alice", holdings={"flour": 10})
    endpoint.reply(decisions({"agent_id": alice.pk, "action": "transfer_resource", "params": {"resource_type": "flour"}}))
    result = run_tick()
    assert result.stats["failed"] == 1
    assert AgentResource.objects.get(agent=alice).quantity == 10


def test_a_decision_cannot_move_another_residents_goods(endpoint, resident):
    from city.models import AgentResource

    alice = resident("Alice")
    bob = resident("Bob", holdings={"flour": 10})
    endpoint.reply(decisions({
        "agent_id": alice.pk, "action": "transfer_resource",
        "params": {"from_agent_id": bob.pk, "to_agent_id": alice.pk, "resource_type": "flour", "quantity": 5},
    }, {"agent_id": bob.pk, "action": "rest"}))
    run_tick()
    assert AgentResource.objects.get(agent=bob).quantity == 10
    assert not AgentResource.objects.filter(agent=alice).exists()


def test_batches_are_sent_concurrently_each_with_only_its_residents(endpoint, resident):
    residents = [resident(f"R{i}") for i in range(5)]

    def answer(request):
        return {"content": decisions(*({"agent_id": i, "action": "rest"} for i in prompt_ids(request)))}

    endpoint.respond_with(answer, delay=0.3)
    result = run_tick(batch_size=2, concurrency=3)

    asked = sorted(prompt_ids(r) for r in endpoint.requests)
    assert asked == [[residents[0].pk, residents[1].pk], [residents[2].pk, residents[3].pk], [residents[4].pk]]
    assert result.stats["batches"] == 3 and result.stats["success"] == 5
    assert endpoint.most_in_flight >= 2  # overlapping, not one after the other


def test_a_decision_for_a_resident_of_another_batch_is_ignored(endpoint, resident):
    alice, bob = resident("Alice", energy=50), resident("Bob", energy=50)
    bounty = Bounty.objects.create(title="修路", reward=20)

    def answer(request):
        [asked] = prompt_ids(request)
        if asked == alice.pk:  # also tries to decide for Bob, who is in the other batch
            return {"content": decisions({"agent_id": alice.pk, "action": "rest"},
                                         {"agent_id": bob.pk, "action": "claim_bounty", "params": {"bounty_id": bounty.pk}})}
        return {"content": decisions({"agent_id": bob.pk, "action": "rest"})}

    endpoint.respond_with(answer, delay=0)
    result = run_tick(batch_size=1)
    bounty.refresh_from_db()
    assert bounty.status == "open"
    assert result.stats["ignored"] == 1 and result.stats["by_action"] == {"rest": 2}


def test_a_failed_batch_rests_and_the_tick_finishes(endpoint, resident):
    alice, bob = resident("Alice", energy=50), resident("Bob", energy=50)
    endpoint.error(500).error(500).reply(decisions({"agent_id": bob.pk, "action": "rest"}))
    result = run_tick(batch_size=1, concurrency=1)

    assert result.stats["failed_batches"] == 1
    assert result.stats["by_action"] == {"rest": 2} and result.stats["success"] == 1 and result.stats["fallback"] == 1
    [error] = result.errors
    assert error["agent_ids"] == [alice.pk] and "500" in error["error"]
    alice_log = AgentActionLog.objects.get(agent=alice)
    assert alice_log.action == "rest" and "本轮决策失败" in alice_log.reason
    assert AutonomyRound.objects.get().errors == result.errors
    assert "1 batches failed" in result.line()


def test_a_timed_out_batch_rests(endpoint, resident, settings):
    settings.AGENT_MODEL_TIMEOUT = 0.3
    alice = resident("Alice")
    endpoint.reply("[]", delay=2).reply("[]", delay=2)
    result = run_tick()
    assert result.stats["failed_batches"] == 1
    assert "超时" in result.errors[0]["error"]
    assert AgentActionLog.objects.get(agent=alice).action == "rest"


def test_a_garbage_answer_rests_the_batch(endpoint, resident):
    resident("Alice")
    endpoint.reply("今天大家都很开心！")
    result = run_tick()
    assert result.stats["failed_batches"] == 1 and result.stats["by_action"] == {"rest": 1}


def test_a_repairable_answer_is_used(endpoint, resident):
    alice = resident("Alice", energy=50)
    endpoint.reply(f'好的：\n```json\n{{"agent_id": {alice.pk}, "action": "rest", "params": {{}}, "reason": "累了",}}\n```')
    result = run_tick()
    assert result.stats["failed_batches"] == 0 and result.stats["success"] == 1
    assert AgentActionLog.objects.get().reason == "累了"


def test_token_budget_stops_asking_the_model_and_says_so(endpoint, resident, settings):
    settings.AUTONOMY_TOKEN_BUDGET = 100
    alice, bob = resident("Alice"), resident("Bob")
    endpoint.reply(decisions({"agent_id": alice.pk, "action": "rest"}), usage=(90, 20))
    endpoint.reply(decisions({"agent_id": bob.pk, "action": "rest"}), usage=(90, 20))
    result = run_tick(batch_size=1, concurrency=1)

    assert len(endpoint.requests) == 1
    assert result.stats["tokens"] == 110
    assert result.stats["budget_exhausted"] is True and result.stats["skipped_batches"] == 1
    assert "token budget spent" in result.line()
    assert "预算" in AgentActionLog.objects.get(agent=bob).reason


def test_dry_run_decides_but_changes_nothing(endpoint, resident):
    alice = resident("Alice", energy=50)
    endpoint.reply(decisions({"agent_id": alice.pk, "action": "rest"}))
    result = run_tick(dry_run=True, show_prompt=True)
    alice.refresh_from_db()
    assert alice.energy == 50
    assert [d.action for d in result.decisions] == ["rest"]
    assert not AutonomyRound.objects.exists() and not ToolCall.objects.exists()
    system, batch = result.prompts
    assert "claim_bounty{bounty_id}" in system and f"ID={alice.pk} Alice" in batch
    assert "tick (dry run)" in result.line()


def test_the_model_gets_the_system_prompt_and_no_tools(endpoint, resident):
    resident("Alice")
    endpoint.reply("[]")
    run_tick()
    request = endpoint.requests[0]
    assert "tools" not in request
    assert request["messages"][0]["role"] == "system"
    assert "checkin{} purchase{item_id,quantity?}" in request["messages"][0]["content"]


def test_a_tick_with_no_residents_does_nothing(endpoint):
    result = run_tick()
    assert result.stats["agents"] == 0 and endpoint.requests == []


def test_old_rounds_are_pruned(endpoint, resident, settings):
    from datetime import timedelta

    from django.utils import timezone

    alice = resident("Alice")
    old = AutonomyRound.objects.create(provider="rules")
    AgentActionLog.objects.create(round=old, agent=alice, action="rest", status="success")
    AutonomyRound.objects.filter(pk=old.pk).update(started_at=timezone.now() - timedelta(days=settings.EVENT_LOG_RETENTION_DAYS + 1))
    endpoint.reply("[]")
    run_tick()
    assert not AutonomyRound.objects.filter(pk=old.pk).exists()
    assert AgentActionLog.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_no_transaction_is_open_while_the_model_decides(endpoint, resident):
    if connection.vendor != "sqlite":
        pytest.skip("the probe uses SQLite's write lock")
    residents = [resident(f"R{i}", energy=50) for i in range(4)]
    path = connection.settings_dict["NAME"]
    outcomes: list[str] = []

    def answer(request):
        outcomes.append(write_from_another_connection(path))
        return {"content": decisions(*({"agent_id": i, "action": "rest"} for i in prompt_ids(request)))}

    endpoint.respond_with(answer, delay=0.05)
    result = run_tick(batch_size=1, concurrency=2)
    assert outcomes == ["wrote"] * 4
    assert result.stats["success"] == len(residents)


def test_residents_of_a_failed_batch_count_as_fallback_not_success(endpoint, resident):
    resident("Alice", energy=50)
    endpoint.reply("今天大家都很开心！")
    result = run_tick()
    assert (result.stats["success"], result.stats["fallback"]) == (0, 1)
    assert result.every_batch_failed and "fallback 1" in result.line()


def test_every_batch_failing_exits_non_zero_naming_the_endpoint(endpoint, resident, settings):
    from django.core.management import CommandError, call_command

    resident("Alice")
    endpoint.error(500).error(500)
    with pytest.raises(CommandError) as failed:
        call_command("autonomy_tick")
    assert settings.OPENAI_BASE_URL in str(failed.value) and "HTTP 500" in str(failed.value)


def test_an_unreachable_endpoint_fails_the_command(resident, settings):
    import socket

    from django.core.management import CommandError, call_command

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings.AGENT_PROVIDER, settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY = "openai", f"http://127.0.0.1:{port}/v1", "k"
    resident("Alice")
    with pytest.raises(CommandError) as failed:
        call_command("autonomy_tick")
    assert f"127.0.0.1:{port}" in str(failed.value) and "every batch failed" in str(failed.value)


def test_one_failed_batch_of_two_is_not_a_failed_tick(endpoint, resident):
    from django.core.management import call_command

    resident("Alice")
    bob = resident("Bob")
    # An empty "[]" for the second batch would be a failure too: a decision is needed.
    endpoint.error(500).error(500).reply(decisions({"agent_id": bob.pk, "action": "rest"}))
    call_command("autonomy_tick", "--batch-size", "1", "--concurrency", "1")  # no CommandError


def test_a_resident_the_answer_leaves_out_is_fallback_not_success(endpoint, resident):
    alice, bob = resident("Alice"), resident("Bob")
    endpoint.reply(decisions({"agent_id": alice.pk, "action": "rest"}))
    result = run_tick()
    assert (result.stats["success"], result.stats["fallback"], result.stats["failed_batches"]) == (1, 1, 0)
    assert not result.every_batch_failed
    assert AgentActionLog.objects.get(agent=bob).reason == "模型没有给出决定，默认休息"


def test_an_empty_answer_fails_the_batch_and_every_resident_falls_back(endpoint, resident):
    resident("Alice"), resident("Bob")
    endpoint.reply("[]")
    result = run_tick()
    assert (result.stats["success"], result.stats["fallback"], result.stats["failed_batches"]) == (0, 2, 1)
    assert result.every_batch_failed and result.failure_code == "model_error"
    assert "no decision" in result.errors[0]["error"] or "没有本批任何居民的决定" in result.errors[0]["error"]


def test_an_empty_answer_fails_the_command(endpoint, resident):
    from django.core.management import CommandError, call_command

    resident("Alice")
    endpoint.reply("[]")
    with pytest.raises(CommandError, match="every batch failed"):
        call_command("autonomy_tick")


def test_a_count_of_ticks_runs_them_all_and_fails_if_one_failed_entirely(endpoint, resident):
    from django.core.management import CommandError, call_command

    alice = resident("Alice")
    endpoint.reply("[]").reply(decisions({"agent_id": alice.pk, "action": "rest"})).reply("[]")
    with pytest.raises(CommandError, match="2 of 3 ticks failed entirely"):
        call_command("autonomy_tick", "--count", "3")
    assert AutonomyRound.objects.count() == 3 and endpoint.unconsumed == 0


def test_a_fallback_rest_that_fails_is_still_fallback(endpoint, resident):
    resident("Alice", tools=("claim_bounty",))  # not granted rest: the fallback rest itself fails
    endpoint.reply("今天天气不错")
    result = run_tick()
    assert (result.stats["failed"], result.stats["fallback"]) == (0, 1) and result.every_batch_failed


def test_tokens_of_an_abandoned_answer_count_against_the_budget(resident):
    from agents.providers import ModelError

    class Unreadable:
        name, model, uses_prompt = "openai", "m", True

        async def answer(self, world, batch, prompt):
            raise ModelError("unreadable", usage={"prompt_tokens": 700, "completion_tokens": 50, "total_tokens": 750})

    resident("Alice")
    result = run_tick(policy=Unreadable())
    assert result.stats["failed_batches"] == 1 and result.stats["tokens"] == 750


def _planning_recorded(monkeypatch) -> list[tuple[str, int]]:
    """A list the tick's world source appends ("planned", first resident id) to as it builds each batch's prompt."""
    from agents.autonomy.sources import world_source

    order: list[tuple[str, int]] = []
    source = world_source()
    snapshot = source.snapshot
    monkeypatch.setattr(source, "snapshot", lambda world, batch: order.append(("planned", batch[0])) or snapshot(world, batch))
    return order


def test_the_first_batch_is_asked_before_the_last_prompt_is_built(resident, monkeypatch):
    """Planning goes with the calls: a batch's call starts before the next prompt is built, so the
    first calls do not wait for every prompt (50 of them took ~20 ms before the first call went out)."""
    import asyncio

    from agents.autonomy.policy import Answer

    order = _planning_recorded(monkeypatch)

    class Recording:
        name, model, uses_prompt = "openai", "m", True

        async def answer(self, world, batch, prompt):
            order.append(("asked", batch[0]))
            await asyncio.sleep(0.01)
            return Answer(decisions(*({"agent_id": i, "action": "rest"} for i in batch)))

    ids = [resident(f"R{i}").pk for i in range(4)]
    result = run_tick(batch_size=1, concurrency=2, policy=Recording())
    assert order.index(("asked", ids[0])) < order.index(("planned", ids[-1])), order
    assert [event for event in order if event[0] == "asked"] == [("asked", i) for i in ids]  # in order, each once
    assert (result.stats["batches"], result.stats["success"], result.stats["fallback"]) == (4, 4, 0)
    assert AgentActionLog.objects.filter(round_id=result.round_id).count() == 4


def test_a_prompt_is_built_only_when_a_call_slot_is_free_for_it(resident, monkeypatch):
    """With two slots, the third batch's prompt waits for the first answer: the first calls do not
    wait while every other prompt is built on the event loop (50 prompts held the first wave ~25 ms)."""
    import asyncio

    from agents.autonomy.policy import Answer

    order = _planning_recorded(monkeypatch)

    class Recording:
        name, model, uses_prompt = "openai", "m", True

        async def answer(self, world, batch, prompt):
            await asyncio.sleep(0.02)
            order.append(("answered", batch[0]))
            return Answer(decisions(*({"agent_id": i, "action": "rest"} for i in batch)))

    ids = [resident(f"R{i}").pk for i in range(4)]
    result = run_tick(batch_size=1, concurrency=2, policy=Recording())
    assert order[:2] == [("planned", ids[0]), ("planned", ids[1])], order
    assert order.index(("planned", ids[2])) > order.index(("answered", ids[0])), order
    assert (result.stats["batches"], result.stats["success"], result.stats["fallback"]) == (4, 4, 0)


def test_a_slot_lets_the_next_request_be_built_once_its_own_has_left(resident):
    """A policy that says when its request has left (``request_sent``) gets its calls paced by the
    tick, never serialised: every slot's call is out at once while the answers are awaited."""
    import asyncio

    from agents.autonomy.policy import Answer
    from agents.providers.base import request_sent

    in_flight, most = 0, 0

    class Announcing:
        name, model, uses_prompt, announces_requests = "openai", "m", True, True

        async def answer(self, world, batch, prompt):
            nonlocal in_flight, most
            request_sent.get()()  # the request has left; the answer is awaited below
            in_flight += 1
            most = max(most, in_flight)
            await asyncio.sleep(0.05)
            in_flight -= 1
            return Answer(decisions(*({"agent_id": i, "action": "rest"} for i in batch)))

    for i in range(6):
        resident(f"R{i}")
    result = run_tick(batch_size=1, concurrency=3, policy=Announcing())
    assert most == 3
    assert (result.stats["batches"], result.stats["success"], result.stats["fallback"]) == (6, 6, 0)
    assert AgentActionLog.objects.filter(round_id=result.round_id).count() == 6


def test_the_openai_provider_tells_the_calling_task_each_request_it_sends(endpoint, resident, monkeypatch):
    """``request_sent`` hears of every request of the tick's calls (the pooled client's hook), in
    the task that made it: what lets a slot give up its turn before the answer is awaited."""
    from agents.autonomy import tick as tick_module
    from agents.providers.base import request_sent

    heard = []
    ask = tick_module.ask_policy

    async def listening(policy, world, batch, *args, **kwargs):
        listener = request_sent.get()
        token = request_sent.set(lambda: (heard.append(batch[0]), listener and listener()))
        try:
            return await ask(policy, world, batch, *args, **kwargs)
        finally:
            request_sent.reset(token)

    ids = [resident(f"R{i}").pk for i in range(3)]
    endpoint.respond_with(lambda request: {"content": decisions(*({"agent_id": i, "action": "rest"} for i in prompt_ids(request)))}, delay=0)
    monkeypatch.setattr(tick_module, "ask_policy", listening)
    result = run_tick(batch_size=1, concurrency=2)
    assert sorted(heard) == ids and len(endpoint.requests) == 3
    assert (result.stats["success"], result.stats["fallback"]) == (3, 0)


def test_each_batch_caps_its_answer_by_its_size(endpoint, resident):
    resident("Alice"), resident("Bob"), resident("Carol")
    endpoint.respond_with(lambda request: {"content": decisions(*({"agent_id": i, "action": "rest"} for i in prompt_ids(request)))}, delay=0)
    run_tick(batch_size=2, concurrency=1)
    caps = sorted((len(prompt_ids(r)), r["max_tokens"]) for r in endpoint.requests)
    assert caps[0][0] == 1 and caps[1][0] == 2 and caps[0][1] < caps[1][1] <= 512


def test_a_batch_too_big_for_the_context_is_split(endpoint, resident, settings):
    from agents.providers.tokens import estimate_tokens

    residents = [resident(f"R{i}") for i in range(6)]
    endpoint.respond_with(lambda request: {"content": decisions(*({"agent_id": i, "action": "rest"} for i in prompt_ids(request)))}, delay=0)
    run_tick(batch_size=6, dry_run=True)
    whole = endpoint.requests[0]
    needed = sum(estimate_tokens(m["content"]) for m in whole["messages"]) + whole["max_tokens"]
    settings.AGENT_CONTEXT_TOKENS = needed - 1
    result = run_tick(batch_size=6)

    asked = [prompt_ids(r) for r in endpoint.requests[1:]]
    assert len(asked) >= 2 and sorted(i for ids in asked for i in ids) == sorted(r.pk for r in residents)
    assert result.stats["failed_batches"] == 0 and result.stats["success"] == 6


@pytest.mark.parametrize("bad", ["Infinity", "NaN", "1e999"])
def test_one_non_finite_decision_fails_alone_and_the_rest_of_its_batch_applies(endpoint, resident, settings, bad):
    settings.CITY_ENERGY_DECAY = 0
    alice, bob = resident("Alice", credits=100), resident("Bob", energy=50)
    endpoint.reply(
        f'[{{"agent_id": {alice.pk}, "action": "purchase", "params": {{"item_id": 1, "quantity": {bad}}}}},'
        f' {{"agent_id": {bob.pk}, "action": "rest"}}]'
    )
    result = run_tick(batch_size=2)

    alice.refresh_from_db(), bob.refresh_from_db()
    assert (alice.credits, bob.energy) == (100, 70)
    assert (result.stats["failed"], result.stats["success"]) == (1, 1)
    alice_log, bob_log = AgentActionLog.objects.get(agent=alice), AgentActionLog.objects.get(agent=bob)
    assert (alice_log.status, alice_log.error_code) == ("failed", "invalid_arguments")
    assert bob_log.status == "success"
    assert ToolCall.objects.filter(agent=alice, error_code="invalid_arguments").count() == 1
    assert ToolCall.objects.filter(agent=bob, status="success").count() == 1


def test_a_decision_the_database_refuses_fails_alone(endpoint, resident, settings, monkeypatch):
    """A statement the database refuses in the middle of a batch: the batch is applied again with a
    savepoint around each decision, so only that decision fails (audited); the rest applies once."""
    from agents.autonomy import execution

    settings.CITY_ENERGY_DECAY = 0
    alice, bob = resident("Alice", energy=50), resident("Bob", energy=50)
    real_execute = execution.execute

    def refused_for_alice(name, arguments, context, *, batch=None):
        if context.agent.pk == alice.pk:
            with connection.cursor() as cursor:
                cursor.execute("INSERT INTO no_such_table VALUES (1)")
        return real_execute(name, arguments, context, batch=batch)

    monkeypatch.setattr(execution, "execute", refused_for_alice)
    endpoint.reply(decisions({"agent_id": alice.pk, "action": "rest"}, {"agent_id": bob.pk, "action": "rest"}))
    result = run_tick(batch_size=2)

    alice.refresh_from_db(), bob.refresh_from_db()
    assert (alice.energy, bob.energy) == (50, 70)
    assert (result.stats["failed"], result.stats["success"]) == (1, 1)
    assert AgentActionLog.objects.get(agent=alice).error_code == "database_error"
    assert AgentActionLog.objects.get(agent=bob).status == "success"
    assert list(ToolCall.objects.filter(agent=alice).values_list("error_code", flat=True)) == ["database_error"]
    assert ToolCall.objects.filter(agent=bob, status="success").count() == 1


def test_the_tick_asks_for_decisions_under_a_json_schema_of_its_batch(endpoint, resident):
    from city.autonomy.prompt import ACTIONS

    alice, bob = resident("Alice"), resident("Bob")
    endpoint.reply('{"decisions": [{"agent_id": %d, "action": "rest", "params": {}, "reason": "累了"},'
                   ' {"agent_id": %d, "action": "rest", "params": {}, "reason": "累了"}]}' % (alice.pk, bob.pk))
    result = run_tick()
    assert result.stats["success"] == 2
    response_format = endpoint.requests[0]["response_format"]
    assert response_format["type"] == "json_schema" and response_format["json_schema"]["name"] == "decisions"
    schema = response_format["json_schema"]["schema"]
    assert schema["type"] == "object" and schema["required"] == ["decisions"]
    decisions_ = schema["properties"]["decisions"]
    assert decisions_["minItems"] == decisions_["maxItems"] == 2
    shapes = decisions_["items"]["anyOf"]
    # No market order and no bounty in this city: the actions on them have nothing to act on.
    nothing_to_act_on = {"accept_market_order", "cancel_market_order", "claim_bounty"}
    assert [shape["properties"]["action"]["enum"] for shape in shapes] == [[a] for a in ACTIONS if a not in nothing_to_act_on]
    assert {tuple(shape["properties"]["agent_id"]["enum"]) for shape in shapes} == {(alice.pk, bob.pk)}
    [purchase] = [s for s in shapes if s["properties"]["action"]["enum"] == ["purchase"]]
    assert purchase["properties"]["params"]["required"] == ["item_id"]
    assert purchase["properties"]["params"]["properties"]["item_id"]["type"] == "integer"


def test_the_tick_schema_allows_only_what_the_snapshot_names(endpoint, resident, city):
    """Found on the real server (Gemma 3 270M, 10 demo ticks): decoded under the tools' own schemas it
    bought item #2000000000000000, worked at building #1000000000000000 and ate "food", every
    resident refused by its tool for six ticks running; a grammar bounds no integer, an enum it keeps."""
    from city.models import MarketOrder

    alice, bob = resident("Alice", holdings={"flour": 3}), resident("Bob")
    order = MarketOrder.objects.create(seller=alice, resource_type=city.flour, quantity=1, price=30)
    bounty = Bounty.objects.create(title="收集100小麦", reward=50)
    endpoint.reply('{"decisions": [{"agent_id": %d, "action": "rest", "params": {}, "reason": "累了"},'
                   ' {"agent_id": %d, "action": "rest", "params": {}, "reason": "累了"}]}' % (alice.pk, bob.pk))
    run_tick()

    schema = endpoint.requests[0]["response_format"]["json_schema"]["schema"]
    params = {
        shape["properties"]["action"]["enum"][0]: shape["properties"]["params"]["properties"]
        for shape in schema["properties"]["decisions"]["items"]["anyOf"]
    }
    assert params["purchase"]["item_id"]["enum"] == [city.bread_item.pk]
    assert params["assign_building"]["building_id"]["enum"] == [city.mill.pk]
    assert params["eat"]["resource_type"]["enum"] == ["bread"]
    assert params["transfer_resource"]["to_agent_id"]["enum"] == sorted([alice.pk, bob.pk])
    assert params["transfer_resource"]["resource_type"]["enum"] == ["bread", "flour", "wood"]
    assert params["create_market_order"]["resource_type"]["enum"] == ["bread", "flour", "wood"]
    assert params["accept_market_order"]["order_id"]["enum"] == [order.pk]
    assert params["cancel_market_order"]["order_id"]["enum"] == [order.pk]
    assert params["construct_building"]["kind"]["enum"] == ["mill"]
    assert params["claim_bounty"]["bounty_id"]["enum"] == [bounty.pk]
    assert "enum" not in params["create_market_order"]["quantity"]  # numbers stay the model's (and the tool's) to judge


def test_an_endpoint_refusing_openais_shape_gets_llama_cpp_pythons_and_is_probed_once(endpoint, resident, caplog):
    import logging

    alice = resident("Alice")
    endpoint.reject_response_format("json_schema")
    endpoint.respond_with(lambda request: {"content": decisions({"agent_id": alice.pk, "action": "rest"})}, delay=0)
    with caplog.at_level(logging.INFO):
        assert run_tick().stats["success"] == 1
        assert run_tick().stats["success"] == 1
    shapes = [r["response_format"]["type"] for r in endpoint.requests]
    assert shapes == ["json_schema", "json_object", "json_object"]
    assert "agent_id" in json.dumps(endpoint.requests[1]["response_format"]["schema"])
    assert sum("refused response_format json_schema" in r.getMessage() for r in caplog.records) == 1


def test_llama_cpp_pythons_500_refusing_openais_shape_is_a_refusal_not_a_failed_batch(endpoint, resident):
    """Found against the real server (make test-models): llama-cpp-python 0.3.36 answers a ``json_schema``
    response_format with HTTP 500 carrying its validation error; every batch failed, the shape was never dropped."""
    alice = resident("Alice")
    endpoint.reject_response_format("json_schema", status=500)
    endpoint.respond_with(lambda request: {"content": decisions({"agent_id": alice.pk, "action": "rest"})}, delay=0)
    result = run_tick()
    assert result.stats["success"] == 1 and result.stats["failed_batches"] == 0, result.errors
    assert [r["response_format"]["type"] for r in endpoint.requests] == ["json_schema", "json_object"]


def test_a_500_that_blames_something_else_still_fails_the_batch(endpoint, resident):
    resident("Alice")
    endpoint.respond_with(lambda request: (_ for _ in ()).throw(RuntimeError("validation of the model file failed")), delay=0)
    result = run_tick()
    assert result.stats["failed_batches"] == 1
    assert all(r["response_format"]["type"] == "json_schema" for r in endpoint.requests)  # the shape was not dropped


def test_an_endpoint_without_response_format_still_gets_the_text_protocol(endpoint, resident):
    alice = resident("Alice")
    endpoint.reject_response_format("json_schema", "json_object")
    endpoint.respond_with(lambda request: {"content": decisions({"agent_id": alice.pk, "action": "rest"})}, delay=0)
    assert run_tick().stats["success"] == 1 and run_tick().stats["success"] == 1
    assert ["response_format" in r for r in endpoint.requests] == [True, True, False, False]

