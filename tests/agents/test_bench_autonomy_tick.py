"""``python -m bench.autonomy_tick --endpoint``: no figure, and a non-zero exit, when nobody decided."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from tests.support.django_process import PROJECT_ROOT

pytestmark = pytest.mark.slow  # a Django child migrates a database


def bench(base_url: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "bench.autonomy_tick", "--endpoint", base_url, "--agents", "3", "--batch-size", "2"],
        cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300,
    )


def test_every_batch_failing_prints_no_per_resident_figure_and_exits_non_zero(scripted_openai):
    scripted_openai.respond_with(lambda request: {"content": "[]"}, delay=0)
    result = bench(scripted_openai.base_url)
    assert result.returncode != 0, result.stdout
    assert "per resident" not in result.stdout and "every batch failed" in result.stderr


def test_a_tick_that_decided_prints_the_prompt_tokens_per_resident(scripted_openai):
    def rest(request):
        ids = re.findall(r"^- ID=(\d+) ", request["messages"][-1]["content"].split("== 资源 ==")[0], re.MULTILINE)
        return {"content": json.dumps([{"agent_id": int(i), "action": "rest"} for i in ids])}

    scripted_openai.respond_with(rest, delay=0)
    result = bench(scripted_openai.base_url)
    assert result.returncode == 0, result.stderr
    assert "per resident at batch 2" in result.stdout


def test_the_floor_counts_the_waves_of_model_calls_the_ideal_does_not():
    from bench.autonomy_tick import calls_floor, ideal_duration

    assert ideal_duration(1000, 20, 8, 0.2) == pytest.approx(1.25)  # the yardstick: 6.25 waves
    assert calls_floor(1000, 20, 8, 0.2) == pytest.approx(1.40)  # 50 calls at 8 at a time: 7 waves
    assert calls_floor(960, 20, 8, 0.2) == pytest.approx(ideal_duration(960, 20, 8, 0.2))  # whole waves: the same
