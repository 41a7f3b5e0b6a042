"""The offline rules policy of the autonomy tick: needs-based, deterministic, same execution path."""

from __future__ import annotations

import io
import json

import pytest
from asgiref.sync import async_to_sync

from agents.autonomy.decisions import parse_decisions, validate_decisions
from agents.autonomy.tick import run_tick
from agents.models import AgentActionLog, AutonomyRound
from bounties.models import Bounty
from city.autonomy.policy import RulesPolicy
from city.autonomy.world import build_world
from tests.agents.fixtures import city, resident  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def rules(settings):
    settings.AGENT_PROVIDER = "rules"


@pytest.fixture
def idle(resident, city):
    """A resident with nothing pressing: fed, rested, at work and already checked in today."""
    from city.models import CheckIn

    def make(name: str, **fields):
        agent = resident(name, job=city.mill, **fields)
        CheckIn.objects.create(agent=agent, day=build_world().day, building=city.mill, wage=15)
        return agent

    return make


def decide(seed: int = 0) -> dict[int, dict]:
    return RulesPolicy(seed).plan(build_world())


def action_of(agent, seed: int = 0) -> tuple[str, dict]:
    decision = decide(seed)[agent.pk]
    return decision["action"], decision["params"]


def test_a_hungry_agent_with_bread_eats(resident):
    alice = resident("Alice", holdings={"bread": 2}, satiety=20)
    assert action_of(alice) == ("eat", {"resource_type": "bread"})


def test_a_fed_agent_does_not_eat(resident):
    alice = resident("Alice", holdings={"bread": 2}, satiety=90)
    assert action_of(alice)[0] != "eat"


def test_a_hungry_agent_without_food_buys_some(resident, city):
    alice = resident("Alice", satiety=20, credits=50)
    assert action_of(alice) == ("purchase", {"item_id": city.bread_item.pk, "quantity": 1})


def test_a_hungry_agent_without_food_or_money_does_not_buy(resident):
    alice = resident("Alice", satiety=20, credits=3)
    assert action_of(alice)[0] not in ("purchase", "eat")


def test_a_tired_agent_rests(resident):
    alice = resident("Alice", energy=10)
    assert action_of(alice) == ("rest", {})


def test_an_idle_agent_with_no_active_bounty_claims_one(idle):
    alice = idle("Alice")
    small = Bounty.objects.create(title="扫地", reward=10)
    big = Bounty.objects.create(title="修城墙", reward=120)
    assert action_of(alice) == ("claim_bounty", {"bounty_id": big.pk})
    assert small.pk != big.pk


def test_an_agent_with_an_active_bounty_does_not_claim_another(idle):
    alice = idle("Alice")
    Bounty.objects.create(title="已接", reward=10, status="claimed", claimed_by=alice)
    Bounty.objects.create(title="开放", reward=50)
    assert action_of(alice)[0] != "claim_bounty"


def test_one_bounty_is_claimed_by_one_agent_per_tick(idle):
    alice, bob = idle("Alice"), idle("Bob")
    bounty = Bounty.objects.create(title="唯一的", reward=50)
    Bounty.objects.create(title="留给别人的", reward=5)  # residents leave the last open bounty
    plan = decide()
    claims = [d for d in plan.values() if d["action"] == "claim_bounty"]
    assert claims == [{"agent_id": alice.pk, "action": "claim_bounty", "params": {"bounty_id": bounty.pk}, "reason": claims[0]["reason"]}]
    assert plan[bob.pk]["action"] != "claim_bounty"


def test_an_employed_agent_checks_in_once_a_day(resident, city):
    from city.models import CheckIn

    alice = resident("Alice", job=city.mill)
    assert action_of(alice) == ("checkin", {})
    CheckIn.objects.create(agent=alice, day=build_world().day, building=city.mill, wage=15)
    assert action_of(alice)[0] != "checkin"


def test_an_unemployed_agent_finds_a_job_and_slots_are_not_oversubscribed(resident, city):
    alice, bob, carol = resident("Alice"), resident("Bob"), resident("Carol")
    plan = decide()
    assigned = [a for a in (alice, bob, carol) if plan[a.pk]["action"] == "assign_building"]
    assert assigned == [alice, bob]  # the mill has two slots
    assert plan[alice.pk]["params"] == {"building_id": city.mill.pk}


