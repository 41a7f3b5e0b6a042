"""The autonomy tick on Celery, when ``CELERY_BROKER_URL`` is set (DESIGN §16).

The coordinator (``run``: the command, the API, the loop) has already read the world once (where
the source can, while the world's time passed: ``begin_tick_and_build``; committed before any batch
goes out), planned the batches and opened the round. Here it sends each batch task as soon as the batch is
answered (a worker starts on it while later batches are still being answered), waits for every
batch's report, and closes the round log itself:

- a batch task (``agents.tasks.autonomy_batch``, ``acks_late`` and rejected when its worker is
  lost) asks the model for its residents (a model policy, under the decoding schema of what the
  coordinator's snapshot offers them: a worker does not read the world) or takes the answer the
  coordinator computed (the offline rules policy, which needs the whole world), then executes the decisions
  through ``execution.apply_batch``. A batch run again finds its residents recorded under their
  ``(tick, resident)`` key and applies nothing twice; it does not ask the model again either.
- a batch whose worker died holding it is redelivered by the broker after its visibility timeout.
  One the broker lost (kombu's Redis transport pops a message before it records it unacknowledged:
  a worker killed between the two loses it) is sent again by the coordinator: when no batch has
  reported for ``AUTONOMY_RESEND_AFTER`` seconds and the queue is empty, every batch still
  unreported whose residents are not all recorded goes out again (``Batches.resend``).
- a worker that cannot reach the model makes the batch's residents rest, counted as
  ``fallback`` and listed in the round's errors, exactly as in-process.
- the coordinator counts the outcomes from the round-log rows, records the workers that took
  part and ends the tick (``close``); each batch is counted once, from its first report.

The token budget (``AUTONOMY_TOKEN_BUDGET``) is not enforced across workers.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import async_to_sync
from django.conf import settings

from agents.models import Agent, AutonomyRound

from .decisions import parse_decisions, validate_decisions
from .execution import BatchOrigin, apply_batch, recorded
from .sources import Policy, World, WorldSource, world_source

logger = logging.getLogger(__name__)

POLL_S = 0.05  # how often the coordinator reads the reports of the batches still out
RULES_BATCHES = 64  # a rules tick keeps at least this many batches to share among the workers


def enabled() -> bool:
    return bool(settings.CELERY_BROKER_URL)


def rules_batch_size(residents: int) -> int:
    """Residents per batch of a rules tick on the workers. A batch costs a message, a worker's round
    trip to the broker and a transaction whether it carries 20 residents or 100, and the rules have
    no prompt to fit in a context: up to ``AUTONOMY_RULES_BATCH_SIZE`` residents, while the tick
    still has ``RULES_BATCHES`` batches (never fewer residents than ``AUTONOMY_BATCH_SIZE``)."""
    shared = -(-residents // RULES_BATCHES)
    return max(settings.AUTONOMY_BATCH_SIZE, min(settings.AUTONOMY_RULES_BATCH_SIZE, shared))


class Broker:
    """What the coordinator needs of Celery: send a batch task, read the reports of those done, count the queue."""

    def __init__(self) -> None:
        from agents.tasks import autonomy_batch

        self.task = autonomy_batch
        self.producer = None

    @contextmanager
    def sending(self) -> Iterator[None]:
        """Hold one producer while a tick's batches go out (acquiring one per message cost a fifth of a send).

        The coordinator reads the reports by polling (``reports``), so a send does not also subscribe
        to its result's channel (``denied_join_result``): with the Redis result backend each send
        subscribed, and unsubscribed again as its ``AsyncResult`` was dropped, for nothing."""
        from celery.result import denied_join_result

        with self.task.app.producer_or_acquire() as producer, denied_join_result():
            self.producer = producer
            try:
                yield
            finally:
                self.producer = None

    def send(self, args: tuple) -> str:
        """Send one batch task. Its arguments as monitoring shows them are named here: Celery's own
        ``saferepr`` of a rules batch's answer and residents cost a quarter of each send."""
        round_id, index, residents = args[0], args[1], args[2]
        shown = f"(tick {round_id}, batch {index}, {len(residents)} residents)"
        return self.task.apply_async(args, producer=self.producer, argsrepr=shown, kwargsrepr="{}").id

    def reports(self, task_ids: list[str]) -> dict[str, dict]:
        """The reports of the tasks among ``task_ids`` that are done, in one read where the result
        backend can (Redis: MGET). A task that raised re-raises here: the tick fails, its round left open."""
        from celery.backends.base import BaseKeyValueStoreBackend

        backend = self.task.backend
        if not isinstance(backend, BaseKeyValueStoreBackend):
            done = (self.task.AsyncResult(task_id) for task_id in task_ids)
            return {r.id: r.get(disable_sync_subtasks=False) for r in done if r.ready()}
        reports = {}
        for task_id, meta in backend.get_many(task_ids, interval=0, max_iterations=1):
            if meta["status"] != "SUCCESS":
                raise meta["result"] if isinstance(meta["result"], BaseException) else RuntimeError(meta["result"])
            reports[task_id] = meta["result"]
        return reports

    def queued(self) -> int:
        """Messages in the tasks' queue that no worker has taken yet."""
        from kombu.exceptions import ChannelError

        app = self.task.app
        with app.connection_for_read() as connection:
            try:
                return connection.default_channel.queue_declare(queue=app.conf.task_default_queue, passive=True).message_count
            except ChannelError:  # Redis: a queue emptied is a key deleted
                return 0


