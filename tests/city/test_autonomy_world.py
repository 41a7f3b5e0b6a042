"""The autonomy world snapshot: sections, seed line formats, per-batch prompts, fixed query cost."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from agents.models import Agent, AgentActionLog, AutonomyRound
from bounties.models import Bounty
from city.autonomy.world import MAX_OPEN_BOUNTIES, build_world, render_snapshot
from tests.agents.fixtures import city, resident  # noqa: F401  (fixtures)
from tests.support.django_process import run_django

pytestmark = pytest.mark.django_db

SECTIONS = ["== 居民状态 ==", "== 资源 ==", "== 建筑与工作 ==", "== 商店 ==", "== 交易市场 ==", "== 悬赏任务 ==", "== 上一轮行为 =="]


def snapshot(batch=None):
    world = build_world()
    return world, render_snapshot(world, batch if batch is not None else list(world.residents))


def test_snapshot_has_every_section_in_order(resident):
    resident("Alice")
    _, text = snapshot()
    positions = [text.index(section) for section in SECTIONS]
    assert positions == sorted(positions)


def test_world_snapshot_contains_bounties(resident):
    resident("Alice")
    bounty = Bounty.objects.create(title="收集100小麦", reward=50)
    _, text = snapshot()
    assert "== 悬赏任务 ==" in text
    assert f"- 悬赏#{bounty.pk}: 收集100小麦 | 奖励=50" in text


def test_world_snapshot_shows_claimed_bounty(resident):
    carol = resident("Carol")
    bounty = Bounty.objects.create(title="建造磨坊", reward=80, status="claimed", claimed_by=carol)
    _, text = snapshot()
    assert f"- 悬赏#{bounty.pk}: 建造磨坊 | 奖励=80 | 进行中(接取者ID={carol.pk})" in text
    assert f"进行中悬赏#{bounty.pk}" in text  # its title is in the bounty line


def test_no_bounty_line_when_there_are_none(resident):
    resident("Alice")
    Bounty.objects.create(title="旧的", reward=5, status="cancelled")
    _, text = snapshot()
    assert text.split("== 悬赏任务 ==\n")[1].startswith("(无悬赏)")


def test_resident_lines_show_needs_job_and_holdings(resident, city):
    alice = resident("Alice", holdings={"bread": 3, "flour": 10}, job=city.mill, credits=120, satiety=35, energy=60)
    _, text = snapshot()
    assert f"- ID={alice.pk} Alice 钱=120 饱食=35 精力=60 工作=建筑#{city.mill.pk}\n" in text  # not checked in: no mark
    assert f"- ID={alice.pk}: bread×3,flour×10" in text
    assert f"- #{city.mill.pk} 岗位1/2 薪15 产flour×4" in text.split("== 建筑与工作 ==")[1]
    assert "- 可建造(kind 花费): mill 80+wood×20" in text
    assert f"- 价格→所得: #{city.bread_item.pk} 8→bread×1" in text.split("== 商店 ==")[1]


def test_a_checked_in_resident_is_marked(resident, city):
    from city.services import checkin

    alice = resident("Alice", job=city.mill, energy=60)
    checkin(agent_id=alice.pk)
    _, text = snapshot()
    assert f"工作=建筑#{city.mill.pk}已打卡" in text


@pytest.mark.parametrize(("persona", "role"), [
    ("你是长安城西市的面包师 Alice，热心肠，乐于把多余的面粉和面包分给邻居。", "长安城西市的面包师"),
    ("You are Alice, the baker of Chang'an's West Market: warm-hearted.", "the baker of Chang'an's West Market"),
    ("热心的面包师", "热心的面包师"),
    ("You are Eve, a scholar just arrived in Chang'an with nothing to your name", "a scholar just arrived in Chang'an with nothing"),
    ("You are Eve, a travelling scholar arrived in Chang'an yesterday", "a travelling scholar arrived in Chang'an"),
    ("", ""),
])
def test_a_persona_is_its_opening_clause_without_the_address_and_name(persona, role):
    from city.autonomy.world import PERSONA_TOKENS, persona_role
    from agents.providers.tokens import estimate_tokens

    assert persona_role(persona, "Alice" if "Alice" in persona else "Eve") == role
    assert estimate_tokens(role) <= PERSONA_TOKENS


def test_the_resident_line_carries_the_role_not_the_whole_persona(resident):
    alice = resident("Alice", persona="你是长安城西市的面包师 Alice，热心肠，乐于把多余的面粉和面包分给邻居。")
    _, text = snapshot()
    assert f"- ID={alice.pk} Alice(长安城西市的面包师) 钱=" in text and "热心肠" not in text


def test_market_orders_are_listed_and_who_lacks_food_is_read_from_the_resources(resident):
    from city.services import create_market_order

    alice = resident("Alice", holdings={"flour": 10})
    bob = resident("Bob", holdings={"bread": 1}, satiety=20)
    order = create_market_order(agent_id=alice.pk, resource_type="flour", quantity=4, price=12)
    _, text = snapshot()
    assert f"- 挂单#{order.pk} ID={alice.pk}卖flour×4 总价12" in text
    assert f"- ID={alice.pk}: flour×6 | 挂单#{order.pk}\n" in text  # the market section lists it: named by id
    assert f"- ID={bob.pk}: bread×1" in text
    assert "没有食物的居民" not in text  # the resources section already says it: no line repeats it


def test_previous_round_section_shows_the_outcome_and_failure_reason(resident):
    alice = resident("Alice")
    bob = resident("Bob")
    old = AutonomyRound.objects.create(provider="rules")
    AgentActionLog.objects.create(round=old, agent=alice, action="rest", status="success", message="休息好了")
    latest = AutonomyRound.objects.create(provider="rules")
    AgentActionLog.objects.create(
        round=latest, agent=alice, action="claim_bounty", status="failed", message="该悬赏已被接取或不再开放",
        error_code="bounty_not_open",
    )
    _, text = snapshot()
    section = text.split("== 上一轮行为 ==\n")[1]
    assert f"- ID={alice.pk} Alice: claim_bounty 失败：该悬赏已被接取或不再开放" in section
    assert "休息好了" not in section
    assert f"ID={bob.pk}" not in section


def test_a_residents_last_action_carries_its_params_and_error_code(resident):
    alice = resident("Alice")
    AgentActionLog.objects.create(
        round=AutonomyRound.objects.create(provider="rules"), agent=alice, action="construct_building",
        params={"kind": "mill", "name": "磨坊"}, status="failed", error_code="building_name_taken",
    )
    last = build_world().residents[alice.pk].last
    assert (last.action, last.params, last.error_code, last.failed) == (
        "construct_building", {"kind": "mill", "name": "磨坊"}, "building_name_taken", True,
    )


def test_batch_snapshot_holds_only_its_residents_and_the_shared_world(resident):
    alice, bob, carol = resident("Alice"), resident("Bob"), resident("Carol")
    bounty = Bounty.objects.create(title="修路", reward=20)
    world, text = snapshot()
    only_bob = render_snapshot(world, [bob.pk])
    assert f"ID={bob.pk} Bob" in only_bob
    assert f"ID={alice.pk} Alice |" not in only_bob and f"ID={carol.pk} Carol |" not in only_bob
    assert f"悬赏#{bounty.pk}: 修路" in only_bob and "== 商店 ==" in only_bob


def test_shared_lists_are_capped_so_prompts_do_not_grow(resident):
    resident("Alice")
    Bounty.objects.bulk_create(Bounty(title=f"任务{i}", reward=10) for i in range(MAX_OPEN_BOUNTIES + 12))
    _, text = snapshot()
    section = text.split("== 悬赏任务 ==\n")[1].split("==")[0]
    assert section.count("| 奖励=10\n") == MAX_OPEN_BOUNTIES
    assert "(另有 12 项未列出)" in section


def test_inactive_agents_and_agents_without_actions_are_not_residents(resident, make_agent):
    alice = resident("Alice")
    resident("Sleeper", is_active=False)
    desk = make_agent("Desk", tools=("get_my_status",))
    world = build_world()
    assert list(world.residents) == [alice.pk]
    assert desk.pk not in world.agents


def test_a_tick_can_be_limited_to_chosen_agents(resident):
    alice, bob = resident("Alice"), resident("Bob")
    assert list(build_world([bob.pk]).residents) == [bob.pk]


def make_residents(count: int) -> None:
    from agents.models import Tool
    from city.models import AgentResource, Building, Employment, ResourceType

    start = Agent.objects.count()
    agents = Agent.objects.bulk_create(Agent(name=f"R{start + i}") for i in range(count))
    tools = list(Tool.objects.filter(name__in=["rest", "eat", "claim_bounty"]))
    Agent.tools.through.objects.bulk_create(Agent.tools.through(agent=a, tool=t) for a in agents for t in tools)
    bread = ResourceType.objects.get(slug="bread")
    AgentResource.objects.bulk_create(AgentResource(agent=a, resource_type=bread, quantity=2) for a in agents)
    mill = Building.objects.get(name="西市磨坊")
    Employment.objects.bulk_create(Employment(agent=a, building=mill) for a in agents[:2])
    Bounty.objects.bulk_create(Bounty(title="任务", reward=5, status="claimed", claimed_by=a) for a in agents[2:6])
    round_ = AutonomyRound.objects.create(provider="rules")
    AgentActionLog.objects.bulk_create(AgentActionLog(round=round_, agent=a, action="rest", status="success") for a in agents)


def queries_for_snapshot() -> tuple[int, int]:
    with CaptureQueriesContext(connection) as captured:
        world = build_world()
        for batch_start in range(0, len(world.residents), 20):
            render_snapshot(world, list(world.residents)[batch_start : batch_start + 20])
    return len(captured.captured_queries), len(world.residents)


def test_snapshot_costs_the_same_number_of_queries_for_10_and_1000_agents(city):
    Bounty.objects.create(title="开放的", reward=10)
    make_residents(10)
    small, residents = queries_for_snapshot()
    assert residents == 10
    make_residents(990)
    large, residents = queries_for_snapshot()
    assert residents == 1000
    assert small == large
    assert large <= 20


def test_the_residents_grants_are_read_once_not_again_for_each_of_their_rows(city):
    """Each read of the residents' rows named them by a subquery over every grant, which SQLite
    evaluated again each time (60 ms a read at 10,000 residents)."""
    make_residents(30)
    for chosen in (None, list(Agent.objects.values_list("pk", flat=True)[:12])):
        with CaptureQueriesContext(connection) as captured:
            world = build_world(chosen)
        grant_reads = [q["sql"] for q in captured.captured_queries if '"agents_agent_tools"' in q["sql"]]
        assert len(grant_reads) == 2, grant_reads  # who the residents are, and what each was granted
        assert len(world.residents) == (30 if chosen is None else 12)
        assert all(r.holdings == {"bread": 2} and r.granted for r in world.residents.values())


def test_previous_successes_are_one_line_per_action_without_their_messages(resident):
    alice, bob, carol = resident("Alice"), resident("Bob"), resident("Carol")
    latest = AutonomyRound.objects.create(provider="rules")
    for agent in (alice, bob):
        AgentActionLog.objects.create(round=latest, agent=agent, action="rest", status="success", message="休息好了，精力 90")
    AgentActionLog.objects.create(round=latest, agent=carol, action="eat", status="failed", message="没有食物")
    _, text = snapshot()
    section = text.split("== 上一轮行为 ==\n")[1]
    assert f"- rest 成功: ID={alice.pk},{bob.pk}" in section
    assert f"- ID={carol.pk} Carol: eat 失败：没有食物" in section
    assert "休息好了" not in section


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_the_world_reads_each_residents_grants_in_one_row_on_either_database(kind, django_child):
    """``ToolNames`` is ``GROUP_CONCAT`` on SQLite and ``STRING_AGG`` on PostgreSQL."""
    url = django_child(kind)
    run_django(url, "tests.agents.celery_scenarios:populate", agents=8)
    read = run_django(url, "tests.city.world_scenarios:grants_as_the_world_reads_them")
    assert read["world"] == read["table"]
    assert {len(names) for names in read["world"].values()} == {1, 2, 3}
