"""The bounty board in the city's autonomy world (DESIGN §5): bounties depends on city, never the reverse."""

from __future__ import annotations

from django.db.models import QuerySet

from agents.models import Agent
from city.autonomy.world import BountyInfo, contribute_bounty_board

from .demo import keep_board_alive
from .models import Bounty


class BountyBoard:
    def begin_tick(self) -> None:
        keep_board_alive()

    def open_bounties(self, limit: int) -> tuple[list[BountyInfo], int]:
        open_bounties = Bounty.objects.filter(status=Bounty.Status.OPEN)
        shown = [BountyInfo(b.pk, b.title, b.reward) for b in open_bounties.order_by("id")[:limit]]
        return shown, open_bounties.count()

    def claimed_by(self, agents: QuerySet[Agent]) -> list[BountyInfo]:
        claimed = Bounty.objects.filter(status=Bounty.Status.CLAIMED, claimed_by__in=agents)
        return [BountyInfo(*row) for row in claimed.values_list("pk", "title", "reward", "claimed_by_id")]


contribute_bounty_board(BountyBoard())
