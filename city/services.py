"""City business rules: the only place resources and credits move.

Money and goods that no trade explains (bounty rewards, staff corrections) are written in
the ledgers ``CreditEntry`` and ``StockAdjustment`` by ``grant_credits`` and ``adjust_stock``.

Every service runs in one ``transaction.atomic()`` (a savepoint when the caller already
has a transaction), so a failure half-way leaves nothing behind. Concurrency:

* Every service first locks the rows of the agents it touches, in ascending id order
  (``SELECT … FOR NO KEY UPDATE`` on PostgreSQL; SQLite's IMMEDIATE transactions already
  serialize writers). An agent's credits and stock only change while its row is locked,
  so read-check-write sequences cannot interleave, and the single lock order rules out
  deadlocks. ``NO KEY`` keeps inserts that merely reference the agent (audit rows) free.
* Decrements are still conditional (``UPDATE … SET quantity = quantity - n WHERE
  quantity >= n``) with the row count checked, and the database refuses negative values:
  no lost update and no negative balance even for a caller that forgot the lock.
* Market orders change state by compare-and-set (``WHERE status = 'open'``): of any number
  of concurrent accepts or cancels of one order exactly one wins.

Events go out through ``core.events.broadcast``, which waits for the commit.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count, F, Max, QuerySet, Sum, Value
from django.db.models.functions import Greatest
from django.utils import timezone
from django.utils.translation import gettext as _

from agents.models import Agent, AutonomyRound
from core import rows
from core.auth import has_permissions, require_permissions, signed_in
from core.errors import ApplicationError, Conflict, Forbidden, NotFound
from core.events import broadcast
from core.text import clean_text

from . import stock, tick_lookups
from .models import (
    REASON_MAX_LENGTH,
    AgentResource,
    Building,
    BuildingKind,
    CheckIn,
    CityChatMessage,
    CitySample,
    CreditEntry,
    Employment,
    MarketOrder,
    Purchase,
    ResourceTransfer,
    ResourceType,
    ShopItem,
    StockAdjustment,
)
from .selectors import is_resident, order_not_found

# Agent.credits and stock columns are 32-bit integers on PostgreSQL: keep amounts far from overflow.
MAX_AMOUNT = 1_000_000
MAX_NEED = 100
# The ledgers' sources, as sets: ``Choices.values`` builds its list again at each call (bench.transfers).
_TRANSFER_SOURCES = frozenset(ResourceTransfer.Source.values)
_CREDIT_SOURCES = frozenset(CreditEntry.Source.values)
REST_ENERGY_GAIN = 20
WORK_ENERGY_COST = 15
WORK_SATIETY_COST = 10
CHAT_MAX_LENGTH = CityChatMessage._meta.get_field("content").max_length
BUILDING_NAME_MAX_LENGTH = Building._meta.get_field("name").max_length


# ---------------------------------------------------------------------------- helpers


def _is_whole(value: Any) -> bool:
    # bool is an int in Python, but True is not a quantity.
    return isinstance(value, int) and not isinstance(value, bool)


def _check_quantity(quantity: Any, *, field: str = "quantity") -> int:
    if not _is_whole(quantity) or not 1 <= quantity <= MAX_AMOUNT:
        raise ApplicationError(
            "invalid_quantity", _("数量必须是 1 到 %(max)s 之间的整数") % {"max": MAX_AMOUNT}, field=field
        )
    return quantity


def _one(queryset: QuerySet, **unique: Any) -> Any:
    """The row matching a unique lookup, or None. Like ``first()``, without an ORDER BY to build:
    these lookups sit on every hot path."""
    try:
        return queryset.get(**unique)
    except queryset.model.DoesNotExist:
        return None


def _agent_not_found(agent_id: Any, *, field: str = "agent_id") -> NotFound:
    return NotFound("agent_not_found", _("居民 #%(id)s 不存在") % {"id": agent_id}, field=field)


def _lock_agents(*agent_ids: int) -> dict[int, str]:
    """Lock the agents' rows in ascending id order; the names of those that exist, by id."""
    return stock.lock_agents([agent_id for agent_id in agent_ids if _is_whole(agent_id)])


