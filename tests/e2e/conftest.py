import os

import pytest

# A real browser against a real server on a 2-core machine shared with the rest of the
# suite: a rare timing failure is retried up to twice, and pytest reports every rerun
# ("R" and "N rerun" in the summary), so a flaky test stays visible instead of silent.
# E2E_RERUNS=0 shows a flaky test's first failure when hunting it down.
E2E_RERUNS = int(os.environ.get("E2E_RERUNS", "2"))


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/e2e/" in item.nodeid:
            item.add_marker(pytest.mark.e2e)
            item.add_marker(pytest.mark.slow)
            item.add_marker(pytest.mark.flaky(reruns=E2E_RERUNS))
