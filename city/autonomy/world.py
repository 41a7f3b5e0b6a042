"""The city's world in an autonomy tick: read once, in a fixed number of queries.

``build_world`` loads everything a decision needs into plain dataclasses (no lazy ORM
access afterwards, so rendering prompts and running the rules policy cost no queries).
``render_snapshot`` writes the text sections of DESIGN §5 for one batch: the shared world
(buildings, shop, market, bounties) and only that batch's residents. Long shared lists
are capped, so a prompt does not grow with the size of the city. The snapshot text is
the model contract and stays Chinese (it is not a catalogue string).

Bounties pay their rewards through the city, so the city does not read them: the bounties
app contributes its board (``contribute_bounty_board``) from its own ``autonomy`` module.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from typing import Protocol

from django.db import router
from django.db.models import Aggregate, CharField, Count, Max, Q, QuerySet
from django.utils import timezone

from agents.autonomy.sources import tick_agents
from agents.models import Agent, AgentActionLog
from agents.providers.tokens import estimate_tokens
from city.models import AgentResource, Building, BuildingKind, CheckIn, Employment, MarketOrder, ResourceType, ShopItem
from city.services import decayed_needs
from core import rows

from .prompt import ACTIONS

# Caps of the shared lists in every batch prompt (the rest is summarised as a count): at batch 20 they
# keep a prompt near 100 tokens per resident, so a batch and its answer fit a 4k context.
MAX_BUILDINGS = 8
MAX_MARKET_ORDERS = 8
MAX_OPEN_BOUNTIES = 8
MAX_NEEDY = 5
# A persona in the tick is its opening clause (who the resident is), at most this many estimated
# tokens: the whole persona is the chat's system prompt, and per resident it cost more than the
# issue-27 target of 150 tokens a resident for the whole prompt.
PERSONA_TOKENS = 16


@dataclass(frozen=True)
class ResourceKind:
    slug: str
    name: str
    edible: bool
    satiety_gain: int


@dataclass(frozen=True)
class BuildingInfo:
    id: int
    name: str
    kind: str
    job_slots: int
    employed: int
    wage: int
    produces: str | None
    produces_quantity: int

    @property
    def vacancies(self) -> int:
        return max(0, self.job_slots - self.employed)


@dataclass(frozen=True)
class BlueprintInfo:
    slug: str
    name: str
    credit_cost: int
    job_slots: int
    wage: int
    materials: dict[str, int]


@dataclass(frozen=True)
class ShopInfo:
    id: int
    name: str
    price: int
    resource: str
    quantity: int


@dataclass(frozen=True)
class OrderInfo:
    id: int
    seller_id: int
    seller_name: str
    resource: str
    quantity: int
    price: int


@dataclass(frozen=True)
class BountyInfo:
    id: int
    title: str
    reward: int
    claimed_by: int | None = None


@dataclass(frozen=True)
class LastAction:
    action: str
    status: str
    message: str
    reason: str
    params: dict = field(default_factory=dict)
    error_code: str = ""

    @property
    def failed(self) -> bool:
        return self.status == AgentActionLog.Status.FAILED


@dataclass
class Resident:
    id: int
    name: str
    persona: str
    credits: int
    satiety: int
    energy: int
    job: BuildingInfo | None = None
    checked_in_today: bool = False
    bounty: BountyInfo | None = None
    holdings: dict[str, int] = field(default_factory=dict)
    granted: frozenset[str] = frozenset()
    open_orders: list[OrderInfo] = field(default_factory=list)
    last: LastAction | None = None


@dataclass
class World:
    day: date
    residents: dict[int, Resident]
    resources: dict[str, ResourceKind]
    buildings: list[BuildingInfo]
    blueprints: list[BlueprintInfo]
    shop: list[ShopInfo]
    market: list[OrderInfo]
    market_total: int
    open_bounties: list[BountyInfo]
    open_bounty_total: int
    # The Agent rows the residents were read from: the identity tools act as.
    agents: Mapping[int, Agent] = field(default_factory=dict, repr=False)

    def food(self, holdings: dict[str, int]) -> dict[str, int]:
        return {slug: qty for slug, qty in holdings.items() if qty > 0 and slug in self.resources and self.resources[slug].edible}

    @cached_property
    def building_names(self) -> frozenset[str]:
        return frozenset(b.name for b in self.buildings)

    def free_building_name(self, wanted: str) -> str:
        """``wanted``, or ``wanted-2``, ``wanted-3`` … when a building already has that name."""
        name, n = wanted, 1
        while name in self.building_names:
            n += 1
            name = f"{wanted}-{n}"
        return name

    @cached_property
    def needy(self) -> list[Resident]:
        """Residents holding no food at all, hungriest first (who a generous neighbour could help)."""
        hungry = [r for r in self.residents.values() if not self.food(r.holdings)]
        return sorted(hungry, key=lambda r: (r.satiety, r.id))[:MAX_NEEDY]


class Actors(Mapping[int, Agent]):
    """The ``Agent`` rows the tick's tools act as (``ToolContext.agent``), by id: made on first use
    from what the world read, their id and name (what tools read of the acting agent; any other
    field loads from the database on first access, as a deferred field does)."""

    def __init__(self, names: dict[int, str]) -> None:
        self._names = names
        self._made: dict[int, Agent] = {}
        self._alias = router.db_for_read(Agent)

    def __getitem__(self, agent_id: int) -> Agent:
        agent = self._made.get(agent_id)
        if agent is None:
            agent = self._made[agent_id] = rows.from_db(Agent, self._alias, ("id", "name"), (agent_id, self._names[agent_id]))
        return agent

    def __iter__(self) -> Iterator[int]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, agent_id: object) -> bool:
        return agent_id in self._names


class BountyBoard(Protocol):
    """The bounties a tick shows: the open ones (the first ``limit`` and how many in all),
    and the ones the tick's residents are working on."""

    def open_bounties(self, limit: int) -> tuple[list[BountyInfo], int]: ...

    def claimed_by(self, agents: QuerySet[Agent]) -> list[BountyInfo]: ...

    def begin_tick(self) -> None:
        """Before the world is read (not on a dry run): the board may post what it keeps open."""


