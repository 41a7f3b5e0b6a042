"""``core.heap``: a block runs with the heap frozen (out of the cycle collector's walks), what is
built inside can be frozen too, and the last block to end gives everything back."""

from __future__ import annotations

import gc
import threading

from core.heap import YOUNG_THRESHOLD, freeze_more, frozen_heap


def test_the_heap_is_frozen_inside_and_given_back_after():
    assert gc.get_freeze_count() == 0
    with frozen_heap():
        frozen = gc.get_freeze_count()
        assert frozen > 0
        kept = [[i] for i in range(1000)]  # the world a tick reads once
        freeze_more()
        assert gc.get_freeze_count() >= frozen + len(kept)
    assert gc.get_freeze_count() == 0


def test_freeze_more_outside_a_block_freezes_nothing():
    freeze_more()
    assert gc.get_freeze_count() == 0


def test_only_the_last_of_overlapping_blocks_unfreezes():
    inside, leave = threading.Event(), threading.Event()

    def other_tick():
        with frozen_heap():
            inside.set()
            leave.wait(10)

    thread = threading.Thread(target=other_tick)
    thread.start()
    try:
        inside.wait(10)
        with frozen_heap():
            pass
        assert gc.get_freeze_count() > 0  # the other block still runs: its heap stays frozen
    finally:
        leave.set()
        thread.join()
    assert gc.get_freeze_count() == 0


def test_a_block_that_raises_still_unfreezes():
    try:
        with frozen_heap():
            raise RuntimeError("the tick failed")
    except RuntimeError:
        pass
    assert gc.get_freeze_count() == 0


def test_the_young_generation_is_collected_less_often_inside_and_as_before_after():
    before = gc.get_threshold()
    with frozen_heap():
        assert gc.get_threshold()[0] == max(before[0], YOUNG_THRESHOLD)
        assert gc.get_threshold()[1:] == before[1:]
    assert gc.get_threshold() == before
