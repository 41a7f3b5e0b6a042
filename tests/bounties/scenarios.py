"""Concurrency scenarios, run in a child Django process on a fresh migrated database
(file SQLite or PostgreSQL) by ``tests.support.django_process.run_django``.

Every worker thread has its own database connection and runs each operation in its own
transaction, as the API views and the tool executor do. Results come back as JSON.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from collections.abc import Callable

from django.db import transaction
from django.db.models import Count, Sum

from agents.models import Agent
from bounties.models import Bounty
from bounties.services import cancel_bounty, claim_bounty, complete_bounty, create_bounty
from city.models import CreditEntry
from city.services import grant_credits
from core.errors import ApplicationError
from tests.support.staff import create_staff
from tests.support.threads import run_threads

START_CREDITS = 100


def attempt(operation: Callable[[], object]) -> str:
    """Run one service call in its own transaction: "success", the error code, or "unexpected: ..."."""
    try:
        with transaction.atomic():
            operation()
        return "success"
    except ApplicationError as exc:
        return exc.code
    except Exception as exc:  # what the test is looking for: anything that would be a 500
        return f"unexpected: {exc!r}"


def make_agents(count: int, prefix: str) -> list[int]:
    return [Agent.objects.create(name=f"{prefix}-{i}", credits=START_CREDITS).pk for i in range(count)]


def race_rounds(
    *, racers: int, rounds: int, bounties_per_round: int, claim: Callable[[int, int], str]
) -> dict:
    """Each round: create bounties, release ``racers`` threads at the same instant (racer i
    calls ``claim(i, bounty i % bounties_per_round)``), then complete every claimed bounty
    so the next round starts with idle agents."""
    # A timeout turns a crashed thread into BrokenBarrierError everywhere instead of a hang.
    start, finish = threading.Barrier(racers + 1, timeout=120), threading.Barrier(racers + 1, timeout=120)
    current: dict[str, list[int]] = {}
    outcomes: list[list[str]] = [[""] * racers for _ in range(rounds)]
    claimers: list[list[int | None]] = []
    coordinator_errors: list[str] = []

    def racer(index: int) -> None:
        for round_no in range(rounds):
            start.wait()
            bounty_ids = current["bounty_ids"]
            outcomes[round_no][index] = claim(index, bounty_ids[index % len(bounty_ids)])
            finish.wait()

    def coordinate() -> None:
        for round_no in range(rounds):
            with transaction.atomic():
                current["bounty_ids"] = [
                    create_bounty(title=f"round {round_no}.{i}", reward=10).pk for i in range(bounties_per_round)
                ]
            start.wait()
            finish.wait()
            bounties = list(Bounty.objects.filter(pk__in=current["bounty_ids"]).order_by("pk"))
            claimers.append([b.claimed_by_id for b in bounties])
            for bounty in bounties:
                if bounty.claimed_by_id:
                    outcome = attempt(lambda: complete_bounty(agent_id=bounty.claimed_by_id, bounty_id=bounty.pk))
                    if outcome != "success":
                        coordinator_errors.append(outcome)

    run_threads(racers + 1, lambda i: coordinate() if i == racers else racer(i))
    return {"outcomes": outcomes, "claimers": claimers, "coordinator_errors": coordinator_errors}


def race_for_one_bounty(agents: int = 20, rounds: int = 50) -> dict:
    """Each round, ``agents`` threads claim the same new bounty at the same instant."""
    agent_ids = make_agents(agents, "racer")
    race = race_rounds(
        racers=agents,
        rounds=rounds,
        bounties_per_round=1,
        claim=lambda i, bounty_id: attempt(lambda: claim_bounty(agent_id=agent_ids[i], bounty_id=bounty_id)),
    )
    return {
        "rounds": [dict(Counter(row)) for row in race["outcomes"]],
        "winner_matches_success": [
            winner in agent_ids and row[agent_ids.index(winner)] == "success"
            for row, (winner,) in zip(race["outcomes"], race["claimers"])
        ],
        "coordinator_errors": race["coordinator_errors"],
        "completed": Bounty.objects.filter(status="completed").count(),
        "credits_paid": Agent.objects.aggregate(total=Sum("credits"))["total"] - START_CREDITS * agents,
    }


def one_agent_two_bounties(rounds: int = 50) -> dict:
    """Each round, one agent claims two different open bounties from two threads at once."""
    (agent_id,) = make_agents(1, "greedy")
    race = race_rounds(
        racers=2,
        rounds=rounds,
        bounties_per_round=2,
        claim=lambda i, bounty_id: attempt(lambda: claim_bounty(agent_id=agent_id, bounty_id=bounty_id)),
    )
    return {
        "rounds": [sorted(row) for row in race["outcomes"]],
        "claimed_after_round": [sum(1 for c in row if c) for row in race["claimers"]],
        "coordinator_errors": race["coordinator_errors"],
    }


def claim_racing_the_constraint() -> dict:
    """Two claims by one agent where the second cannot see the first's uncommitted claim.

    On PostgreSQL (READ COMMITTED) the second claim passes the "active bounty?" check and
    its UPDATE waits on the partial unique index until the first commits, then hits the
    constraint; on SQLite the second transaction waits at BEGIN IMMEDIATE instead. Either
    way it must end as active_bounty_exists with the caller's transaction still usable.
    """
    (agent_id,) = make_agents(1, "twice")
    with transaction.atomic():
        first, second, witness = (create_bounty(title=t, reward=7).pk for t in ("first", "second", "witness"))
    first_claimed, second_started = threading.Event(), threading.Event()
    result: dict = {}

    def hold_first_claim(_: int) -> None:
        with transaction.atomic():
            result["first"] = attempt(lambda: claim_bounty(agent_id=agent_id, bounty_id=first))
            first_claimed.set()
            second_started.wait(timeout=30)
            time.sleep(0.5)  # let the second claim reach its blocking point before we commit

    def claim_second(_: int) -> None:
        first_claimed.wait(timeout=30)
        second_started.set()
        began = time.monotonic()
        with transaction.atomic():
            try:
                claim_bounty(agent_id=agent_id, bounty_id=second)
                result["second"] = "success"
            except ApplicationError as exc:
                result["second"] = exc.code
            result["second_waited"] = time.monotonic() - began
            # The same transaction goes on after the refusal.
            Bounty.objects.filter(pk=witness).update(description="written after the refusal")

    workers = [hold_first_claim, claim_second]
    run_threads(2, lambda i: workers[i](i))
    result["witness_description"] = Bounty.objects.get(pk=witness).description
    result["statuses"] = dict(Bounty.objects.values_list("title", "status"))
    return result


def completion_waits_for_the_agent_lock() -> dict:
    """A completion while another transaction holds the claimer's lock (a city payment in
    flight) waits for it, then pays on top of it: no lost update, one ledger row each."""
    (agent_id,) = make_agents(1, "paid")
    with transaction.atomic():
        bounty_id = create_bounty(title="修桥", reward=30).pk
        claim_bounty(agent_id=agent_id, bounty_id=bounty_id)
    locked, completing = threading.Event(), threading.Event()
    result: dict = {}

    def hold_the_lock(_: int) -> None:
        with transaction.atomic():
            grant_credits(agent_id=agent_id, amount=5, source=CreditEntry.Source.ADMIN, reason="补发")
            locked.set()
            completing.wait(timeout=30)
            time.sleep(0.5)  # let the completion reach the lock before we commit

    def complete(_: int) -> None:
        locked.wait(timeout=30)
        completing.set()
        began = time.monotonic()
        result["complete"] = attempt(lambda: complete_bounty(agent_id=agent_id, bounty_id=bounty_id))
        result["waited"] = time.monotonic() - began

    workers = [hold_the_lock, complete]
    run_threads(2, lambda i: workers[i](i))
    result["credits"] = Agent.objects.get(pk=agent_id).credits
    result["ledger"] = sorted(CreditEntry.objects.filter(agent_id=agent_id).values_list("source", "amount"))
    return result


def random_operations(operations: int = 1000, agents: int = 12, threads: int = 8, seed: int = 20260301) -> dict:
    """``operations`` random create/claim/complete/cancel calls from ``threads`` threads."""
    agent_ids = make_agents(agents, "worker")
    with transaction.atomic():
        bounty_ids = [create_bounty(title=f"initial {i}", reward=random.Random(seed + i).randint(1, 100)).pk for i in range(10)]
    lock = threading.Lock()
    log: list[tuple[str, str, int, int]] = []  # (operation, outcome, agent_id, reward paid)
    missing_bounty = 10**9

    def worker(index: int) -> None:
        rng = random.Random(seed * 100 + index)
        for _ in range(operations // threads):
            agent_id = rng.choice(agent_ids)
            with lock:
                known = list(bounty_ids)
            target = missing_bounty if rng.random() < 0.03 else rng.choice(known)
            roll = rng.random()
            paid = 0
            if roll < 0.45:
                operation, outcome = "claim", attempt(lambda: claim_bounty(agent_id=agent_id, bounty_id=target))
            elif roll < 0.75:
                if rng.random() < 0.8:  # mostly the agent's own bounty, sometimes somebody else's
                    own = Bounty.objects.filter(claimed_by_id=agent_id, status="claimed").values_list("pk", flat=True).first()
                    target = own or target
                done: list[Bounty] = []
                outcome = attempt(lambda: done.append(complete_bounty(agent_id=agent_id, bounty_id=target)))
                operation, paid = "complete", (done[0].reward if done else 0)
            elif roll < 0.95:
                created: list[Bounty] = []
                outcome = attempt(
                    lambda: created.append(create_bounty(title=f"t{index}", reward=rng.randint(1, 100)))
                )
                operation = "create"
                if created:
                    with lock:
                        bounty_ids.append(created[0].pk)
            else:
                operation, outcome = "cancel", attempt(lambda: cancel_bounty(bounty_id=target))
            with lock:
                log.append((operation, outcome, agent_id, paid))

    run_threads(threads, worker)

    successes = Counter(op for op, outcome, _, _ in log if outcome == "success")
    paid_by_log = Counter()
    for op, outcome, agent_id, paid in log:
        if op == "complete" and outcome == "success":
            paid_by_log[agent_id] += paid
    earned_in_db = dict(
        Bounty.objects.filter(status="completed").values("claimed_by").annotate(total=Sum("reward")).values_list("claimed_by", "total")
    )
    credits = dict(Agent.objects.filter(pk__in=agent_ids).values_list("pk", "credits"))
    in_ledger = dict(CreditEntry.objects.values("agent").annotate(total=Sum("amount")).values_list("agent", "total"))
    statuses = Counter(Bounty.objects.values_list("status", flat=True))
    return {
        "operations": len(log),
        "outcomes": {f"{op}:{outcome}": n for (op, outcome), n in Counter((op, o) for op, o, _, _ in log).items()},
        "unexpected": sorted({o for _, o, _, _ in log if o.startswith("unexpected")}),
        "agents_with_two_claims": list(
            Bounty.objects.filter(status="claimed").values("claimed_by").annotate(n=Count("id")).filter(n__gt=1).values_list("claimed_by", flat=True)
        ),
        "credits_mismatch_db": {
            str(pk): [credits[pk], START_CREDITS + earned_in_db.get(pk, 0)]
            for pk in agent_ids
            if credits[pk] != START_CREDITS + earned_in_db.get(pk, 0)
        },
        "credits_mismatch_log": {
            str(pk): [credits[pk], START_CREDITS + paid_by_log[pk]]
            for pk in agent_ids
            if credits[pk] != START_CREDITS + paid_by_log[pk]
        },
        "credits_mismatch_ledger": {
            str(pk): [credits[pk], START_CREDITS + in_ledger.get(pk, 0)]
            for pk in agent_ids
            if credits[pk] != START_CREDITS + in_ledger.get(pk, 0)
        },
        "total_credits": sum(credits.values()),
        "successes": dict(successes),
        "statuses": dict(statuses),
        "bounties": Bounty.objects.count(),
    }


def api_race_for_one_bounty(agents: int = 20, rounds: int = 10) -> dict:
    """Each round, ``agents`` threads POST /api/bounties/{id}/claim/ for the same bounty at once."""
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    agent_ids = make_agents(agents, "api-racer")
    staff = create_staff("api-racer-staff", password="unused-pw-123")
    token = Token.objects.create(user=staff).key
    clients: dict[int, APIClient] = {}

    def claim_over_http(index: int, bounty_id: int) -> str:
        if index not in clients:
            clients[index] = APIClient(SERVER_NAME="localhost", raise_request_exception=False)
            clients[index].credentials(HTTP_AUTHORIZATION=f"Token {token}")
        response = clients[index].post(f"/api/bounties/{bounty_id}/claim/?agent_id={agent_ids[index]}")
        try:
            code = response.json().get("code", "")
        except ValueError:
            code = "not-json"
        return f"{response.status_code} {code}".strip()

    race = race_rounds(racers=agents, rounds=rounds, bounties_per_round=1, claim=claim_over_http)
    return {"rounds": [dict(Counter(row)) for row in race["outcomes"]]}
