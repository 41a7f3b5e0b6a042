"""Child-process side of the Celery tick tests: make a city, read what a tick did to it."""

from __future__ import annotations


def populate(*, agents: int) -> list[int]:
    from bench.autonomy_tick import populate as bench_populate
    from agents.models import Agent

    bench_populate(agents=agents)
    return list(Agent.objects.order_by("id").values_list("id", flat=True))


def ledger() -> dict:
    """The city's totals and, for every tick, how many decisions and audit rows each resident got."""
    from django.db.models import Count, Sum

    from agents.models import AgentActionLog, AutonomyRound, ToolCall
    from city.models import AgentResource, ResourceTransfer
    from agents.models import Agent

    ticks = []
    for tick in AutonomyRound.objects.order_by("id"):
        decisions = dict(tick.actions.order_by().values_list("agent_id").annotate(n=Count("id")))
        audits = dict(tick.tool_calls.order_by().values_list("agent_id").annotate(n=Count("id")))
        transfers_ok = tick.actions.filter(action="transfer_resource", status="success").count()
        ticks.append({
            "id": tick.pk, "finished": tick.finished_at is not None, "stats": tick.stats, "workers": tick.workers,
            "errors": tick.errors, "decisions": {str(k): v for k, v in decisions.items()},
            "audits": {str(k): v for k, v in audits.items()}, "transfers_ok": transfers_ok,
            "fallback_rows": tick.actions.filter(fallback=True).count(),
        })
    resources = dict(AgentResource.objects.order_by().values_list("resource_type__slug").annotate(total=Sum("quantity")))
    return {
        "ticks": ticks,
        "credits": Agent.objects.aggregate(total=Sum("credits"))["total"],
        "resources": resources,
        "transfers": ResourceTransfer.objects.count(),
        "logs": AgentActionLog.objects.count(),
        "calls": ToolCall.objects.count(),
    }


def send_one_batch() -> dict:
    """Send one batch as the coordinator does (``distributed.Broker``) and read, before any worker
    takes it, how monitoring will show its arguments and who listens for its result."""
    import json

    import redis
    from django.conf import settings

    from agents.autonomy.distributed import Broker

    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)

    def subscribes() -> int:
        return client.info("commandstats").get("cmdstat_subscribe", {}).get("calls", 0)

    broker, before = Broker(), subscribes()
    with broker.sending():
        broker.send((7, 3, [11, 12, 13], "", '[{"agent_id": 11, "action": "rest"}]', None))
    message = json.loads(client.lindex("celery", 0))
    headers = message["headers"]
    return {"argsrepr": headers["argsrepr"], "kwargsrepr": headers["kwargsrepr"], "subscribes": subscribes() - before}


def connections_of_a_first_tick_after_prepare(prepare: bool = True) -> int:
    """The connections to Redis this process opens for its first batch and its first poll of the reports, once
    ``distributed.prepare`` has run (as the ``autonomy_tick`` command runs it at its start)."""
    import redis
    from django.conf import settings

    from agents.autonomy import distributed

    if prepare:
        distributed.prepare()
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    before = client.info("stats")["total_connections_received"]
    broker = distributed.Broker()
    with broker.sending():
        task_id = broker.send((1, 0, [1], "", "[]", None))
    broker.reports([task_id])
    return client.info("stats")["total_connections_received"] - before
