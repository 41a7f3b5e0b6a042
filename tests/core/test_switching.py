"""``core.switching``: the switch interval, lowered while blocks run, restored by the last."""

from __future__ import annotations

import sys

import pytest

from core.switching import SWITCH_INTERVAL, responsive_switching


def test_nested_blocks_lower_the_interval_and_the_last_restores_it():
    before = sys.getswitchinterval()
    with responsive_switching():
        assert sys.getswitchinterval() == SWITCH_INTERVAL
        with responsive_switching():
            assert sys.getswitchinterval() == SWITCH_INTERVAL
        assert sys.getswitchinterval() == SWITCH_INTERVAL  # the outer block is still running
    assert sys.getswitchinterval() == before


def test_an_error_in_the_block_still_restores_the_interval():
    before = sys.getswitchinterval()
    with pytest.raises(RuntimeError), responsive_switching():
        raise RuntimeError("boom")
    assert sys.getswitchinterval() == before
