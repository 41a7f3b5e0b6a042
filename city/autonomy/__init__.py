"""The city's world in the autonomy tick (DESIGN §5), registered with the tick engine.

``world`` reads the world and renders a batch's snapshot, ``prompt`` holds the actions and
the rules the model is told, ``policy`` the offline rules policy. Found at startup by
``autodiscover_modules("autonomy")``, like ``city/tools.py``.
"""

from __future__ import annotations

from agents.autonomy.sources import register_world, tick_agents
from city.services import decay_needs
from core.database import can_read_before, reading_before

from ..services import record_city_sample
from ..tick_lookups import batch_lookups
from .policy import RulesPolicy
from .prompt import ACTIONS, system_prompt
from .world import World, bounty_board, build_world, decision_choices, render_snapshot


class CityWorld:
    actions = ACTIONS
    contended_actions = frozenset({"assign_building", "claim_bounty", "transfer_resource", "accept_market_order"})

    def build(self, agent_ids: list[int] | None = None) -> World:
        return build_world(agent_ids)

    def snapshot(self, world: World, batch: list[int]) -> str:
        return render_snapshot(world, batch)

    def choices(self, world: World, batch: list[int]) -> dict[str, dict[str, list]]:
        return decision_choices(world, batch)

    def system_prompt(self) -> str:
        return system_prompt()

    def rules_policy(self, seed: int) -> RulesPolicy:
        return RulesPolicy(seed)

    def begin_tick(self, agent_ids: list[int] | None) -> None:
        """Time passes for the tick's residents (and only them): they get hungrier and more tired,
        and the bounty board posts new bounties when it keeps some open (the demo's)."""
        decay_needs(agents=tick_agents(ACTIONS, agent_ids))
        bounty_board().begin_tick()

    def begin_tick_and_build(self, agent_ids: list[int] | None) -> World:
        """``begin_tick``, then ``build``: the same world, the same needs after. Where the database can
        (``core.database.can_read_before``: PostgreSQL, outside a transaction), the needs' decay runs on
        a connection of its own while the world is read from one snapshot taken before it, with the decay
        worked out in the read (``decayed_needs``, the UPDATE's own expressions); returns once it has
        committed. The bounty board posts first: the world reads its bounties."""
        if not can_read_before():
            self.begin_tick(agent_ids)
            return self.build(agent_ids)
        bounty_board().begin_tick()
        with reading_before(lambda: decay_needs(agents=tick_agents(ACTIONS, agent_ids))):
            return build_world(agent_ids, decayed=True)

    def end_tick(self, round_) -> None:
        record_city_sample(round_=round_)

    def open_batch(self, decisions):
        """The batch's residents, and the buildings its job decisions name, read and locked once,
        and where its checkin residents work (``city.tick_lookups``); the services read through
        them while the batch runs."""
        buildings = [d.params.get("building_id") for d in decisions if d.action == "assign_building"]
        workers = [d.agent_id for d in decisions if d.action == "checkin"]
        return batch_lookups([d.agent_id for d in decisions], buildings, workers)

    def __repr__(self) -> str:
        return "CityWorld()"


register_world(CityWorld())
