"""Load on the scale-out setup: PostgreSQL + Redis + N Daphne processes on loopback, then a
reconciliation of what the load did against the database.

    .venv/bin/python -m bench.load                          # 10, 50 and 100 users, 30 s each
    .venv/bin/python -m bench.load --users 50 --duration 30
    .venv/bin/python -m bench.load --database sqlite        # the embedded default: SQLite, 1 Daphne, no Redis, 10 users
    .venv/bin/python -m bench.load --json report.json
    .venv/bin/python -m bench.load --daphnes 8 --pool 8 --generators 4 --users 200   # a bigger machine

Each user level gets a fresh database and fresh servers. Virtual users (closed loop, think time
``--think`` s on average) pick a Daphne process round-robin, as a proxy would, and mix: API reads
(agents, transfers, funds, bounties); ore transfers among 50 traders; bounty claims, each won
claim followed by its completion; fund PATCHes naming the version just read (a 409
``version_conflict`` is a documented answer); confirms of pending ``create_fund`` proposals made
in the set-up. Beside them, ``--clients`` WebSocket clients listen on ``/ws/events/`` (in their own
process, so parsing events never delays the HTTP timings) and ``manage.py autonomy_tick --loop``
ticks ``--residents`` residents with the rules policy every ``--tick-interval`` s.

The header prints every setting. The servers pool their PostgreSQL connections (``--pool``, default
8 per process, as the README deploys them; ``--pool 0``: a new connection per request).
``--generators N`` splits the users over N processes (one asyncio loop caps near 200-250
requests/s; the lean client of ``bench.http`` costs a tenth of httpx's CPU); WebSocket clients ask for coalesced frames as pages do
(``--frames single``: one frame per event). Before the load, each endpoint alone gets
``--cpu-probe`` requests in a row on the first Daphne: its CPU ms per request, beside a bare
authenticated DRF view (``bench.asgi``) measured the same way.

Printed per level: p50/p95/p99 per operation; errors split into documented 4xx, clean 503s and
anything else; WebSocket delivery latency (``LATENCY_FROM``: event timestamp to client receipt); the CPU of
each process; Daphne CPU per request alone and under the load; what PostgreSQL's connections wait
on (``pg_stat_activity`` every 0.1 s, top wait events), and a verdict naming a saturated process,
the machine's CPU or the lock. ``--json`` keeps all of it. Then the reconciliation (see ``reconcile``): it must find 0
anomalies. Everything is bounded: ``--duration`` per level, deadlines on every wait.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import re
import sys
import time
from collections import Counter, defaultdict, deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

TRADERS = 50
START_ORE = 1000
START_CREDITS = 100
FUNDS = 5
LOAD_BOUNTIES = 1000
P95_TARGET_MS = 200
# The servers' connection pool unless --pool says otherwise: the README's deployment. Without one,
# each request opens a PostgreSQL backend (a fork and a cold catalog cache) and its prepared
# statements die with it: at 50 users that was PostgreSQL's largest cost (42 % of a core, against
# 14 % pooled, at twice the requests; 2026-11-26, 2 cores).
DEFAULT_POOL = 8
# Codes the API documents for a request the state refuses (DESIGN §7, §8, §11).
DOCUMENTED_4XX = frozenset(
    {
        "insufficient_resource",
        "active_bounty_exists",
        "bounty_not_open",
        "bounty_not_claimed",
        "version_conflict",
        "not_pending",
        "pending_action_not_pending",
    }
)
# A clean answer to the database failing (core.database), expected only while a fault runs.
CLEAN_503 = frozenset({"database_unavailable", "database_full"})
WEIGHTS = {
    "read_agents": 10,
    "read_transfers": 10,
    "read_funds": 10,
    "read_bounties": 10,
    "transfer": 25,
    "claim": 8,
    "fund_patch": 15,
    "confirm": 8,
}


# --- inside a Django child process ------------------------------------------------------


def prepare(*, residents: int, proposals: int) -> dict[str, Any]:
    """The world of the load: tick residents, traders holding ore, bounties, funds, proposals, a superuser token."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from agents.executor import execute
    from agents.models import Agent, Tool
    from agents.registry import ToolContext
    from bench.autonomy_tick import populate
    from bounties.models import Bounty
    from city.models import AgentResource, ResourceType
    from core.events import latest_event_seq
    from funds.services import create_fund

    user = get_user_model().objects.create_superuser("bench", password="pw-bench-123")
    token = Token.objects.create(user=user).key
    populate(agents=residents)
    resident_ids = list(Agent.objects.order_by("pk").values_list("pk", flat=True))
    ore = ResourceType.objects.create(slug="ore", name="矿石")
    traders = Agent.objects.bulk_create(Agent(name=f"trader-{i}", credits=START_CREDITS) for i in range(TRADERS))
    AgentResource.objects.bulk_create(AgentResource(agent=a, resource_type=ore, quantity=START_ORE) for a in traders)
    bounties = Bounty.objects.bulk_create(Bounty(title=f"load-{i}", reward=5 + i % 20) for i in range(LOAD_BOUNTIES))
    funds = [create_fund(fund_name=f"Load fund {i}", user=user) for i in range(FUNDS)]
    clerk = Agent.objects.create(name="clerk")
    clerk.tools.set(Tool.objects.filter(name="create_fund"))
    pending = []
    for i in range(proposals):
        result = execute("create_fund", {"fund_name": f"Proposed {i}"}, ToolContext(agent=clerk, source="api", user=user))
        if result["status"] != "pending_confirmation":
            raise RuntimeError(f"create_fund did not propose: {result}")
        pending.append(result["pending_action_id"])
    return {
        "token": token,
        "resident_ids": resident_ids,
        "trader_ids": [a.pk for a in traders],
        "bounty_ids": [b.pk for b in bounties],
        "fund_versions": {str(f.pk): f.version for f in funds},
        "pending_ids": pending,
        "city": city_totals(),
        "seq0": latest_event_seq(),
    }


def city_totals() -> dict[str, int]:
    from django.db.models import Sum

    from agents.models import Agent
    from city.models import Building, CheckIn, CreditEntry, Purchase

    return {
        "credits": Agent.objects.aggregate(s=Sum("credits"))["s"] or 0,
        "wages": CheckIn.objects.aggregate(s=Sum("wage"))["s"] or 0,
        "entries": CreditEntry.objects.aggregate(s=Sum("amount"))["s"] or 0,
        "purchases": Purchase.objects.aggregate(s=Sum("total_price"))["s"] or 0,
        "construction": sum(int(cost.get("credits", 0)) for cost in Building.objects.values_list("construction_cost", flat=True)),
    }