def _lock_agent(agent_id: int, *, field: str = "agent_id") -> Agent:
    # In a tick batch, the batch locked its residents once (``tick_lookups``).
    lookups = tick_lookups.current()
    agent = lookups.agent(agent_id) if lookups is not None and _is_whole(agent_id) else None
    if agent is not None:
        return agent
    # Only what the services read; any other field loads on first access.
    locked = Agent.objects.select_for_update(no_key=True).only(*tick_lookups.AGENT_FIELDS)
    agent = _one(locked, pk=agent_id) if _is_whole(agent_id) else None
    if agent is None:
        raise _agent_not_found(agent_id, field=field)
    return agent


def _save_agent(agent: Agent, *fields: str) -> None:
    """Write back what a service changed on a locked agent (in a tick batch, through its look-ups)."""
    lookups = tick_lookups.current()
    if lookups is not None:
        lookups.save(agent, fields)
    else:
        agent.save(update_fields=list(fields))


def _resource_slug(slug: Any) -> str:
    return slug.strip().lower() if isinstance(slug, str) else ""


def _unknown_resource(slug: Any, *, field: str = "resource_type") -> ApplicationError:
    # A bad value in the request (400), not a missing resource addressed by its URL (404).
    return ApplicationError("unknown_resource", _("未知资源：%(slug)s") % {"slug": slug}, field=field)


def _resource_type(slug: Any, *, field: str = "resource_type") -> ResourceType:
    cleaned = _resource_slug(slug)
    lookups = tick_lookups.current()
    resource_type = lookups.resource_type(cleaned) if lookups is not None and cleaned else None
    if resource_type is None and cleaned:
        resource_type = stock.resource_type(cleaned)
    if resource_type is None:
        raise _unknown_resource(slug, field=field)
    return resource_type


def _insufficient_resource(agent_id: int, resource_type: ResourceType, need: int) -> Conflict:
    holding = AgentResource.objects.values_list("quantity", flat=True)
    have = _one(holding, agent_id=agent_id, resource_type=resource_type) or 0
    return Conflict(
        "insufficient_resource",
        _("%(resource)s 不足，当前 %(have)s，需要 %(need)s")
        % {"resource": resource_type.display_name, "have": have, "need": need},
        field="quantity",
        extra={"have": have, "need": need},
    )


def _take_resource(agent_id: int, resource_type: ResourceType, quantity: int) -> None:
    """Remove goods from an agent's stock, or raise insufficient_resource (nothing changed)."""
    if not stock.take(agent_id, resource_type.pk, quantity):
        raise _insufficient_resource(agent_id, resource_type, quantity)


def _give_resource(agent_id: int, resource_type: ResourceType, quantity: int) -> None:
    """Add goods to an agent's stock (the caller holds the agent's lock, so the insert cannot race)."""
    stock.give(agent_id, resource_type.pk, quantity)


def _insufficient_credits(agent_id: int, need: int) -> Conflict:
    have = _one(Agent.objects.values_list("credits", flat=True), pk=agent_id) or 0
    return Conflict(
        "insufficient_credits",
        _("信用点不足，当前 %(have)s，需要 %(need)s") % {"have": have, "need": need},
        extra={"have": have, "need": need},
    )


def _credits_changed(agent_id: int) -> None:
    lookups = tick_lookups.current()
    if lookups is not None:
        lookups.credits_changed(agent_id)


def _take_credits(agent_id: int, amount: int) -> None:
    if amount and not stock.take_credits(agent_id, amount):
        raise _insufficient_credits(agent_id, amount)
    _credits_changed(agent_id)


def _give_credits(agent_id: int, amount: int) -> None:
    if amount:
        stock.give_credits(agent_id, amount)
        _credits_changed(agent_id)


def _check_price(price: Any) -> int:
    if not _is_whole(price) or not 1 <= price <= MAX_AMOUNT:
        raise ApplicationError(
            "invalid_price", _("价格必须是 1 到 %(max)s 之间的整数") % {"max": MAX_AMOUNT}, field="price"
        )
    return price


# ---------------------------------------------------------------------------- transfers


