"""Score the offline ``rules`` chat provider on the frozen held-out requests.

The requests in ``tests/agents/heldout/`` were written without reading the parser (see its
README). Each runs through the real chat runner (``agents.chat.run_chat``) with the rules
provider, on the demo data as ``seed_demo`` creates it, as the demo superuser; earlier
``turns`` first, in the same conversation. The demo is seeded once per file; every case runs inside
its own savepoint, rolled back afterwards, so no case sees another's writes.

Only the final message's effects are judged: the ``ToolCall`` rows it made (executed,
proposed, or run on confirmation) and its reply. Each case ends as one of:

- ``understood``: the expected call was made with the expected arguments (``call``; any of
  the alternatives listed under ``or``), the reply asked back with no write (``ask``), or
  nothing was written (``none``);
- ``acted wrongly``: a write ran or was proposed that the case did not expect, or with a
  wrong argument;
- ``wrong slot``: the expected tool was called, but with other arguments, and nothing was
  written wrongly (a query, or a write that failed);
- ``asked back``: the reply asked a question where a call was expected (a "?" outside
  quotes: an echo of the user's words or a quoted example asks nothing);
- ``intent missed``: anything else.

Every ``tests/agents/heldout/cases_*.json`` file is scored on its own (a round's frozen set
never pools with another's): its table, confusion and failures are printed apart. For each
file the test asserts that must-not-act cases act on nothing and that no write is wrong; the
share understood is asserted only against that file's ``UNDERSTOOD_FLOOR`` entry (a file
without one has the target printed beside its score, never asserted).

Run with ``-s`` to see the tables and the failures::

    python -m pytest tests/agents/test_heldout.py -q -p no:randomly -s
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.db import transaction

# What the test asserts. The integrator raises UNDERSTOOD_FLOOR as the parser improves.
MUST_NOT_ACT_RATE = 1.0  # share of "none" cases that write nothing
WRONG_WRITES = 0  # "acted wrongly" outcomes allowed over all cases
# Share of a file's cases understood, zh and en each: a floor against regressions, per frozen file.
# A file without an entry is scored against TARGET in the printout only.
UNDERSTOOD_FLOOR = {
    "cases_2026_11.json": 0.97, "cases_2026_11_b.json": 0.95, "cases_2026_11_c.json": 0.94, "cases_2026_11_d.json": 0.95,
    "cases_2026_11_e.json": 0.98, "cases_2026_11_f.json": 0.92, "cases_2026_11_g.json": 0.93,
    "cases_2026_11_h.json": 0.92, "cases_2026_11_i.json": 0.91, "cases_2026_11_j.json": 0.93,
    "cases_2026_11_k.json": 0.99, "cases_2026_11_l.json": 0.94, "cases_2026_11_m.json": 0.92,
    "cases_2026_11_n.json": 0.93, "cases_2026_11_o.json": 0.86, "cases_2026_11_p.json": 0.88,
    "cases_2026_11_q.json": 0.88, "cases_2026_11_r.json": 0.93, "cases_2026_11_s.json": 0.85, "cases_2026_11_t.json": 0.76, "cases_2026_11_u.json": 0.84,
    "cases_2026_11_v.json": 0.96, "cases_2026_11_w.json": 0.96, "cases_2026_11_x.json": 0.90,
    "cases_2026_11_y.json": 0.92, "cases_2026_11_z.json": 0.97, "cases_2026_11_za.json": 0.97, "cases_2026_11_zb.json": 0.97, "cases_2026_11_zc.json": 0.95, "cases_2026_11_zd.json": 0.80, "cases_2026_11_ze.json": 0.95, "cases_2026_11_zf.json": 0.95, "cases_2026_11_zi.json": 0.92, "cases_2026_11_zj.json": 0.95, "cases_2026_11_zg.json": 0.92, "cases_2026_11_zk.json": 0.95, "cases_2026_11_zl.json": 0.95, "cases_2026_11_zm.json": 0.95, "cases_2026_11_zn.json": 0.95, "cases_2026_11_zo.json": 0.95, "cases_2026_11_zp.json": 0.95, "cases_2026_11_zq.json": 0.95, "cases_2026_11_zr.json": 0.95, "cases_2026_11_zs.json": 0.97, "cases_2026_11_zt.json": 0.97, "cases_2026_11_zu.json": 0.97, "cases_2026_11_zv.json": 0.92, "cases_2026_11_zw.json": 0.97, "cases_2026_11_zx.json": 0.97, "cases_2026_11_zy.json": 0.97,
}
TARGET = 0.90
# Cases whose frozen expectation the demo data or a documented behaviour contradicts; still scored
# and printed, never counted as a wrong write. Each says why, so the next frozen round can avoid it.
DISPUTED = {
    "ra-zh-39": "the demo's Frank already holds 修缮城墙, so the earlier turn's claim of 为面包坊送面粉 fails "
    "(active_bounty_exists) and proposing to complete his own claim, for staff to confirm, is right",
    "c-fd-zh-18": "a refund for an early checkout starts by asking the supplier (README, the desk's early-checkout "
    "flow): the question is the desk's own template from the order's fields, none of the user's words, and the "
    "refund itself then waits for staff",
    "d-fd-zh-15": "李四 is the demo guest of exactly one order (HT20260301002): round 7 resolves an order by its guest's "
    "name, as issue 26's known lefts ask, so looking that order up (a read, nothing written) answers the request; "
    "the writer expected a question for the order number",
    "g-zh-fd-09": "王五 is the demo guest of exactly one order (HT20260301003): as for d-fd-zh-15, the order found by "
    "its guest's name is looked up (a read); the writer expected a question for the number",
    "k-zh-fd-15": "张三 is the demo guest of exactly one order (HT20260301001): as for d-fd-zh-15, the order found by "
    "its guest's name is looked up (a read); the writer expected a question for the number",
    "l-zh-fd-15": "王五 is the demo guest of exactly one order (HT20260301003): as for d-fd-zh-15, the order found by "
    "its guest's name is looked up (a read); the writer, who listed it as debatable, expected a question",
    "p-en-fd-16": "SUP-88901 is the supplier's number of exactly one order (HT20260301001), which the order's own record "
    "holds (round 13 reads a supplier number as the order it names): the refund is a proposal naming our order and its "
    "guest for staff to confirm; the writer, who listed it as debatable, expected a question",
    "zt-zh-fd-03": "王五 is the demo guest of exactly one order (HT20260301003): '王五那单的供应商订单号是多少' looks that order up and "
    "answers with its supplier number (a read, nothing written), as for g-zh-fd-09; the writer expected a question for the number",
    "zr-zh-fd-07": "'问问供应商同不同意客人3号就退房' carries a day of the user's own (3号), which the desk's early check-out "
    "message (the booked stay) would lose: the words go as typed, on the order, as test_a_day_early_is_no_first_row "
    "requires; the writer expected the template with the supplier's number",
    "w-zh-fd-16": "张三 is the demo guest of exactly one order (HT20260301001): as for d-fd-zh-15, the order found by its "
    "guest's name is looked up (a read, nothing written); the writer expected a question for the number",
    "n-en-fd-12": "the supplier's number (SUP-88903) is in none of the user's words: the question goes, as a question, "
    "under the order the turn before named (order_no HT20260301003), which is how the channel files it; the desk's "
    "early check-out template, which quotes SUP-…, runs when the check-out itself is asked for",
}

HELDOUT = Path(__file__).parent / "heldout"
CASES_FILES = sorted(HELDOUT.glob("cases_*.json"))
OUTCOMES = ("understood", "intent missed", "wrong slot", "asked back", "acted wrongly")
ACTED = ("success", "pending_confirmation")
QUESTION = re.compile(r"[?？]")
# A question inside quotes (the user's words echoed, an example of what to type) asks nothing.
QUOTED = re.compile(r"「[^」]*」|“[^”]*”|\"[^\"]*\"|『[^』]*』")
# Quotes and end punctuation around free text are not part of it.
TEXT_EDGES = " \t\r\n\"'“”‘’「」『』《》.。!！?？,，;；:："


class _Rollback(Exception):
    pass


@dataclass
class Outcome:
    case: dict
    outcome: str
    reply: str = ""
    calls: list[tuple[str, dict, str]] = field(default_factory=list)
    note: str = ""


def load_cases(path: Path) -> list[dict]:
    """A file's cases: a JSON list, or an object holding it under ``cases`` (round 6's form)."""
    loaded = json.loads(path.read_text(encoding="utf-8"))
    return loaded["cases"] if isinstance(loaded, dict) else loaded


# ----------------------------------------------------------------- resolving expectations


class World:
    """The ids of the seeded demo's entities, by the names the cases use."""

    def __init__(self) -> None:
        from agents.models import Agent, Tool
        from bounties.models import Bounty
        from city.models import Building, MarketOrder, ResourceType, ShopItem
        from funds.models import Fund

        self.agents = dict(Agent.objects.values_list("name", "id"))
        self.funds = dict(Fund.objects.values_list("fund_name", "id"))
        self.bounties = dict(Bounty.objects.values_list("title", "id"))
        self.shop_items = dict(ShopItem.objects.values_list("name", "id"))
        self.buildings = dict(Building.objects.values_list("name", "id"))
        self.market_orders = {
            order.seller.name: order.pk for order in MarketOrder.objects.filter(status=MarketOrder.Status.OPEN).select_related("seller")
        }
        self.resource_names = dict(ResourceType.objects.values_list("slug", "name"))
        self.writes = set(Tool.objects.filter(category=Tool.Category.ACTION).values_list("name", flat=True))

    def resolve(self, marker: dict) -> int:
        (kind, name), = marker.items()
        table = {
            "agent": self.agents,
            "fund": self.funds,
            "bounty": self.bounties,
            "shop_item": self.shop_items,
            "building": self.buildings,
            "market_order": self.market_orders,
        }[kind]
        return table[name]