def reconcile(*, world: dict[str, Any], facts: dict[str, Any]) -> dict[str, Any]:
    """What the load did, checked against the database. ``facts`` counts the answers the
    generator got; ``unknown`` ones (the connection died before the answer) may have committed.

    - ore conserved, nothing negative, ledger rows = successful transfers, every trader's ore =
      start + its ledger net, every transfer has its ``resource_transferred`` event;
    - credits: city-wide change = wages + credit entries - purchases - construction; each trader's
      credits = start + its entries; each completed bounty paid exactly once, its reward, to its claimer;
    - bounties: at most one active per agent, no bounty claimed twice (events and answers);
    - funds: final version = initial + successful PATCHes; every confirmed proposal made one fund;
    - events: the log's seqs have no gap.
    """
    from django.db.models import Count, Sum

    from agents.models import Agent, PendingAction
    from bounties.models import Bounty
    from city.models import AgentResource, CreditEntry, ResourceTransfer
    from core.models import EventLog
    from funds.models import Fund

    found: list[str] = []
    traders = world["trader_ids"]
    ore = AgentResource.objects.filter(resource_type__slug="ore")
    total = ore.aggregate(s=Sum("quantity"))["s"]
    if total != START_ORE * len(traders):
        found.append(f"ore not conserved: {total} != {START_ORE * len(traders)}")
    if AgentResource.objects.filter(quantity__lt=0).exists() or Agent.objects.filter(credits__lt=0).exists():
        found.append("a negative stock or credit balance")
    ledger = ResourceTransfer.objects.filter(resource_type__slug="ore")
    rows = ledger.count()
    ok, unknown = facts["transfers_ok"], facts["transfers_unknown"]
    if not ok <= rows <= ok + unknown:
        found.append(f"ore ledger rows {rows}, successful transfers {ok} (+{unknown} without an answer)")
    expected = dict.fromkeys(traders, START_ORE)
    for sender, receiver, quantity in ledger.values_list("from_agent_id", "to_agent_id", "quantity"):
        expected[sender] -= quantity
        expected[receiver] += quantity
    held = dict(ore.values_list("agent_id", "quantity"))
    found += [f"trader {a}: ore {held.get(a)} != ledger {q}" for a, q in expected.items() if held.get(a) != q]
    announced = {
        data.get("transfer_id")
        for data in EventLog.objects.filter(event="resource_transferred", seq__gt=world["seq0"]).values_list("data", flat=True)
    }
    silent = [pk for pk in ledger.values_list("pk", flat=True) if pk not in announced]
    if silent:
        found.append(f"{len(silent)} committed transfers have no resource_transferred event, e.g. {silent[:5]}")

    start, now = world["city"], city_totals()
    change = now["credits"] - start["credits"]
    explained = (
        (now["wages"] - start["wages"]) + (now["entries"] - start["entries"])
        - (now["purchases"] - start["purchases"]) - (now["construction"] - start["construction"])
    )
    if change != explained:
        found.append(f"credits not conserved: city credits changed by {change}, the records explain {explained}")
    entries = dict(
        CreditEntry.objects.filter(agent_id__in=traders).values("agent_id").annotate(s=Sum("amount")).values_list("agent_id", "s")
    )
    credits = dict(Agent.objects.filter(pk__in=traders).values_list("pk", "credits"))
    found += [
        f"trader {a}: credits {credits[a]} != {START_CREDITS} + entries {entries.get(a, 0)}"
        for a in traders
        if credits[a] != START_CREDITS + entries.get(a, 0)
    ]
    paid = Counter(CreditEntry.objects.filter(source="bounty").values_list("reference", flat=True))
    found += [f"{reference} paid {n} times" for reference, n in paid.items() if n > 1]
    for bounty_id, reward, claimer in Bounty.objects.filter(status=Bounty.Status.COMPLETED).values_list("pk", "reward", "claimed_by_id"):
        entry = CreditEntry.objects.filter(reference=f"bounty:{bounty_id}").values_list("agent_id", "amount").first()
        if entry != (claimer, reward):
            found.append(f"bounty {bounty_id} completed by {claimer} for {reward}, paid {entry}")
    doubled = Bounty.objects.filter(status=Bounty.Status.CLAIMED).values("claimed_by").annotate(n=Count("pk")).filter(n__gt=1)
    found += [f"agent {row['claimed_by']} holds {row['n']} active bounties" for row in doubled]
    claims = Counter(
        data.get("bounty_id")
        for data in EventLog.objects.filter(event="bounty_claimed", seq__gt=world["seq0"]).values_list("data", flat=True)
    )
    found += [f"bounty {b} claimed {n} times (events)" for b, n in claims.items() if n > 1]
    for bounty_id, agent_id in facts["claims_ok"].items():
        row = Bounty.objects.filter(pk=int(bounty_id)).values_list("claimed_by_id", flat=True).first()
        if row != agent_id:
            found.append(f"bounty {bounty_id} claimed by {agent_id} over the API, held by {row}")
    for bounty_id, agent_id in facts["completions_ok"].items():
        if not Bounty.objects.filter(pk=int(bounty_id), status=Bounty.Status.COMPLETED, claimed_by_id=agent_id).exists():
            found.append(f"bounty {bounty_id} completed by {agent_id} over the API, not so in the database")

    versions = dict(Fund.objects.filter(pk__in=[int(k) for k in world["fund_versions"]]).values_list("pk", "version"))
    for key, initial in world["fund_versions"].items():
        ok, unknown = facts["fund_ok"].get(key, 0), facts["fund_unknown"].get(key, 0)
        if not initial + ok <= versions[int(key)] <= initial + ok + unknown:
            found.append(f"fund {key}: version {versions[int(key)]} != {initial} + {ok} successful PATCHes (+{unknown} unanswered)")
    confirmed = set(facts["confirmed"])
    statuses = dict(PendingAction.objects.filter(pk__in=world["pending_ids"]).values_list("pk", "status"))
    found += [f"pending action {pk} confirmed over the API, status {statuses.get(pk)}" for pk in confirmed if statuses.get(pk) != "confirmed"]
    made = Fund.objects.filter(fund_name__startswith="Proposed ").count()
    done = sum(1 for status in statuses.values() if status == "confirmed")
    if made != done:
        found.append(f"{done} confirmed create_fund proposals made {made} funds")
    if not len(confirmed) <= done <= len(confirmed) + facts["confirm_unknown"]:
        found.append(f"{done} proposals confirmed, {len(confirmed)} confirms answered 200")

    seqs = list(EventLog.objects.filter(seq__gt=world["seq0"]).order_by("seq").values_list("seq", flat=True))
    if seqs and seqs[-1] - world["seq0"] != len(seqs):
        found.append(f"event log has gaps: {len(seqs)} events for seqs {world['seq0'] + 1}..{seqs[-1]}")
    return {"anomalies": found, "last_seq": seqs[-1] if seqs else world["seq0"], "events": len(seqs)}


