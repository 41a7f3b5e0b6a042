"""The autonomy tick on Celery, when ``CELERY_BROKER_URL`` is set (DESIGN §16).

The coordinator (``run``: the command, the API, the loop) has already read the world once,
planned the batches and opened the round. Here it sends a group of batch tasks and waits for
the chord callback that closes the round log:

- a batch task (``agents.tasks.autonomy_batch``, ``acks_late`` and rejected when its worker is
  lost) asks the model for its residents (a model policy, under the decoding schema of what the
  coordinator's snapshot offers them: a worker does not read the world) or takes the answer the
  coordinator computed (the offline rules policy, which needs the whole world), then executes the decisions
  through ``execution.apply_batch``. A batch redelivered after its worker died finds its
  residents recorded under their ``(tick, resident)`` key and applies nothing twice; it does
  not ask the model again either.
- a worker that cannot reach the model makes the batch's residents rest, counted as
  ``fallback`` and listed in the round's errors, exactly as in-process.
- the callback (``agents.tasks.autonomy_close``) counts the outcomes from the round-log rows,
  records the workers that took part and ends the tick.

The token budget (``AUTONOMY_TOKEN_BUDGET``) is not enforced across workers.
"""

from __future__ import annotations

import time
from typing import Any

from asgiref.sync import async_to_sync
from django.conf import settings

from agents.models import Agent, AutonomyRound

from .decisions import parse_decisions, validate_decisions
from .execution import BatchOrigin, apply_batch, recorded
from .sources import Policy, World, WorldSource, world_source


def enabled() -> bool:
    return bool(settings.CELERY_BROKER_URL)


def run(
    source: WorldSource, world: World, policy: Policy, batches: list[tuple[list[int], str]], round_: AutonomyRound,
    *, snapshot_s: float, started: float,
) -> tuple[dict, list[dict]]:
    """Run the planned batches on the workers and wait for the round to close; its stats and errors."""
    from celery import chord

    from agents.tasks import autonomy_batch, autonomy_close

    from .tick import _empty_stats

    stats = _empty_stats(len(world.residents), len(batches))
    stats["snapshot_s"] = round(snapshot_s, 3)
    header = []
    for index, (batch, prompt) in enumerate(batches):
        # The rules policy reads the whole world, which only the coordinator holds: it answers here.
        answer = None if policy.uses_prompt else async_to_sync(policy.answer)(world, batch, "").text
        offered = getattr(policy, "choices", None)
        choices = offered(world, batch) if offered is not None else None
        header.append(autonomy_batch.s(round_.pk, index, batch, prompt, answer, choices))
    elapsed = time.monotonic() - started
    closing = chord(header)(autonomy_close.s(round_.pk, stats, time.time() - elapsed))
    # Each batch is bounded by its model call (and a redelivery by the broker's visibility timeout).
    limit = len(batches) * (2 * settings.AGENT_MODEL_TIMEOUT + 35) + 60
    payload = closing.get(timeout=limit, disable_sync_subtasks=False)
    return payload["stats"], payload["errors"]


def run_batch(
    round_id: int, index: int, agent_ids: list[int], prompt: str, answer: str | None, worker: str,
    choices: dict | None = None,
) -> dict:
    """One batch task: decide (unless already done) and execute. Never asks the model for a recorded batch."""
    from .policy import policy_from_settings
    from .tick import Asked, ask_policy

    began = time.monotonic()
    report: dict[str, Any] = {"index": index, "worker": worker, "tokens": 0, "prompt_tokens": 0, "ignored": 0, "error": None}
    if recorded(round_id, agent_ids) >= set(agent_ids):
        return {**report, "redelivered": True, "decide_s": 0.0, "execute_s": 0.0}
    source = world_source()
    if answer is not None:
        asked = Asked(validate_decisions(parse_decisions(answer), agent_ids, source.actions))
    else:
        asked = async_to_sync(ask_policy)(policy_from_settings(source), None, agent_ids, prompt, source.actions, choices)
    decided_at = time.monotonic()
    agents = Agent.objects.in_bulk(agent_ids)
    apply_batch(asked.decided, agents, BatchOrigin(round_id, index, worker, fallback=bool(asked.error), omitted=frozenset(asked.decided.omitted)))
    report.update(tokens=asked.tokens, prompt_tokens=asked.prompt_tokens, ignored=asked.decided.ignored)
    if asked.error:
        from .tick import batch_error

        report["error"] = batch_error(index, agent_ids, asked.error, asked.code)
    return {**report, "decide_s": round(decided_at - began, 3), "execute_s": round(time.monotonic() - decided_at, 3)}


def close(results: list[dict], round_id: int, stats: dict, started_at: float) -> dict:
    """The chord callback: merge the batches' reports, close the round log."""
    from .tick import finish_round

    errors = sorted((r["error"] for r in results if r.get("error")), key=lambda e: e["batch"])
    for key in ("tokens", "prompt_tokens", "ignored"):
        stats[key] = sum(r.get(key, 0) for r in results)
    stats["failed_batches"] = len(errors)
    stats["decide_s"] = round(max((r.get("decide_s", 0.0) for r in results), default=0.0), 3)
    stats["execute_s"] = round(sum(r.get("execute_s", 0.0) for r in results), 3)
    stats["redelivered_batches"] = sum(1 for r in results if r.get("redelivered"))
    stats["duration_s"] = round(time.time() - started_at, 3)
    round_ = AutonomyRound.objects.get(pk=round_id)
    return {"stats": finish_round(round_, stats, errors), "errors": errors}