ENTITY_MARKERS = ("agent", "fund", "bounty", "shop_item", "building", "market_order")


def _edges(value: str) -> str:
    return value.strip(TEXT_EDGES)


def matches(world: World, expected: Any, actual: Any) -> bool:
    """Does one argument the tool got match what the case expects?"""
    if isinstance(expected, dict):
        (marker, value), = expected.items()
        if marker in ENTITY_MARKERS:
            try:
                return int(actual) == world.resolve(expected)
            except (TypeError, ValueError):
                return False
        if not isinstance(actual, str):
            return False
        if marker == "text":  # free text: the same words, quotes and end punctuation aside
            return _edges(actual) == _edges(value)
        if marker == "contains":
            return value.casefold() in actual.casefold()
        if marker == "fragment_of":  # a search term: a real piece (2+ characters) of the name
            term = actual.strip().casefold()
            return len(term) >= 2 and term in value.casefold()
        raise ValueError(f"unknown marker {marker!r}")
    if isinstance(expected, bool):
        return actual is expected or actual == expected
    if isinstance(expected, int):
        try:
            return int(actual) == expected
        except (TypeError, ValueError):
            return False
    if isinstance(expected, str) and isinstance(actual, str):
        return actual.strip().casefold() == expected.casefold()
    return expected == actual