# --- WebSocket clients, in their own process --------------------------------------------


@dataclass
class Listener:
    """One WebSocket client's record. While the load runs it only keeps each frame as received, with
    the time ``recv`` returned it and when its connection opened; ``absorb`` reads them after the run.

    All the clients share one process (and, on a small machine, the servers' cores): parsing a
    tick's frames as they came (200 events each, to 100 clients) was most of that process's CPU
    and held every other client's ``recv`` behind it, so a frame's receipt waited on the 99 other
    pages' JSON. A page parses only its own frame, on its own machine. The receipt is stamped at the
    same instant as before; only the parse moved out of the measured window."""

    seqs: set[int] = field(default_factory=set)
    live_ms: list[float] = field(default_factory=list)
    live_ms_by_event: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    reconnects: int = 0
    why: Counter = field(default_factory=Counter)  # what ended each connection
    last: int = 0
    replayed: int = 0
    received: list[tuple[float, float, bytes]] = field(default_factory=list)  # (receipt, connected at, frame)

    def keep(self, raw: bytes, *, received: float, connected_at: float) -> None:
        """A live frame: stored for ``absorb``; only its last seq is read now (a reconnection's ``?since=``)."""
        self.received.append((received, connected_at, raw))
        through = frame_through(raw)
        if through is not None:
            self.last = max(self.last, through)

    def absorb(self) -> None:
        """Read the frames kept during the run: their seqs, and the live ones' latency."""
        for received, connected_at, raw in self.received:
            for data in frame_events(raw):
                seq = data["seq"]
                if seq in self.seqs:
                    continue
                self.seqs.add(seq)
                self.last = max(self.last, seq)
                stamp = datetime.fromisoformat(data["timestamp"]).timestamp()
                if stamp >= connected_at:
                    self.live_ms.append((received - stamp) * 1000)
                    self.live_ms_by_event[data["event"]].append(self.live_ms[-1])
                else:
                    self.replayed += 1
        self.received = []


def frame_events(raw: str | bytes) -> list[dict]:
    """The events of one ``/ws/events/`` frame: one ``system_event``, or a ``system_events`` batch."""
    frame = json.loads(raw)
    if frame["type"] == "system_events":
        return frame["data"]["events"]
    return [frame["data"]] if frame["type"] == "system_event" else []


# The newest seq a frame covers, from its first bytes (``core.events``: a batch's ``through``; an
# event's ``seq`` after its name and timestamp).
_THROUGH = re.compile(rb'\{"type": "system_events", "data": \{"after": \d+, "through": (\d+)')
_SEQ = re.compile(rb'\{"type": "system_event", "data": \{"event": "[a-z0-9_]*", "timestamp": "[^"]*", "seq": (\d+)')


def frame_through(raw: bytes) -> int | None:
    """The newest seq of a ``system_events`` or ``system_event`` frame (None for any other frame),
    without parsing the events: read from the header, or from the whole frame when it is not laid
    out as ``core.events`` writes it."""
    head = raw[:240]
    match = _THROUGH.match(head) or _SEQ.match(head)
    if match is not None:
        return int(match.group(1))
    events = frame_events(raw)
    return max((data["seq"] for data in events), default=None)


# What the WebSocket latency measures. The clock starts at the event's timestamp: set when its row is
# written, inside the change's own transaction, so the change's commit (for a tick's batch, the rest
# of the batch's writes and its COMMIT) is counted, not only the delivery.
LATENCY_FROM = (
    "from the event's timestamp (its row written inside the change's transaction, before the commit) "
    "to the client's recv; the clients parse their frames after the run"
)


# Pages ask for coalesced frames (static/js/events.js); ``--frames single`` measures one frame per event.
FRAMES_QUERY = {"batch": "&batch=1", "single": ""}


async def _listen(urls: list[str], token: str, index: int, state: Listener, stop: asyncio.Event, frames: str) -> None:
    import websockets

    headers = {"Authorization": f"Token {token}"}
    attempt = 0
    while not stop.is_set():
        base = urls[(index + attempt) % len(urls)].replace("http://", "ws://")
        try:
            async with websockets.connect(
                # No client pings: a client busy reading must not close a healthy socket (Daphne pings too).
                f"{base}/ws/events/?since={state.last}{FRAMES_QUERY[frames]}", additional_headers=headers, max_queue=None, open_timeout=30,
                ping_interval=None,
            ) as socket:
                connected_at = time.time()
                stopper = asyncio.ensure_future(stop.wait())
                while not stop.is_set():
                    receiving = asyncio.ensure_future(socket.recv(decode=False))  # bytes: json reads them as they are
                    done, _ = await asyncio.wait({receiving, stopper}, return_when=asyncio.FIRST_COMPLETED)
                    if receiving not in done:
                        receiving.cancel()
                        break
                    state.keep(receiving.result(), received=time.time(), connected_at=connected_at)
                stopper.cancel()
        except Exception as exc:
            if stop.is_set():
                return
            state.why[type(exc).__name__] += 1
            state.reconnects += 1
            attempt += 1
            await asyncio.sleep(0.2)


async def _catch_up(urls: list[str], token: str, state: Listener, wanted: range, deadline: float) -> None:
    """Reconnect with ``?since=`` until every wanted seq arrived (replay allowed) or the deadline."""
    import websockets

    headers = {"Authorization": f"Token {token}"}
    attempt = 0
    while time.monotonic() < deadline:
        missing = [seq for seq in wanted if seq not in state.seqs]
        if not missing:
            return
        base = urls[attempt % len(urls)].replace("http://", "ws://")
        attempt += 1
        try:
            async with websockets.connect(
                f"{base}/ws/events/?since={missing[0] - 1}", additional_headers=headers, max_queue=None, open_timeout=30,
                ping_interval=None,
            ) as socket:
                while time.monotonic() < deadline:
                    try:
                        raw = await asyncio.wait_for(socket.recv(), 2)
                    except TimeoutError:
                        break
                    seqs = [data["seq"] for data in frame_events(raw)]
                    for seq in seqs:
                        if seq not in state.seqs:
                            state.seqs.add(seq)
                            state.replayed += 1
                    if seqs and seqs[-1] >= wanted.stop - 1:
                        break
        except Exception:
            await asyncio.sleep(0.2)


