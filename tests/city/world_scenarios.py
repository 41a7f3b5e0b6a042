"""Child-process side of the world tests that run on PostgreSQL too."""

from __future__ import annotations


def grants_as_the_world_reads_them() -> dict:
    """Each resident's granted tools as the tick's world reads them (one aggregated row per resident)
    and as the grant table holds them, for a city whose residents hold different grants."""
    from agents.models import Agent, Tool
    from city.autonomy.world import build_world

    tools = list(Tool.objects.filter(name__in=["rest", "chat", "eat", "purchase"]).order_by("name"))
    for i, agent in enumerate(Agent.objects.order_by("id")):
        agent.tools.set(tools[: 1 + i % len(tools)])
    Tool.objects.filter(name="purchase").update(is_active=False)  # a tool switched off is granted to nobody
    world = build_world()
    held = {
        agent.pk: sorted(agent.tools.filter(is_active=True).values_list("name", flat=True))
        for agent in Agent.objects.order_by("id")
    }
    return {"world": {str(k): sorted(r.granted) for k, r in world.residents.items()}, "table": {str(k): v for k, v in held.items()}}
