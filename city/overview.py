"""The overview page's reads: residents at a glance, the economy over time, the agents' work, the ticks.

It composes the city's selectors, the autonomy world's bounty board and the agents' selectors,
so it sits above all three (``city.selectors`` stays below the services and the world).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cached_property
from typing import Any

from django.conf import settings
from django.db.models import Count, OuterRef, Subquery, Sum
from django.db.models.functions import TruncHour
from django.utils import timezone

from agents import selectors as agent_selectors
from agents.models import AgentActionLog
from core.text import join_items

from .autonomy.policy import HUNGRY, TIRED
from .autonomy.world import bounty_board
from .models import AgentResource, CitySample, ResourceTransfer, ResourceType

RESIDENT_FILTERS = ("all", "hungry", "idle", "failing")
RESIDENT_SORTS = ("name", "satiety", "energy", "credits")
CHARTED_TICKS = 100  # ticks (and city samples) the overview charts
ERROR_RATE_TICKS = 10  # the error rate and the tool calls cover this many recent ticks
LISTED_TICKS = 5  # ticks listed with their workers
TRANSFER_HOURS = 24
HISTOGRAM_BINS = 10


@dataclass(frozen=True)
class ResidentRow:
    """One resident as the overview shows it, in plain values: a table of 1,000 renders fast."""

    id: int
    name: str
    satiety: int
    energy: int
    credits: int
    holdings: str  # "bread×2, flour×3"
    job: str  # the building's name
    bounty: str  # "#12 修路"
    action: str  # the latest autonomy action
    status: str  # its ``AgentActionLog.Status``
    outcome: str  # the status as people read it, with the error code
    hungry: bool
    idle: bool  # neither a job nor a bounty to work on
    failing: bool  # the latest action failed


def overview_residents() -> list[ResidentRow]:
    """Every active resident with stock, job, current bounty and latest action, by name, in four queries.

    Plain rows (``values_list``), not model instances: at 1,000 residents that halves the page's time.
    """
    latest = AgentActionLog.objects.filter(agent=OuterRef("pk")).order_by("-id").values("id")[:1]
    active = agent_selectors.residents().filter(is_active=True)
    logs = AgentActionLog.objects.filter(id__in=active.annotate(latest=Subquery(latest)).values("latest"))
    last = {agent_id: (action, status, code) for agent_id, action, status, code in logs.values_list("agent_id", "action", "status", "error_code")}
    bounties = {bounty.claimed_by: bounty for bounty in bounty_board().claimed_by(active)}
    held: dict[int, list[str]] = defaultdict(list)
    holdings = AgentResource.objects.filter(agent__in=active, quantity__gt=0).order_by("agent_id", "resource_type__slug")
    names = {kind.slug: kind.display_name for kind in ResourceType.objects.all()}  # 面包 in Chinese, bread in English
    for agent_id, slug, quantity in holdings.values_list("agent_id", "resource_type__slug", "quantity"):
        held[agent_id].append(f"{names.get(slug, slug)}×{quantity}")
    labels = {status: str(label) for status, label in AgentActionLog.Status.choices}
    agents = active.order_by("name", "id").values_list("id", "name", "satiety", "energy", "credits", "employment__building__name")
    rows = []
    for agent_id, name, satiety, energy, credits, job in agents:
        bounty = bounties.get(agent_id)
        action, status, code = last.get(agent_id, ("", "", ""))
        rows.append(ResidentRow(
            id=agent_id, name=name, satiety=satiety, energy=energy, credits=credits,
            holdings=join_items(held.get(agent_id, ()), comma=True),
            job=job or "",
            bounty=f"#{bounty.id} {bounty.title}" if bounty else "",
            action=action,
            status=status,
            outcome=" · ".join(filter(None, [labels.get(status, status), code])),
            hungry=satiety < HUNGRY,
            idle=job is None and bounty is None,
            failing=status == AgentActionLog.Status.FAILED,
        ))
    return rows


def shown_residents(rows: list[ResidentRow], *, show: str, sort: str) -> list[ResidentRow]:
    """The rows a filter keeps (``RESIDENT_FILTERS``), in a sort order (``RESIDENT_SORTS``; needs lowest first)."""
    if show in ("hungry", "idle", "failing"):
        rows = [row for row in rows if getattr(row, show)]
    if sort in ("satiety", "energy"):
        return sorted(rows, key=lambda row: getattr(row, sort))
    if sort == "credits":
        return sorted(rows, key=lambda row: -row.credits)
    return rows


def credits_histogram(credits: list[int], *, bins: int = HISTOGRAM_BINS) -> list[tuple[str, int]]:
    """``(range label, residents)`` over equal-width ranges from 0 to the richest resident's credits."""
    if not credits:
        return []
    width = max(1, -(-(max(credits) + 1) // bins))
    counts = [0] * bins
    for amount in credits:
        counts[min(amount // width, bins - 1)] += 1
    return [(f"{i * width}–{(i + 1) * width - 1}", count) for i, count in enumerate(counts)]


def gini(values: list[int]) -> float:
    """0 when everyone holds the same, towards 1 when one holds everything."""
    total = sum(values)
    if not values or total <= 0:
        return 0.0
    ranked = sorted(values)
    weighted = sum((2 * rank - len(ranked) - 1) * value for rank, value in enumerate(ranked, start=1))
    return round(weighted / (len(ranked) * total), 3)


def economy_samples(*, limit: int = CHARTED_TICKS) -> tuple[list[str], list[tuple[CitySample, list[int]]]]:
    """The last ``limit`` city samples, oldest first, with their stock as a table: slugs and one row per sample."""
    samples = list(CitySample.objects.order_by("-id")[:limit])[::-1]
    slugs = sorted({slug for sample in samples for slug in sample.stock})
    return slugs, [(sample, [sample.stock.get(slug, 0) for slug in slugs]) for sample in samples]


def transfer_volume_by_hour(*, hours: int = TRANSFER_HOURS, now: datetime | None = None) -> list[dict[str, Any]]:
    """Transfers (count and quantity) per hour over the last ``hours``, counted in the ledger: those
    made on the pages, the API and by agents alike, whether or not a tick has run since."""
    since = (now or timezone.now()) - timedelta(hours=hours)
    per_hour = ResourceTransfer.objects.filter(created_at__gte=since).annotate(hour=TruncHour("created_at")).values("hour")
    return list(per_hour.annotate(transfers=Count("id"), quantity=Sum("quantity")).order_by("hour"))


class CityOverview:
    """What the overview page shows, each panel read when the template first asks for it
    (an HTMX refresh of one panel reads only that one). Query count: constant."""

    # The needs' meters turn to "low" where the rules policy starts looking after them.
    hungry_below = HUNGRY
    tired_below = TIRED

    def __init__(self, *, show: str = "all", sort: str = "name", now: datetime | None = None):
        self.show = show if show in RESIDENT_FILTERS else "all"
        self.sort = sort if sort in RESIDENT_SORTS else "name"
        self.now = now or timezone.now()

    @cached_property
    def all_residents(self) -> list[ResidentRow]:
        return overview_residents()

    @cached_property
    def residents(self) -> list[ResidentRow]:
        return shown_residents(self.all_residents, show=self.show, sort=self.sort)

    @cached_property
    def credits(self) -> list[int]:
        return [row.credits for row in self.all_residents]

    @cached_property
    def credits_histogram(self) -> list[tuple[str, int]]:
        return credits_histogram(self.credits)

    @cached_property
    def gini(self) -> float:
        return gini(self.credits)

    @cached_property
    def economy(self) -> tuple[list[str], list[tuple[CitySample, list[int]]]]:
        return economy_samples()

    @cached_property
    def stock_names(self) -> list[str]:
        """The economy table's resource columns as people read them: 面包 in Chinese, bread in English."""
        names = {kind.slug: kind.display_name for kind in ResourceType.objects.filter(slug__in=self.economy[0])}
        return [names.get(slug, slug) for slug in self.economy[0]]

    @cached_property
    def transfer_volume(self) -> list[dict[str, Any]]:
        return transfer_volume_by_hour(now=self.now)

    @cached_property
    def ticks(self) -> list[agent_selectors.TickRow]:
        return agent_selectors.recent_ticks(limit=CHARTED_TICKS)

    @property
    def offline(self) -> bool:
        """The offline rules provider decides: it calls no model, so the token charts stay at 0."""
        return settings.AGENT_PROVIDER == "rules"

    @cached_property
    def last_ticks(self) -> list[agent_selectors.TickRow]:
        """The last few ticks, newest first, with the workers that executed them."""
        return self.ticks[: -LISTED_TICKS - 1 : -1]

    @cached_property
    def recent_ticks(self) -> list[agent_selectors.TickRow]:
        return self.ticks[-ERROR_RATE_TICKS:]

    @cached_property
    def error_rate(self) -> float:
        """The failed share of the tool calls the breakdown lists (``tool_calls``), in percent:
        the sum of its error-code columns over all its calls, one vocabulary for both."""
        return agent_selectors.error_rate(*self.tool_calls)

    @cached_property
    def tick_error_rates(self) -> list[tuple[agent_selectors.TickRow, float]]:
        """Each charted tick with the failed share of its tool calls, counted as ``error_rate`` is."""
        rates = agent_selectors.tick_error_rates(round_ids=[tick.id for tick in self.ticks])
        return [(tick, rates.get(tick.id, 0.0)) for tick in self.ticks]

    @cached_property
    def tool_calls_since(self) -> datetime:
        """The start of the oldest of the recent ticks (a day back when there was none)."""
        return self.recent_ticks[0].started_at if self.recent_ticks else self.now - timedelta(days=1)

    @cached_property
    def tool_calls(self) -> tuple[list[str], list[tuple[str, list[int]]]]:
        return agent_selectors.tool_call_outcomes(since=self.tool_calls_since)

    @cached_property
    def pending(self) -> dict[str, Any]:
        return agent_selectors.pending_proposal_ages(now=self.now)