def listeners_process(urls: list[str], token: str, clients: int, since: int, connection, frames: str = "batch") -> None:
    """Child process: ``clients`` listeners until told the last seq, then the catch-up and a summary."""

    async def main() -> dict[str, Any]:
        stop = asyncio.Event()
        states = [Listener(last=since) for _ in range(clients)]
        tasks = []
        for i, state in enumerate(states):
            tasks.append(asyncio.create_task(_listen(urls, token, i, state, stop, frames)))
            await asyncio.sleep(0.02)  # a page load, not a thundering herd
        loop = asyncio.get_running_loop()
        connection.send("ready")
        last, live_urls, settle, after = await loop.run_in_executor(None, connection.recv)
        wanted = range(since + 1, last + 1)
        later = range(after + 1, last + 1)
        deadline = time.monotonic() + settle
        while time.monotonic() < deadline and last in wanted and any(st.last < last for st in states):
            await asyncio.sleep(0.1)
        stop.set()
        await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 30)
        for st in states:
            st.absorb()  # what came live, read now that the measured window is over
        live = sum(len(st.seqs.intersection(wanted)) for st in states)
        live_later = sum(len(st.seqs.intersection(later)) for st in states)
        catch_up_deadline = time.monotonic() + 90
        await asyncio.gather(*(_catch_up(live_urls, token, st, wanted, catch_up_deadline) for st in states))
        latencies = [ms for st in states for ms in st.live_ms]
        return {
            "clients": clients,
            "events": len(wanted),
            "expected": clients * len(wanted),
            "delivered_before_catch_up": live,
            "expected_after_mark": clients * len(later),
            "delivered_after_mark_before_catch_up": live_later,
            "delivered": sum(len(st.seqs.intersection(wanted)) for st in states),
            "replayed": sum(st.replayed for st in states),
            "reconnects": sum(st.reconnects for st in states),
            "reconnect_causes": dict(sum((st.why for st in states), Counter())),
            "latency_ms": percentiles(latencies),
            "latency_from": LATENCY_FROM,
            # Which events are late: the tick's (written in its batches) or the requests' own.
            "latency_ms_by_event": {
                name: percentiles([ms for st in states for ms in st.live_ms_by_event.get(name, [])])
                for name in sorted({name for st in states for name in st.live_ms_by_event})
            },
            "missing_example": next(
                ([s for s in wanted if s not in st.seqs][:5] for st in states if not set(wanted) <= st.seqs), []
            ),
        }

    connection.send(asyncio.run(main()))


# --- the generator ----------------------------------------------------------------------


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0, "p50": float("nan"), "p95": float("nan"), "p99": float("nan")}
    ordered = sorted(values)

    def at(fraction: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(fraction * len(ordered)))], 1)

    return {"n": len(ordered), "p50": at(0.50), "p95": at(0.95), "p99": at(0.99)}


def classify(response) -> str:
    """``ok``, ``4xx <code>`` (documented), ``503 <code>`` (clean), else ``other <status> <code>``."""
    if response.status_code < 300:
        return "ok"
    try:
        body = response.json()
        code = body.get("code", "") if body.get("ok") is False else ""
    except ValueError:
        code = ""
    if response.status_code in (400, 404, 409) and code in DOCUMENTED_4XX:
        return f"4xx {code}"
    if response.status_code == 503 and code in CLEAN_503:
        return f"503 {code}"
    return f"other {response.status_code} {code}".rstrip()


class Backends:
    """The round-robin split; a process that refuses connections is taken out, as a proxy would."""

    def __init__(self, urls: list[str]) -> None:
        self.urls = urls
        self.down: set[int] = set()
        self.turn = 0

    def pick(self) -> tuple[int, str]:
        for _ in range(len(self.urls)):
            index = self.turn % len(self.urls)
            self.turn += 1
            if index not in self.down:
                return index, self.urls[index]
        raise ConnectionError("no Daphne process accepts connections")

    def live(self) -> list[str]:
        return [url for index, url in enumerate(self.urls) if index not in self.down]


@dataclass
class Load:
    world: dict[str, Any]
    backends: Backends
    http: Any
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    outcomes: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    transfers_ok: int = 0
    transfers_unknown: int = 0
    claims_ok: dict[str, int] = field(default_factory=dict)
    completions_ok: dict[str, int] = field(default_factory=dict)
    fund_ok: Counter = field(default_factory=Counter)
    fund_unknown: Counter = field(default_factory=Counter)
    confirmed: list[int] = field(default_factory=list)
    confirm_unknown: int = 0
    open_bounties: list[int] = field(default_factory=list)
    pending: deque = field(default_factory=deque)
    timeline: list[tuple[float, str]] = field(default_factory=list)  # (time since start, outcome)
    started: float = 0.0

    async def call(self, op: str, method: str, path: str, body: Any = None) -> Any:
        """One request; None when no answer came back (the outcome is unknown)."""
        from bench import http

        for _ in range(len(self.backends.urls)):
            try:
                index, base = self.backends.pick()
            except ConnectionError:
                break
            began = time.perf_counter()
            try:
                response = await self.http.request(method, base + path, json=body)
            except http.ConnectError:
                self.backends.down.add(index)  # never reached the server: safe to send elsewhere
                continue
            except http.TransportError as exc:
                self._record(op, began, f"lost {type(exc).__name__}")
                return None
            self._record(op, began, classify(response))
            return response
        self._record(op, time.perf_counter(), "lost no server")
        return None

    def _record(self, op: str, began: float, outcome: str) -> None:
        now = time.perf_counter()
        self.latencies[op].append((now - began) * 1000)
        self.outcomes[op][outcome] += 1
        self.timeline.append((now - self.started, outcome))


async def _transfer(load: Load, rng: random.Random) -> None:
    sender, receiver = rng.sample(load.world["trader_ids"], 2)
    body = {"from_agent_id": sender, "to_agent_id": receiver, "resource_type": "ore", "quantity": rng.randint(1, 5)}
    response = await load.call("transfer", "POST", "/api/agents/transfer-resource/", body)
    if response is None:
        load.transfers_unknown += 1
    elif response.status_code == 200:
        load.transfers_ok += 1