@transaction.atomic
def transfer_resource(
    *,
    from_agent_id: int,
    to_agent_id: int,
    resource_type: str,
    quantity: int,
    source: str,
    user: Any = None,
) -> ResourceTransfer:
    """Move ``quantity`` of a resource from one agent to another, and write it in the ledger.

    Checks in DESIGN §6's order: invalid_quantity, agent_not_found, same_agent,
    unknown_resource, insufficient_resource.
    """
    _check_quantity(quantity)
    if source not in _TRANSFER_SOURCES:
        raise ValueError(f"unknown ledger source {source!r}")  # a programming error, not user input
    # One statement locks both agents and reads the resource type, one moves the goods
    # (bench.transfers: each statement a transfer saves is a fifth of the way to the raw SQL).
    slug = _resource_slug(resource_type)
    agents, kind = stock.lock_for_transfer([agent_id for agent_id in (from_agent_id, to_agent_id) if _is_whole(agent_id)], slug)
    if not _is_whole(from_agent_id) or from_agent_id not in agents:
        raise _agent_not_found(from_agent_id, field="from_agent_id")
    if not _is_whole(to_agent_id) or to_agent_id not in agents:
        raise _agent_not_found(to_agent_id, field="to_agent_id")
    if from_agent_id == to_agent_id:
        raise ApplicationError("same_agent", _("不能转赠给自己：发送方和接收方必须是不同的居民"), field="to_agent_id")
    if kind is None or not slug:
        raise _unknown_resource(resource_type)
    taken, given = stock.move(from_agent_id, to_agent_id, kind.pk, quantity)
    if not taken:
        raise _insufficient_resource(from_agent_id, kind, quantity)  # rolls the receiver's side back with it
    if not given:
        rows.create(AgentResource(agent_id=to_agent_id, resource_type=kind, quantity=quantity))
    staff = signed_in(user)
    transfer = stock.record_transfer(
        from_agent_id=from_agent_id,
        to_agent_id=to_agent_id,
        kind=kind,
        quantity=quantity,
        source=source,
        user_id=None if staff is None else staff.pk,
    )
    broadcast(
        "resource_transferred",
        from_agent_id=from_agent_id,
        from_agent_name=agents[from_agent_id],
        to_agent_id=to_agent_id,
        to_agent_name=agents[to_agent_id],
        resource_type=kind.slug,
        quantity=quantity,
        transfer_id=transfer.pk,
        source=source,
    )
    return transfer


def transfer_message(transfer: ResourceTransfer) -> str:
    """The one-line confirmation every surface shows: 转移 5 面粉 成功 (5 flour in English)."""
    return _("转移 %(quantity)s %(resource)s 成功") % {
        "quantity": transfer.quantity,
        "resource": transfer.resource_type.display_name,
    }


# ---------------------------------------------------------------------------- credits and stock corrections


def _clean_reason(reason: Any) -> str:
    return clean_text(reason, field="reason", label=_("原因"), max_length=REASON_MAX_LENGTH)


def _check_change(value: Any, *, field: str, code: str, label: str) -> int:
    """A signed correction: a whole number, not zero, at most MAX_AMOUNT either way."""
    if not _is_whole(value) or value == 0 or abs(value) > MAX_AMOUNT:
        raise ApplicationError(
            code,
            _("%(label)s必须是非零整数（负数为扣除），绝对值不超过 %(max)s") % {"label": label, "max": MAX_AMOUNT},
            field=field,
        )
    return value


def validate_credit_grant(*, amount: Any, reason: Any) -> tuple[int, str]:
    """The cleaned (amount, reason) of a credits payment, or ApplicationError naming the bad field."""
    return _check_change(amount, field="amount", code="invalid_amount", label=_("金额")), _clean_reason(reason)


def validate_stock_adjustment(*, quantity: Any, reason: Any) -> tuple[int, str]:
    """The cleaned (quantity, reason) of a stock correction, or ApplicationError naming the bad field."""
    return _check_change(quantity, field="quantity", code="invalid_quantity", label=_("数量")), _clean_reason(reason)


# A staff correction of the ledgers, and the extra right it needs on an agent that is no resident.
CREDIT_CORRECTION_PERMISSION = "city.add_creditentry"
STOCK_CORRECTION_PERMISSION = "city.add_stockadjustment"
ASSISTANT_PERMISSION = "agents.change_agent"