def test_a_batch_is_answered_once_its_own_residents_are_decided_whatever_order_batches_come_in(resident, city, monkeypatch):
    """On the workers the coordinator answers the first batch before the city is decided (its
    workers start sooner); asked in any order, each resident is decided after every earlier one, so
    the plan is the one decided at once: the mill's two slots still go to the first two residents."""
    people = [resident(name) for name in ("Alice", "Bob", "Carol", "Dave", "Erin", "Fay")]
    world = build_world()
    ids = list(world.residents)
    whole = RulesPolicy(3).plan(world)
    assert [whole[a.pk]["action"] == "assign_building" for a in people] == [True, True, False, False, False, False]

    def counted() -> tuple[RulesPolicy, list[int]]:
        policy, decided = RulesPolicy(3), []
        deciding = policy.decide
        monkeypatch.setattr(policy, "decide", lambda r, w, claims: decided.append(r.id) or deciding(r, w, claims))
        return policy, decided

    def answer(policy, batch):
        return {d["agent_id"]: d for d in json.loads(async_to_sync(policy.answer)(world, batch, "").text)}

    policy, decided = counted()
    last = answer(policy, ids[4:])  # the last batch asked first: everyone before it is decided too
    assert decided == ids
    assert answer(policy, ids[:2]) | answer(policy, ids[2:4]) | last == whole
    assert decided == ids  # nobody decided twice

    policy, decided = counted()
    assert answer(policy, ids[:2]) == {i: whole[i] for i in ids[:2]}
    assert decided == ids[:2]  # the first batch waited for nobody else


def test_surplus_food_is_shared_with_a_resident_who_has_none(resident, idle):
    alice = idle("Alice", holdings={"bread": 9})
    bob = resident("Bob", satiety=50)
    action, params = action_of(alice)
    assert action == "transfer_resource"
    assert params == {"to_agent_id": bob.pk, "resource_type": "bread", "quantity": 3}


def test_surplus_goods_are_put_on_the_market(resident):
    alice = resident("Alice", holdings={"flour": 20}, tools=("create_market_order", "rest"))
    action, params = action_of(alice)
    assert action == "create_market_order"
    assert params["resource_type"] == "flour" and params["quantity"] == 10 and params["price"] >= 1


def test_only_granted_actions_are_chosen(resident):
    alice = resident("Alice", holdings={"bread": 2}, satiety=20, tools=("rest", "chat"))
    assert action_of(alice)[0] in ("rest", "chat")


def test_the_policy_is_deterministic_for_a_seed(resident):
    for i in range(12):
        resident(f"R{i}", holdings={"bread": i % 3}, satiety=30 + i * 5, energy=20 + i * 6)
    Bounty.objects.create(title="任务", reward=30)
    first = decide(seed=7)
    assert len({d["action"] for d in first.values()}) > 2  # a varied plan, not a constant
    assert decide(seed=7) == first


def test_the_policy_answers_with_the_decision_json_a_model_would_send(resident):
    alice = resident("Alice", holdings={"bread": 2}, satiety=20)
    world = build_world()
    answer = async_to_sync(RulesPolicy().answer)(world, [alice.pk], "")
    assert answer.usage == {}
    decided = validate_decisions(parse_decisions(answer.text), [alice.pk])
    assert decided.decisions[alice.pk].action == "eat" and decided.ignored == 0


def test_a_rules_tick_runs_the_decisions_through_the_executor(resident, idle, settings):
    settings.CITY_SATIETY_DECAY = 0  # the satiety below is the meal's alone
    from city.models import AgentResource

    alice = resident("Alice", holdings={"bread": 2}, satiety=20)
    bob = idle("Bob")
    bounty = Bounty.objects.create(title="修城墙", reward=120)
    Bounty.objects.create(title="扫地", reward=5)  # residents leave the last open bounty
    result = run_tick()

    alice.refresh_from_db()
    bounty.refresh_from_db()
    assert alice.satiety == 50 and AgentResource.objects.get(agent=alice).quantity == 1
    assert (bounty.status, bounty.claimed_by) == ("claimed", bob)
    assert result.provider == "rules" and result.stats["success"] == 2 and result.stats["tokens"] == 0
    assert set(AgentActionLog.objects.values_list("action", flat=True)) == {"eat", "claim_bounty"}