async def _claim(load: Load, rng: random.Random) -> None:
    if not load.open_bounties:
        return await _read(load, rng, "read_bounties")
    bounty = rng.choice(load.open_bounties)
    agent = rng.choice(load.world["trader_ids"])
    response = await load.call("claim", "POST", f"/api/bounties/{bounty}/claim/?agent_id={agent}")
    if response is None or response.status_code != 200:
        if response is not None and "bounty_not_open" in response.text and bounty in load.open_bounties:
            load.open_bounties.remove(bounty)
        return None
    load.claims_ok[str(bounty)] = agent
    if bounty in load.open_bounties:
        load.open_bounties.remove(bounty)
    response = await load.call("complete", "POST", f"/api/bounties/{bounty}/complete/?agent_id={agent}")
    if response is not None and response.status_code == 200:
        load.completions_ok[str(bounty)] = agent
    return None


async def _fund_patch(load: Load, rng: random.Random) -> None:
    fund = rng.choice(list(load.world["fund_versions"]))
    response = await load.call("read_fund", "GET", f"/api/funds/{fund}/")
    if response is None or response.status_code != 200:
        return
    body = {"version": response.json()["version"], "remarks": f"load {rng.random():.6f}"}
    response = await load.call("fund_patch", "PATCH", f"/api/funds/{fund}/", body)
    if response is None:
        load.fund_unknown[fund] += 1
    elif response.status_code == 200:
        load.fund_ok[fund] += 1


async def _confirm(load: Load, rng: random.Random) -> None:
    if not load.pending:
        return await _read(load, rng, "read_funds")
    action = load.pending.popleft()
    response = await load.call("confirm", "POST", f"/api/pending-actions/{action}/confirm/", {})
    if response is None:
        load.confirm_unknown += 1
    elif response.status_code == 200:
        load.confirmed.append(action)
    return None


READS = {
    "read_agents": "/api/agents/",
    "read_transfers": "/api/transfers/",
    "read_funds": "/api/funds/",
    "read_bounties": "/api/bounties/?status=open",
}


async def _read(load: Load, rng: random.Random, op: str) -> None:
    await load.call(op, "GET", READS[op])


async def _user(load: Load, seed: int, deadline: float, think: float) -> None:
    rng = random.Random(seed)
    names, weights = list(WEIGHTS), list(WEIGHTS.values())
    while time.monotonic() < deadline:
        op = rng.choices(names, weights)[0]
        if op in READS:
            await _read(load, rng, op)
        else:
            await {"transfer": _transfer, "claim": _claim, "fund_patch": _fund_patch, "confirm": _confirm}[op](load, rng)
        if think:
            await asyncio.sleep(min(rng.expovariate(1 / think), 4 * think))


async def drive(load: Load, users: int, duration: float, think: float, faults: list[tuple[float, Any]], first_user: int = 0) -> None:
    """``users`` virtual users for ``duration`` s; each fault ``(at, callable)`` runs in a thread at ``at`` s."""
    from bench.http import Client

    # Kept-alive connections, one request at a time each (at most one per user and server), as httpx's
    # pool did; a lean client: httpx's CPU per request was the servers' CPU on a small machine (bench.http).
    async with Client(timeout=30.0, headers={"Authorization": f"Token {load.world['token']}"}) as http:
        load.http = http
        # Untimed: each process's first requests load code and open connections.
        for base in load.backends.urls:
            for path in READS.values():
                await http.get(base + path)
        load.started = time.perf_counter()
        deadline = time.monotonic() + duration
        tasks = [asyncio.create_task(_user(load, 1000 + first_user + i, deadline, think)) for i in range(users)]

        async def fault(at: float, action: Any) -> None:
            await asyncio.sleep(at)
            load.timeline.append((time.perf_counter() - load.started, "FAULT"))
            await asyncio.to_thread(action)
            load.timeline.append((time.perf_counter() - load.started, "FAULT_END"))

        tasks += [asyncio.create_task(fault(at, action)) for at, action in faults]
        await asyncio.gather(*tasks)


def load_results(load: Load) -> dict[str, Any]:
    """What one generator process measured and counted, to merge into the parent's ``Load``."""
    return {
        "latencies": dict(load.latencies), "outcomes": {op: dict(c) for op, c in load.outcomes.items()},
        "transfers_ok": load.transfers_ok, "transfers_unknown": load.transfers_unknown,
        "claims_ok": load.claims_ok, "completions_ok": load.completions_ok,
        "fund_ok": dict(load.fund_ok), "fund_unknown": dict(load.fund_unknown),
        "confirmed": load.confirmed, "confirm_unknown": load.confirm_unknown, "timeline": load.timeline,
    }


def merge_results(load: Load, part: dict[str, Any]) -> None:
    for op, values in part["latencies"].items():
        load.latencies[op] += values
    for op, counts in part["outcomes"].items():
        load.outcomes[op].update(counts)
    load.transfers_ok += part["transfers_ok"]
    load.transfers_unknown += part["transfers_unknown"]
    load.claims_ok.update(part["claims_ok"])
    load.completions_ok.update(part["completions_ok"])
    load.fund_ok.update(part["fund_ok"])
    load.fund_unknown.update(part["fund_unknown"])
    load.confirmed += part["confirmed"]
    load.confirm_unknown += part["confirm_unknown"]
    load.timeline += [tuple(item) for item in part["timeline"]]


def generator_process(urls: list[str], world: dict[str, Any], share: dict[str, Any], connection) -> None:
    """Child process (``--generators``): its share of the users, bounties and proposals."""
    load = Load(world=world, backends=Backends(urls), http=None)
    load.open_bounties = share["bounties"]
    load.pending = deque(share["pending"])
    asyncio.run(drive(load, share["users"], share["duration"], share["think"], [], first_user=share["first_user"]))
    connection.send(load_results(load))