class NoBounties:
    def begin_tick(self) -> None:
        pass

    def open_bounties(self, limit: int) -> tuple[list[BountyInfo], int]:
        return [], 0

    def claimed_by(self, agents: QuerySet[Agent]) -> list[BountyInfo]:
        return []


_board: list[BountyBoard] = [NoBounties()]


def contribute_bounty_board(board: BountyBoard) -> None:
    _board[:] = [board]


def bounty_board() -> BountyBoard:
    """The contributed board (the overview reads residents' current bounties from it too)."""
    return _board[0]


def build_world(agent_ids: list[int] | None = None, *, decayed: bool = False) -> World:
    """Read the world for a tick. The number of queries is the same for 10 or 10,000 agents.

    ``decayed``: the residents' needs as ``decay_needs`` leaves them, read before it commits
    (``CityWorld.begin_tick_and_build``)."""
    agents = tick_agents(ACTIONS, agent_ids)
    board = _board[0]
    # The reads of the residents' own rows (jobs, check-ins, holdings, grants, orders, last actions)
    # keep only the rows of residents (``if ... in residents``), so they need not name the residents
    # by ``agents``, a subquery over every grant that SQLite evaluated again for each of them (60 ms
    # each at 10,000 residents): the chosen ids when there are some, else every agent's rows.
    in_tick = Q(agent_id__in=agent_ids) if agent_ids is not None else Q()
    anyone = Agent.objects.filter(pk__in=agent_ids) if agent_ids is not None else Agent.objects.all()
    resources = {
        row.slug: ResourceKind(row.slug, row.name, row.edible, row.satiety_gain)
        for row in ResourceType.objects.order_by("slug")
    }
    buildings = [
        BuildingInfo(
            id=b.pk, name=b.name, kind=b.kind.slug, job_slots=b.job_slots, employed=b.employed, wage=b.wage,
            produces=b.produces.slug if b.produces_id else None, produces_quantity=b.produces_quantity,
        )
        for b in Building.objects.select_related("kind", "produces").annotate(employed=Count("employments")).order_by("id")
    ]
    by_building = {b.id: b for b in buildings}
    blueprints = [
        BlueprintInfo(
            slug=k.slug, name=k.name, credit_cost=k.credit_cost, job_slots=k.job_slots, wage=k.wage,
            materials={m.resource_type.slug: m.quantity for m in k.materials.all()},
        )
        for k in BuildingKind.objects.prefetch_related("materials__resource_type").order_by("slug")
    ]
    shop = [
        ShopInfo(item.pk, item.name, item.price, item.resource_type.slug, item.quantity)
        for item in ShopItem.objects.filter(is_available=True).select_related("resource_type").order_by("id")
    ]
    open_orders = MarketOrder.objects.filter(status=MarketOrder.Status.OPEN)
    market = [_order(o) for o in open_orders.select_related("seller", "resource_type").order_by("-id")[:MAX_MARKET_ORDERS]]
    market_total = open_orders.count()
    bounties_shown, open_bounty_total = board.open_bounties(MAX_OPEN_BOUNTIES)

    needs = ("satiety", "energy")
    if decayed:
        decay = decayed_needs()
        agents = agents.annotate(decayed_satiety=decay["satiety"], decayed_energy=decay["energy"])
        needs = ("decayed_satiety", "decayed_energy")
    residents = {
        row[0]: Resident(*row)  # plain values: an Agent instance each cost more than the rest of a resident's reading
        for row in agents.order_by("id").values_list("id", "name", "persona", "credits", *needs)
    }
    for agent_id, building_id in Employment.objects.filter(in_tick).values_list("agent_id", "building_id"):
        if agent_id in residents:
            residents[agent_id].job = by_building.get(building_id)
    today = timezone.localdate()
    for agent_id in CheckIn.objects.filter(in_tick, day=today).values_list("agent_id", flat=True):
        if agent_id in residents:
            residents[agent_id].checked_in_today = True
    holdings = AgentResource.objects.filter(in_tick, quantity__gt=0).values_list("agent_id", "resource_type__slug", "quantity")
    for agent_id, slug, quantity in holdings.order_by("agent_id", "resource_type__slug"):
        if agent_id in residents:
            residents[agent_id].holdings[slug] = quantity
    for bounty in board.claimed_by(anyone):
        if bounty.claimed_by in residents:
            residents[bounty.claimed_by].bounty = bounty
    grants = Agent.tools.through.objects.filter(in_tick, tool__is_active=True).values("agent_id").order_by()
    alike: dict[str, frozenset[str]] = {}  # most residents hold the same grants: one set for them all
    for agent_id, names in grants.annotate(names=ToolNames("tool__name")).values_list("agent_id", "names"):
        if agent_id in residents:
            residents[agent_id].granted = alike.get(names) or alike.setdefault(names, frozenset(names.split(ToolNames.SEPARATOR)))
    own_orders = open_orders if agent_ids is None else open_orders.filter(seller_id__in=agent_ids)
    for order in own_orders.select_related("seller", "resource_type").order_by("id"):
        if order.seller_id in residents:  # the reads are not one snapshot: a resident may be newer
            residents[order.seller_id].open_orders.append(_order(order))
    latest = AgentActionLog.objects.filter(in_tick).values("agent_id").annotate(latest=Max("id")).values("latest")
    fields = ("agent_id", "action", "status", "message", "reason", "params", "error_code")
    for log in AgentActionLog.objects.filter(id__in=latest).only(*fields):
        if log.agent_id in residents:
            params = log.params if isinstance(log.params, dict) else {}
            residents[log.agent_id].last = LastAction(log.action, log.status, log.message, log.reason, params, log.error_code)
    return World(
        day=today,
        residents=residents,
        resources=resources,
        buildings=buildings,
        blueprints=blueprints,
        shop=shop,
        market=market,
        market_total=market_total,
        open_bounties=bounties_shown,
        open_bounty_total=open_bounty_total,
        agents=Actors({r.id: r.name for r in residents.values()}),
    )


