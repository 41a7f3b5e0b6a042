import json
import signal
import sys
import threading
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import close_old_connections, connection

from agents.autonomy.loop_lock import single_loop
from agents.autonomy.policy import policy_from_settings
from agents.autonomy.recording import RecordingPolicy
from agents.autonomy.sources import world_source
from agents.autonomy.tick import prepare_coordinator, run_tick
from agents.confirmations import expire_pending_actions
from agents.selectors import agents_by_keys
from core.errors import ApplicationError


class ProgressBar:
    """The tick's batches done, as a rich progress bar on the terminal (``progress(done, total)``)."""

    def __init__(self, stream):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

        self.bar = Progress(
            "batches", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=Console(file=stream), transient=True
        )
        self.task = None

    def __call__(self, done: int, total: int) -> None:
        if self.task is None:
            self.bar.start()
            self.task = self.bar.add_task("tick", total=total)
        self.bar.update(self.task, completed=done, total=total)

    def clear(self) -> None:
        if self.task is not None:
            self.bar.stop()
            self.task = None


class Command(BaseCommand):
    help = (
        "Run the autonomy tick: every active resident decides one action, executed through the tool registry. "
        "Before each tick, overdue pending actions expire and their conversations are told. "
        "One stats line per tick; Ctrl-C or SIGTERM stops cleanly after the running tick (a second one interrupts). "
        "Only one such command ticks at a time: a second one waits, and says so. "
        "Exits non-zero, naming the endpoint and the error, when in any tick every resident fell back (no decision "
        "came for anyone); with --count N all N ticks run first (with --loop it only says so and goes on)."
    )

    def add_arguments(self, parser):
        runs = parser.add_mutually_exclusive_group()
        runs.add_argument("--count", type=int, default=1, help="number of ticks (default 1)")
        runs.add_argument("--loop", action="store_true", help="tick until stopped")
        parser.add_argument(
            "--interval", type=float, default=None, help="seconds between ticks (default 30 with --loop; none with --count)"
        )
        parser.add_argument("--agents", default="", help="only these agents: comma-separated ids or names")
        parser.add_argument("--dry-run", action="store_true", help="decide and print, change nothing")
        parser.add_argument("--show-prompt", action="store_true", help="print the system prompt and every batch prompt")
        parser.add_argument("--batch-size", type=int, default=None, help="residents per model call (AUTONOMY_BATCH_SIZE)")
        parser.add_argument("--concurrency", type=int, default=None, help="model calls at once (AUTONOMY_CONCURRENCY)")
        parser.add_argument("--seed", type=int, default=0, help="seed of the offline rules policy")
        parser.add_argument(
            "--record", default=None, metavar="DIR",
            help="store each batch's prompt, answer and decisions under DIR/tick-NNNN/ (for manage.py replay_tick)",
        )
        parser.add_argument(
            "--quiet-stop", action="store_true", help="say nothing on a stop signal (serve_demo, which sent it, says it)"
        )

    def handle(
        self, *args, count, loop, interval, agents, dry_run, show_prompt, batch_size, concurrency, seed, record, quiet_stop,
        **options,
    ):
        for name, value, minimum in (("--count", count, 1), ("--batch-size", batch_size, 1), ("--concurrency", concurrency, 1)):
            if value is not None and value < minimum:
                raise CommandError(f"{name} must be at least {minimum}")
        if interval is None:
            interval = 30.0 if loop else 0.0  # a count of ticks is a batch job: no pause unless asked
        if interval < 0:
            raise CommandError("--interval must not be negative")
        agent_ids = None
        if agents.strip():
            try:
                agent_ids = [agent.pk for agent in agents_by_keys(agents.split(","))]
            except ApplicationError as exc:
                raise CommandError(f"{exc.code}: {exc.message}") from exc
        if not dry_run:
            prepare_coordinator()  # the first tick waits for neither the events layer's set-up nor the broker's
        stop = threading.Event()
        previous = self._catch_stop_signals(stop, quiet=quiet_stop)
        try:
            if dry_run:  # changes nothing: needs no lock
                self._run(stop, count, loop, interval, agent_ids, dry_run, show_prompt, batch_size, concurrency, seed, record)
            else:
                with single_loop(say=self.stderr.write):
                    self._run(stop, count, loop, interval, agent_ids, dry_run, show_prompt, batch_size, concurrency, seed, record)
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)

    def _run(self, stop, count, loop, interval, agent_ids, dry_run, show_prompt, batch_size, concurrency, seed, record) -> None:
        progress = ProgressBar(sys.stderr) if sys.stderr.isatty() else None
        done = 0
        failures: list[str] = []
        while not stop.is_set():
            if not connection.in_atomic_block:  # a long loop outlives connections (server restarts, timeouts)
                close_old_connections()
            try:
                if not dry_run:
                    self._expire()
                result = run_tick(
                    agent_ids=agent_ids, batch_size=batch_size, concurrency=concurrency, dry_run=dry_run,
                    show_prompt=show_prompt, progress=progress, seed=seed,
                    policy=self._recording(record, done + 1, seed) if record else None,
                )
            except Exception as exc:
                if not loop:
                    raise
                self.stderr.write(f"tick failed: {type(exc).__name__}: {exc}")
            else:
                if progress is not None:
                    progress.clear()
                self._report(result, dry_run, show_prompt)
                if result.every_batch_failed:
                    failure = self._every_batch_failed(result)
                    failures.append(failure)
                    self.stderr.write(failure)
            done += 1
            if not loop and done >= count:
                break
            if stop.wait(interval):
                break
        if failures and not loop:
            raise CommandError(f"{len(failures)} of {done} ticks failed entirely; the last: {failures[-1]}")

    @staticmethod
    def _recording(directory: str, tick: int, seed: int) -> RecordingPolicy:
        source = world_source()
        return RecordingPolicy(
            policy_from_settings(source, seed), Path(directory) / f"tick-{tick:04d}",
            system_prompt=source.system_prompt(), actions=source.actions,
        )

    def _every_batch_failed(self, result) -> str:
        endpoint = settings.OPENAI_BASE_URL or "https://api.openai.com/v1"
        return (
            f"every batch failed: nobody decided, all {result.stats['agents']} residents fell back to rest. "
            f"Endpoint {endpoint} (model {settings.AGENT_MODEL}): {result.errors[0]['error']}"
        )

    def _expire(self) -> None:
        """The loop's expiry step: the one place pending actions expire besides a late decision."""
        if expired := expire_pending_actions():
            self.stdout.write(f"expired {expired} pending action{'s' if expired != 1 else ''}")

    def _report(self, result, dry_run: bool, show_prompt: bool) -> None:
        if show_prompt:
            for prompt in result.prompts:
                self.stdout.write(prompt)
                self.stdout.write("-" * 60)
        if dry_run:
            for decision in result.decisions:
                params = json.dumps(decision.params, ensure_ascii=False)
                self.stdout.write(f"  #{decision.agent_id} {decision.action} {params} — {decision.reason}")
        for error in result.errors:
            self.stderr.write(f"batch {error['batch']} failed ({len(error['agent_ids'])} residents rested): {error['error']}")
        self.stdout.write(result.line())

    def _catch_stop_signals(self, stop: threading.Event, *, quiet: bool = False) -> dict:
        """First SIGINT/SIGTERM: finish the running tick, then stop; a second interrupts. Returns the handlers replaced."""
        if threading.current_thread() is not threading.main_thread():
            return {}  # signals can only be handled on the main thread (call_command in a worker)

        def request_stop(signum, frame):
            if stop.is_set():
                raise KeyboardInterrupt
            stop.set()
            if not quiet:  # the message names the signal that came: SIGTERM is no Ctrl-C
                again = "Ctrl-C again" if signum == signal.SIGINT else "a second SIGTERM"
                self.stderr.write(f"\nstopping after this tick ({again} to interrupt)")

        return {signum: signal.signal(signum, request_stop) for signum in (signal.SIGINT, signal.SIGTERM)}
