"""The autonomy tick on Celery, with a real Redis and real worker processes (``celery -A config worker``).

- a worker SIGKILLed in the middle of a tick: the tick completes, every resident has exactly one
  decision applied and one audit row, credits and resources are conserved;
- a worker that cannot reach the model: its batches' residents rest, counted as ``fallback``;
- only one loop ticks at a time (a Redis lock, or PostgreSQL's advisory lock); a second one waits
  and says so.

Five kills: five workers SIGKILLed one after another in the middle of one tick (their batches are
redelivered together, after one visibility timeout: about a minute; a batch the broker lost with a
victim is sent again by the coordinator a re-send window later). ``AUTONOMY_KILLS`` (default 1)
runs that many ticks, each with a worker of its own killed, one after another (about 80 s a kill).
A batch message dropped on purpose on its way to the workers, as kombu's Redis transport drops one
popped by a worker killed before it recorded it unacknowledged: the coordinator sends it again.
"""

from __future__ import annotations

import base64
import json
import os
import re
import sys
import time
from pathlib import Path

import pytest

from tests.support.celery_workers import Process, booting, ready, start_workers, worker
from tests.support.django_process import run_django
from tests.support.services import free_port

BATCH = 4
RESIDENTS = 40
KILLS = int(os.environ.get("AUTONOMY_KILLS", "1"))
RECEIVED = r"Task agents\.autonomy_batch\[[^\]]+\] received"  # a batch taken (its name alone is in the banner)


def stranded(process: Process) -> int:
    """Batches a worker took and never finished (it died holding them, unacked)."""
    output = process.output()
    return len(re.findall(RECEIVED, output)) - len(re.findall(r"Task agents\.autonomy_batch\[[^\]]+\] (succeeded|failed)", output))


def broker_state(broker: str) -> str:
    """What the broker still holds, for a failure's message: batches queued and unacknowledged."""
    import redis

    client = redis.Redis.from_url(broker)
    queued = sum(client.llen(key) for key in client.scan_iter("celery*") if client.type(key) == b"list")
    return f"the broker holds {queued} queued and {client.hlen('unacked')} unacknowledged messages"


def redis_db(redis_server, number: int) -> str:
    """A database of the session's Redis of its own, emptied, so that tests share no queue or lock."""
    import redis

    url = f"redis://127.0.0.1:{redis_server.port}/{number}"
    redis.Redis.from_url(url).flushdb()
    return url


def tick_command(database_url: str, env: dict[str, str], log: Path, *extra: str) -> Process:
    return Process([sys.executable, "manage.py", "autonomy_tick", "--batch-size", str(BATCH), *extra], database_url, env, log)


def transfer_or_rest(request: dict) -> dict:
    """Every third resident gives a neighbour one bread (credits and goods only move), the others rest."""
    text = request["messages"][-1]["content"].split("== 资源 ==")[0]
    ids = [int(i) for i in re.findall(r"^- ID=(\d+) ", text, re.MULTILINE)]
    items = [
        {"agent_id": i, "action": "transfer_resource", "params": {"to_agent_id": i + 1, "resource_type": "bread", "quantity": 1}}
        if i % 3 == 0 else {"agent_id": i, "action": "rest"}
        for i in ids
    ]
    return {"content": json.dumps(items)}


def model_env(base_url: str, broker: str) -> dict[str, str]:
    return {
        "CELERY_BROKER_URL": broker, "AGENT_PROVIDER": "openai", "OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "k",
        "AGENT_MODEL_TIMEOUT": "3", "AUTONOMY_TOKEN_BUDGET": "0", "AGENT_TOOL_CALLS_PER_MINUTE": "1000",
    }