class ToolNames(Aggregate):
    """A resident's granted tool names in one column (SQLite's ``GROUP_CONCAT``, PostgreSQL's
    ``STRING_AGG``): one row per resident, not one per grant (160,000 rows for 20,000 residents
    were a fifth of the snapshot). A tool name cannot hold the separator (``agents.registry.TOOL_NAME``)."""

    SEPARATOR = ","
    function = "GROUP_CONCAT"
    template = "%(function)s(%(expressions)s, ',')"
    output_field = CharField()

    def as_postgresql(self, compiler, connection, **extra_context):
        return self.as_sql(compiler, connection, function="STRING_AGG", **extra_context)


def _order(order) -> OrderInfo:
    return OrderInfo(order.pk, order.seller_id, order.seller.name, order.resource_type.slug, order.quantity, order.price)


_CLAUSE_END = re.compile(r"[，。；：！？,.;:!?\n]")
_ADDRESS = ("你是", "you are ")


def persona_role(persona: str, name: str) -> str:
    """``你是长安城西市的面包师 Alice，热心肠，…`` → ``长安城西市的面包师``: the resident's role.

    The address (你是 / You are) and the resident's name go (the line names the resident), then
    the first clause, cut to ``PERSONA_TOKENS``.
    """
    text = persona.strip()
    for address in _ADDRESS:
        if text.lower().startswith(address):
            text = text[len(address):]
    if name:
        text = text.replace(name, "", 1)
    role = _CLAUSE_END.split(text.strip(" ,，"), 1)[0].strip()
    cut = role
    while estimate_tokens(cut) > PERSONA_TOKENS:
        cut = cut[:-1]
    if cut != role and " " in cut and role[len(cut)] != " ":  # words are not cut in half
        cut = cut.rsplit(" ", 1)[0]
    return cut.strip()