@dataclass
class Sent:
    """A batch as sent: its task's arguments, its residents, the id of each copy sent, its first report."""

    args: tuple
    residents: list[int]
    task_ids: list[str] = field(default_factory=list)
    report: dict | None = None


class Batches:
    """The batches of one tick on the workers, until each has reported once."""

    def __init__(self, broker: Broker, round_id: int) -> None:
        self.broker = broker
        self.round_id = round_id
        self.sent: list[Sent] = []
        self.owner: dict[str, Sent] = {}  # task id → its batch
        self.first_sent = 0.0  # monotonic

    def send(self, args: tuple, residents: list[int]) -> None:
        self.sent.append(Sent(args, residents))
        self._send(self.sent[-1])
        self.first_sent = self.first_sent or time.monotonic()

    def _send(self, batch: Sent) -> None:
        task_id = self.broker.send(batch.args)
        batch.task_ids.append(task_id)
        self.owner[task_id] = batch

    def out(self) -> list[Sent]:
        return [batch for batch in self.sent if batch.report is None]

    def collect(self) -> bool:
        """Take the reports that came in; whether any did. A batch counts once: its first report
        (of two arriving together, the one that applied it rather than found it applied)."""
        came = self.broker.reports([task_id for batch in self.out() for task_id in batch.task_ids])
        for task_id, report in sorted(came.items(), key=lambda item: bool(item[1].get("redelivered"))):
            batch = self.owner[task_id]
            if batch.report is None:
                batch.report = report
        return bool(came)

    def resend(self) -> list[Sent]:
        """Send again the batches still out whose residents are not all recorded, once no worker has
        a message left to take (the queue is empty); the batches sent again.

        Called when no batch has reported for ``AUTONOMY_RESEND_AFTER`` seconds: by then a batch held
        by a worker that died was restored to the queue by the broker's sweep and run again, so one
        still out and unrecorded was lost on its way (or is being run as the window ends: a copy
        applies only what is not yet recorded, and the ``(tick, resident)`` key settles two at once).
        A batch out but recorded was applied by a worker that died before it reported: the broker
        redelivers it, and that run reports it."""
        if self.broker.queued():
            return []  # workers have yet to take what was sent (or none is running): nothing is lost yet
        again = [batch for batch in self.out() if not recorded(self.round_id, batch.residents) >= set(batch.residents)]
        for batch in again:
            logger.warning(
                "autonomy tick #%s: batch %s (%s residents) unreported and unrecorded after %.0f s; sending it again",
                self.round_id, batch.args[1], len(batch.residents), settings.AUTONOMY_RESEND_AFTER,
            )
            self._send(batch)
        return again

    def wait(self, limit: float) -> list[dict]:
        """Every batch's report, sending again those lost on the way; ``TimeoutError`` after ``limit`` seconds."""
        deadline = time.monotonic() + limit
        quiet_since = time.monotonic()
        while self.out():
            now = time.monotonic()
            if self.collect():
                quiet_since = now
            elif now - quiet_since >= settings.AUTONOMY_RESEND_AFTER:
                self.resend()
                quiet_since = now
            if now > deadline:
                raise TimeoutError(f"autonomy tick #{self.round_id}: {len(self.out())} batches unreported after {limit:.0f} s")
            if self.out():
                time.sleep(POLL_S)
        return [batch.report for batch in self.sent]


