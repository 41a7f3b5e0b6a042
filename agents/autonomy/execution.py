"""Executing a batch of a tick's decisions: once per ``(tick, resident)``, in one transaction.

``apply_batch`` is what a Celery batch task calls; the in-process tick calls ``apply_batches``
with every batch whose answer arrived meanwhile (one transaction and one commit for all of them,
each decision's round-log row keeping its own batch). In one transaction it reads which of the batch's residents the tick already recorded (a redelivered
batch task finds its work done), runs the others' decisions through the audited executor
(source ``autonomy``) and inserts their audit rows and round-log rows in bulk. The database's
unique ``(round, agent)`` constraint settles a batch run twice at once: the second run's
insert fails and the batch is applied again, finding its residents recorded.

The batch first runs with no savepoint at all (two per decision cost more than most decisions'
own statements). A decision that fails having written nothing (a service's check refused it)
is simply forgotten; one that fails having written something rolls the batch back, and it runs
again with a savepoint around that decision and every later one, so an error never leaves a
partial write. When a write breaks the batch's transaction (the database refuses it), the
batch is rolled back and applied again with a savepoint around each decision, so that only
the failing decision is rejected, audited and logged as failed, and the rest of the batch
applies. Only if that fails too is the whole batch logged as failed, as before.

``round_outcomes`` counts a tick's outcomes from its rows, so stats stay exact whichever
process, or how many attempts, executed its batches.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from django.db import DatabaseError, IntegrityError, connections, router, transaction
from django.db.models import Count
from django.utils.translation import gettext as _

from agents.executor import ExecutionBatch, audit_call, error, execute
from agents.models import Agent, AgentActionLog
from agents.registry import ToolContext
from core import rows
from core.database import statement_cursor
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
    """The residents of ``agent_ids`` whose decision this tick already recorded.

    One statement composed once, read through the unique (round, agent) index: the ORM's query
    carried the model's ORDER BY -id, with which SQLite read the whole tick's rows instead
    (3.7 ms a batch at 10,000 residents)."""
    if not agent_ids:
        return set()
    alias = router.db_for_write(AgentActionLog)  # inside the batch's transaction
    with statement_cursor(connections[alias]) as cursor:
        cursor.execute(_recorded_statement(alias).format(ids=", ".join(["%s"] * len(agent_ids))), [round_id, *agent_ids])
        return {agent_id for (agent_id,) in cursor.fetchall()}


@cache
def _recorded_statement(alias: str) -> str:
    quote, meta = connections[alias].ops.quote_name, AgentActionLog._meta
    agent, round_ = quote(meta.get_field("agent").column), quote(meta.get_field("round").column)
    return f"SELECT {agent} FROM {quote(meta.db_table)} WHERE {round_} = %s AND {agent} IN ({{ids}})"


class BrokenBatch(Exception):
    """A decision run without a savepoint failed having written something: roll the batch back."""

    def __init__(self, position: int) -> None:
        super().__init__(position)
        self.position = position


def apply_batch(decided: BatchDecisions, agents: Mapping[int, Agent], origin: BatchOrigin) -> list[Outcome]:
    """Execute the batch's decisions not yet recorded for the tick; the outcomes of those executed now."""
    return apply_batches([(decided, origin)], agents)


def apply_batches(batches: Sequence[tuple[BatchDecisions, BatchOrigin]], agents: Mapping[int, Agent]) -> list[Outcome]:
    """Execute several batches of one tick in one transaction (each decision's round-log row keeps
    its own batch's origin); the outcomes of the decisions executed now.

    First with no savepoint at all. A decision that fails having written something (or breaks
    the transaction) rolls the transaction back, and it runs again: the decisions before that one
    as before, that one and every later one in its own savepoint. Should that run break too (the
    world changed between the two runs), every decision gets its savepoint; should even that
    fail, the batches are logged as failed.
    """
    items = [(decision, origin) for decided, origin in batches for decision in decided.decisions.values()]
    contended = world_source().contended_actions
    items.sort(key=lambda item: item[0].action in contended)  # those last, each batch's order kept otherwise
    if len({origin.round_id for _, origin in items}) > 1:
        raise ValueError("apply_batches runs the batches of one tick")
    indexes = ", ".join(str(origin.index) for _, origin in batches)
    isolated_from = len(items)  # the first run: no savepoint
    while True:
        try:
            return _apply(items, agents, isolated_from=isolated_from)
        except BrokenBatch as broken:
            # Every decision before it ran clean. A second break (the world changed between runs) isolates all.
            isolated_from = broken.position if isolated_from == len(items) else 0
            logger.info("autonomy batches %s: a decision failed part-way; applying them again, with savepoints from decision %s on", indexes, isolated_from)
        except DatabaseError as exc:
            if isolated_from == 0:
                logger.exception("autonomy batches %s (%s residents) rolled back", indexes, len(items))
                return _record_failure(items, exc)
            isolated_from = 0
            logger.warning("autonomy batches %s broke their transaction; applying them again decision by decision", indexes)