def asks_back(reply: str) -> bool:
    return bool(QUESTION.search(QUOTED.sub("", reply)))


def call_matches(world: World, expected: dict, name: str, arguments: dict) -> bool:
    if name != expected["tool"]:
        return False
    arguments = arguments if isinstance(arguments, dict) else {}
    return all(key in arguments and matches(world, value, arguments[key]) for key, value in expected.get("args", {}).items())


def expected_calls(expect: dict) -> list[dict]:
    """The call a case expects, then the alternatives it also accepts (``or``)."""
    return [{"tool": expect["tool"], "args": expect.get("args", {})}, *expect.get("or", [])]


# ----------------------------------------------------------------- running a case


def run_case(world: World, case: dict, user) -> Outcome:
    from agents.chat import run_chat
    from agents.models import Agent, ToolCall
    from core.errors import ApplicationError

    agent = Agent.objects.get(name=case["agent"])
    conversation_id = None
    try:
        for turn in case.get("turns", []):
            conversation_id = run_chat(agent=agent, message=turn, user=user, conversation_id=conversation_id).conversation.pk
        before = ToolCall.objects.order_by("-id").values_list("id", flat=True).first() or 0
        result = run_chat(agent=agent, message=case["message"], user=user, conversation_id=conversation_id)
    except ApplicationError as exc:
        return Outcome(case, "intent missed", note=f"error {exc.code}: {exc}")
    rows = list(
        ToolCall.objects.filter(id__gt=before, conversation=result.conversation).order_by("id").values_list("tool_name", "arguments", "status")
    )
    return Outcome(case, classify(world, case["expect"], rows, result.reply), reply=result.reply, calls=rows)