@pytest.mark.timeout(300 + 300 * KILLS)  # each kill waits out the visibility timeout (36 s here)
def test_a_worker_killed_mid_tick_loses_and_doubles_nothing(redis_server, django_child, scripted_openai, tmp_path):
    url = django_child("sqlite")
    scripted_openai.respond_with(transfer_or_rest, delay=0.7)
    env = model_env(scripted_openai.base_url, redis_db(redis_server, 5))
    kills = KILLS
    # The survivor and the first victim boot together while the city is populated (idle until the tick sends).
    with booting(start_workers(["survivor", "victim0"], url, env, tmp_path)) as started:
        ids = run_django(url, "tests.agents.celery_scenarios:populate", agents=RESIDENTS)
        before = run_django(url, "tests.agents.celery_scenarios:ledger")
    survivor, first_victim = ready(started)
    try:
        for kill in range(kills):
            victim = first_victim if kill == 0 else worker(f"victim{kill}", url, env, tmp_path)
            asked = len(scripted_openai.requests)
            command = tick_command(url, env, tmp_path / f"tick{kill}.log")
            deadline = time.monotonic() + 60
            while len(scripted_openai.requests) < asked + 3 and time.monotonic() < deadline:
                time.sleep(0.05)
            victim.kill()  # some of its batches with the model, some maybe executing: none acked
            assert stranded(victim) > 0, "the victim held batches when it died"
            assert command.exit_code(timeout=300) == 0, command.output()
            command.handle.close()
    finally:
        survivor.stop()
        first_victim.stop()  # killed already, unless the test failed before

    after = run_django(url, "tests.agents.celery_scenarios:ledger")
    assert len(after["ticks"]) == kills
    for tick in after["ticks"]:
        assert_applied_once(tick, ids)
    assert (after["credits"], after["resources"]) == (before["credits"], before["resources"])
    assert after["transfers"] == sum(tick["transfers_ok"] for tick in after["ticks"]) > 0


def assert_applied_once(tick: dict, ids: list[int], worker: str = "survivor") -> None:
    """A finished tick in which every resident had exactly one decision and one audit row, none a fallback,
    and the survivor took over what the killed workers held."""
    assert tick["finished"]
    assert tick["decisions"] == {str(i): 1 for i in ids}, "every resident exactly one decision"
    assert tick["audits"] == {str(i): 1 for i in ids}, "every resident exactly one audit row"
    assert tick["stats"]["decided"] == len(ids) and tick["stats"]["fallback"] == 0
    assert any(w.startswith(f"{worker}@") for w in tick["workers"])


VICTIMS = 5


@pytest.mark.timeout(600)
def test_five_workers_killed_in_one_tick_lose_and_double_nothing(redis_server, django_child, scripted_openai, tmp_path):
    residents = 80  # 20 batches: every victim takes some before it dies
    url = django_child("sqlite")
    scripted_openai.respond_with(transfer_or_rest, delay=0.7)
    env = model_env(scripted_openai.base_url, redis_db(redis_server, 8))
    # The six workers boot while the city is populated (idle until the tick sends).
    with booting(start_workers(["survivor", *(f"victim{i}" for i in range(VICTIMS))], url, env, tmp_path)) as started:
        ids = run_django(url, "tests.agents.celery_scenarios:populate", agents=residents)
        before = run_django(url, "tests.agents.celery_scenarios:ledger")
    survivor, *victims = ready(started)
    try:
        command = tick_command(url, env, tmp_path / "tick.log")
        for victim in victims:
            victim.wait_for(RECEIVED, timeout=60)
            victim.kill()
            assert stranded(victim) > 0, "the victim died holding a batch, unacked"
        exit_code = command.exit_code(timeout=480)
        assert exit_code == 0, f"{broker_state(env['CELERY_BROKER_URL'])}\n{command.output()}"
        command.handle.close()
    finally:
        for process in (survivor, *victims):  # the victims killed already, unless the test failed before
            process.stop()

    after = run_django(url, "tests.agents.celery_scenarios:ledger")
    [tick] = after["ticks"]
    assert_applied_once(tick, ids)
    assert (after["credits"], after["resources"]) == (before["credits"], before["resources"])
    assert after["transfers"] == tick["transfers_ok"] > 0


