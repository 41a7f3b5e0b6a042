"""The Celery tick's coordinator sends again a batch the broker lost, and counts every batch once.

kombu's Redis transport takes a message off the queue before it records it unacknowledged: a worker
SIGKILLed between the two loses that batch for good, and no sweep finds it (issue 29's five-kill
test hung so). Here the broker is in this process (``InProcessBroker``: what is sent waits in a
queue, a "worker" runs it through ``distributed.run_batch`` when the coordinator reads the
reports), so each way of losing or doubling a batch is made on purpose. With a real Redis and real
workers: ``test_autonomy_celery.py``."""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections import Counter

import pytest
from django.db.models import Count

from agents.autonomy import distributed
from agents.autonomy.tick import run_tick
from agents.models import AgentActionLog, ToolCall
from tests.agents.fixtures import city, resident  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db

RESEND_AFTER = 0.3


class InProcessBroker:
    """Celery's part of the tick, in this process.

    - ``lose``: batch index → how many of its first messages are dropped on their way (popped,
      never recorded);
    - ``die_after_applying``: batch indexes whose first run applies and never reports, its message
      restored to the queue ``restore_after`` seconds later (the broker's visibility timeout);
    - ``late``: batch indexes whose first message reaches a worker only once the batch was sent again;
    - ``idle_until``: no worker takes anything before this ``time.monotonic()``.
    """

    def __init__(self, *, lose=None, die_after_applying=(), late=(), restore_after=0.0, idle_until=0.0):
        self.lose, self.die, self.late = dict(lose or {}), set(die_after_applying), set(late)
        self.restore_after, self.idle_until = restore_after, idle_until
        self.queue: list[tuple[str, tuple]] = []
        self.held: list[tuple[str, tuple]] = []  # the late ones
        self.unacked: list[tuple[float, str, tuple]] = []
        self.done: dict[str, dict] = {}
        self.sent: Counter = Counter()  # batch index → messages sent
        self.runs: Counter = Counter()  # batch index → runs by a worker
        self.queued_when_asked: list[int] = []

    def sending(self) -> contextlib.AbstractContextManager:
        return contextlib.nullcontext()  # no producer to hold

    def send(self, args: tuple) -> str:
        args = json.loads(json.dumps(args))  # as the broker carries them
        index = args[1]
        self.sent[index] += 1
        task_id = f"batch{index}-copy{self.sent[index]}"
        if self.sent[index] <= self.lose.get(index, 0):
            return task_id
        if self.sent[index] == 1 and index in self.late:
            self.held.append((task_id, args))
        else:
            self.queue.append((task_id, args))
            self.queue.extend(self.held if self.sent[index] > 1 and index in self.late else [])
        return task_id

    def reports(self, task_ids: list[str]) -> dict[str, dict]:
        now = time.monotonic()
        self.queue.extend((task_id, args) for at, task_id, args in self.unacked if at <= now)
        self.unacked = [message for message in self.unacked if message[0] > now]
        if now >= self.idle_until:
            while self.queue:
                task_id, (round_id, index, batch, prompt, answer, choices) = self.queue.pop(0)
                self.runs[index] += 1
                report = distributed.run_batch(round_id, index, batch, prompt, answer, "fake@worker", choices)
                if index in self.die and self.runs[index] == 1:
                    self.unacked.append((now + self.restore_after, task_id, (round_id, index, batch, prompt, answer, choices)))
                    continue  # applied, then the worker died: no report, the message unacknowledged
                self.done[task_id] = report
        return {task_id: self.done[task_id] for task_id in task_ids if task_id in self.done}

    def queued(self) -> int:
        self.queued_when_asked.append(len(self.queue))
        return len(self.queue)


@pytest.fixture
def on_celery(settings, monkeypatch):
    """The tick's coordinator with ``broker`` standing for Celery, the rules policy, a short re-send window."""
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:9/0"  # never reached: the broker is InProcessBroker
    settings.AGENT_PROVIDER = "rules"
    settings.AUTONOMY_RESEND_AFTER = RESEND_AFTER

    def use(broker: InProcessBroker) -> InProcessBroker:
        monkeypatch.setattr(distributed, "Broker", lambda: broker)
        return broker

    return use


@pytest.fixture
def six(resident):
    return [resident(name).pk for name in ("Ann", "Ben", "Cai", "Dan", "Eve", "Fay")]


def assert_once_each(result, ids: list[int]) -> None:
    """The round closed with every resident decided and audited exactly once."""
    rows = AgentActionLog.objects.filter(round_id=result.round_id)
    assert dict(rows.values_list("agent_id").annotate(n=Count("id")).order_by()) == {i: 1 for i in ids}
    calls = ToolCall.objects.filter(round_id=result.round_id)
    assert dict(calls.values_list("agent_id").annotate(n=Count("id")).order_by()) == {i: 1 for i in ids}
    assert result.stats["decided"] == len(ids) and result.stats["fallback"] == 0
    assert result.stats["batches"] == 3 and result.errors == []