def _stock(holdings: dict[str, int]) -> str:
    return ",".join(f"{slug}×{qty}" for slug, qty in holdings.items()) or "无"


def _more(shown: int, total: int) -> list[str]:
    return [f"(另有 {total - shown} 项未列出)"] if total > shown else []


def bounty_line(bounty: BountyInfo) -> str:
    """Open unless it says who has it (the system prompt says so): the state is not repeated per line."""
    if bounty.claimed_by is None:
        return f"- 悬赏#{bounty.id}: {bounty.title} | 奖励={bounty.reward}"
    return f"- 悬赏#{bounty.id}: {bounty.title} | 奖励={bounty.reward} | 进行中(接取者ID={bounty.claimed_by})"


def decision_choices(world: World, batch: list[int]) -> dict[str, dict[str, list]]:
    """The values a batch's snapshot offers each action's parameters: action → parameter → values.

    The tick decodes under them where the endpoint decodes by a schema, so a small model picks a
    shop item, building, resource, order or bounty the snapshot names instead of making one up
    (Gemma 3 270M bought item #2000000000000000 and ate "food"). An empty list: nothing to pick,
    the action is left out. Whether one can afford it stays the tool's to refuse.
    """
    residents = [world.residents[agent_id] for agent_id in batch if agent_id in world.residents]
    resources = sorted(world.resources)
    own_orders = sorted({o.id for r in residents for o in r.open_orders[:5]})
    return {
        "purchase": {"item_id": [i.id for i in world.shop]},
        "assign_building": {"building_id": [b.id for b in world.buildings[:MAX_BUILDINGS] if b.vacancies]},
        "eat": {"resource_type": [k.slug for k in world.resources.values() if k.edible]},
        "transfer_resource": {"to_agent_id": sorted(world.residents), "resource_type": resources},
        "create_market_order": {"resource_type": resources},
        "accept_market_order": {"order_id": [o.id for o in world.market]},
        "cancel_market_order": {"order_id": own_orders},
        "construct_building": {"kind": [k.slug for k in world.blueprints]},
        "claim_bounty": {"bounty_id": [b.id for b in world.open_bounties]},
    }


