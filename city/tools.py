"""City tools: what an agent can look up and do in the city, named as DESIGN §5's actions.

The acting agent is always ``ctx.agent``; no tool takes the actor's id as an argument.
Each returns a plain dict with a human-readable ``message``.
"""

from __future__ import annotations

from typing import Annotated

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from agents.models import Agent
from agents.registry import Param, Proposal, ToolContext, tool
from core.text import join_items
from agents.results import summarizes

from . import selectors, services
from .models import CARE_PERMISSION, TRANSFER_PERMISSION, ResourceTransfer, ResourceType

MAX = services.MAX_AMOUNT

ReceiverId = Annotated[int, Param(ge=1, description=gettext_lazy("接收方居民 ID"))]
ResourceSlug = Annotated[
    str, Param(min_length=1, max_length=50, description=gettext_lazy("资源标识，如 flour"))
]
Quantity = Annotated[int, Param(ge=1, le=MAX, description=gettext_lazy("数量（正整数）"))]
OrderId = Annotated[int, Param(ge=1, description=gettext_lazy("挂单 ID"))]


def ledger_source(ctx: ToolContext) -> str:
    """How a tool call is written in the transfer ledger: the autonomy tick, or a tool (chat, API, MCP)."""
    if ctx.source == "autonomy":
        return ResourceTransfer.Source.AUTONOMY
    return ResourceTransfer.Source.TOOL


def _stock_line(resources: dict[str, int]) -> str:
    """面包 2，木材 18 in Chinese, bread 2, wood 18 in English: names and punctuation of the language."""
    names = {kind.slug: kind.display_name for kind in ResourceType.objects.filter(slug__in=list(resources))}
    return join_items((f"{names.get(slug, slug)} {quantity}" for slug, quantity in resources.items()), comma=True) or _("（无）")


# ---------------------------------------------------------------------------- queries


@tool(
    description=gettext_lazy("按名字查找居民，得到其 ID（转赠等操作需要 ID）"),
    permission="agents.view_agent",
)
def find_agent(
    ctx: ToolContext,
    name: Annotated[str, Param(min_length=1, max_length=100, description=gettext_lazy("居民名字"))],
) -> dict:
    agent = selectors.agent_by_name(name=name)
    return {
        "agent_id": agent.pk,
        "name": agent.name,
        "message": _("%(name)s 的 ID 是 %(id)s") % {"name": agent.name, "id": agent.pk},
    }


@tool(description=gettext_lazy("查看自己持有的资源"), permission="city.view_agentresource")
def get_my_resources(ctx: ToolContext) -> dict:
    resources = selectors.agent_resources(agent_id=ctx.agent.pk)
    return {"resources": resources, "message": _("我的资源：%(stock)s") % {"stock": _stock_line(resources)}}


@summarizes("get_my_resources")
def _resources_line(data: dict, arguments: dict) -> str:
    resources = data.get("resources")
    return _("我的资源：%(stock)s") % {"stock": _stock_line(resources if isinstance(resources, dict) else {})}


@tool(description=gettext_lazy("查看商店在售商品与价格"), permission="city.view_shopitem")
def list_shop_items(ctx: ToolContext) -> dict:
    items = [
        {
            "item_id": item.pk,
            "name": item.name,
            "price": item.price,
            "resource_type": item.resource_type.slug,
            "quantity": item.quantity,
        }
        for item in selectors.shop_items()
    ]
    lines = [
        _("#%(item_id)s %(name)s：%(price)s 信用点，得 %(quantity)s %(resource_type)s") % item for item in items
    ]
    return {"items": items, "message": "\n".join(lines) or _("商店暂无商品")}


@tool(
    description=gettext_lazy("查看城市里的建筑（岗位、工资、产出）和可建造的建筑类型（花费）"),
    permission="city.view_building",
)
def list_buildings(ctx: ToolContext) -> dict:
    buildings = [
        {
            "building_id": building.pk,
            "name": building.name,
            "kind": building.kind.slug,
            "job_slots": building.job_slots,
            "workers": building.workers,
            "wage": building.wage,
            "produces": building.produces.slug if building.produces else None,
            "produces_quantity": building.produces_quantity,
        }
        for building in selectors.buildings()
    ]
    kinds = [
        {
            "kind": kind.slug,
            "name": kind.name,
            "credit_cost": kind.credit_cost,
            "materials": {line.resource_type.slug: line.quantity for line in kind.materials.all()},
        }
        for kind in selectors.building_kinds()
    ]
    lines = [
        _("#%(building_id)s %(name)s：岗位 %(workers)s/%(job_slots)s，日薪 %(wage)s") % building for building in buildings
    ]
    return {"buildings": buildings, "kinds": kinds, "message": "\n".join(lines) or _("城市里还没有建筑")}