@pytest.mark.timeout(300)
def test_a_batch_the_broker_lost_on_its_way_is_sent_again_by_the_coordinator(redis_server, django_child, tmp_path):
    """The loss the five-kill test can meet by chance, made on purpose: before any worker runs, one batch
    message is popped off the queue and dropped, as kombu's Redis transport drops one popped by a worker
    killed before it recorded it unacknowledged. No sweep can find it; the coordinator sends it again
    once nothing has reported for ``AUTONOMY_RESEND_AFTER`` and the queue is empty."""
    import redis

    url = django_child("sqlite")
    ids = run_django(url, "tests.agents.celery_scenarios:populate", agents=3 * BATCH)
    env = {"CELERY_BROKER_URL": redis_db(redis_server, 9), "AGENT_PROVIDER": "rules", "AUTONOMY_RESEND_AFTER": "3"}
    client = redis.Redis.from_url(env["CELERY_BROKER_URL"])
    command = tick_command(url, env, tmp_path / "tick.log")
    deadline = time.monotonic() + 120
    while client.llen("celery") < 3:  # the three batches sent, no worker yet
        assert command.popen.poll() is None and time.monotonic() < deadline, command.output()
        time.sleep(0.05)
    lost = json.loads(client.rpop("celery"))  # the next a worker would have taken
    (_round, index, residents, *_), _kwargs, _embed = json.loads(base64.b64decode(lost["body"]))
    lone = worker("lone", url, env, tmp_path)
    try:
        exit_code = command.exit_code(timeout=120)
        assert exit_code == 0, f"{broker_state(env['CELERY_BROKER_URL'])}\n{command.output()}"
        command.handle.close()
    finally:
        lone.stop()

    [tick] = run_django(url, "tests.agents.celery_scenarios:ledger")["ticks"]
    assert_applied_once(tick, ids, worker="lone")
    assert f"batch {index} ({len(residents)} residents) unreported and unrecorded" in command.output()
    assert tick["stats"]["batches"] == 3 and tick["errors"] == []


def test_a_batch_goes_out_in_one_message_named_briefly_and_subscribes_to_nothing(redis_server, django_child):
    """The coordinator polls the batches' reports (MGET), so a send does not also subscribe to its
    result's channel (and unsubscribe as its ``AsyncResult`` is dropped), and its arguments show in
    monitoring as a short label (Celery's ``saferepr`` of a rules answer and its residents was a
    quarter of each send)."""
    url = django_child("sqlite")
    sent = run_django(url, "tests.agents.celery_scenarios:send_one_batch", env={"CELERY_BROKER_URL": redis_db(redis_server, 10)})
    assert sent == {"argsrepr": "(tick 7, batch 3, 3 residents)", "kwargsrepr": "{}", "subscribes": 0}


def test_a_coordinator_prepared_at_its_start_sends_its_first_batch_on_connections_it_holds(redis_server, django_child):
    """``distributed.prepare`` (the ``autonomy_tick`` command's start) connects the producer and the
    result backend: the first tick's first batch no longer waits for them while the workers idle."""
    url = django_child("sqlite")
    env = {"CELERY_BROKER_URL": redis_db(redis_server, 11)}
    assert run_django(url, "tests.agents.celery_scenarios:connections_of_a_first_tick_after_prepare", env=env) == 0
    assert run_django(url, "tests.agents.celery_scenarios:connections_of_a_first_tick_after_prepare", env=env, prepare=False) >= 2