def classify(world: World, expect: dict, rows: list[tuple[str, dict, str]], reply: str) -> str:
    kind = expect["kind"]
    wanted = expected_calls(expect) if kind == "call" else []

    def expected(name: str, arguments: dict) -> bool:
        return any(call_matches(world, call, name, arguments) for call in wanted)

    wrong_writes = [
        (name, arguments) for name, arguments, status in rows
        if name in world.writes and status in ACTED and not expected(name, arguments)
    ]
    if wrong_writes:
        return "acted wrongly"
    if kind == "none":
        return "understood"
    if kind == "ask":
        return "understood" if asks_back(reply) else "intent missed"
    if any(expected(name, arguments) for name, arguments, _ in rows):
        return "understood"
    if any(name == call["tool"] for name, _, _ in rows for call in wanted):
        return "wrong slot"
    if asks_back(reply):
        return "asked back"
    return "intent missed"


# ----------------------------------------------------------------- the report


def report(outcomes: list[Outcome], title: str = "held-out") -> str:
    families = sorted({o.case["family"] for o in outcomes})
    cells: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for o in outcomes:
        cells[o.case["family"], o.case["lang"]][o.outcome] += 1
    lines = ["", f"{title} score (understood/total)", f"{'family':<20} {'zh':>9} {'en':>9}"]

    def cell(counter: Counter) -> str:
        total = sum(counter.values())
        return f"{counter['understood']}/{total}" if total else "-"

    for family in families:
        lines.append(f"{family:<20} {cell(cells[family, 'zh']):>9} {cell(cells[family, 'en']):>9}")
    by_lang = {lang: Counter(o.outcome for o in outcomes if o.case["lang"] == lang) for lang in ("zh", "en")}
    everything = Counter(o.outcome for o in outcomes)
    lines.append(f"{'all':<20} {cell(by_lang['zh']):>9} {cell(by_lang['en']):>9}   ({cell(everything)})")
    floor = UNDERSTOOD_FLOOR.get(title)
    shares = {lang: by_lang[lang]["understood"] / max(1, sum(by_lang[lang].values())) for lang in ("zh", "en")}
    lines.append(
        f"{'share':<20} {shares['zh']:>9.0%} {shares['en']:>9.0%}   target {TARGET:.0%}"
        + (f", floor {floor:.0%} (asserted)" if floor is not None else " (printed, not asserted)")
    )
    lines += ["", "confusion by family", f"{'family':<20} " + " ".join(f"{name:>14}" for name in OUTCOMES)]
    for family in families:
        counter = cells[family, "zh"] + cells[family, "en"]
        lines.append(f"{family:<20} " + " ".join(f"{counter[name]:>14}" for name in OUTCOMES))
    lines.append(f"{'all':<20} " + " ".join(f"{everything[name]:>14}" for name in OUTCOMES))
    failures = [o for o in outcomes if o.outcome != "understood"]
    lines += ["", f"failures ({len(failures)})"]
    for o in failures:
        case = o.case
        calls = "; ".join(f"{name}({json.dumps(arguments, ensure_ascii=False)})={status}" for name, arguments, status in o.calls)
        lines.append(
            f"- {case['id']} [{o.outcome}] {case['message']!r} expect={json.dumps(case['expect'], ensure_ascii=False)}"
            f"\n    calls: {calls or '—'}\n    reply: {o.reply[:160]!r}{'  ' + o.note if o.note else ''}"
        )
    return "\n".join(lines)