@tool(description=gettext_lazy("查看交易市场上的挂单"), permission="city.view_marketorder")
def list_market_orders(ctx: ToolContext) -> dict:
    orders = [
        {
            "order_id": order.pk,
            "seller_id": order.seller_id,
            "seller_name": order.seller.name,
            "resource_type": order.resource_type.slug,
            "quantity": order.quantity,
            "price": order.price,
        }
        for order in selectors.market_orders()
    ]
    lines = [
        _("#%(order_id)s %(seller_name)s 出售 %(quantity)s %(resource_type)s，总价 %(price)s") % order
        for order in orders
    ]
    return {"orders": orders, "message": "\n".join(lines) or _("市场上没有挂单")}


# ---------------------------------------------------------------------------- actions


def _resource_name(slug: str) -> str:
    kind = ResourceType.objects.filter(slug=slug).first()
    return kind.display_name if kind else slug


def propose_transfer(ctx: ToolContext, to_agent_id: int, resource_type: str, quantity: int) -> Proposal:
    """What staff see when they require confirmation for transfers."""
    receiver = Agent.objects.filter(pk=to_agent_id).values_list("name", flat=True).first() or f"#{to_agent_id}"
    return Proposal(
        labels={
            "from_agent_id": _("发送方"), "to_agent_id": _("接收方"), "resource_type": _("资源"), "quantity": _("数量"),
        },
        display={"from_agent_id": {ctx.agent.pk: ctx.agent.name}, "to_agent_id": {to_agent_id: receiver}},
        message=_("即将把 %(quantity)s %(resource)s 从 %(sender)s 转给 %(receiver)s，请确认是否继续？")
        % {"quantity": quantity, "resource": _resource_name(resource_type), "sender": ctx.agent.name, "receiver": receiver},
        form_data={
            "from_agent_id": ctx.agent.pk,
            "to_agent_id": to_agent_id,
            "resource_type": resource_type,
            "quantity": quantity,
        },
    )


@tool(
    description=gettext_lazy("将自己的资源转赠给另一个居民"),
    category="action",
    propose=propose_transfer,
    permission=TRANSFER_PERMISSION,
)
def transfer_resource(ctx: ToolContext, to_agent_id: ReceiverId, resource_type: ResourceSlug, quantity: Quantity) -> dict:
    transfer = services.transfer_resource(
        from_agent_id=ctx.agent.pk,
        to_agent_id=to_agent_id,
        resource_type=resource_type,
        quantity=quantity,
        source=ledger_source(ctx),
        user=ctx.user,
    )
    return {
        "transfer_id": transfer.pk,
        "to_agent_id": transfer.to_agent_id,
        "resource_type": transfer.resource_type.slug,
        "quantity": transfer.quantity,
        "to_agent_name": transfer.to_agent.name,
        "message": services.transfer_message(transfer),
    }


@summarizes("transfer_resource")
def _transfer_line(data: dict, arguments: dict) -> str:
    return _("转给 %(name)s %(quantity)s %(resource)s") % {
        "name": data.get("to_agent_name") or f"#{data.get('to_agent_id')}",
        "quantity": data.get("quantity"),
        "resource": _resource_name(str(data.get("resource_type", ""))),
    }


@tool(
    description=gettext_lazy("上班打卡（每天一次）：领取工资并获得所在建筑的产出，消耗精力"),
    category="action",
    permission="city.add_checkin",
)
def checkin(ctx: ToolContext) -> dict:
    record = services.checkin(agent_id=ctx.agent.pk)
    message = _("打卡成功，获得工资 %(wage)s 信用点") % {"wage": record.wage}
    if record.produced_type_id:
        message += _("，产出 %(quantity)s %(resource)s") % {
            "quantity": record.produced_quantity,
            "resource": record.produced_type.display_name,
        }
    return {
        "wage": record.wage,
        "produced_type": record.produced_type.slug if record.produced_type_id else None,
        "produced_quantity": record.produced_quantity,
        "message": message,
    }


@tool(description=gettext_lazy("在商店用信用点购买商品"), category="action", permission="city.add_purchase")
def purchase(
    ctx: ToolContext,
    item_id: Annotated[int, Param(ge=1, description=gettext_lazy("商品 ID"))],
    quantity: Annotated[int, Param(ge=1, le=MAX, description=gettext_lazy("购买份数"))] = 1,
) -> dict:
    record = services.purchase(agent_id=ctx.agent.pk, item_id=item_id, quantity=quantity)
    return {
        "purchase_id": record.pk,
        "total_price": record.total_price,
        "resource_type": record.resource_type.slug,
        "quantity": record.quantity,
        "message": _("购买成功：花费 %(price)s 信用点，获得 %(quantity)s %(resource)s")
        % {"price": record.total_price, "quantity": record.quantity, "resource": record.resource_type.display_name},
    }


@tool(description=gettext_lazy("在城市频道说一句话"), category="action", permission="city.add_citychatmessage")
def chat(
    ctx: ToolContext,
    content: Annotated[
        str, Param(min_length=1, max_length=services.CHAT_MAX_LENGTH, description=gettext_lazy("要说的话"))
    ],
) -> dict:
    message = services.post_city_chat(agent_id=ctx.agent.pk, content=content)
    return {"message_id": message.pk, "message": _("已在城市频道发言：%(content)s") % {"content": message.content}}