def render_snapshot(world: World, batch: list[int]) -> str:
    """The snapshot text of one batch: shared world sections and only these residents."""
    residents = [world.residents[agent_id] for agent_id in batch if agent_id in world.residents]
    lines = ["== 居民状态 =="]
    for r in residents:
        job = ""  # no job: the field is left out; not checked in today: no mark (a new day's default)
        if r.job is not None:  # the building's wage is in its own line
            job = f" 工作=建筑#{r.job.id}{'已打卡' if r.checked_in_today else ''}"
        bounty = f" 进行中悬赏#{r.bounty.id}" if r.bounty else ""
        role = persona_role(r.persona, r.name)
        persona = f"({role})" if role else ""
        lines.append(f"- ID={r.id} {r.name}{persona} 钱={r.credits} 饱食={r.satiety} 精力={r.energy}{job}{bounty}")
    lines.append("== 资源 ==")
    listed = {o.id for o in world.market}  # an own order the market section lists is named by its id alone
    for r in residents:
        orders = "".join(
            f" | 挂单#{o.id}" if o.id in listed else f" | 挂单#{o.id} {o.resource}×{o.quantity} 总价{o.price}"
            for o in r.open_orders[:5]
        )
        lines.append(f"- ID={r.id}: {_stock(r.holdings)}{orders}")
    foods = [k for k in world.resources.values() if k.edible]
    if foods:
        lines.append("- 可吃: " + ", ".join(f"{k.slug} 饱食+{k.satiety_gain}" for k in foods))
    lines.append("== 建筑与工作 ==")
    for b in world.buildings[:MAX_BUILDINGS]:
        produces = f" 产{b.produces}×{b.produces_quantity}" if b.produces else ""
        lines.append(f"- #{b.id} 岗位{b.employed}/{b.job_slots} 薪{b.wage}{produces}")
    lines.extend(_more(min(len(world.buildings), MAX_BUILDINGS), len(world.buildings)))
    if not world.buildings:
        lines.append("(无建筑)")
    if world.blueprints:  # one line: a kind, then its cost in credits and materials
        kinds = "; ".join(
            f"{k.slug} {k.credit_cost}" + "".join(f"+{slug}×{qty}" for slug, qty in k.materials.items()) for k in world.blueprints
        )
        lines.append(f"- 可建造(kind 花费): {kinds}")
    lines.append("== 商店 ==")
    if world.shop:  # one line: item id, price in credits, what it gives
        lines.append("- 价格→所得: " + "; ".join(f"#{i.id} {i.price}→{i.resource}×{i.quantity}" for i in world.shop))
    else:
        lines.append("(商店无商品)")
    lines.append("== 交易市场 ==")
    for o in world.market:
        lines.append(f"- 挂单#{o.id} ID={o.seller_id}卖{o.resource}×{o.quantity} 总价{o.price}")
    lines.extend(_more(len(world.market), world.market_total))
    if not world.market_total:
        lines.append("(无挂单)")
    lines.append("== 悬赏任务 ==")
    claimed = [r.bounty for r in residents if r.bounty is not None]
    shown = [*world.open_bounties, *sorted(claimed, key=lambda b: b.id)]
    lines.extend(bounty_line(b) for b in shown)
    lines.extend(_more(len(world.open_bounties), world.open_bounty_total))
    if not shown and not world.open_bounty_total:
        lines.append("(无悬赏)")
    lines.append("== 上一轮行为 ==")
    previous = [r for r in residents if r.last is not None]
    succeeded: dict[str, list[str]] = {}
    for r in previous:
        if r.last.status == "success":  # the state above already shows what it did: one line per action
            succeeded.setdefault(r.last.action, []).append(str(r.id))
            continue
        outcome = {"failed": "失败", "pending_confirmation": "待员工确认"}.get(r.last.status, r.last.status)
        detail = f"：{r.last.message}" if r.last.message else ""
        lines.append(f"- ID={r.id} {r.name}: {r.last.action} {outcome}{detail}")
    lines.extend(f"- {action} 成功: ID={','.join(ids)}" for action, ids in succeeded.items())
    if not previous:
        lines.append("(无)")
    return "\n".join(lines)