def test_a_worker_that_cannot_reach_the_model_rests_its_residents_as_fallback(redis_server, django_child, tmp_path):
    url = django_child("sqlite")
    env = model_env(f"http://127.0.0.1:{free_port()}/v1", redis_db(redis_server, 6))
    with booting(start_workers(["offline"], url, env, tmp_path)) as started:  # it boots while the city is populated
        run_django(url, "tests.agents.celery_scenarios:populate", agents=8)
    [lone] = ready(started)
    try:
        command = tick_command(url, env, tmp_path / "tick.log")
        assert command.exit_code(timeout=120) == 1  # every batch failed: the command says so, as in-process
        command.handle.close()
        assert "every batch failed" in command.output()
    finally:
        lone.stop()
    [tick] = run_django(url, "tests.agents.celery_scenarios:ledger")["ticks"]
    assert (tick["stats"]["fallback"], tick["stats"]["success"], tick["stats"]["failed_batches"]) == (8, 0, 2)
    assert tick["fallback_rows"] == 8 and len(tick["errors"]) == 2


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_second_loop_waits_for_the_first_and_says_so(kind, redis_server, django_child, tmp_path):
    url = django_child(kind)
    run_django(url, "tests.agents.celery_scenarios:populate", agents=3)
    env = {"REDIS_URL": redis_db(redis_server, 7), "AGENT_PROVIDER": "rules"}
    loop = ["--loop", "--interval", "0.2"]
    first = tick_command(url, env, tmp_path / "first.log", *loop)
    try:
        first.wait_for(r"tick #1 ", timeout=60)
        second = tick_command(url, env, tmp_path / "second.log", *loop)
        try:
            second.wait_for("another autonomy loop is ticking", timeout=60)
            time.sleep(1.5)
            assert "tick #" not in second.output()  # it waits: the city is not ticked twice
            assert first.stop() == 0
            second.wait_for(r"tick #\d+ ", timeout=60)  # the first stopped: now the second ticks
        finally:
            second.stop()
    finally:
        first.stop()
    expected = "postgresql advisory lock" if kind == "postgres" else "Redis lock"
    assert expected.lower() in second.output().lower()


def worker_backends(database_url: str) -> list[int]:
    """The PostgreSQL backends connected to the test's database (but this one)."""
    import psycopg

    database = database_url.rsplit("/", 1)[1]
    with psycopg.connect(database_url, autocommit=True) as connection:
        rows = connection.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()", [database]
        ).fetchall()
    return [pid for (pid,) in rows]


@pytest.mark.timeout(300)
def test_a_worker_keeps_its_connection_between_batches_and_replaces_one_that_died(redis_server, django_child, tmp_path):
    """Celery's Django fixup would close the worker's connection after every batch (a new PostgreSQL
    backend each time); the worker keeps it, and one terminated between ticks is replaced, not failed on."""
    url = django_child("postgres")
    env = {"CELERY_BROKER_URL": redis_db(redis_server, 8), "AGENT_PROVIDER": "rules", "AGENT_TOOL_CALLS_PER_MINUTE": "1000"}
    with booting(start_workers(["keeper"], url, env, tmp_path, concurrency=1)) as started:
        ids = run_django(url, "tests.agents.celery_scenarios:populate", agents=12)
    [keeper] = ready(started)
    try:
        first = tick_command(url, env, tmp_path / "first.log")
        assert first.exit_code(timeout=120) == 0, first.output()
        [kept] = worker_backends(url)  # the tick command has ended: what is left is the worker's, one connection
        import psycopg

        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute("SELECT pg_terminate_backend(%s)", [kept])
        second = tick_command(url, env, tmp_path / "second.log")
        assert second.exit_code(timeout=120) == 0, second.output()
        assert worker_backends(url) not in ([], [kept])  # a new connection, kept again
    finally:
        keeper.stop()
    assert not re.search(r"Task agents\.autonomy_batch\[[^\]]+\] raised", keeper.output()), keeper.output()
    ticks = run_django(url, "tests.agents.celery_scenarios:ledger")["ticks"]
    assert len(ticks) == 2
    for tick in ticks:
        assert_applied_once(tick, ids, worker="keeper")


def test_a_worker_killed_during_its_sweep_holds_redelivery_back_briefly(settings):
    """Each worker takes kombu's restore mutex every few seconds to sweep for stranded batches. Kombu's
    default lets it live 300 s: a worker SIGKILLed while holding it stopped every redelivery for five
    minutes (the five-kill test timed out so). Here the mutex lasts less than one visibility timeout."""
    options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
    assert options["unacked_mutex_expire"] <= 10 < options["visibility_timeout"]
