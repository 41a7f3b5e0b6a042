"""How the autonomy tick is started: the command, the API and the admin action."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from agents.models import AgentActionLog, AutonomyRound, Conversation, PendingAction
from tests.agents.fixtures import city, endpoint, resident  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db
PROJECT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def rules(settings):
    settings.AGENT_PROVIDER = "rules"


def tick(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("autonomy_tick", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_command_prints_one_stats_line_per_tick(resident):
    resident("Alice", energy=20, tools=("rest",))
    out, _ = tick("--count", "2", "--interval", "0")
    lines = out.strip().splitlines()
    assert len(lines) == 2
    assert all("[rules]" in line and "decided 1 · success 1" in line and "rest 1" in line for line in lines)
    assert AutonomyRound.objects.count() == 2


def test_command_dry_run_prints_decisions_and_changes_nothing(resident):
    alice = resident("Alice", energy=20)
    out, _ = tick("--dry-run")
    assert f"#{alice.pk} rest {{}}" in out and "tick (dry run)" in out
    alice.refresh_from_db()
    assert alice.energy == 20 and not AutonomyRound.objects.exists()


def test_command_show_prompt_prints_the_system_and_batch_prompts(resident):
    resident("Alice")
    resident("Bob")
    out, _ = tick("--dry-run", "--show-prompt", "--batch-size", "1")
    assert out.count("== 居民状态 ==") == 2
    assert "checkin{} purchase{item_id,quantity?}" in out


def test_command_limits_the_tick_to_named_agents(resident):
    alice, bob = resident("Alice", energy=20), resident("Bob", energy=20)
    tick("--agents", f"Alice,{bob.pk}")
    tick("--agents", "Alice")
    assert AgentActionLog.objects.filter(agent=alice).count() == 2
    assert AgentActionLog.objects.filter(agent=bob).count() == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--agents", "Nobody"], "agent_not_found"),
        (["--count", "0"], "--count"),
        (["--batch-size", "0"], "--batch-size"),
        (["--concurrency", "0"], "--concurrency"),
        (["--interval", "-1"], "--interval"),
    ],
)
def test_command_refuses_bad_options(resident, args, message):
    with pytest.raises(CommandError, match=message):
        tick(*args)


def test_count_and_loop_exclude_each_other():
    with pytest.raises(CommandError):
        tick("--count", "2", "--loop")


def test_command_restores_the_signal_handlers():
    before = signal.getsignal(signal.SIGINT)
    tick("--dry-run")
    assert signal.getsignal(signal.SIGINT) is before


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
@pytest.mark.parametrize(("signum", "said"), [(signal.SIGINT, "Ctrl-C again"), (signal.SIGTERM, "a second SIGTERM")])
def test_loop_stops_cleanly_on_ctrl_c_between_ticks(resident, signum, said):
    """A real process: `--loop`, SIGINT or SIGTERM while it waits → one line naming what stops it, then a clean exit 0.
    On SIGTERM it used to say "Ctrl-C again"."""
    from django.db import connection

    resident("Alice", tools=("rest",))
    if connection.vendor != "sqlite":
        pytest.skip("the child shares the SQLite test database file")
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{connection.settings_dict['NAME']}",
        "DJANGO_SECRET_KEY": "test",
        "AGENT_PROVIDER": "rules",
        "PYTHONPATH": str(PROJECT),
    }
    child = subprocess.Popen(
        [sys.executable, "manage.py", "autonomy_tick", "--loop", "--interval", "30"],
        cwd=PROJECT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        line = child.stdout.readline()  # the first tick's stats line: now it waits 30 s
        assert "tick #" in line
        started = time.monotonic()
        child.send_signal(signum)
        out, err = child.communicate(timeout=20)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0, err
    assert time.monotonic() - started < 10
    assert "stopping after this tick" in err and said in err
    assert signum == signal.SIGINT or "Ctrl-C" not in err
    assert "Traceback" not in err


def test_api_runs_one_tick_and_returns_stats(api_client, resident, settings):
    settings.CITY_ENERGY_DECAY = 0  # the energy below is the rest's alone
    alice = resident("Alice", energy=20)
    response = api_client.post("/api/autonomy/tick/", {}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert body["round_id"] == AutonomyRound.objects.get().pk
    assert body["provider"] == "rules"
    assert body["stats"]["decided"] == 1 and body["stats"]["by_action"] == {"rest": 1}
    assert body["errors"] == [] and "decided 1" in body["summary"]
    assert "decisions" not in body
    alice.refresh_from_db()
    assert alice.energy == 40


@pytest.mark.parametrize(
    ("script", "status", "code"),
    [(lambda e: e.reply("[]"), 502, "model_error"), (lambda e: e.reply("我不知道"), 502, "model_error"),
     (lambda e: e.error(500).error(500), 502, "model_error")],
)
def test_api_tick_in_which_every_resident_fell_back_is_a_gateway_error_with_the_stats(
    api_client, resident, endpoint, script, status, code
):
    resident("Alice")
    script(endpoint)
    response = api_client.post("/api/autonomy/tick/", {}, format="json")
    assert (response.status_code, response.json()["code"]) == (status, code)
    body = response.json()
    assert body["stats"]["fallback"] == body["stats"]["agents"] == 1 and body["stats"]["success"] == 0
    assert body["errors"] and body["round_id"] == AutonomyRound.objects.get().pk and body["reason"]


def test_api_tick_against_an_unreachable_endpoint_is_503(api_client, resident, settings):
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings.AGENT_PROVIDER, settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY = "openai", f"http://127.0.0.1:{port}/v1", "k"
    resident("Alice")
    response = api_client.post("/api/autonomy/tick/", {}, format="json")
    assert (response.status_code, response.json()["code"]) == (503, "model_unavailable")
    assert response.json()["stats"]["fallback"] == 1


def test_api_dry_run_for_chosen_agents_returns_decisions(api_client, resident):
    alice, bob = resident("Alice", energy=20), resident("Bob")
    body = api_client.post("/api/autonomy/tick/", {"agent_ids": [alice.pk], "dry_run": True}, format="json").json()
    assert body["round_id"] is None
    assert body["decisions"] == [{"agent_id": alice.pk, "action": "rest", "params": {}, "reason": body["decisions"][0]["reason"]}]
    assert not AutonomyRound.objects.exists()


@pytest.mark.parametrize(
    ("payload", "status", "code"),
    [
        ({"agent_ids": [999999]}, 404, "agent_not_found"),
        ({"agent_ids": "1"}, 400, "invalid_input"),
        ({"agent_ids": []}, 400, "invalid_input"),
        ({"agent_ids": [0]}, 400, "invalid_input"),
        ({"dry_run": "maybe"}, 400, "invalid_input"),
    ],
)
def test_api_bad_input(api_client, resident, payload, status, code):
    resident("Alice")
    response = api_client.post("/api/autonomy/tick/", payload, format="json")
    assert (response.status_code, response.json()["code"]) == (status, code)
    assert not AutonomyRound.objects.exists()


def test_api_needs_staff(client, resident):
    resident("Alice")
    assert client.post("/api/autonomy/tick/").status_code in (401, 403)
    assert not AutonomyRound.objects.exists()


def test_admin_action_runs_a_tick_for_the_selected_agents(client, django_user_model, resident):
    resident("Alice")
    bob = resident("Bob")
    admin = django_user_model.objects.create_superuser("boss", password="pw-boss-123")
    client.force_login(admin)
    response = client.post(
        "/admin/agents/agent/", {"action": "run_autonomy_tick", "_selected_action": [str(bob.pk)]}, follow=True
    )
    assert response.status_code == 200
    assert "decided 1" in response.content.decode()
    assert list(AgentActionLog.objects.values_list("agent_id", flat=True)) == [bob.pk]
    assert AgentActionLog.objects.get().action == "assign_building"  # Bob had no job; the mill had room


def test_admin_action_on_agents_without_actions_warns(client, django_user_model, make_agent):
    desk = make_agent("Desk", tools=("get_my_status",))
    admin = django_user_model.objects.create_superuser("boss", password="pw-boss-123")
    client.force_login(admin)
    response = client.post("/admin/agents/agent/", {"action": "run_autonomy_tick", "_selected_action": [str(desk.pk)]}, follow=True)
    assert "未运行" in response.content.decode()
    assert not AutonomyRound.objects.exists()


def test_admin_shows_rounds_and_action_logs_read_only(client, django_user_model, resident):
    resident("Alice", energy=20)
    tick()
    admin = django_user_model.objects.create_superuser("boss", password="pw-boss-123")
    client.force_login(admin)
    round_ = AutonomyRound.objects.get()
    assert client.get(f"/admin/agents/autonomyround/{round_.pk}/change/").status_code == 200
    assert client.get("/admin/agents/agentactionlog/").status_code == 200
    assert client.get("/admin/agents/autonomyround/add/").status_code == 403


def test_progress_bar_follows_the_batches_and_leaves_no_line_behind():
    """rich draws the bar (it replaced a hand-written one): one task, batches done of all, gone when cleared."""
    from agents.management.commands.autonomy_tick import ProgressBar

    stream = StringIO()
    bar = ProgressBar(stream)
    bar(3, 10)
    assert [(task.completed, task.total) for task in bar.bar.tasks] == [(3, 10)]
    bar(10, 10)
    assert [(task.completed, task.total) for task in bar.bar.tasks] == [(10, 10)]
    bar.clear()
    assert not bar.bar.live.is_started


def overdue_action(agent, **fields) -> PendingAction:
    conversation = Conversation.objects.create(agent=agent)
    return PendingAction.objects.create(
        tool_name="create_fund", agent=agent, conversation=conversation, mode="standalone", summary="创建基金 Alpha",
        expires_at=timezone.now() - timedelta(seconds=1), **fields,
    )


def test_command_expires_overdue_pending_actions_and_tells_their_conversations(resident):
    action = overdue_action(resident("Alice", tools=("rest",)))
    out, _ = tick("--count", "1")
    action.refresh_from_db()
    assert action.status == "expired" and action.decided_at is not None
    assert list(action.conversation.messages.values_list("role", "content")) == [("assistant", "操作已过期，未执行：创建基金 Alpha")]
    assert out.splitlines()[0] == "expired 1 pending action"


def test_command_leaves_pending_actions_that_are_still_open(resident):
    action = overdue_action(resident("Alice", tools=("rest",)))
    PendingAction.objects.filter(pk=action.pk).update(expires_at=timezone.now() + timedelta(minutes=5))
    out, _ = tick("--count", "1")
    action.refresh_from_db()
    assert action.status == "pending" and "expired" not in out


def test_command_dry_run_expires_nothing(resident):
    action = overdue_action(resident("Alice", tools=("rest",)))
    tick("--dry-run")
    action.refresh_from_db()
    assert action.status == "pending"


def test_the_loop_expires_before_every_tick(resident, monkeypatch):
    """An action that runs out during the first tick is expired by the second pass of the loop."""
    from agents.management.commands import autonomy_tick

    alice = resident("Alice", tools=("rest",))
    action = overdue_action(alice)
    PendingAction.objects.filter(pk=action.pk).update(expires_at=timezone.now() + timedelta(minutes=5))
    statuses = []
    real_tick = autonomy_tick.run_tick

    def run_tick(**options):
        statuses.append(PendingAction.objects.get(pk=action.pk).status)
        if len(statuses) == 2:
            raise KeyboardInterrupt  # what a second Ctrl-C does
        PendingAction.objects.filter(pk=action.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
        return real_tick(**options)

    monkeypatch.setattr(autonomy_tick, "run_tick", run_tick)
    with pytest.raises(KeyboardInterrupt):
        tick("--loop", "--interval", "0")
    assert statuses == ["pending", "expired"]
    assert action.conversation.messages.get().content == "操作已过期，未执行：创建基金 Alpha"


class RecordedWaits:
    """A stop event that records how long the command waited between ticks (and never sleeps)."""

    waits: list[float] = []

    def __init__(self):
        self._set = False

    def is_set(self):
        return self._set

    def set(self):
        self._set = True

    def wait(self, timeout=None):
        RecordedWaits.waits.append(timeout)
        return self._set


@pytest.mark.parametrize(
    ("args", "waits"),
    [(["--count", "3"], [0.0, 0.0]), (["--count", "2", "--interval", "5"], [5.0])],
)
def test_a_count_of_ticks_pauses_only_when_an_interval_is_given(resident, monkeypatch, args, waits):
    from agents.management.commands import autonomy_tick

    resident("Alice", energy=20, tools=("rest",))
    RecordedWaits.waits = []
    import threading
    from types import SimpleNamespace

    # Only the command sees the recording event; the rest of the process keeps real ones.
    fake = SimpleNamespace(Event=RecordedWaits, current_thread=threading.current_thread, main_thread=threading.main_thread)
    monkeypatch.setattr(autonomy_tick, "threading", fake)
    out = StringIO()
    call_command("autonomy_tick", *args, stdout=out)
    assert out.getvalue().count("tick #") == int(args[1])
    assert RecordedWaits.waits == waits