def test_rules_ticks_keep_the_city_moving(resident, city):
    """Several ticks in a row: nobody starves with bread in hand, nothing fails for lack of checks."""
    for i in range(6):
        resident(f"R{i}", holdings={"bread": 4, "flour": 12}, satiety=25 + i * 10, energy=15 + i * 12, credits=60)
    Bounty.objects.bulk_create(Bounty(title=f"任务{i}", reward=10 * (i + 1)) for i in range(3))
    for _ in range(4):
        result = run_tick()
        assert result.stats["decided"] == 6
    failures = list(AgentActionLog.objects.filter(status="failed").values_list("action", "error_code"))
    assert failures == []
    # Residents leave the last open bounty on the board (it used to be emptied: 3 of 3 claimed).
    assert Bounty.objects.filter(status="claimed").count() == 2
    assert Bounty.objects.filter(status="open").count() == 1


def test_residents_leave_the_last_open_bounty(idle):
    alice = idle("Alice")
    Bounty.objects.create(title="最后一个", reward=120)
    assert action_of(alice)[0] != "claim_bounty"


def test_the_demo_board_is_never_emptied_by_the_residents(settings):
    # The demo city and its four bounties: within three ticks every one of them used to be claimed.
    from django.core.management import call_command

    settings.DEMO_BOUNTIES_OPEN = 0  # the policy alone, no new bounties
    call_command("seed_demo", stdout=io.StringIO())
    for _ in range(3):
        run_tick()
        assert Bounty.objects.filter(status="open").count() >= 1


def test_the_demo_posts_new_bounties_so_the_board_keeps_some_open(settings):
    from django.core.management import call_command

    settings.DEMO_BOUNTIES_OPEN = 3
    call_command("seed_demo", stdout=io.StringIO())
    titles_before = set(Bounty.objects.values_list("title", flat=True))
    for _ in range(4):
        run_tick()
        assert Bounty.objects.filter(status="open").count() >= 1
    assert Bounty.objects.filter(status="claimed").count() > 3  # more than the demo's four allowed, less the last
    assert set(Bounty.objects.values_list("title", flat=True)) - titles_before  # new ones were posted


def test_an_idle_resident_does_not_repeat_itself_forever(resident):
    alice = resident("Alice", tools=("chat", "rest"))
    for _ in range(8):
        run_tick()
    actions = list(AgentActionLog.objects.filter(agent=alice).order_by("id").values_list("action", flat=True))
    assert set(actions) == {"chat", "rest"}


def test_one_policy_instance_plans_each_tick_afresh(resident):
    alice = resident("Alice", holdings={"bread": 2}, satiety=20, tools=("eat", "rest"))
    policy = RulesPolicy()
    run_tick(policy=policy)
    run_tick(policy=policy)
    assert list(AgentActionLog.objects.filter(agent=alice).order_by("id").values_list("action", flat=True)) == ["eat", "rest"]


def last_round(agent, action: str, params: dict, *, status: str = "failed", error_code: str = "") -> None:
    """What the round log says the agent did last tick."""
    round_ = AutonomyRound.objects.create(provider="rules")
    AgentActionLog.objects.create(round=round_, agent=agent, action=action, params=params, status=status, error_code=error_code)


def test_a_failed_action_is_not_chosen_again_with_the_same_arguments(resident):
    alice = resident("Alice", holdings={"bread": 2}, satiety=20)
    last_round(alice, "eat", {"resource_type": "bread"}, error_code="insufficient_resource")
    assert action_of(alice) != ("eat", {"resource_type": "bread"})


def test_a_succeeded_action_may_be_chosen_again(resident):
    alice = resident("Alice", holdings={"bread": 2}, satiety=20)
    last_round(alice, "eat", {"resource_type": "bread"}, status="success")
    assert action_of(alice) == ("eat", {"resource_type": "bread"})


def test_a_failed_action_may_be_chosen_again_with_other_arguments(resident, city):
    alice = resident("Alice", satiety=20, credits=50)
    last_round(alice, "purchase", {"item_id": city.bread_item.pk, "quantity": 5}, error_code="insufficient_credits")
    assert action_of(alice) == ("purchase", {"item_id": city.bread_item.pk, "quantity": 1})


def test_a_new_building_is_not_given_a_name_already_taken(resident, city):
    from city.models import Building

    frank = resident("Frank", holdings={"wood": 20}, credits=200, tools=("construct_building", "rest"))
    taken = f"Frank的磨坊{build_world().day:%m%d}"
    Building.objects.create(name=taken, kind=city.mill_kind, job_slots=2, wage=15)
    assert action_of(frank) == ("construct_building", {"kind": "mill", "name": f"{taken}-2"})