def require_correction_rights(*, user: Any, agent_id: int, permission: str) -> None:
    """Staff correct a resident's credits or stock with ``permission``; an assistant (an agent that
    is no resident: the fund or desk assistant) is the agent admins' (``agents.change_agent``)."""
    require_permissions(user, permission)
    if not has_permissions(user, ASSISTANT_PERMISSION) and not is_resident(agent_id=agent_id):
        raise Forbidden("permission_denied", _("助理不是居民：只有可以修改居民设置的员工才能调整其信用点或库存"))


def correct_credits(*, agent_id: int, amount: int, reason: str, user: Any) -> CreditEntry:
    """A staff member pays or takes back credits by hand (the admin's "grant credits")."""
    require_correction_rights(user=user, agent_id=agent_id, permission=CREDIT_CORRECTION_PERMISSION)
    return grant_credits(agent_id=agent_id, amount=amount, source=CreditEntry.Source.ADMIN, reason=reason, user=user)


def correct_stock(*, agent_id: int, resource_type: str, quantity: int, reason: str, user: Any) -> StockAdjustment:
    """A staff member adds or removes goods by hand (the admin's "adjust stock")."""
    require_correction_rights(user=user, agent_id=agent_id, permission=STOCK_CORRECTION_PERMISSION)
    return adjust_stock(agent_id=agent_id, resource_type=resource_type, quantity=quantity, reason=reason, user=user)


@transaction.atomic
def grant_credits(
    *, agent_id: int, amount: int, source: str, reason: str, reference: str = "", user: Any = None
) -> CreditEntry:
    """Pay ``amount`` credits to an agent (take them back when negative) and write the credits ledger.

    Checks in order: invalid_amount, reason_required / reason_too_long, agent_not_found,
    insufficient_credits. The agent's row is locked first, as every move of credits does.
    A non-empty ``reference`` is paid once: a second payment of it raises IntegrityError
    (the ledger's unique constraint), and this savepoint undoes the credits it moved.
    """
    amount, reason = validate_credit_grant(amount=amount, reason=reason)
    if source not in _CREDIT_SOURCES:
        raise ValueError(f"unknown ledger source {source!r}")  # a programming error, not user input
    _lock_agent(agent_id)
    if amount > 0:
        _give_credits(agent_id, amount)
    else:
        _take_credits(agent_id, -amount)
    return rows.create(
        CreditEntry(agent_id=agent_id, amount=amount, source=source, reason=reason, reference=reference, user=signed_in(user))
    )


@transaction.atomic
def adjust_stock(*, agent_id: int, resource_type: str, quantity: int, reason: str, user: Any = None) -> StockAdjustment:
    """Staff add goods to an agent's stock (remove them when negative) and write the stock ledger.

    Checks in order: invalid_quantity, reason_required / reason_too_long, agent_not_found,
    unknown_resource, insufficient_resource (a stock never goes below zero).
    """
    quantity, reason = validate_stock_adjustment(quantity=quantity, reason=reason)
    _lock_agent(agent_id)
    kind = _resource_type(resource_type)
    if quantity > 0:
        _give_resource(agent_id, kind, quantity)
    else:
        _take_resource(agent_id, kind, -quantity)
    return StockAdjustment.objects.create(
        agent_id=agent_id, resource_type=kind, quantity=quantity, reason=reason, user=signed_in(user)
    )


# ---------------------------------------------------------------------------- needs


@transaction.atomic
def decay_needs(*, agents: QuerySet[Agent]) -> int:
    """Time passes for these agents: satiety and energy fall by the configured amounts, never below 0.

    One UPDATE; its subquery locks the rows in ascending id order first (the services' lock order,
    so it cannot deadlock with them on PostgreSQL). Returns how many agents it touched.
    """
    if not settings.CITY_SATIETY_DECAY and not settings.CITY_ENERGY_DECAY:
        return 0
    locked = agents.order_by("pk").select_for_update(no_key=True).values("pk")
    return Agent.objects.filter(pk__in=locked).update(**decayed_needs())


