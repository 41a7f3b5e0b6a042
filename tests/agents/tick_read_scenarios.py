"""Child-process side of ``test_autonomy_tick_read.py``: one city ticked, or its world read, each way."""

from __future__ import annotations

import dataclasses


def populate(*, agents: int) -> None:
    """The bench's city (needs and holdings that vary from resident to resident), with jobs and bounties
    for fewer than ``agents``: the later residents share their food with the needy instead."""
    from bench.autonomy_tick import populate as bench_populate
    from bounties.models import Bounty
    from city.models import Building

    bench_populate(agents=agents)
    Building.objects.exclude(pk__in=Building.objects.order_by("id").values("pk")[:2]).delete()
    Bounty.objects.exclude(pk__in=Bounty.objects.order_by("id").values("pk")[:10]).delete()


def _needs() -> dict[str, list[int]]:
    from agents.models import Agent

    return {name: [satiety, energy] for name, satiety, energy in Agent.objects.values_list("name", "satiety", "energy")}


def _world(world) -> dict:
    """What the rules decide from, as JSON: every resident, the shared lists."""
    shared = ("buildings", "blueprints", "shop", "market", "market_total", "open_bounties", "open_bounty_total")
    residents = [{**dataclasses.asdict(r), "granted": sorted(r.granted)} for r in world.residents.values()]
    return {"residents": residents, **{name: _plain(getattr(world, name)) for name in shared}}


def _plain(value):
    if isinstance(value, list):
        return [dataclasses.asdict(item) for item in value]
    return value


def read_both_ways(*, seed: int = 0, decay_late: float = 0.3) -> dict:
    """The tick's start today (``begin_tick``, then ``build``) and as one step (``begin_tick_and_build``)
    on the same city, the needs put back in between: each way's world, rules plan and needs after
    (read as soon as it returns). The decay starts ``decay_late`` seconds late: after the world is read."""
    import time

    import city.autonomy
    from agents.autonomy.sources import world_source
    from agents.models import Agent
    from core.database import can_read_before

    decay_needs = city.autonomy.decay_needs

    def late(**kwargs):
        time.sleep(decay_late)
        return decay_needs(**kwargs)

    city.autonomy.decay_needs = late
    source = world_source()
    before = _needs()
    out: dict = {"overlapped": can_read_before(), "before": before}
    for way in ("in_turn", "as_one"):
        if way == "in_turn":
            source.begin_tick(None)
            world = source.build(None)
        else:
            world = source.begin_tick_and_build(None)
        out[way] = {"world": _world(world), "plan": source.rules_policy(seed).plan(world), "needs": _needs()}
        agents = list(Agent.objects.all())
        for agent in agents:
            agent.satiety, agent.energy = before[agent.name]
        Agent.objects.bulk_update(agents, ["satiety", "energy"])
    return out


def tick(*, ticks: int, on_workers: bool) -> dict:
    """``ticks`` rules ticks, in this process (no broker) or on the workers (a broker in this process,
    ``InProcessBroker``: the coordinator's path as with Celery); each tick's decisions and the needs after."""
    from django.conf import settings

    from agents.autonomy import distributed
    from agents.autonomy.tick import run_tick
    from agents.models import AgentActionLog

    settings.AGENT_PROVIDER = "rules"
    if on_workers:
        from tests.agents.test_autonomy_celery_resend import InProcessBroker

        settings.CELERY_BROKER_URL = "redis://127.0.0.1:9/0"  # never reached: the broker is InProcessBroker
        broker = InProcessBroker()
        distributed.Broker = lambda: broker
    decisions = []
    for _ in range(ticks):
        result = run_tick()
        rows = AgentActionLog.objects.filter(round_id=result.round_id).order_by("agent_id")
        decisions.append([[r.agent.name, r.action, r.params, r.reason, r.status] for r in rows.select_related("agent")])
    return {"decisions": decisions, "needs": _needs()}


def write_that_fails() -> dict:
    """``reading_before`` with a write that fails: the read ends, then the write's error is raised."""
    from agents.models import Agent
    from core.database import reading_before

    def fail() -> None:
        Agent.objects.update(satiety=101)  # the database refuses it (agent_satiety_0_100)

    read = None
    try:
        with reading_before(fail):
            read = Agent.objects.count()
    except Exception as exc:
        return {"read": read, "raised": type(exc).__name__}
    return {"read": read, "raised": None}
