"""Round 10's tuning batch (tests/agents/chat_corpus_r10.py), scored like a held-out file.

The batch was written like the held-out scenario writers write (reason clauses, past reports told
with a time of day, plans, what others said, advice questions, polite indirect requests) before
round 10 changed the parser. It is a tuning set, not a held-out one: its cases are run through the
same runner and report as ``test_heldout.py`` (the real chat, the rules provider, the seeded demo,
one savepoint per case) and held to the issue's targets: every must-not-act case acts on nothing,
no write is wrong, and at least ``UNDERSTOOD`` of each language is understood.

    python -m pytest tests/agents/test_chat_corpus_r10.py -q -p no:randomly -s
"""

from __future__ import annotations

import pytest

from .chat_corpus_r10 import CASES
from .test_heldout import report, score

UNDERSTOOD = 0.95  # each language's share; the must-not-act and wrong-write targets are absolute


def test_the_batch_is_bilingual_and_about_two_fifths_must_not_act():
    chinese = sum(case["lang"] == "zh" for case in CASES)
    kept_still = sum(case["expect"]["kind"] == "none" for case in CASES)
    assert len(CASES) >= 150
    assert 0.45 <= chinese / len(CASES) <= 0.55
    assert 0.35 <= kept_still / len(CASES) <= 0.6
    assert len({case["id"] for case in CASES}) == len(CASES)


@pytest.mark.django_db
def test_round_10_batch(settings, monkeypatch, tmp_path):
    outcomes = score(CASES, settings, monkeypatch, tmp_path)
    print(report(outcomes, "round 10 batch"))

    acted = [o.case["id"] for o in outcomes if o.case["expect"]["kind"] == "none" and o.outcome == "acted wrongly"]
    wrong = [o.case["id"] for o in outcomes if o.outcome == "acted wrongly"]
    assert not acted, f"must-not-act cases that acted: {acted}"
    assert not wrong, f"writes with a wrong tool or argument: {wrong}"
    for lang in ("zh", "en"):
        mine = [o for o in outcomes if o.case["lang"] == lang]
        understood = sum(o.outcome == "understood" for o in mine)
        assert understood >= UNDERSTOOD * len(mine), f"{lang}: {understood}/{len(mine)} understood"