def decayed_needs() -> dict[str, Greatest]:
    """An agent's satiety and energy once ``decay_needs`` has run, as expressions over its row: what
    that UPDATE writes, and what a read taken before it commits reads (the tick's world, ``city.autonomy``)."""
    satiety, energy = settings.CITY_SATIETY_DECAY, settings.CITY_ENERGY_DECAY
    return {"satiety": Greatest(F("satiety") - satiety, Value(0)), "energy": Greatest(F("energy") - energy, Value(0))}


@transaction.atomic
def rest(*, agent_id: int) -> Agent:
    """Recover energy (capped at 100); resting is always possible."""
    agent = _lock_agent(agent_id)
    agent.energy = min(MAX_NEED, agent.energy + REST_ENERGY_GAIN)
    _save_agent(agent, "energy")
    return agent


def _edible_in_stock(agent_id: int, resource_type: str | None) -> ResourceType:
    """The food to eat: the named one, or the most filling food the agent holds."""
    if resource_type:
        kind = _resource_type(resource_type)
        if not kind.edible:
            raise ApplicationError("not_edible", _("%(resource)s 不能吃") % {"resource": kind.display_name}, field="resource_type")
        return kind
    holding = (
        AgentResource.objects.filter(agent_id=agent_id, quantity__gte=1, resource_type__edible=True)
        .select_related("resource_type")
        .order_by("-resource_type__satiety_gain", "resource_type__slug")
        .first()
    )
    if holding is None:
        raise Conflict("no_food", _("你没有可以吃的食物"))
    return holding.resource_type


@transaction.atomic
def eat(*, agent_id: int, resource_type: str | None = None) -> tuple[Agent, ResourceType]:
    """Consume one unit of food and gain its satiety (capped at 100)."""
    agent = _lock_agent(agent_id)
    kind = _edible_in_stock(agent_id, resource_type)
    if agent.satiety >= MAX_NEED:
        raise Conflict("not_hungry", _("饱食度已满，无需进食"))
    _take_resource(agent_id, kind, 1)
    agent.satiety = min(MAX_NEED, agent.satiety + kind.satiety_gain)
    _save_agent(agent, "satiety")
    return agent, kind


# ---------------------------------------------------------------------------- jobs


def _lock_building(building_id: Any) -> Building:
    building = _one(Building.objects.select_for_update(no_key=True), pk=building_id) if _is_whole(building_id) else None
    if building is None:
        raise NotFound("building_not_found", _("建筑 #%(id)s 不存在") % {"id": building_id}, field="building_id")
    return building


@transaction.atomic
def assign_building(*, agent_id: int, building_id: int) -> Employment:
    """Take a job in a building that has a free slot; one job per agent."""
    _lock_agent(agent_id)
    # The building is locked after the agent (the global order), so that its slots are counted once;
    # a tick batch locked the buildings its decisions name, and counted their staff, once.
    lookups = tick_lookups.current()
    building = lookups.building(building_id) if lookups is not None and _is_whole(building_id) else None
    building = building or _lock_building(building_id)
    current = lookups.job(agent_id) if lookups is not None else tick_lookups.UNKNOWN
    if current is tick_lookups.UNKNOWN:
        current = _one(Employment.objects.values_list("building__name", flat=True), agent_id=agent_id)
    if current is not None:
        raise Conflict(
            "already_employed", _("你已在「%(building)s」工作，请先离职") % {"building": current}
        )
    staff = lookups.staff(building.pk) if lookups is not None else None
    if staff is None:
        staff = Employment.objects.filter(building=building).count()
    if staff >= building.job_slots:
        raise Conflict("no_vacancy", _("「%(building)s」没有空缺岗位") % {"building": building.name})
    employment = rows.create(Employment(agent_id=agent_id, building=building))
    if lookups is not None:
        lookups.hired(agent_id, building)
    return employment


@transaction.atomic
def unassign_building(*, agent_id: int) -> Building:
    """Leave the current job; returns the building left."""
    _lock_agent(agent_id)
    employment = _one(Employment.objects.select_related("building"), agent_id=agent_id)
    if employment is None:
        raise Conflict("not_employed", _("你目前没有工作"))
    employment.delete()
    lookups = tick_lookups.current()
    if lookups is not None:
        lookups.left(agent_id, employment.building_id)
    return employment.building


