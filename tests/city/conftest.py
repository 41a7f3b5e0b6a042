import pytest

from city.models import AgentResource, Building, BuildingKind, BuildingMaterial, ResourceType, ShopItem


@pytest.fixture
def kinds(db) -> dict[str, ResourceType]:
    """The resource types of the tests: flour, wheat, wood, stone (not edible), bread and apple (food)."""
    specs = {
        "flour": ("面粉", False, 0),
        "wheat": ("小麦", False, 0),
        "wood": ("木材", False, 0),
        "stone": ("石料", False, 0),
        "bread": ("面包", True, 30),
        "apple": ("苹果", True, 15),
    }
    return {
        slug: ResourceType.objects.create(slug=slug, name=name, edible=edible, satiety_gain=gain)
        for slug, (name, edible, gain) in specs.items()
    }


@pytest.fixture
def stock(kinds):
    """``stock(agent, flour=10, bread=2)`` sets an agent's holdings."""

    def give(agent, **quantities: int) -> None:
        for slug, quantity in quantities.items():
            AgentResource.objects.update_or_create(
                agent=agent, resource_type=kinds[slug], defaults={"quantity": quantity}
            )

    return give


def holding(agent, slug: str) -> int:
    """How much of ``slug`` the agent holds now (0 without a row)."""
    row = AgentResource.objects.filter(agent=agent, resource_type__slug=slug).first()
    return row.quantity if row else 0


@pytest.fixture
def alice(make_agent):
    return make_agent("Alice", credits=100)


@pytest.fixture
def bob(make_agent):
    return make_agent("Bob", credits=100)


@pytest.fixture
def farm_kind(kinds) -> BuildingKind:
    kind = BuildingKind.objects.create(
        slug="farm", name="农田", credit_cost=40, job_slots=2, wage=12, produces=kinds["wheat"], produces_quantity=6
    )
    BuildingMaterial.objects.create(kind=kind, resource_type=kinds["wood"], quantity=10)
    BuildingMaterial.objects.create(kind=kind, resource_type=kinds["stone"], quantity=2)
    return kind


@pytest.fixture
def farm(farm_kind) -> Building:
    return Building.objects.create(
        name="城东农田", kind=farm_kind, job_slots=2, wage=12, produces=farm_kind.produces, produces_quantity=6
    )


@pytest.fixture
def bread_item(kinds) -> ShopItem:
    return ShopItem.objects.create(name="面包", price=8, resource_type=kinds["bread"], quantity=1)
