"""One autonomy tick (DESIGN §5): snapshot → decisions → validation → execution → round log → events.

With ``CELERY_BROKER_URL`` set, the batches run as Celery tasks instead (``distributed``); the
rest of this describes the in-process tick, the embedded default.

The world is the registered ``WorldSource``'s (the city's); it is read once. Residents
are split into batches; batches are sent to the policy concurrently (``concurrency`` call
slots, each taking the next batch as soon as its answer is read; where the provider says when
a request has left, sending goes first: ``_Tick.run``), and each batch's decisions are
executed as soon as they arrive, on this thread (the one holding the database connection)
while other batches are still with the model: the batches that arrived while the previous ones executed run together,
in one short transaction (``execution.apply_batches``, at most ``GROUP_DECISIONS`` decisions:
through the audited executor, source ``autonomy``, as chat does; each decision recorded once
under its ``(tick, resident)`` key); no transaction ever waits on a model. A batch whose model call fails, times
out, or answers garbage makes its residents rest; so does a resident the answer leaves out
(an empty ``[]`` leaves out everyone: the batch has failed). The tick always finishes, and
its stats count those rests as ``fallback``, never as ``success``; a tick in which every
resident fell back has failed (``every_batch_failed``). A batch is split until its prompt
and its answer fit the context (``AGENT_CONTEXT_TOKENS``, or the server's own where it says
less; by an estimate that errs high), and the answer
is capped to its size. Its messages to people go through gettext; the prompt text is the
model contract and stays Chinese.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta

from asgiref.sync import async_to_sync, sync_to_async
from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from agents.models import AutonomyRound
from agents.providers import ModelError, context_tokens, get_provider
from agents.providers.base import request_sent
from agents.providers.tokens import decisions_tokens, estimate_tokens
from core.events import prepare_sending
from core.heap import freeze_more, frozen_heap

from .decisions import BatchDecisions, Decision, DecisionFormatError, parse_decisions, resting, validate_decisions
from . import distributed
from .execution import IN_PROCESS, BatchOrigin, apply_batches, round_outcomes, round_workers
from .policy import policy_from_settings, session as policy_session
from .prompt import batch_prompt
from .sources import Policy, World, WorldSource, world_source

logger = logging.getLogger(__name__)

# Running a tick by hand (the API, the admin action); the loop and the command run as the operator.
RUN_AUTONOMY_PERMISSION = "agents.run_autonomy"
Progress = Callable[[int, int], None]
# The most decisions executed in one transaction: batches that arrive together share one (one
# commit and one read of what they share instead of one each), and a transaction stays short.
GROUP_DECISIONS = 400


@dataclass
class TickResult:
    round_id: int | None  # None for a dry run, or when there was nobody to decide for
    provider: str
    stats: dict
    dry_run: bool = False
    decisions: list[Decision] = field(default_factory=list)
    errors: list[dict] = field(default_factory=list)
    # The system prompt and each batch's prompt, when asked for (``--show-prompt``).
    prompts: list[str] = field(default_factory=list)

    @property
    def every_batch_failed(self) -> bool:
        """Nobody decided: every resident fell back (an endpoint down, a wrong model, answers with no decision)."""
        return self.stats["agents"] > 0 and self.stats["fallback"] == self.stats["agents"]

    @property
    def failure_code(self) -> str:
        """How a failed tick failed, as a model error ``code``: unreachable, too slow, or anything else."""
        codes = {error.get("code", "model_error") for error in self.errors}
        return codes.pop() if len(codes) == 1 and codes <= {"model_unavailable", "model_timeout"} else "model_error"

    def line(self) -> str:
        s = self.stats
        actions = ", ".join(f"{name} {count}" for name, count in sorted(s["by_action"].items(), key=lambda kv: (-kv[1], kv[0])))
        parts = [
            f"tick {'(dry run)' if self.dry_run else '#' + str(self.round_id) if self.round_id else '(no residents)'} [{self.provider}]",
            f"{s['agents']} agents in {s['batches']} batches",
            f"decided {s['decided']} · success {s['success']} · failed {s['failed']} · pending {s['pending']}"
            f" · fallback {s['fallback']}",
            actions or "no actions",
            f"tokens {s['tokens']}",
            f"{s['duration_s']:.2f}s",
        ]
        if s["failed_batches"]:
            parts.append(f"{s['failed_batches']} batches failed (their residents rested)")
        if s["budget_exhausted"]:
            parts.append(f"token budget spent: {s['skipped_batches']} batches not asked")
        return " | ".join(parts)


def _empty_stats(agents: int, batches: int) -> dict:
    return {
        "agents": agents,
        "batches": batches,
        "decided": 0,
        "success": 0,
        "failed": 0,
        "pending": 0,
        "fallback": 0,  # residents who rested because no decision came for them (batch failed, not asked, left out)
        "ignored": 0,
        "failed_batches": 0,
        "skipped_batches": 0,
        "budget_exhausted": False,
        "tokens": 0,
        "prompt_tokens": 0,  # as the endpoint counted them (its ``usage``)
        "by_action": {},
        "by_status": {},
        "duration_s": 0.0,
        "snapshot_s": 0.0,  # reading the world
        "decide_s": 0.0,  # from the first batch sent to the last answer received
        "execute_s": 0.0,  # running the decisions (overlaps with deciding)
    }


class _Tick:
    def __init__(
        self, source: WorldSource, world: World, policy: Policy, *,
        round_: AutonomyRound | None, show_prompt: bool, progress: Progress | None, expected: int,
    ):
        self.source = source
        self.world = world
        self.policy = policy
        self.round = round_
        self.show_prompt = show_prompt
        self.progress = progress
        self.expected = expected  # batches of ``batch_size``; planning may split some (the context)
        self.total: int | None = None  # the batches planned, once planning has ended
        self.planned = 0  # the batches taken so far
        self.done = 0
        self.started = time.monotonic()
        self.budget = settings.AUTONOMY_TOKEN_BUDGET  # 0: no limit
        self.stats = _empty_stats(len(world.residents), expected)
        self.by_action: Counter = Counter()
        self.decisions: list[Decision] = []
        self.errors: list[dict] = []
        self.prompts: dict[int, str] = {}
        self.fallback: set[int] = set()  # batches whose rests are the tick's, not decisions
        self.arrived: deque[tuple[int, BatchDecisions]] = deque()  # answered, not yet executed
        self.arrival = asyncio.Event()
        self.turns = _Turns()  # the slots building their requests (``ask_in_turn``) go first

    async def run(self, batches: Iterable[tuple[list[int], str]], concurrency: int) -> None:
        """Ask for every batch, at most ``concurrency`` at a time, and execute the answers as they come.

        Each of the ``concurrency`` call slots takes the next batch as soon as its previous answer
        is read. ``batches`` is planned as the slots take them: a prompt is built when a slot is
        free for it, so the first calls go out as soon as their own prompts exist (building the
        other 42 of 50 first held the first wave back ~25 ms). Where the policy says when a
        request has left (``announces_requests``), sending goes first: a slot holds a turn from
        reading an answer until its next request is out, and executing waits for the slots.
        """
        self.started = time.monotonic()
        planned = enumerate(batches)
        paced = bool(getattr(self.policy, "announces_requests", False))
        executing = asyncio.create_task(self.execute_arrivals(paced))
        slots: list[asyncio.Task] = []
        try:
            async with policy_session(self.policy):  # one HTTP client for the tick's model calls
                slots = [asyncio.create_task(self.ask_in_turn(planned, paced)) for _ in range(concurrency)]
                await asyncio.gather(*slots)
        except BaseException:
            for task in slots:
                task.cancel()
            executing.cancel()
            raise
        await executing

    def budget_spent(self) -> bool:
        return bool(self.budget) and self.stats["tokens"] >= self.budget

    async def ask_in_turn(self, planned: Iterator[tuple[int, tuple[list[int], str]]], paced: bool) -> None:
        """One call slot: ask for the next planned batch until none is left, handing each answer to
        ``execute_arrivals`` (which runs it while this slot's next call is out)."""
        turn = _Turn(self.turns) if paced else None
        heard = request_sent.set(turn.give_up if turn is not None else None)
        try:
            while True:
                if turn is not None:
                    await turn.take()  # given up by the provider once the request has left
                taken = next(planned, None)  # the iterator is shared: each slot takes the next batch
                if taken is None:
                    break
                index, (batch, prompt) = taken
                self.planned = max(self.planned, index + 1)
                decided = await self.ask(index, batch, prompt)
                self.stats["decide_s"] = round(max(self.stats["decide_s"], time.monotonic() - self.started), 3)
                self.arrived.append((index, decided))
                self.arrival.set()
                if turn is None:
                    await asyncio.sleep(0)  # let the executor have the answer before this slot asks again
        finally:
            if turn is not None:
                turn.give_up()
            request_sent.reset(heard)
        if self.total is None:  # planning has ended: the executor can tell when it is done
            self.total = self.stats["batches"] = self.planned
            self.arrival.set()

    async def execute_arrivals(self, paced: bool) -> None:
        """Execute the batches as their answers arrive, on the thread that owns the database
        connection, one transaction for every batch that arrived meanwhile (up to
        ``GROUP_DECISIONS`` decisions): while one group executes, the model calls go on.
        When paced, a group starts once no slot is building a request or waiting to (``turns``):
        executing takes the interpreter from the event loop, and a request it delayed delays a
        whole chain of calls.
        Stops when every planned batch has been executed (``total`` is known once planning ends)."""
        executed = 0
        while self.total is None or executed < self.total:
            await self.arrival.wait()
            self.arrival.clear()
            while self.arrived:
                if paced:
                    await self.turns.quiet.wait()
                group, size = [], 0
                while self.arrived and (not group or size + len(self.arrived[0][1].decisions) <= GROUP_DECISIONS):
                    group.append(self.arrived.popleft())
                    size += len(group[-1][1].decisions)
                await sync_to_async(self.execute_group)(group)
                executed += len(group)
                self.done += len(group)
                if self.progress is not None:
                    self.progress(self.done, self.total or self.expected)

    async def ask(self, index: int, batch: list[int], prompt: str) -> BatchDecisions:
        if self.show_prompt:
            self.prompts[index] = prompt
        if self.budget_spent():
            self.stats["budget_exhausted"] = True
            self.stats["skipped_batches"] += 1
            self.fallback.add(index)
            return resting(batch, _("本轮 token 预算已用完，未询问模型，默认休息"))
        asked = await ask_policy(self.policy, self.world, batch, prompt, self.source.actions)
        self.stats["tokens"] += asked.tokens
        self.stats["prompt_tokens"] += asked.prompt_tokens
        self.stats["ignored"] += asked.decided.ignored
        if asked.error:
            self.stats["failed_batches"] += 1
            self.fallback.add(index)
            self.errors.append(batch_error(index, batch, asked.error, asked.code))
        return asked.decided

    def execute_group(self, group: list[tuple[int, BatchDecisions]]) -> None:
        """Run the decisions of batches that arrived together (sync, on the thread that owns the
        database connection), in one short transaction that never spans a model call
        (``execution.apply_batches``)."""
        began = time.monotonic()
        for _index, decided in group:
            decisions = list(decided.decisions.values())
            self.decisions.extend(decisions)
            self.stats["decided"] += len(decisions)
            self.by_action.update(d.action for d in decisions)
        if self.round is None:
            return  # dry run: decide, never act
        batches = [
            (decided, BatchOrigin(self.round.pk, index, IN_PROCESS, fallback=index in self.fallback, omitted=frozenset(decided.omitted)))
            for index, decided in group
        ]
        apply_batches(batches, self.world.agents)
        self.stats["execute_s"] = round(self.stats["execute_s"] + time.monotonic() - began, 3)


class _Turns:
    """The event loop's attention, shared by a tick's call slots: one slot at a time builds its
    request (``lock``), and executing waits while any slot holds or wants it (``quiet``): a group
    that started first would take the interpreter from the requests of the answers just in."""

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.wanting = 0
        self.quiet = asyncio.Event()
        self.quiet.set()

    def want(self) -> None:
        self.wanting += 1
        self.quiet.clear()

    def done(self) -> None:
        self.wanting -= 1
        if not self.wanting:
            self.quiet.set()


class _Turn:
    """A call slot's hold on the ``_Turns``: taken when the slot goes on from an answer, given up
    when its next request has left (``request_sent``) or the slot stops. Never held across a wait
    for the network: a slot that asks nothing (the budget is spent) keeps it only until it goes on."""

    def __init__(self, turns: _Turns) -> None:
        self.turns = turns
        self.held = False

    async def take(self) -> None:
        if self.held:
            return
        self.turns.want()
        try:
            await self.turns.lock.acquire()
        except BaseException:
            self.turns.done()
            raise
        self.held = True

    def give_up(self) -> None:
        if self.held:
            self.held = False
            self.turns.lock.release()
            self.turns.done()


@dataclass
class Asked:
    """A batch's decisions as the policy gave them, what they cost, and why they are rests (``error``)."""

    decided: BatchDecisions
    tokens: int = 0
    prompt_tokens: int = 0
    error: str = ""
    code: str = "model_error"  # the model error code of a failed batch (model_unavailable, model_timeout, ...)


async def ask_policy(
    policy: Policy, world: World | None, batch: list[int], prompt: str, actions, choices: dict | None = None,
) -> Asked:
    """Ask the policy for one batch. Never raises: a model that fails, times out, or answers
    garbage makes the batch's residents rest, and ``error`` says why (the tick's ``fallback``).
    ``choices``: what the batch's decoding schema offers, where ``world`` is not at hand (a worker)."""
    timeout = settings.AGENT_MODEL_TIMEOUT * 2 + 5  # the provider retries once
    tokens = prompt_tokens = 0
    code = "model_error"
    try:
        offered = {"choices": choices} if choices is not None else {}
        answer = await asyncio.wait_for(policy.answer(world, batch, prompt, **offered), timeout)
        tokens = int(answer.usage.get("total_tokens", 0) or 0)
        prompt_tokens = int(answer.usage.get("prompt_tokens", 0) or 0)
        decided = validate_decisions(parse_decisions(answer.text), batch, actions)
        if len(decided.omitted) < len(batch):
            return Asked(decided, tokens, prompt_tokens)
        reason = _("模型的回答里没有本批任何居民的决定")  # an empty [] decides nothing: the batch failed
    except ModelError as exc:
        tokens += int(exc.usage.get("total_tokens", 0) or 0)  # an abandoned answer still cost them
        reason, code = str(exc) or type(exc).__name__, exc.code
    except TimeoutError as exc:
        reason, code = str(exc) or type(exc).__name__, "model_timeout"
    except DecisionFormatError as exc:
        reason = str(exc) or type(exc).__name__
    except Exception as exc:  # a bug must not stop the other batches
        logger.exception("autonomy batch of %s residents failed", len(batch))
        reason = type(exc).__name__
    logger.warning("autonomy batch (%s residents) failed: %s; they rest this tick", len(batch), reason)
    resting_batch = resting(batch, _("本轮决策失败（%(reason)s），默认休息") % {"reason": reason[:120]})
    return Asked(resting_batch, tokens, prompt_tokens, error=reason, code=code)


def batch_error(index: int, batch: list[int], reason: str, code: str = "model_error") -> dict:
    return {"batch": index, "agent_ids": batch, "error": reason[:500], "code": code}


def prepare_coordinator() -> None:
    """Get a process that will run ticks ready before its first one (the command's start): the events layer
    (``core.events.prepare_sending``), so the first batch's events do not wait after their commit for its set-up, and,
    with a broker, the workers' broker (``distributed.prepare``), so the first batch does not wait for it either."""
    prepare_sending()
    distributed.prepare()


def finish_round(round_: AutonomyRound, stats: dict, errors: list[dict]) -> dict:
    """Close a tick's round log: outcome counts from its rows, its workers, its errors; then the world's end of tick."""
    stats.update(round_outcomes(round_.pk))
    round_.finished_at = timezone.now()
    round_.stats, round_.errors, round_.workers = stats, errors, round_workers(round_.pk)
    round_.save(update_fields=["finished_at", "stats", "errors", "workers"])
    world_source().end_tick(round_)
    prune_rounds()
    return stats


@frozen_heap()  # the process's objects and the world stay out of the cycle collector's walks while it runs
def run_tick(
    *,
    agent_ids: list[int] | None = None,
    batch_size: int | None = None,
    concurrency: int | None = None,
    dry_run: bool = False,
    show_prompt: bool = False,
    progress: Progress | None = None,
    policy: Policy | None = None,
    seed: int = 0,
) -> TickResult:
    """Run one tick for every active agent (or the given ones) and return its stats."""
    started = time.monotonic()
    concurrency = max(1, concurrency or settings.AUTONOMY_CONCURRENCY)
    source = world_source()
    from_settings = policy is None  # only the configured policy can be rebuilt in a worker
    to_workers = not dry_run and distributed.enabled() and from_settings
    if to_workers:  # every worker waits for both: the source may read while its time passes
        world = source.begin_tick_and_build(agent_ids)
    else:
        if not dry_run:
            source.begin_tick(agent_ids)
        world = source.build(agent_ids)
    freeze_more()  # kept to the end of the tick
    snapshot_s = time.monotonic() - started
    ids = list(world.residents)
    policy = policy or policy_from_settings(source, seed)
    on_workers = bool(ids) and to_workers
    if on_workers and not policy.uses_prompt:
        batch_size = batch_size or distributed.rules_batch_size(len(ids))
    batch_size = max(1, batch_size or settings.AUTONOMY_BATCH_SIZE)
    batches = iter_batches(source, world, ids, batch_size, prompts=policy.uses_prompt or show_prompt, sized=policy.uses_prompt)
    round_ = None
    if ids and not dry_run:
        round_ = AutonomyRound.objects.create(provider=policy.name, model=policy.model or "", agent_count=len(ids))
    if round_ is not None and on_workers:
        stats, errors = distributed.run(source, world, policy, list(batches), round_, snapshot_s=snapshot_s, started=started)
        return TickResult(round_id=round_.pk, provider=policy.name, stats=stats, errors=errors)
    expected = -(-len(ids) // batch_size)
    tick = _Tick(source, world, policy, round_=round_, show_prompt=show_prompt, progress=progress, expected=expected)
    tick.stats["snapshot_s"] = round(snapshot_s, 3)
    if ids:
        async_to_sync(tick.run)(batches, concurrency)
    stats = tick.stats
    stats["by_action"] = dict(tick.by_action)
    stats["duration_s"] = round(time.monotonic() - started, 3)
    if round_ is not None:
        finish_round(round_, stats, tick.errors)
    prompts = [source.system_prompt(), *(tick.prompts[i] for i in sorted(tick.prompts))] if show_prompt else []
    return TickResult(
        round_id=round_.pk if round_ else None,
        provider=policy.name,
        stats=stats,
        dry_run=dry_run,
        decisions=tick.decisions,
        errors=tick.errors,
        prompts=prompts,
    )


def plan_batches(
    source: WorldSource, world: World, ids: list[int], batch_size: int, *, prompts: bool, sized: bool
) -> list[tuple[list[int], str]]:
    """Every batch of ``iter_batches``, planned now."""
    return list(iter_batches(source, world, ids, batch_size, prompts=prompts, sized=sized))


def iter_batches(
    source: WorldSource, world: World, ids: list[int], batch_size: int, *, prompts: bool, sized: bool
) -> Iterator[tuple[list[int], str]]:
    """Residents in batches of at most ``batch_size``, each with its prompt (when one is needed),
    built as they are taken (the in-process tick sends a batch before it builds the next prompt).

    For a model (``sized``), a batch whose system prompt, batch prompt and capped answer would not
    fit the context is halved until it fits; a single resident is sent regardless. The context is
    read now (it may ask the endpoint), not in the event loop that takes the batches.
    """
    context = context_tokens(get_provider()) if sized else settings.AGENT_CONTEXT_TOKENS
    fixed = estimate_tokens(source.system_prompt()) if sized else 0

    def planned() -> Iterator[tuple[list[int], str]]:
        pending = deque(ids[i : i + batch_size] for i in range(0, len(ids), batch_size))
        while pending:
            batch = pending.popleft()
            prompt = batch_prompt(source.snapshot(world, batch), batch) if prompts else ""
            needed = fixed + estimate_tokens(prompt) + decisions_tokens(len(batch))
            if sized and len(batch) > 1 and needed > context:
                half = (len(batch) + 1) // 2
                pending.extendleft([batch[half:], batch[:half]])
                continue
            yield batch, prompt

    return planned()


def prune_rounds() -> int:
    """Round logs are kept as long as the event log (``EVENT_LOG_RETENTION_DAYS``)."""
    cutoff = timezone.now() - timedelta(days=settings.EVENT_LOG_RETENTION_DAYS)
    deleted, _ = AutonomyRound.objects.filter(started_at__lt=cutoff).delete()
    return deleted