@transaction.atomic
def checkin(*, agent_id: int) -> CheckIn:
    """A day's work: once a day, costs energy and satiety, pays the wage and yields the building's output."""
    agent = _lock_agent(agent_id)
    # In a tick batch, where its checkin residents work and whether they did today were read once.
    lookups = tick_lookups.current()
    building = lookups.workplace(agent_id) if lookups is not None else tick_lookups.UNKNOWN
    if building is tick_lookups.UNKNOWN:
        employment = _one(Employment.objects.select_related("building__produces"), agent_id=agent_id)
        building = employment.building if employment is not None else None
    if building is None:
        raise Conflict("not_employed", _("你还没有工作，无法打卡"))
    today = timezone.localdate()
    done = lookups.checked_in(agent_id, today) if lookups is not None else tick_lookups.UNKNOWN
    if done is tick_lookups.UNKNOWN:
        done = CheckIn.objects.filter(agent_id=agent_id, day=today).exists()
    if done:
        raise Conflict("already_checked_in", _("今天已经打过卡了"))
    if agent.energy < WORK_ENERGY_COST:
        raise Conflict(
            "too_tired",
            _("精力不足，当前 %(have)s，需要 %(need)s") % {"have": agent.energy, "need": WORK_ENERGY_COST},
        )
    produced = building.produces if building.produces_quantity else None
    agent.credits += building.wage
    agent.energy -= WORK_ENERGY_COST
    agent.satiety = max(0, agent.satiety - WORK_SATIETY_COST)
    _save_agent(agent, "credits", "energy", "satiety")
    if produced is not None:
        _give_resource(agent_id, produced, building.produces_quantity)
    record = rows.create(
        CheckIn(
            agent_id=agent_id,
            day=today,
            building=building,
            wage=building.wage,
            produced_type=produced,
            produced_quantity=building.produces_quantity if produced else 0,
        )
    )
    if lookups is not None:
        lookups.worked(agent_id)
    broadcast(
        "checkin",
        agent_id=agent.pk,
        agent_name=agent.name,
        building_id=building.pk,
        building_name=building.name,
        wage=building.wage,
        produced_type=produced.slug if produced else None,
        produced_quantity=record.produced_quantity,
    )
    return record


# ---------------------------------------------------------------------------- shop


@transaction.atomic
def purchase(*, agent_id: int, item_id: int, quantity: int = 1) -> Purchase:
    """Buy ``quantity`` bundles of a shop item with credits."""
    _check_quantity(quantity)
    agent = _lock_agent(agent_id)
    lookups = tick_lookups.current()
    item = lookups.shop_item(item_id) if lookups is not None and _is_whole(item_id) else None
    if item is None and _is_whole(item_id):
        item = _one(ShopItem.objects.select_related("resource_type"), pk=item_id)
    if item is None:
        raise NotFound("item_not_found", _("商品 #%(id)s 不存在") % {"id": item_id}, field="item_id")
    if not item.is_available:
        raise Conflict("item_unavailable", _("「%(item)s」暂不出售") % {"item": item.name})
    total_price = item.price * quantity
    received = item.quantity * quantity
    if total_price > MAX_AMOUNT or received > MAX_AMOUNT:
        raise ApplicationError("invalid_quantity", _("一次购买的数量过多"), field="quantity")
    _take_credits(agent_id, total_price)
    _give_resource(agent_id, item.resource_type, received)
    record = rows.create(
        Purchase(
            agent_id=agent_id,
            item=item,
            count=quantity,
            total_price=total_price,
            resource_type=item.resource_type,
            quantity=received,
        )
    )
    broadcast(
        "purchase",
        agent_id=agent.pk,
        agent_name=agent.name,
        item_id=item.pk,
        item_name=item.name,
        count=quantity,
        price=total_price,
    )
    return record


# ---------------------------------------------------------------------------- market


def market_order_event_data(order: MarketOrder) -> dict[str, Any]:
    return {
        "order_id": order.pk,
        "status": order.status,
        "seller_id": order.seller_id,
        "seller_name": order.seller.name,
        "buyer_id": order.buyer_id,
        "buyer_name": order.buyer.name if order.buyer_id else None,
        "resource_type": order.resource_type.slug,
        "quantity": order.quantity,
        "price": order.price,
    }


