"""Telling whoever listens that an agent's tools changed: the ``agent_tools_changed`` event.

Grants change in one place whatever changes them (the admin's agent form, a script, ``seed_demo``):
the ``Agent.tools`` relation, whose ``m2m_changed`` signal broadcasts the event with the change's
own transaction. A tool switched off or back on (the admin, ``sync_tools`` retiring it) changes
what every agent holding it may use, so saving a ``Tool`` whose ``is_active`` or
``requires_confirmation`` changed broadcasts it for those agents. The event travels like every
other (stored, then pushed to every server process), so MCP sessions in any process hear it
(``agents.mcp.grants``).
"""

from __future__ import annotations

from django.db.models.signals import m2m_changed, post_save, pre_save

from core.events import broadcast

from .models import Agent, Tool

TOOLS_CHANGED = "agent_tools_changed"
_CHANGES = {"post_add", "post_remove", "post_clear"}
_WATCHED = ("is_active", "requires_confirmation")


def tools_changed(*, agent_ids) -> None:
    """Broadcast that the tools of ``agent_ids`` changed (nothing when there are none)."""
    agent_ids = sorted(set(agent_ids))
    if agent_ids:
        broadcast(TOOLS_CHANGED, agent_ids=agent_ids)


def _grants_changed(sender, instance, action, reverse, model, pk_set, **kwargs) -> None:
    if action not in _CHANGES:
        return
    if not reverse:  # agent.tools.add(...)
        tools_changed(agent_ids=[instance.pk])
    elif action == "post_clear":  # tool.agents.clear(): pk_set is not given
        tools_changed(agent_ids=getattr(instance, "_agents_before_clear", ()))
    else:  # tool.agents.add(agent, ...)
        tools_changed(agent_ids=pk_set or ())


def _remember_agents_before_clear(sender, instance, action, reverse, **kwargs) -> None:
    if action == "pre_clear" and reverse:
        instance._agents_before_clear = list(instance.agents.values_list("pk", flat=True))


def _remember_tool_state(sender, instance: Tool, raw=False, **kwargs) -> None:
    if raw or instance.pk is None:
        return
    instance._state_before_save = Tool.objects.filter(pk=instance.pk).values(*_WATCHED).first()


def _tool_saved(sender, instance: Tool, created: bool, raw=False, **kwargs) -> None:
    before = getattr(instance, "_state_before_save", None)
    if raw or created or before is None:
        return
    if any(before[name] != getattr(instance, name) for name in _WATCHED):
        tools_changed(agent_ids=instance.agents.values_list("pk", flat=True))


def connect() -> None:
    """Called once from ``AgentsConfig.ready``."""
    m2m_changed.connect(_remember_agents_before_clear, sender=Agent.tools.through, dispatch_uid="agents.grants.before_clear")
    m2m_changed.connect(_grants_changed, sender=Agent.tools.through, dispatch_uid="agents.grants.changed")
    pre_save.connect(_remember_tool_state, sender=Tool, dispatch_uid="agents.grants.tool_before")
    post_save.connect(_tool_saved, sender=Tool, dispatch_uid="agents.grants.tool_saved")
