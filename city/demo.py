"""Demo city 长安: residents with personas, resources, buildings with jobs, a shop, a market.

Idempotent: rows are looked up by their natural key and only created when missing, so a
second run changes nothing (not even stock an agent has since spent). Texts are written in the
active language (``seed_demo --language``); a row is found under its name in any language, so a
run in the other language adds nothing and translates nothing.
"""

from django.utils.translation import gettext_lazy as _

from agents.models import Agent, Tool
from core.errors import ApplicationError
from core.text import in_every_language

from . import services
from .models import AgentResource, Building, BuildingKind, BuildingMaterial, Employment, MarketOrder, ResourceType, ShopItem

CITY_NAME = _("长安")
CITY_TOOLS = (
    "get_my_status",
    "find_agent",
    "get_my_resources",
    "list_shop_items",
    "list_buildings",
    "list_market_orders",
    "checkin",
    "purchase",
    "chat",
    "rest",
    "eat",
    "assign_building",
    "unassign_building",
    "transfer_resource",
    "create_market_order",
    "accept_market_order",
    "cancel_market_order",
    "construct_building",
)

# slug: (name, edible, satiety gain)
RESOURCE_TYPES = {
    "wheat": (_("小麦"), False, 0),
    "flour": (_("面粉"), False, 0),
    "bread": (_("面包"), True, 30),
    "apple": (_("苹果"), True, 15),
    "wood": (_("木材"), False, 0),
    "stone": (_("石料"), False, 0),
}

# slug: (name, credit cost, materials, job slots, wage, produces, produced per check-in)
BUILDING_KINDS = {
    "farm": (_("农田"), 40, {"wood": 10}, 3, 12, "wheat", 6),
    "mill": (_("磨坊"), 80, {"wood": 20, "stone": 10}, 2, 15, "flour", 4),
    "bakery": (_("面包坊"), 100, {"wood": 15, "stone": 15}, 2, 18, "bread", 3),
    "lumberyard": (_("伐木场"), 60, {"stone": 5}, 3, 12, "wood", 5),
    "quarry": (_("采石场"), 60, {"wood": 10}, 2, 14, "stone", 3),
}

# (name, kind); pairs, not a dict: a translatable name is no stable key
BUILDINGS = (
    (_("城东农田"), "farm"),
    (_("西市磨坊"), "mill"),
    (_("长安面包坊"), "bakery"),
    (_("终南伐木场"), "lumberyard"),
    (_("骊山采石场"), "quarry"),
)

# name: (persona, credits, satiety, energy, {slug: quantity}, job building or None)
RESIDENTS = {
    "Alice": (
        _("你是长安城西市的面包师 Alice，热心肠，乐于把多余的面粉和面包分给邻居，但也精打细算。"),
        120, 70, 80, {"flour": 10, "bread": 4, "wheat": 2}, _("长安面包坊"),
    ),
    "Bob": (
        _("你是城东的农夫 Bob，勤劳朴实，每天按时打卡种小麦，手头常常缺面粉。"),
        60, 55, 90, {"wheat": 20, "apple": 3}, _("城东农田"),
    ),
    "Carol": (
        _("你是精明的商人 Carol，熟悉交易市场，喜欢低买高卖，也会在城市频道吆喝生意。"),
        300, 80, 70, {"wood": 12, "stone": 8, "wheat": 10}, None,
    ),
    "Dave": (
        _("你是终南山下的伐木工 Dave，话不多，力气大，常把木材卖给需要盖房子的人。"),
        80, 40, 60, {"wood": 25, "bread": 1}, _("终南伐木场"),
    ),
    "Eve": (
        _("你是刚到长安的学者 Eve，身无长物，正在找工作，对城里的一切都很好奇。"),
        30, 35, 50, {"apple": 2}, None,
    ),
    "Frank": (
        _("你是磨坊主 Frank，负责把小麦磨成面粉，希望有朝一日再建一座磨坊。"),
        150, 65, 75, {"wheat": 8, "flour": 6, "stone": 12, "wood": 10}, _("西市磨坊"),
    ),
}

SHOP_ITEMS = (
    # (name, price, resource slug, quantity per purchase)
    (_("面包"), 8, "bread", 1),
    (_("苹果"), 4, "apple", 1),
    (_("一捆木材"), 15, "wood", 5),
    (_("一车石料"), 20, "stone", 5),
    (_("一袋面粉"), 12, "flour", 3),
)

# (seller, resource, quantity, total price)
MARKET_ORDERS = (
    ("Carol", "wheat", 5, 20),
    ("Dave", "wood", 8, 30),
    ("Frank", "flour", 3, 15),
)


def seed(stdout) -> None:
    types = {
        slug: ResourceType.objects.get_or_create(slug=slug, defaults={"name": str(name), "edible": edible, "satiety_gain": gain})[0]
        for slug, (name, edible, gain) in RESOURCE_TYPES.items()
    }
    kinds = {}
    for slug, (name, cost, materials, slots, wage, produces, produced) in BUILDING_KINDS.items():
        kind, created = BuildingKind.objects.get_or_create(
            slug=slug,
            defaults={
                "name": str(name),
                "credit_cost": cost,
                "job_slots": slots,
                "wage": wage,
                "produces": types[produces],
                "produces_quantity": produced,
            },
        )
        if created:
            BuildingMaterial.objects.bulk_create(
                BuildingMaterial(kind=kind, resource_type=types[material], quantity=quantity)
                for material, quantity in materials.items()
            )
        kinds[slug] = kind
    buildings = {}
    for name, slug in BUILDINGS:
        kind = kinds[slug]
        building = Building.objects.filter(name__in=in_every_language(name)).first() or Building.objects.create(
            name=str(name),
            kind=kind,
            job_slots=kind.job_slots,
            wage=kind.wage,
            produces=kind.produces,
            produces_quantity=kind.produces_quantity,
        )
        buildings[str(name)] = building
    for name, price, slug, quantity in SHOP_ITEMS:
        if not ShopItem.objects.filter(name__in=in_every_language(name)).exists():
            ShopItem.objects.create(name=str(name), price=price, resource_type=types[slug], quantity=quantity)

    tools = list(Tool.objects.filter(name__in=CITY_TOOLS))
    agents = {}
    for name, (persona, credits, satiety, energy, stock, job) in RESIDENTS.items():
        agent, created = Agent.objects.get_or_create(
            name=name, defaults={"persona": str(persona), "credits": credits, "satiety": satiety, "energy": energy}
        )
        agent.tools.add(*tools)
        if created:
            AgentResource.objects.bulk_create(
                AgentResource(agent=agent, resource_type=types[slug], quantity=quantity) for slug, quantity in stock.items()
            )
            if job is not None:
                Employment.objects.create(agent=agent, building=buildings[str(job)])
        agents[name] = agent

    for seller, slug, quantity, price in MARKET_ORDERS:
        exists = MarketOrder.objects.filter(
            seller=agents[seller], resource_type=types[slug], quantity=quantity, price=price
        ).exists()
        if exists:
            continue
        try:
            # Through the service, so that the goods are really reserved from the seller's stock.
            services.create_market_order(agent_id=agents[seller].pk, resource_type=slug, quantity=quantity, price=price)
        except ApplicationError as exc:  # a resident who existed before the demo may lack the goods
            stdout.write(f"Market order of {seller} skipped: {exc.message}")

    stdout.write(
        f"City {CITY_NAME}: {len(agents)} residents, {Building.objects.count()} buildings, "
        f"{ShopItem.objects.count()} shop items, {MarketOrder.objects.filter(status=MarketOrder.Status.OPEN).count()} open market orders"
    )