Item = tuple[Decision, BatchOrigin]


def _apply(items: list[Item], agents: Mapping[int, Agent], *, isolated_from: int) -> list[Outcome]:
    """One run of the batches in one transaction: the decisions before position ``isolated_from``
    without a savepoint (their round-log rows inserted together at the end), the others each in
    its own (``_execute_alone``)."""
    if not items:
        return []
    round_id = items[0][1].round_id
    with transaction.atomic():
        done = recorded(round_id, [d.agent_id for d, _ in items])
        todo = [(position, d, origin) for position, (d, origin) in enumerate(items) if d.agent_id not in done]
        if not todo:
            return []
        with world_source().open_batch([d for _, d, _ in todo]) as world:
            calls = {d.agent_id: d.action for _, d, _ in todo}  # one call each: only its grant is read
            batch = ExecutionBatch(list(calls), round_id=round_id, world=world, calls=calls)
            outcomes: list[Outcome] = []
            unguarded: list[dict] = []
            for position, decision, origin in todo:
                if position >= isolated_from:
                    outcome = _execute_alone(decision, agents, batch, origin)
                    if outcome is not None:
                        outcomes.append(outcome)
                    continue
                batch.optimistic = True
                outcome = _execute(decision, agents, batch)
                batch.optimistic = False
                if batch.broken:
                    raise BrokenBatch(position)
                outcomes.append(outcome)
                unguarded.append(_log(outcome, origin))
            batch.close()
            rows.insert(AgentActionLog, unguarded)
            return outcomes


def _execute_alone(decision: Decision, agents: Mapping[int, Agent], batch: ExecutionBatch, origin: BatchOrigin) -> Outcome | None:
    """One decision in its own savepoint; what the database refuses fails alone, audited."""
    batch.flush()  # the audit rows of earlier decisions, outside this savepoint
    try:
        with transaction.atomic():
            outcome = _execute(decision, agents, batch)
            batch.flush()
            rows.insert(AgentActionLog, [_log(outcome, origin)])
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
    rows.insert(AgentActionLog, [_log(outcome, origin)])
    return outcome


def _record_failure(items: list[Item], exc: DatabaseError) -> list[Outcome]:
    message = _("数据库错误，本轮行为未执行：%(error)s") % {"error": type(exc).__name__}
    failed = [(Outcome(d, AgentActionLog.Status.FAILED, message, "database_error"), origin) for d, origin in items]
    try:
        with transaction.atomic():
            done = recorded(items[0][1].round_id, [d.agent_id for d, _ in items]) if items else set()
            failed = [(o, origin) for o, origin in failed if o.decision.agent_id not in done]
            rows.insert(AgentActionLog, [_log(o, origin) for o, origin in failed])
    except DatabaseError:
        logger.exception("could not log the rolled-back autonomy batches %s", sorted({origin.index for _, origin in items}))
    return [o for o, _ in failed]


def _log(outcome: Outcome, origin: BatchOrigin) -> dict:
    """The round-log row of an outcome, as its column values (``core.rows.insert``)."""
    decision = outcome.decision
    return {
        "round_id": origin.round_id, "agent_id": decision.agent_id, "action": decision.action, "params": decision.params,
        "reason": decision.reason, "status": outcome.status, "message": outcome.message[:2000], "error_code": outcome.code,
        "fallback": origin.fallback or decision.agent_id in origin.omitted, "batch": origin.index, "worker": origin.worker[:200],
    }


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
        status=str(status), message=message,  # plain values: captured without a JSON round trip
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