@transaction.atomic
def create_market_order(*, agent_id: int, resource_type: str, quantity: int, price: int) -> MarketOrder:
    """Offer goods for sale for a total price; the goods leave the seller's stock until the order closes."""
    _check_quantity(quantity)
    _check_price(price)
    _lock_agent(agent_id)
    kind = _resource_type(resource_type)
    _take_resource(agent_id, kind, quantity)
    order = MarketOrder.objects.create(seller_id=agent_id, resource_type=kind, quantity=quantity, price=price)
    order = MarketOrder.objects.select_related("seller", "resource_type").get(pk=order.pk)
    broadcast("market_order_created", **market_order_event_data(order))
    return order


def _market_order(order_id: Any) -> MarketOrder:
    order = _one(MarketOrder.objects.all(), pk=order_id) if _is_whole(order_id) else None
    if order is None:
        raise order_not_found(order_id)
    return order


def _order_not_open() -> Conflict:
    return Conflict("order_not_open", _("该挂单已成交或已取消"))


@transaction.atomic
def accept_market_order(*, agent_id: int, order_id: int, user: Any = None) -> MarketOrder:
    """Buy an open order whole: the buyer's credits go to the seller, the reserved goods to the buyer.

    Checks in order: order_not_found, agent_not_found, cannot_accept_own_order,
    order_not_open, insufficient_credits.
    """
    order = _market_order(order_id)
    agents = _lock_agents(agent_id, order.seller_id)
    if not _is_whole(agent_id) or agent_id not in agents:
        raise _agent_not_found(agent_id)
    if order.seller_id == agent_id:
        raise ApplicationError("cannot_accept_own_order", _("不能接受自己的挂单"), field="order_id")
    won = MarketOrder.objects.filter(pk=order.pk, status=MarketOrder.Status.OPEN).update(
        status=MarketOrder.Status.FILLED, buyer_id=agent_id, closed_by=signed_in(user), closed_at=timezone.now()
    )
    if not won:
        raise _order_not_open()
    _take_credits(agent_id, order.price)
    _give_credits(order.seller_id, order.price)
    _give_resource(agent_id, order.resource_type, order.quantity)
    order = MarketOrder.objects.select_related("seller", "buyer", "resource_type").get(pk=order.pk)
    broadcast("market_order_filled", **market_order_event_data(order))
    return order


@transaction.atomic
def cancel_market_order(*, agent_id: int, order_id: int, user: Any = None) -> MarketOrder:
    """The seller withdraws an open order; the reserved goods go back to its stock."""
    order = _market_order(order_id)
    _lock_agent(agent_id)
    if order.seller_id != agent_id:
        raise ApplicationError("not_order_seller", _("只有卖方可以取消该挂单"), field="order_id")
    cancelled = MarketOrder.objects.filter(pk=order.pk, status=MarketOrder.Status.OPEN).update(
        status=MarketOrder.Status.CANCELLED, closed_by=signed_in(user), closed_at=timezone.now()
    )
    if not cancelled:
        raise _order_not_open()
    _give_resource(agent_id, order.resource_type, order.quantity)
    order = MarketOrder.objects.select_related("seller", "resource_type").get(pk=order.pk)
    broadcast("market_order_cancelled", **market_order_event_data(order))
    return order


# ---------------------------------------------------------------------------- construction


def _take_materials(agent_id: int, materials: Iterable[tuple[ResourceType, int]]) -> None:
    for kind, quantity in sorted(materials, key=lambda line: line[0].pk):
        _take_resource(agent_id, kind, quantity)


