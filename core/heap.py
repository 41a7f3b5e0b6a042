"""Keeping Python's cycle collector off what a long, allocation-heavy job reads once and keeps.

The autonomy tick holds the whole process's objects (Django's, the apps') plus its world of
thousands of residents, and makes tens of thousands of short-lived rows, dicts and events while
it executes. Each full collection of the cycle collector walks every one of those long-lived
objects again: three of them cost a 10,000-resident rules tick about a sixth of its time
(``bench.autonomy_tick``; measured with ``gc.callbacks``: 1.07 s of collections, 0.19 s with
the heap frozen). ``frozen_heap`` moves what exists when it starts to the collector's permanent
generation (``gc.freeze``), ``freeze_more`` does the same for what was built since (the tick's
world), and the last block to end gives it all back (``gc.unfreeze``): it is collected as usual
from then on. Nothing is freed any later than it would be by reference counting; only cyclic
garbage made before a freeze waits for the end of the block.

Inside, the young generation is collected every ``YOUNG_THRESHOLD`` allocations instead of
Python's 700: a tick made 520 young and 47 middle collections (0.5-0.6 s at load 6), 20 and 1
with this (0.2 s); a tick's rows live for one batch, so the collector mostly found them alive
and walked them again. The thresholds are restored when the last block ends.

Process-wide, as the collector is: concurrent blocks (two ticks in one server process) count,
and only the last one to end unfreezes.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG_THRESHOLD = 10_000

_lock = threading.Lock()
_depth = 0  # blocks open in this process
_thresholds: tuple[int, int, int] | None = None  # the collector's, while blocks are open


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Run the block with the objects that exist now out of the collector's way (also a decorator)."""
    global _depth, _thresholds
    with _lock:
        if not _depth:
            _thresholds = gc.get_threshold()
            young, *older = _thresholds
            if young:  # 0: the collector is off, and stays so
                gc.set_threshold(max(young, YOUNG_THRESHOLD), *older)
        _depth += 1
        gc.freeze()
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if not _depth:
                gc.unfreeze()
                gc.set_threshold(*_thresholds)


def freeze_more() -> None:
    """Inside ``frozen_heap``: freeze what was made since, to be kept to the end (a tick's world)."""
    with _lock:
        if _depth:
            gc.freeze()