def run_generators(cluster, load: Load, meter, *, generators: int, users: int, duration: float, think: float) -> None:
    """``users`` split over ``generators`` processes (one asyncio loop caps near 200-250 requests/s)."""
    context = multiprocessing.get_context("spawn")
    children = []
    for index in range(generators):
        share = {
            "users": users // generators + (1 if index < users % generators else 0),
            "first_user": index * (users // generators + 1),
            "bounties": load.open_bounties[index::generators],
            "pending": list(load.pending)[index::generators],
            "duration": duration, "think": think,
        }
        parent, child = context.Pipe()
        process = context.Process(target=generator_process, args=(load.backends.urls, load.world, share, child))
        process.start()
        cluster.stack.callback(lambda process=process: process.is_alive() and process.kill())
        cluster.watched[f"generator-{index}"] = process.pid
        children.append((process, parent))
    deadline = time.monotonic() + duration + 180
    last_cpu = 0.0
    while any(process.is_alive() and not parent.poll() for process, parent in children) and time.monotonic() < deadline:
        time.sleep(0.1)
        meter.sample_waits()
        if time.monotonic() - last_cpu >= 1:
            meter.sample()
            last_cpu = time.monotonic()
    for index, (process, parent) in enumerate(children):
        if not parent.poll(30):
            raise RuntimeError(f"load generator {index} did not report")
        merge_results(load, parent.recv())
        process.join(10)


# Each endpoint alone, against the first Daphne, before the load: its CPU per request.
CPU_PROBES = {
    "bare": ("GET", "/bench/bare/"),
    "agent_list": ("GET", "/api/agents/"),
    "agent_detail": ("GET", "/api/agents/{agent}/"),
    "funds": ("GET", "/api/funds/"),
    "bounties": ("GET", "/api/bounties/?status=open"),
    "transfer": ("POST", "/api/agents/transfer-resource/"),
}


def cpu_per_request(cluster, load: Load, requests: int) -> dict[str, dict[str, float | None]]:
    """Daphne CPU ms per request of each endpoint alone (``requests`` in a row on an idle server),
    beside ``bare``: an authenticated DRF view that does nothing else (``bench.asgi``)."""
    import httpx2 as httpx

    from bench.cluster import cpu_seconds

    pid = cluster.daphnes[0].process.pid
    base = cluster.urls[0]
    headers = {"Authorization": f"Token {load.world['token']}"}
    sender, receiver = load.world["trader_ids"][:2]
    spent: dict[str, float] = {}
    with httpx.Client(timeout=30, headers=headers) as http:
        for name, (method, path) in CPU_PROBES.items():
            url = base + path.format(agent=sender)

            def call(number: int) -> None:
                body = None
                if method == "POST":
                    pair = (sender, receiver) if number % 2 else (receiver, sender)  # back and forth: stock stays
                    body = {"from_agent_id": pair[0], "to_agent_id": pair[1], "resource_type": "ore", "quantity": 1}
                response = http.request(method, url, json=body)
                if response.status_code != 200:
                    raise RuntimeError(f"{name}: {response.status_code} {response.text[:200]}")
                if method == "POST":
                    load.transfers_ok += 1  # the reconciliation counts these ledger rows too

            for number in range(3):
                call(number)  # untimed: code loaded, connections open
            before = cpu_seconds(pid)
            for number in range(requests):
                call(number)
            spent[name] = (cpu_seconds(pid) - before) * 1000 / requests
    bare = spent["bare"] or None
    return {name: {"cpu_ms": round(ms, 2), "x_bare": round(ms / bare, 2) if bare else None} for name, ms in spent.items()}


def run_level(
    cluster,
    *,
    users: int,
    duration: float,
    think: float,
    clients: int,
    residents: int,
    tick_interval: float,
    faults: list[tuple[float, Any]] | None = None,
    marks: dict[str, Any] | None = None,
    tick_loop: bool = True,
    generators: int = 1,
    frames: str = "batch",
    cpu_probe: int = 0,
) -> dict[str, Any]:
    """One measured run on a started ``bench.cluster.Cluster``: prepare, load, reconcile.

    A fault may set ``marks["after_seq"]``: the WebSocket figures then also count live delivery
    of the events after it (events resume). ``marks["world"]`` is the prepared world."""
    marks = {} if marks is None else marks
    from bench.cluster import CpuMeter, load_average

    proposals = int(users * duration / max(think, 0.05) * WEIGHTS["confirm"] / sum(WEIGHTS.values()) * 1.5) + 20
    # The set-up proposes as one agent: its per-minute tool-call limit would stop it early.
    world = cluster.run(
        "bench.load:prepare", env={"AGENT_TOOL_CALLS_PER_MINUTE": "1000000"}, residents=residents, proposals=min(proposals, 3000)
    )
    marks["world"] = world
    cluster.start_servers()
    load = Load(world=world, backends=Backends(cluster.urls), http=None)
    load.open_bounties = list(world["bounty_ids"])
    load.pending = deque(world["pending_ids"])
    # Before the clients and the tick: each endpoint alone.
    alone = cpu_per_request(cluster, load, cpu_probe) if cpu_probe else {}
    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe()
    listeners = context.Process(
        target=listeners_process, args=(cluster.urls, world["token"], clients, world["seq0"], child, frames)
    )
    listeners.start()
    cluster.stack.callback(lambda: listeners.is_alive() and listeners.kill())  # when this run fails half-way
    cluster.watched["ws-clients"] = listeners.pid
    if not parent.poll(60):
        raise RuntimeError("the WebSocket clients did not start")
    parent.recv()
    tick = None
    if residents and tick_loop:
        ids = ",".join(str(pk) for pk in world["resident_ids"])
        tick = cluster.manage("autonomy_tick", "--loop", "--interval", str(tick_interval), "--agents", ids)
    meter = CpuMeter(cluster)
    meter.start()
    load_before = load_average()

    async def sampled() -> None:
        async def sample() -> None:
            while True:
                for _ in range(10):
                    await asyncio.sleep(0.1)
                    await asyncio.to_thread(meter.sample_waits)
                await asyncio.to_thread(meter.sample)

        sampler = asyncio.create_task(sample())
        try:
            await drive(load, users, duration, think, faults or [])
        finally:
            sampler.cancel()

    if generators > 1:
        run_generators(cluster, load, meter, generators=generators, users=users, duration=duration, think=think)
    else:
        asyncio.run(sampled())
    tick_output = cluster.stop(tick) if tick is not None else ""
    resources = meter.stop()
    resources["load_average"] = f"{load_before} -> {load_average()}"
    last = cluster.latest_seq()
    parent.send((last, load.backends.live(), 20, marks.get("after_seq", world["seq0"])))
    events = parent.recv() if parent.poll(180) else {"error": "the WebSocket clients did not report"}
    listeners.join(30)
    if listeners.is_alive():
        listeners.kill()
    facts = {
        "transfers_ok": load.transfers_ok,
        "transfers_unknown": load.transfers_unknown,
        "claims_ok": load.claims_ok,
        "completions_ok": load.completions_ok,
        "fund_ok": dict(load.fund_ok),
        "fund_unknown": dict(load.fund_unknown),
        "confirmed": load.confirmed,
        "confirm_unknown": load.confirm_unknown,
    }
    checked = cluster.run("bench.load:reconcile", world=world, facts=facts)
    anomalies = list(checked["anomalies"])
    if events.get("delivered") != events.get("expected"):
        anomalies.append(f"events not delivered: {events.get('delivered')}/{events.get('expected')}, e.g. {events.get('missing_example')}")
    outcomes: Counter = Counter()
    for counter in load.outcomes.values():
        outcomes.update(counter)
    all_latencies = [ms for op, values in load.latencies.items() for ms in values]
    requests = sum(outcomes.values())
    daphne_cpu = sum(seconds for part, seconds in resources["cpu_seconds"].items() if part.startswith("daphne"))
    generator_cpu = sum(seconds for part, seconds in resources["cpu_seconds"].items() if part.startswith("generator"))
    ticks = [line for line in tick_output.splitlines() if line.startswith("tick #")]
    return {
        "users": users,
        "duration_s": duration,
        "think_s": think,
        "daphnes": len(cluster.urls),
        "database": cluster.database,
        "channel_layer": "redis" if cluster.redis is not None else "in-memory",
        "requests": sum(outcomes.values()),
        "requests_per_s": round(sum(outcomes.values()) / duration, 1),
        "operations": {op: percentiles(values) for op, values in sorted(load.latencies.items())},
        "all": percentiles(all_latencies),
        "outcomes": {op: dict(counter) for op, counter in sorted(load.outcomes.items())},
        "errors": error_classes(outcomes),
        "websocket": events,
        "generators": generators,
        "frames": frames,
        "cpu_ms_per_request_alone": alone,
        # Everything the Daphnes did (requests, the tick's events to every page) over the requests served.
        "daphne_cpu_ms_per_request_under_load": round(daphne_cpu * 1000 / requests, 2) if requests else None,
        # What the load itself cost (the HTTP client and the samplers): CPU the servers did not get.
        "generator_cpu_ms_per_request": round(generator_cpu * 1000 / requests, 2) if requests else None,
        "ticks": {"count": len(ticks), "durations_s": [_tick_seconds(line) for line in ticks], "failed": tick_output.count("tick failed")},
        "resources": resources,
        "anomalies": anomalies,
        "timeline": load.timeline,
        "server_errors": server_errors(cluster),
    }


def _tick_seconds(line: str) -> float:
    try:
        return float(line.rsplit("·", 1)[-1].strip().split()[-1].rstrip("s"))
    except ValueError:
        return float("nan")


def error_classes(outcomes: Counter) -> dict[str, int]:
    classes: Counter = Counter()
    for outcome, count in outcomes.items():
        kind = outcome.split()[0]
        classes[{"ok": "ok", "4xx": "documented_4xx", "503": "clean_503", "lost": "lost_in_flight"}.get(kind, "other")] += count
        if outcome.startswith("other 5") or outcome.startswith("503"):
            classes["5xx"] += count
    return dict(classes)


def server_errors(cluster) -> list[str]:
    """The 500s the Daphne processes logged (Django logs each as "Internal Server Error: PATH")."""
    lines = []
    for index, server in enumerate(cluster.daphnes):
        lines += [f"daphne-{index}: {line}" for line in server.output().splitlines() if "Internal Server Error" in line]
    return lines


def verdict(report: dict[str, Any]) -> str:
    """Which resource saturates, from what was sampled: a process at a full core (even one among
    idle ones), the machine's CPU, or what the database's connections wait on (top wait events)."""
    resources = report["resources"]
    cpu = resources["cpu_percent"]
    top = ", ".join(f"{part} {value:.0f}%" for part, value in list(cpu.items())[:4])
    parts = [f"machine CPU {resources['machine_busy_percent']:.0f}% busy of {resources['cores']} cores ({top})"]
    saturated = [f"{name} {value:.0f}%" for name, value in resources.get("cpu_percent_by_process", {}).items() if value >= 85]
    samples = resources.get("wait_samples", 0)
    waits = resources.get("top_waits", {})
    if waits:
        parts.append("top waits in " + f"{samples} samples: " + ", ".join(f"{wait} {n}" for wait, n in list(waits.items())[:4]))
    locks = {wait: n for wait, n in waits.items() if wait.startswith("Lock:")}
    if saturated:
        parts.insert(0, "saturated: " + ", ".join(saturated) + " (a process at a full core)")
    elif resources["machine_busy_percent"] >= 85:
        parts.insert(0, "CPU saturated")
    elif locks and max(locks.values()) >= 0.1 * max(1, samples):
        wait, n = max(locks.items(), key=lambda item: item[1])
        parts.insert(0, f"database lock {wait} (waiting in {n} of {samples} samples)")
    elif report["websocket"].get("latency_ms", {}).get("p95", 0) > 1000:
        parts.insert(0, "channel layer / event delivery")
    return "; ".join(parts)


def print_report(report: dict[str, Any]) -> None:
    print(
        f"\n== {report['users']} users, {report['duration_s']:.0f} s, think {report['think_s']} s, "
        f"{report['database']} + {report['channel_layer']} layer + {report['daphnes']} Daphne; "
        f"load average {report['resources']['load_average']}"
    )
    print(f"   {'operation':<15}{'count':>7}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}   outcomes")
    for op, figures in report["operations"].items():
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(report["outcomes"][op].items(), key=lambda kv: -kv[1]))
        print(f"   {op:<15}{figures['n']:>7}{figures['p50']:>9}{figures['p95']:>9}{figures['p99']:>9}   {outcomes}")
    figures = report["all"]
    print(f"   {'all':<15}{figures['n']:>7}{figures['p50']:>9}{figures['p95']:>9}{figures['p99']:>9}   {report['requests_per_s']} requests/s")
    errors = report["errors"]
    print(
        f"   errors: documented 4xx {errors.get('documented_4xx', 0)}, clean 503 {errors.get('clean_503', 0)}, "
        f"no answer {errors.get('lost_in_flight', 0)}, other {errors.get('other', 0)} (5xx {errors.get('5xx', 0)}); "
        f"500s in the server logs {len(report['server_errors'])}"
    )
    ws = report["websocket"]
    if "latency_ms" in ws:
        latency = ws["latency_ms"]
        print(
            f"   websocket: {ws['clients']} clients x {ws['events']} events: delivered live {ws['delivered_before_catch_up']}/{ws['expected']}, "
            f"after ?since= catch-up {ws['delivered']}/{ws['expected']}; reconnects {ws['reconnects']} {ws.get('reconnect_causes') or ''}; "
            f"latency p50 {latency['p50']} ms, p95 {latency['p95']} ms, p99 {latency['p99']} ms"
        )
        print(f"     latency: {ws.get('latency_from', LATENCY_FROM)}")
        by_event = ws.get("latency_ms_by_event", {})
        if by_event:
            print("     by event (n, p50/p95 ms): " + ", ".join(
                f"{name} {values['n']} {values['p50']}/{values['p95']}" for name, values in by_event.items()
            ))
    else:
        print(f"   websocket: {ws}")
    ticks = report["ticks"]
    durations = [d for d in ticks["durations_s"] if d == d]
    print(
        f"   autonomy ticks: {ticks['count']} done, {ticks['failed']} failed, "
        f"duration {min(durations, default=0):.1f}-{max(durations, default=0):.1f} s"
    )
    alone = report.get("cpu_ms_per_request_alone") or {}
    if alone:
        print("   Daphne CPU per request, each endpoint alone: " + ", ".join(
            f"{name} {figures['cpu_ms']} ms ({figures['x_bare']}x bare)" for name, figures in alone.items()
        ))
    print(f"   Daphne CPU per request under the load (requests, the tick's events to every page): "
          f"{report.get('daphne_cpu_ms_per_request_under_load')} ms; the load generator's: {report.get('generator_cpu_ms_per_request')} ms")
    print(f"   resources: {verdict(report)}")
    print(f"   reconciliation anomalies: {len(report['anomalies'])}" + "".join(f"\n     - {a}" for a in report["anomalies"][:20]))
    for line in report["server_errors"][:5]:
        print(f"   {line}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", default="10,50,100", help="comma-separated user levels (default 10,50,100)")
    parser.add_argument("--duration", type=float, default=30, help="seconds of load per level (default 30)")
    parser.add_argument("--think", type=float, default=0.5, help="mean think time between a user's requests, s (default 0.5)")
    parser.add_argument("--clients", type=int, default=100, help="WebSocket clients (default 100)")
    parser.add_argument("--residents", type=int, default=1000, help="residents of the autonomy tick (default 1000; 0: no tick)")
    parser.add_argument("--tick-interval", type=float, default=10, help="seconds between ticks (default 10)")
    parser.add_argument("--database", choices=["postgres", "sqlite"], default="postgres", help="sqlite: 1 Daphne, no Redis, 10 users")
    parser.add_argument(
        "--conn-max-age", type=int, default=0, help="DATABASE_CONN_MAX_AGE of the servers, s (default 0: a connection per request)"
    )
    parser.add_argument("--daphnes", type=int, default=None, help="Daphne processes (default 2 on PostgreSQL, 1 on SQLite)")
    parser.add_argument(
        "--pool", type=int, default=None,
        help=f"DATABASE_POOL_SIZE of each server (default {DEFAULT_POOL} on PostgreSQL, as the README deploys; 0: a connection per request)",
    )
    parser.add_argument("--generators", type=int, default=1, help="load generator processes (default 1; one caps near 200 req/s)")
    parser.add_argument(
        "--frames", choices=sorted(FRAMES_QUERY), default="batch", help="WebSocket frames: batch (as pages ask, default) or single"
    )
    parser.add_argument("--cpu-probe", type=int, default=100, help="requests per endpoint for CPU per request alone (0: skip)")
    parser.add_argument("--json", metavar="FILE", help="also write the full report as JSON")
    args = parser.parse_args(argv)
    if args.pool and args.conn_max_age:
        parser.error("--pool and --conn-max-age exclude each other")
    if args.pool is None:
        args.pool = DEFAULT_POOL if args.database == "postgres" and not args.conn_max_age else 0

    from contextlib import ExitStack

    from bench.cluster import Cluster, stop_on_sigterm
    from tests.support.services import PostgresServer

    stop_on_sigterm()
    levels = [int(n) for n in args.users.split(",") if n.strip()]
    if args.database == "sqlite" and args.users == parser.get_default("users"):
        levels = [10]
    daphnes = args.daphnes or (2 if args.database == "postgres" else 1)
    settings = {
        "database": args.database, "channel_layer": "redis" if args.database == "postgres" else "in-memory",
        "daphnes": daphnes, "pool": args.pool, "conn_max_age": args.conn_max_age, "generators": args.generators,
        "users": levels, "duration_s": args.duration, "think_s": args.think, "clients": args.clients,
        "frames": args.frames, "residents": args.residents, "tick_interval_s": args.tick_interval,
        "cpu_probe": args.cpu_probe, "cores": os.cpu_count(),
    }
    print(f"$ python -m bench.load {' '.join(argv if argv is not None else sys.argv[1:])}".rstrip())
    print("settings: " + ", ".join(f"{key}={value}" for key, value in settings.items()))
    reports = []
    with ExitStack() as stack:
        # One PostgreSQL server for every level (each gets its own database): initdb and migrate once.
        postgres = stack.enter_context(PostgresServer()) if args.database == "postgres" else None
        for users in levels:
            with Cluster(
                database=args.database, daphnes=daphnes, redis=postgres is not None,
                env={"DATABASE_CONN_MAX_AGE": str(args.conn_max_age), "DATABASE_POOL_SIZE": str(args.pool)}, postgres=postgres,
                application="bench.asgi:application",
            ) as cluster:
                report = run_level(
                    cluster, users=users, duration=args.duration, think=args.think, clients=args.clients,
                    residents=args.residents, tick_interval=args.tick_interval, generators=args.generators,
                    frames=args.frames, cpu_probe=args.cpu_probe,
                )
            print_report(report)
            reports.append(report)
    knee = next((r["users"] for r in reports if r["all"]["p95"] > P95_TARGET_MS), None)
    print("\nsummary")
    for r in reports:
        print(
            f"   {r['users']:>4} users: p95 {r['all']['p95']} ms, {r['requests_per_s']} requests/s, "
            f"other errors {r['errors'].get('other', 0)}, anomalies {len(r['anomalies'])}; {verdict(r)}"
        )
    print(f"   knee (p95 > {P95_TARGET_MS} ms): {f'at {knee} users' if knee else 'not reached'}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"settings": settings, "levels": reports, "knee_users": knee}, out, indent=2)
    failed = any(r["anomalies"] or r["errors"].get("other") or r["errors"].get("lost_in_flight") for r in reports)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
