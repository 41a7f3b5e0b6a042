"""Keeping an event loop's calls responsive while another thread of the process runs Python.

The in-process autonomy tick sends its model calls from an event loop in one thread and executes
the answers on another (the one holding the database connection); they share the GIL. Each time
the loop thread gives the GIL up (every poll, send and receive of a call: dozens of times a call)
it gets it back only when the executing thread is made to yield, after Python's switch interval
(5 ms). So every call came back later while a batch executed, and the next call of its slot
started later: seven times in a row on a 1,000-resident tick's critical path.

Measured (``/work/notes/tick9/gil.py`` in the tick9 report: sequential batch calls to the scripted
server answering at once, beside a thread spinning Python): median call 53-76 ms at 5 ms,
40-54 ms at 0.5 ms. ``responsive_switching`` lowers the interval to ``SWITCH_INTERVAL`` for the
block; the thread that only waits on the network then waits less for its turn, and the busy
thread still runs whenever the other has nothing to do.

Process-wide, as the interval is: concurrent blocks count, the last to end restores it.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

SWITCH_INTERVAL = 0.0005  # seconds; Python's default is 0.005

_lock = threading.Lock()
_depth = 0
_saved: float | None = None


@contextmanager
def responsive_switching() -> Iterator[None]:
    """Run the block with the GIL handed between threads every ``SWITCH_INTERVAL`` at most."""
    global _depth, _saved
    with _lock:
        if not _depth:
            _saved = sys.getswitchinterval()
            sys.setswitchinterval(min(_saved, SWITCH_INTERVAL))
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if not _depth:
                sys.setswitchinterval(_saved)
