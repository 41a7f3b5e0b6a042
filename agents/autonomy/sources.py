"""Where the tick's world comes from: one ``WorldSource``, registered by a domain app.

The tick engine knows residents only as ids and ``Agent`` rows. Everything else (what
the world holds, how a batch's snapshot reads, which actions exist, the offline rules
policy) is the source's. An app contributes it from its ``autonomy`` module, discovered
at startup like ``tools`` (the city does, in ``city/autonomy/``).
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Any, Protocol

from django.core.exceptions import ImproperlyConfigured
from django.db.models import QuerySet

from agents.models import Agent


class World(Protocol):
    """What the tick reads from a world: its residents in decision order and their ``Agent`` rows."""

    residents: Mapping[int, Any]
    agents: Mapping[int, Agent]


class Policy(Protocol):
    name: str
    model: str | None
    uses_prompt: bool

    async def answer(self, world: Any, batch: list[int], prompt: str) -> Any: ...


class WorldSource(Protocol):
    # action (the tool of that name) → how the prompt labels it, in the prompt's order
    actions: Mapping[str, str]
    # actions whose writes lock rows that other residents' decisions lock too (a building's slots,
    # a bounty, another resident's goods): a batch runs them last, so that those rows stay locked
    # only from then to its commit, not while the rest of the batch runs
    contended_actions: frozenset[str]

    def build(self, agent_ids: list[int] | None = None) -> World:
        """Read the world once for a tick, in a fixed number of queries."""

    def snapshot(self, world: Any, batch: list[int]) -> str:
        """The model's view of one batch (the model contract: its text must stay stable)."""

    def choices(self, world: Any, batch: list[int]) -> Mapping[str, Mapping[str, list]]:
        """What the batch's snapshot offers: action → parameter → the values it names (an empty
        list: the action has nothing to act on). The decoding schema allows only those."""

    def system_prompt(self) -> str: ...

    def rules_policy(self, seed: int) -> Policy:
        """The offline policy (``AGENT_PROVIDER=rules``): decides from the structured world."""

    def begin_tick(self, agent_ids: list[int] | None) -> None:
        """The world's own time passes, before it is read (not on a dry run)."""

    def begin_tick_and_build(self, agent_ids: list[int] | None) -> World:
        """``begin_tick`` then ``build``, as one step (the tick on the workers, whose first batch waits
        for both): the same world and the same state after, the world's time committed on return. The
        source may read while its time passes."""

    def end_tick(self, round_: Any) -> None:
        """The tick's actions are done and its ``AutonomyRound`` saved (not on a dry run)."""

    def open_batch(self, decisions: list[Any]) -> AbstractContextManager[Any]:
        """Inside a batch's transaction, before its decisions run: what the world reads once for
        all of them, held until the batch ends. It is told ``begin_call()`` and ``end_call(ok=)``
        around each tool call and ``discard_call()`` when a call's savepoint is rolled back."""


_registered: list[WorldSource] = []


def register_world(source: WorldSource) -> WorldSource:
    if _registered and _registered[0] is not source:
        raise ImproperlyConfigured(f"an autonomy world is already registered: {_registered[0]!r}")
    _registered[:] = [source]
    return source


def world_source() -> WorldSource:
    if not _registered:
        raise ImproperlyConfigured("no app registered an autonomy world (an `autonomy` module calling register_world)")
    return _registered[0]


def tick_agents(actions: Mapping[str, str], agent_ids: list[int] | None = None) -> QuerySet[Agent]:
    """The residents a tick decides for: active agents granted at least one of the actions
    (a desk assistant with only query tools is no resident), all of them or the chosen ones."""
    granted = Agent.tools.through.objects.filter(tool__name__in=list(actions), tool__is_active=True).values("agent_id")
    agents = Agent.objects.filter(is_active=True, pk__in=granted)
    return agents.filter(pk__in=agent_ids) if agent_ids is not None else agents
