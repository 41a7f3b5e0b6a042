import signal
import subprocess
import sys
import threading

from django.core.management.base import BaseCommand, CommandError

SIGNAL_NAMES = {signal.SIGINT: "Ctrl-C (SIGINT)", signal.SIGTERM: "SIGTERM"}


class Command(BaseCommand):
    help = (
        "Serve the site with Daphne and run the autonomy loop beside it (what `make run` starts). "
        "SIGINT (Ctrl-C) or SIGTERM stops both: each child gets exactly one SIGTERM, the loop finishes "
        "its tick, and one line says so."
    )

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1", help="address Daphne listens on (default 127.0.0.1)")
        parser.add_argument("--port", type=int, default=8000, help="port Daphne listens on (default 8000)")
        parser.add_argument("--interval", type=float, default=30.0, help="seconds between autonomy ticks (default 30)")

    def handle(self, *args, host, port, interval, **options):
        if interval < 0:
            raise CommandError("--interval must not be negative")
        stop = threading.Event()
        received: list[int] = []

        def request_stop(signum, frame):
            received.append(signum)
            stop.set()

        # Installed explicitly: a process started in the background by a shell (as `make run`
        # under setsid is) inherits SIGINT ignored, and Python would leave it so.
        previous = {signum: signal.signal(signum, request_stop) for signum in SIGNAL_NAMES}
        manage = [sys.executable, sys.argv[0]]
        # Each child in a session of its own: a terminal's Ctrl-C reaches only this process,
        # which then sends every child one SIGTERM, so nobody is told to stop twice.
        children = [
            subprocess.Popen(
                [*manage, "autonomy_tick", "--loop", "--interval", str(interval), "--quiet-stop"], start_new_session=True
            ),
            subprocess.Popen(
                [sys.executable, "-m", "daphne", "-b", host, "-p", str(port), "config.asgi:application"],
                start_new_session=True,
            ),
        ]
        try:
            while not stop.wait(0.5):
                if any(child.poll() is not None for child in children):
                    break  # one died on its own (a port in use, say): stop the other too
        finally:
            if received:
                self.stdout.write(
                    f"{SIGNAL_NAMES[received[0]]}: stopping the server and the autonomy loop "
                    "(the loop finishes its current tick first)."
                )
            for child in children:
                if child.poll() is None:
                    child.send_signal(signal.SIGTERM)
            codes = [child.wait() for child in children]
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        if not received:
            raise CommandError(f"a child stopped on its own (exit codes {codes}); the other was stopped too")
        self.stdout.write("Stopped.")