# ----------------------------------------------------------------- the tests


def test_there_is_a_frozen_file():
    assert CASES_FILES, "no tests/agents/heldout/cases_*.json"
    assert set(UNDERSTOOD_FLOOR) <= {path.name for path in CASES_FILES}, "a floor names a file that is not there"


@pytest.mark.parametrize("path", CASES_FILES, ids=lambda path: path.name)
def test_cases_are_well_formed(path):
    cases = load_cases(path)
    assert cases
    assert len({case["id"] for case in cases}) == len(cases)
    for case in cases:
        assert case["lang"] in ("zh", "en"), case["id"]
        assert case["expect"]["kind"] in ("call", "ask", "none"), case["id"]
        assert case["message"].strip(), case["id"]
        if case["expect"]["kind"] == "call":
            assert case["expect"]["tool"], case["id"]


@pytest.fixture(scope="module")
def every_case() -> list[dict]:
    return [case for path in CASES_FILES for case in load_cases(path)]


@pytest.mark.django_db
def test_every_tool_a_demo_agent_holds_is_expected_somewhere(settings, monkeypatch, tmp_path, every_case):
    from agents import demo
    from agents.models import Agent

    monkeypatch.setattr(demo, "CREDENTIALS_FILE", tmp_path / ".demo-credentials")
    call_command("seed_demo", stdout=StringIO())
    expected_tools = {call["tool"] for case in every_case if case["expect"]["kind"] == "call" for call in expected_calls(case["expect"])}
    granted = set(Agent.objects.filter(name__in={case["agent"] for case in every_case}).values_list("tools__name", flat=True))
    assert granted - expected_tools == set()


def score(cases: list[dict], settings, monkeypatch, tmp_path) -> list[Outcome]:
    """Each case through the real chat on the freshly seeded demo, as its superuser, in a savepoint."""
    from django.contrib.auth import get_user_model

    from agents import demo

    settings.AGENT_PROVIDER = "rules"
    monkeypatch.setattr(demo, "CREDENTIALS_FILE", tmp_path / ".demo-credentials")
    call_command("seed_demo", stdout=StringIO())
    user = get_user_model().objects.get(username=demo.DEMO_USERNAME)
    world = World()
    for case in cases:  # every name a case refers to exists in the demo
        for call in expected_calls(case["expect"]) if case["expect"]["kind"] == "call" else []:
            for value in call.get("args", {}).values():
                if isinstance(value, dict) and next(iter(value)) in ENTITY_MARKERS:
                    world.resolve(value)

    outcomes = []
    for case in cases:
        try:
            with transaction.atomic():
                outcomes.append(run_case(world, case, user))
                raise _Rollback
        except _Rollback:
            pass
    return outcomes


@pytest.mark.django_db
@pytest.mark.parametrize("path", CASES_FILES, ids=lambda path: path.name)
def test_heldout_score(path, settings, monkeypatch, tmp_path):
    outcomes = score(load_cases(path), settings, monkeypatch, tmp_path)
    print(report(outcomes, path.name))

    none_cases = [o for o in outcomes if o.case["expect"]["kind"] == "none"]
    kept_still = sum(o.outcome != "acted wrongly" for o in none_cases)
    wrong = [o.case["id"] for o in outcomes if o.outcome == "acted wrongly" and o.case["id"] not in DISPUTED]
    assert kept_still >= MUST_NOT_ACT_RATE * len(none_cases), f"must-not-act cases that acted: {kept_still}/{len(none_cases)} kept still"
    assert len(wrong) <= WRONG_WRITES, f"writes with a wrong tool or argument: {wrong}"
    floor = UNDERSTOOD_FLOOR.get(path.name)
    for lang in ("zh", "en") if floor is not None else ():
        mine = [o for o in outcomes if o.case["lang"] == lang]
        understood = sum(o.outcome == "understood" for o in mine)
        assert understood >= floor * len(mine), f"{path.name} {lang}: {understood}/{len(mine)} understood"
