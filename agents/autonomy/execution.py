"""Executing a batch of a tick's decisions: once per ``(tick, resident)``, in one transaction.

``apply_batch`` is what the in-process tick and a Celery batch task both call. In one
transaction it reads which of the batch's residents the tick already recorded (a redelivered
batch task finds its work done), runs the others' decisions through the audited executor
(source ``autonomy``) and inserts their audit rows and round-log rows in bulk. The database's
unique ``(round, agent)`` constraint settles a batch run twice at once: the second run's
insert fails and the batch is applied again, finding its residents recorded.

When a decision breaks the batch's transaction (the database refuses one of its writes), the
batch is rolled back and applied again with a savepoint around each decision, so that only
the failing decision is rejected, audited and logged as failed, and the rest of the batch
applies. Only if that fails too is the whole batch logged as failed, as before.

``round_outcomes`` counts a tick's outcomes from its rows, so stats stay exact whichever
process, or how many attempts, executed its batches.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import Count
from django.utils.translation import gettext as _

from agents.executor import ExecutionBatch, audit_call, error, execute
from agents.models import Agent, AgentActionLog
from agents.registry import ToolContext
from core.events import broadcast

from .decisions import BatchDecisions, Decision
from .sources import world_source

logger = logging.getLogger(__name__)

IN_PROCESS = "in-process"  # the worker name of a tick run without a broker


@dataclass
class Outcome:
    decision: Decision
    status: str
    message: str
    code: str


@dataclass(frozen=True)
class BatchOrigin:
    """Where a batch's round-log rows come from: its tick, its index, the worker, a tick's fallback rest."""

    round_id: int
    index: int
    worker: str
    fallback: bool = False
    omitted: frozenset[int] = frozenset()  # residents the answer left out: their rests are the tick's too


def recorded(round_id: int, agent_ids: list[int]) -> set[int]:
    """The residents of ``agent_ids`` whose decision this tick already recorded."""
    return set(AgentActionLog.objects.filter(round_id=round_id, agent_id__in=agent_ids).values_list("agent_id", flat=True))


def apply_batch(decided: BatchDecisions, agents: Mapping[int, Agent], origin: BatchOrigin) -> list[Outcome]:
    """Execute the batch's decisions not yet recorded for the tick; the outcomes of those executed now."""
    decisions = list(decided.decisions.values())
    try:
        return _apply(decisions, agents, origin, isolate=False)
    except DatabaseError:
        logger.warning("autonomy batch %s broke its transaction; applying it again decision by decision", origin.index)
    try:
        return _apply(decisions, agents, origin, isolate=True)
    except DatabaseError as exc:
        logger.exception("autonomy batch %s of %s residents rolled back", origin.index, len(decisions))
        return _record_failure(decisions, origin, exc)


def _apply(decisions: list[Decision], agents: Mapping[int, Agent], origin: BatchOrigin, *, isolate: bool) -> list[Outcome]:
    with transaction.atomic():
        done = recorded(origin.round_id, [d.agent_id for d in decisions])
        todo = [d for d in decisions if d.agent_id not in done]
        if not todo:
            return []
        with world_source().open_batch(todo) as world:
            batch = ExecutionBatch([d.agent_id for d in todo], round_id=origin.round_id, world=world)
            if not isolate:
                outcomes = [_execute(decision, agents, batch) for decision in todo]
                batch.close()
                AgentActionLog.objects.bulk_create(_log(outcome, origin) for outcome in outcomes)
                return outcomes
            outcomes = []
            for decision in todo:
                outcome = _execute_alone(decision, agents, batch, origin)
                if outcome is not None:
                    outcomes.append(outcome)
            batch.close()
            return outcomes