def prepare() -> None:
    """Get this process ready to send a tick's batches before its first tick, as ``core.events.
    prepare_sending`` does for events: the batch task imported, a connected producer left in the
    app's pool, the queue declared and the result backend's client connected. Else the first tick
    pays it between its snapshot and its first batch, while every worker waits (70 ms on a quiet
    2-core machine, about 0.6 s on the 16-core sandbox of the README's figures). Without a broker,
    nothing; never raises (the first tick tries again, and says why it fails)."""
    if not enabled():
        return
    try:
        broker = Broker()
        app = broker.task.app
        with app.producer_or_acquire() as producer:
            producer.maybe_declare(app.amqp.queues[app.conf.task_default_queue])
        client = getattr(broker.task.backend, "client", None)
        if client is not None:
            client.ping()
    except Exception:
        logger.exception("could not prepare the autonomy workers' broker; the first tick will try again")


def run(
    source: WorldSource, world: World, policy: Policy, batches: list[tuple[list[int], str]], round_: AutonomyRound,
    *, snapshot_s: float, started: float,
) -> tuple[dict, list[dict]]:
    """Run the planned batches on the workers, wait for each one's report and close the round; its stats and errors."""
    from .tick import _empty_stats

    stats = _empty_stats(len(world.residents), len(batches))
    stats["snapshot_s"] = round(snapshot_s, 3)
    out = Batches(Broker(), round_.pk)
    with out.broker.sending():
        async_to_sync(send_all)(out, world, policy, batches)
    # Since the tick began: the first batch out (before it, no worker has anything to do), every
    # batch out (the coordinator's own share: snapshot, answers, sends), every batch reported.
    stats["first_sent_s"] = round(out.first_sent - started, 3)
    stats["sent_s"] = round(time.monotonic() - started, 3)
    # Each batch is bounded by its model call (and a redelivery by the broker's visibility timeout).
    limit = len(batches) * (2 * settings.AGENT_MODEL_TIMEOUT + 35) + settings.AUTONOMY_RESEND_AFTER + 60
    reports = out.wait(limit)
    stats["reported_s"] = round(time.monotonic() - started, 3)
    return close(reports, round_, stats, started)


async def send_all(out: Batches, world: World, policy: Policy, batches: list[tuple[list[int], str]]) -> None:
    """Send every batch, each as soon as it is answered (a worker starts while later batches are
    answered), in one event loop: entering one per batch cost as much as answering it."""
    offered = getattr(policy, "choices", None)
    for index, (batch, prompt) in enumerate(batches):
        # The rules policy reads the whole world, which only the coordinator holds: it answers here.
        answer = None if policy.uses_prompt else (await policy.answer(world, batch, "")).text
        choices = offered(world, batch) if offered is not None else None
        out.send((out.round_id, index, batch, prompt, answer, choices), batch)


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


def close(results: list[dict], round_: AutonomyRound, stats: dict, started: float) -> tuple[dict, list[dict]]:
    """Merge the batches' reports (one each), close the round log; its stats and errors."""
    from .tick import finish_round

    errors = sorted((r["error"] for r in results if r.get("error")), key=lambda e: e["batch"])
    for key in ("tokens", "prompt_tokens", "ignored"):
        stats[key] = sum(r.get(key, 0) for r in results)
    stats["failed_batches"] = len(errors)
    stats["decide_s"] = round(max((r.get("decide_s", 0.0) for r in results), default=0.0), 3)
    stats["execute_s"] = round(sum(r.get("execute_s", 0.0) for r in results), 3)
    stats["redelivered_batches"] = sum(1 for r in results if r.get("redelivered"))
    stats["duration_s"] = round(time.monotonic() - started, 3)
    return finish_round(round_, stats, errors), errors
