"""``bench.cluster``'s CPU accounting: what each part of a measured cluster is charged."""

import os
import subprocess
import sys

import pytest

from bench.cluster import cpu_seconds

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads /proc")

BURN = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass"


def test_a_reaped_child_counts_only_where_children_are_asked_for():
    """The bench reaps the tick when it stops it: its CPU must not show as the generator's too."""
    own, with_children = cpu_seconds(os.getpid(), children=False), cpu_seconds(os.getpid())
    subprocess.run([sys.executable, "-c", BURN], check=True)
    assert cpu_seconds(os.getpid()) - with_children >= 0.25  # the postmaster's way: its ended backends count
    assert cpu_seconds(os.getpid(), children=False) - own < 0.2  # this process only waited