@tool(description=gettext_lazy("休息，恢复精力"), category="action", permission=CARE_PERMISSION)
def rest(ctx: ToolContext) -> dict:
    agent = services.rest(agent_id=ctx.agent.pk)
    return {"energy": agent.energy, "message": _("休息好了，精力 %(energy)s") % {"energy": agent.energy}}


@tool(
    description=gettext_lazy("吃一份食物，提高饱食度；不指定则吃最顶饱的"),
    category="action",
    permission=CARE_PERMISSION,
)
def eat(
    ctx: ToolContext,
    resource_type: Annotated[
        str, Param(min_length=1, max_length=50, description=gettext_lazy("食物资源标识，如 bread"))
    ]
    | None = None,
) -> dict:
    agent, food = services.eat(agent_id=ctx.agent.pk, resource_type=resource_type)
    return {
        "resource_type": food.slug,
        "satiety": agent.satiety,
        "message": _("吃了 1 %(resource)s，饱食度 %(satiety)s") % {"resource": food.display_name, "satiety": agent.satiety},
    }


@tool(
    description=gettext_lazy("应聘某个建筑的工作（每人只能有一份工作）"),
    category="action",
    permission="city.change_building",
)
def assign_building(
    ctx: ToolContext,
    building_id: Annotated[int, Param(ge=1, description=gettext_lazy("建筑 ID"))],
) -> dict:
    employment = services.assign_building(agent_id=ctx.agent.pk, building_id=building_id)
    building = employment.building
    return {
        "building_id": building.pk,
        "building_name": building.name,
        "wage": building.wage,
        "message": _("已入职「%(building)s」，日薪 %(wage)s") % {"building": building.name, "wage": building.wage},
    }


@tool(description=gettext_lazy("辞去当前工作"), category="action", permission="city.change_building")
def unassign_building(ctx: ToolContext) -> dict:
    building = services.unassign_building(agent_id=ctx.agent.pk)
    return {
        "building_id": building.pk,
        "message": _("已从「%(building)s」离职") % {"building": building.name},
    }


@tool(
    description=gettext_lazy("在市场挂单出售自己的资源（总价，挂单期间资源被冻结）"),
    category="action",
    permission="city.add_marketorder",
)
def create_market_order(
    ctx: ToolContext,
    resource_type: ResourceSlug,
    quantity: Quantity,
    price: Annotated[int, Param(ge=1, le=MAX, description=gettext_lazy("整批总价（信用点）"))],
) -> dict:
    order = services.create_market_order(
        agent_id=ctx.agent.pk, resource_type=resource_type, quantity=quantity, price=price
    )
    return {
        "order_id": order.pk,
        "message": _("已挂单 #%(id)s：出售 %(quantity)s %(resource)s，总价 %(price)s")
        % {"id": order.pk, "quantity": order.quantity, "resource": order.resource_type.display_name, "price": order.price},
    }


@tool(
    description=gettext_lazy("买下市场上别人的挂单（支付总价，获得全部资源）"),
    category="action",
    permission="city.change_marketorder",
)
def accept_market_order(ctx: ToolContext, order_id: OrderId) -> dict:
    order = services.accept_market_order(agent_id=ctx.agent.pk, order_id=order_id, user=ctx.user)
    return {
        "order_id": order.pk,
        "message": _("成交：以 %(price)s 信用点买下 %(seller)s 的 %(quantity)s %(resource)s")
        % {"price": order.price, "seller": order.seller.name, "quantity": order.quantity, "resource": order.resource_type.display_name},
    }


@tool(
    description=gettext_lazy("取消自己的挂单，冻结的资源退回"),
    category="action",
    permission="city.change_marketorder",
)
def cancel_market_order(ctx: ToolContext, order_id: OrderId) -> dict:
    order = services.cancel_market_order(agent_id=ctx.agent.pk, order_id=order_id, user=ctx.user)
    return {
        "order_id": order.pk,
        "message": _("已取消挂单 #%(id)s，%(quantity)s %(resource)s 已退回")
        % {"id": order.pk, "quantity": order.quantity, "resource": order.resource_type.display_name},
    }


@tool(
    description=gettext_lazy("花费信用点和材料建造一座新建筑（建筑类型见 list_buildings）"),
    category="action",
    permission="city.add_building",
)
def construct_building(
    ctx: ToolContext,
    kind: Annotated[str, Param(min_length=1, max_length=50, description=gettext_lazy("建筑类型标识，如 mill"))],
    name: Annotated[
        str,
        Param(
            min_length=1,
            max_length=services.BUILDING_NAME_MAX_LENGTH,
            description=gettext_lazy("新建筑的名称"),
        ),
    ],
) -> dict:
    building = services.construct_building(agent_id=ctx.agent.pk, kind=kind, name=name)
    return {
        "building_id": building.pk,
        "message": _("建造完成：「%(name)s」（#%(id)s）") % {"name": building.name, "id": building.pk},
    }