def test_a_batch_lost_on_its_way_is_sent_again_and_applied_once(on_celery, six, caplog):
    broker = on_celery(InProcessBroker(lose={1: 1}))
    with caplog.at_level(logging.WARNING, logger="agents.autonomy.distributed"):
        began = time.monotonic()
        result = run_tick(batch_size=2)

    assert_once_each(result, six)
    assert broker.sent == {0: 1, 1: 2, 2: 1} and broker.runs == {0: 1, 1: 1, 2: 1}
    assert time.monotonic() - began >= RESEND_AFTER  # only after the window
    assert result.stats["redelivered_batches"] == 0
    assert "batch 1 (2 residents) unreported and unrecorded" in caplog.text


def test_a_batch_lost_again_is_sent_again_once_per_window(on_celery, six):
    broker = on_celery(InProcessBroker(lose={0: 1, 2: 2}))
    began = time.monotonic()
    result = run_tick(batch_size=2)

    assert_once_each(result, six)
    assert broker.sent == {0: 2, 1: 1, 2: 3} and broker.runs == {0: 1, 1: 1, 2: 1}
    assert time.monotonic() - began >= 2 * RESEND_AFTER  # the second copy a window after the first


def test_a_batch_applied_by_a_worker_that_died_before_reporting_is_left_to_the_brokers_redelivery(on_celery, six):
    broker = on_celery(InProcessBroker(die_after_applying={0}, restore_after=3 * RESEND_AFTER))
    result = run_tick(batch_size=2)

    assert_once_each(result, six)
    assert broker.sent == {0: 1, 1: 1, 2: 1}  # its residents were recorded: not sent again
    assert broker.runs[0] == 2 and result.stats["redelivered_batches"] == 1


def test_nothing_is_sent_again_while_messages_wait_for_a_worker(on_celery, six):
    broker = on_celery(InProcessBroker(idle_until=time.monotonic() + 3 * RESEND_AFTER))
    result = run_tick(batch_size=2)

    assert_once_each(result, six)
    assert broker.sent == {0: 1, 1: 1, 2: 1}
    assert broker.queued_when_asked and all(broker.queued_when_asked)  # asked, and the queue was never empty


def test_a_batch_run_twice_counts_once_from_the_run_that_applied_it(on_celery, six):
    broker = on_celery(InProcessBroker(late={1}))
    result = run_tick(batch_size=2)

    assert_once_each(result, six)
    assert broker.sent[1] == 2 and broker.runs[1] == 2  # the late message and its copy both ran
    assert result.stats["redelivered_batches"] == 0  # the report counted is the one that applied it


def test_the_window_outlasts_a_redelivery(settings):
    """The default window: the broker's visibility timeout, its sweep interval and the sweep mutex's
    expiry (a dead batch restored), then a model call retried once (the restored batch run again)."""
    options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
    restored = options["visibility_timeout"] + options["unacked_restore_interval"] + options["unacked_mutex_expire"]
    assert settings.AUTONOMY_RESEND_AFTER >= restored + 2 * settings.AGENT_MODEL_TIMEOUT


def test_a_rules_tick_on_the_workers_sends_fewer_larger_batches(on_celery, six, settings, monkeypatch):
    """The rules need no prompt: a batch on the workers carries up to AUTONOMY_RULES_BATCH_SIZE
    residents while the tick keeps RULES_BATCHES of them (a message, a round trip and a transaction
    cost the same for 20 residents or 100), never fewer than AUTONOMY_BATCH_SIZE."""
    settings.AUTONOMY_BATCH_SIZE, settings.AUTONOMY_RULES_BATCH_SIZE = 1, 4
    assert distributed.rules_batch_size(6) == 1  # six residents: fewer than RULES_BATCHES batches of one
    assert distributed.rules_batch_size(distributed.RULES_BATCHES * 3) == 3
    assert distributed.rules_batch_size(distributed.RULES_BATCHES * 100) == 4  # never past AUTONOMY_RULES_BATCH_SIZE
    settings.AUTONOMY_BATCH_SIZE = 5
    assert distributed.rules_batch_size(distributed.RULES_BATCHES * 3) == 5  # nor under AUTONOMY_BATCH_SIZE

    settings.AUTONOMY_BATCH_SIZE = 1
    monkeypatch.setattr(distributed, "RULES_BATCHES", 2)
    broker = on_celery(InProcessBroker())
    result = run_tick()

    assert broker.sent == {0: 1, 1: 1} and result.stats["batches"] == 2  # six residents in two batches of three, not six of one
    assert result.stats["decided"] == 6 and result.errors == []