@transaction.atomic
def construct_building(*, agent_id: int, kind: str, name: str) -> Building:
    """Build a new building of a kind: pays its credits and materials, the builder becomes its owner."""
    cleaned_name = name.strip() if isinstance(name, str) else ""
    if not cleaned_name or len(cleaned_name) > BUILDING_NAME_MAX_LENGTH:
        raise ApplicationError(
            "invalid_name", _("建筑名称必须是 1 到 %(max)s 个字") % {"max": BUILDING_NAME_MAX_LENGTH}, field="name"
        )
    agent = _lock_agent(agent_id)
    slug = kind.strip().lower() if isinstance(kind, str) else ""
    blueprint = _one(BuildingKind.objects.select_related("produces"), slug=slug) if slug else None
    if blueprint is None:
        raise NotFound("unknown_building_kind", _("未知建筑类型：%(kind)s") % {"kind": kind}, field="kind")
    if Building.objects.filter(name=cleaned_name).exists():
        raise Conflict("building_name_taken", _("已有名为「%(name)s」的建筑") % {"name": cleaned_name}, field="name")
    materials = [(line.resource_type, line.quantity) for line in blueprint.materials.select_related("resource_type")]
    _take_credits(agent_id, blueprint.credit_cost)
    _take_materials(agent_id, materials)
    try:
        # A savepoint: a concurrent builder may take the name between the check and the insert.
        with transaction.atomic():
            building = Building.objects.create(
                name=cleaned_name,
                kind=blueprint,
                job_slots=blueprint.job_slots,
                wage=blueprint.wage,
                produces=blueprint.produces,
                produces_quantity=blueprint.produces_quantity,
                owner_id=agent_id,
                construction_cost={
                    "credits": blueprint.credit_cost,
                    "materials": {kind.slug: quantity for kind, quantity in materials},
                },
            )
    except IntegrityError:
        raise Conflict(
            "building_name_taken", _("已有名为「%(name)s」的建筑") % {"name": cleaned_name}, field="name"
        ) from None
    broadcast(
        "building_constructed",
        agent_id=agent.pk,
        agent_name=agent.name,
        building_id=building.pk,
        building_name=building.name,
        kind=blueprint.slug,
    )
    return building


# ---------------------------------------------------------------------------- city channel


@transaction.atomic
def post_city_chat(*, agent_id: int, content: str) -> CityChatMessage:
    """Say one line in the city channel."""
    text = clean_text(
        content, field="content", label=_("消息内容"), max_length=CHAT_MAX_LENGTH,
        empty_code="empty_content", too_long_code="content_too_long",
    )
    lookups = tick_lookups.current()
    agent = lookups.agent(agent_id) if lookups is not None and _is_whole(agent_id) else None
    if agent is None and _is_whole(agent_id):
        agent = _one(Agent.objects.all(), pk=agent_id)
    if agent is None:
        raise _agent_not_found(agent_id)
    message = rows.create(CityChatMessage(agent=agent, content=text))
    broadcast("city_chat", agent_id=agent.pk, agent_name=agent.name, message_id=message.pk, content=text)
    return message


# ---------------------------------------------------------------------------- overview samples


@transaction.atomic
def record_city_sample(*, round_: AutonomyRound) -> CitySample:
    """Write the city's economy as it is after a tick (what the overview charts), then tell open pages.

    Transfers are counted from the ledger rows after the previous sample's newest one (an
    index range, not a scan of the ledger); the first sample counts those of its own tick.
    """
    previous = CitySample.objects.order_by("-id").values_list("last_transfer_id", flat=True).first()
    new_transfers = ResourceTransfer.objects.all()
    if previous is None:
        new_transfers = new_transfers.filter(created_at__gte=round_.started_at)
    else:
        new_transfers = new_transfers.filter(pk__gt=previous)
    moved = new_transfers.aggregate(count=Count("id"), quantity=Sum("quantity"), last=Max("id"))
    residents = Agent.objects.filter(is_active=True)
    totals = residents.aggregate(count=Count("id"), credits=Sum("credits"))
    stock_by_slug = dict.fromkeys(ResourceType.objects.order_by("slug").values_list("slug", flat=True), 0)
    held = AgentResource.objects.filter(agent__in=residents).values("resource_type__slug").annotate(total=Sum("quantity"))
    stock_by_slug.update(held.values_list("resource_type__slug", "total"))
    sample = CitySample.objects.create(
        round=round_,
        residents=totals["count"],
        total_credits=totals["credits"] or 0,
        stock=stock_by_slug,
        transfers=moved["count"],
        transferred=moved["quantity"] or 0,
        last_transfer_id=moved["last"] or previous or 0,
    )
    broadcast("tick_finished", round_id=round_.pk, sample_id=sample.pk)
    return sample