def _execute_alone(decision: Decision, agents: Mapping[int, Agent], batch: ExecutionBatch, origin: BatchOrigin) -> Outcome | None:
    """One decision in its own savepoint; what the database refuses fails alone, audited."""
    try:
        with transaction.atomic():
            outcome = _execute(decision, agents, batch)
            batch.flush()
            _log(outcome, origin).save(force_insert=True)
            return outcome
    except IntegrityError:
        batch.discard()
        if recorded(origin.round_id, [decision.agent_id]):
            return None  # another run of this batch recorded it meanwhile
        refused = _("数据库拒绝了这个行为（IntegrityError）")
    except DatabaseError as exc:
        batch.discard()
        refused = _("数据库拒绝了这个行为（%(error)s）") % {"error": type(exc).__name__}
    logger.warning("autonomy decision of agent %s refused by the database", decision.agent_id, exc_info=True)
    # Logged without its params: they may be what the database refused.
    outcome = Outcome(Decision(decision.agent_id, decision.action, {}, decision.reason), AgentActionLog.Status.FAILED, refused, "database_error")
    context = ToolContext(agent=agents.get(decision.agent_id), source="autonomy")
    audit_call(decision.action, {"_raw": _("（被数据库拒绝的参数）")}, error("database_error", refused), context, batch=batch)
    batch.flush()
    _log(outcome, origin).save(force_insert=True)
    return outcome


def _record_failure(decisions: list[Decision], origin: BatchOrigin, exc: DatabaseError) -> list[Outcome]:
    message = _("数据库错误，本轮行为未执行：%(error)s") % {"error": type(exc).__name__}
    outcomes = [Outcome(d, AgentActionLog.Status.FAILED, message, "database_error") for d in decisions]
    try:
        with transaction.atomic():
            done = recorded(origin.round_id, [d.agent_id for d in decisions])
            outcomes = [o for o in outcomes if o.decision.agent_id not in done]
            AgentActionLog.objects.bulk_create(_log(o, origin) for o in outcomes)
    except DatabaseError:
        logger.exception("could not log the rolled-back autonomy batch %s", origin.index)
    return outcomes


def _log(outcome: Outcome, origin: BatchOrigin) -> AgentActionLog:
    decision = outcome.decision
    return AgentActionLog(
        round_id=origin.round_id, agent_id=decision.agent_id, action=decision.action, params=decision.params,
        reason=decision.reason, status=outcome.status, message=outcome.message[:2000], error_code=outcome.code,
        fallback=origin.fallback or decision.agent_id in origin.omitted, batch=origin.index, worker=origin.worker[:200],
    )


def _execute(decision: Decision, agents: Mapping[int, Agent], batch: ExecutionBatch) -> Outcome:
    agent = agents.get(decision.agent_id)
    if agent is None:
        return Outcome(decision, AgentActionLog.Status.FAILED, _("居民不存在"), "agent_not_found")
    # A decision refused while reading the answer still goes to the executor, which refuses and audits it.
    arguments = decision.arguments if decision.error_code else decision.params
    result = execute(decision.action, arguments, ToolContext(agent=agent, source="autonomy"), batch=batch)
    if result["status"] == "error":
        failure = result.get("error", {})
        return Outcome(decision, AgentActionLog.Status.FAILED, str(failure.get("message", "")), str(failure.get("code", "")))
    if result["status"] == "pending_confirmation":
        status, message = AgentActionLog.Status.PENDING_CONFIRMATION, str(result.get("message", ""))
    else:
        data = result.get("data")
        status, message = AgentActionLog.Status.SUCCESS, str(data.get("message", "")) if isinstance(data, dict) else ""
    broadcast(
        "agent_action", agent_id=agent.pk, agent_name=agent.name, action=decision.action, reason=decision.reason,
        status=status, message=message,
    )
    return Outcome(decision, status, message, "")


def round_outcomes(round_id: int) -> dict:
    """A tick's outcome counts from its round-log rows: decided, success, failed, pending, fallback,
    by_action and by_status. A fallback rest counts as ``fallback``, never ``success``."""
    rows = (
        AgentActionLog.objects.filter(round_id=round_id).order_by()
        .values_list("action", "status", "fallback").annotate(n=Count("id"))
    )
    counts = {"decided": 0, "success": 0, "failed": 0, "pending": 0, "fallback": 0}
    by_action: Counter = Counter()
    by_status: dict[str, Counter] = defaultdict(Counter)
    for action, status, fallback, n in rows:
        counted = {"success": "success", "failed": "failed", "pending_confirmation": "pending"}[status]
        if fallback:
            counted = "fallback"
        counts[counted] += n
        counts["decided"] += n
        by_action[action] += n
        by_status[action][status] += n
    return {**counts, "by_action": dict(by_action), "by_status": {a: dict(c) for a, c in by_status.items()}}


def round_workers(round_id: int) -> list[str]:
    return sorted(set(AgentActionLog.objects.filter(round_id=round_id).order_by().values_list("worker", flat=True).distinct()))
