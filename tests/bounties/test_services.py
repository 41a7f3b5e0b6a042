"""Bounty services: each success and each failure, in DESIGN §7's order, never committing."""

import pytest
from django.db import transaction
from django.utils import translation

from agents.models import Agent
from bounties import services
from bounties.models import Bounty
from city.models import CreditEntry
from core.errors import ApplicationError, Conflict, NotFound

pytestmark = pytest.mark.django_db


def error_of(call, **kwargs) -> ApplicationError:
    with pytest.raises(ApplicationError) as info:
        call(**kwargs)
    return info.value


# claim


def test_claim_succeeds_on_an_open_bounty(alice, make_bounty):
    bounty = make_bounty()
    claimed = services.claim_bounty(agent_id=alice.pk, bounty_id=bounty.pk)
    assert (claimed.pk, claimed.title, claimed.reward) == (bounty.pk, "收集100小麦", 50)
    bounty.refresh_from_db()
    assert bounty.status == "claimed"
    assert bounty.claimed_by == alice
    assert bounty.claimed_at is not None


def test_claim_of_a_missing_bounty_is_bounty_not_found(alice):
    error = error_of(services.claim_bounty, agent_id=alice.pk, bounty_id=999)
    assert isinstance(error, NotFound)
    assert (error.code, error.message) == ("bounty_not_found", "悬赏不存在")


def test_claim_by_a_missing_agent_is_agent_not_found(make_bounty):
    bounty = make_bounty()
    error = error_of(services.claim_bounty, agent_id=999, bounty_id=bounty.pk)
    assert isinstance(error, NotFound)
    assert (error.code, error.message) == ("agent_not_found", "居民不存在")
    assert Bounty.objects.get().status == "open"


def test_claim_checks_the_bounty_before_the_agent():
    assert error_of(services.claim_bounty, agent_id=998, bounty_id=999).code == "bounty_not_found"


def test_claim_is_refused_while_the_agent_has_an_active_bounty(alice, make_bounty):
    first, second = make_bounty("第一个"), make_bounty("第二个")
    services.claim_bounty(agent_id=alice.pk, bounty_id=first.pk)
    error = error_of(services.claim_bounty, agent_id=alice.pk, bounty_id=second.pk)
    assert isinstance(error, Conflict)
    assert (error.code, error.message) == ("active_bounty_exists", "Alice 已有进行中的悬赏，完成后才能接取新的")
    assert Bounty.objects.get(pk=second.pk).status == "open"


def test_claim_checks_the_active_bounty_before_the_target_state(alice, bob, make_bounty):
    services.claim_bounty(agent_id=alice.pk, bounty_id=make_bounty("Alice 的").pk)
    taken = make_bounty("Bob 的", status="claimed", claimed_by=bob)
    assert error_of(services.claim_bounty, agent_id=alice.pk, bounty_id=taken.pk).code == "active_bounty_exists"


def test_claim_loses_when_already_claimed_by_another_agent(alice, bob, make_bounty):
    bounty = make_bounty(status="claimed", claimed_by=bob)
    error = error_of(services.claim_bounty, agent_id=alice.pk, bounty_id=bounty.pk)
    assert isinstance(error, Conflict)
    assert (error.code, error.message) == ("bounty_not_open", "该悬赏已被接取或不再开放")
    assert Bounty.objects.get().claimed_by == bob


@pytest.mark.parametrize("status", ["completed", "cancelled"])
def test_claim_of_a_closed_bounty_is_bounty_not_open(alice, bob, make_bounty, status):
    bounty = make_bounty(status=status, claimed_by=bob if status == "completed" else None)
    assert error_of(services.claim_bounty, agent_id=alice.pk, bounty_id=bounty.pk).code == "bounty_not_open"


def test_claim_after_completing_the_previous_one_is_allowed(alice, make_bounty):
    first, second = make_bounty("第一个"), make_bounty("第二个")
    services.claim_bounty(agent_id=alice.pk, bounty_id=first.pk)
    services.complete_bounty(agent_id=alice.pk, bounty_id=first.pk)
    assert services.claim_bounty(agent_id=alice.pk, bounty_id=second.pk).status == "claimed"


def test_claim_limit_is_one_active_bounty(alice, make_bounty):
    first, second = make_bounty("第一个"), make_bounty("第二个")
    services.claim_bounty(agent_id=alice.pk, bounty_id=first.pk)
    with pytest.raises(Conflict, match="已有进行中"):
        services.claim_bounty(agent_id=alice.pk, bounty_id=second.pk)
    assert Bounty.objects.filter(claimed_by=alice, status="claimed").count() == 1


def test_claim_does_not_commit_the_callers_transaction(alice, make_bounty):
    bounty = make_bounty()
    with transaction.atomic():
        services.claim_bounty(agent_id=alice.pk, bounty_id=bounty.pk)
        assert Bounty.objects.get().status == "claimed"
        transaction.set_rollback(True)
    bounty.refresh_from_db()
    assert (bounty.status, bounty.claimed_by, bounty.claimed_at) == ("open", None, None)


def test_claim_failure_leaves_the_callers_transaction_usable(alice, make_bounty):
    first, second = make_bounty("第一个"), make_bounty("第二个")
    with transaction.atomic():
        services.claim_bounty(agent_id=alice.pk, bounty_id=first.pk)
        with pytest.raises(Conflict):
            services.claim_bounty(agent_id=alice.pk, bounty_id=second.pk)
        Agent.objects.filter(pk=alice.pk).update(energy=10)  # still usable after the refusal
    assert Bounty.objects.get(pk=first.pk).claimed_by == alice
    assert Agent.objects.get(pk=alice.pk).energy == 10


def test_claim_messages_are_translated_to_english(alice):
    with translation.override("en"):
        error = error_of(services.claim_bounty, agent_id=alice.pk, bounty_id=999)
    assert error.message == "Bounty not found"


# complete


def test_complete_pays_the_reward_to_the_claimer(alice, make_bounty):
    bounty = make_bounty(reward=80)
    services.claim_bounty(agent_id=alice.pk, bounty_id=bounty.pk)
    completed = services.complete_bounty(agent_id=alice.pk, bounty_id=bounty.pk)
    assert completed.status == "completed"
    assert completed.completed_at is not None
    assert Agent.objects.get(pk=alice.pk).credits == 180


def test_complete_by_another_agent_is_not_claimer(alice, bob, make_bounty):
    bounty = make_bounty(status="claimed", claimed_by=alice)
    error = error_of(services.complete_bounty, agent_id=bob.pk, bounty_id=bounty.pk)
    assert isinstance(error, Conflict)
    assert error.code == "not_claimer"
    assert Bounty.objects.get().status == "claimed"
    assert Agent.objects.get(pk=bob.pk).credits == 100


def test_complete_of_an_open_bounty_is_bounty_not_claimed(alice, make_bounty):
    bounty = make_bounty()
    error = error_of(services.complete_bounty, agent_id=alice.pk, bounty_id=bounty.pk)
    assert (type(error), error.code) == (Conflict, "bounty_not_claimed")


def test_complete_twice_pays_once(alice, make_bounty):
    bounty = make_bounty(status="claimed", claimed_by=alice)
    services.complete_bounty(agent_id=alice.pk, bounty_id=bounty.pk)
    assert error_of(services.complete_bounty, agent_id=alice.pk, bounty_id=bounty.pk).code == "bounty_not_claimed"
    assert Agent.objects.get(pk=alice.pk).credits == 150


def test_complete_of_a_missing_bounty_is_bounty_not_found(alice):
    assert error_of(services.complete_bounty, agent_id=alice.pk, bounty_id=999).code == "bounty_not_found"


def test_complete_by_a_missing_agent_is_agent_not_found(alice, make_bounty):
    bounty = make_bounty(status="claimed", claimed_by=alice)
    assert error_of(services.complete_bounty, agent_id=999, bounty_id=bounty.pk).code == "agent_not_found"


def test_complete_does_not_commit_the_callers_transaction(alice, make_bounty):
    bounty = make_bounty(status="claimed", claimed_by=alice)
    with transaction.atomic():
        services.complete_bounty(agent_id=alice.pk, bounty_id=bounty.pk)
        transaction.set_rollback(True)
    assert Bounty.objects.get().status == "claimed"
    assert Agent.objects.get(pk=alice.pk).credits == 100


def test_complete_writes_the_reward_in_the_credits_ledger(alice, make_bounty):
    bounty = make_bounty(title="修路", reward=30, status="claimed", claimed_by=alice)
    services.complete_bounty(agent_id=alice.pk, bounty_id=bounty.pk)
    entry = CreditEntry.objects.get()
    assert (entry.agent, entry.amount, entry.source, entry.reason, entry.reference) == (
        alice, 30, "bounty", "修路", f"bounty:{bounty.pk}"
    )


def test_complete_of_a_bounty_already_paid_is_bounty_not_claimed_and_pays_nothing(alice, make_bounty):
    # What a racing second completion meets on PostgreSQL once the first one committed.
    bounty = make_bounty(reward=30, status="claimed", claimed_by=alice)
    CreditEntry.objects.create(agent=alice, amount=30, source="bounty", reason="修路", reference=f"bounty:{bounty.pk}")
    error = error_of(services.complete_bounty, agent_id=alice.pk, bounty_id=bounty.pk)
    assert (type(error), error.code) == (Conflict, "bounty_not_claimed")
    assert (Bounty.objects.get().status, Agent.objects.get(pk=alice.pk).credits) == ("claimed", 100)
    assert CreditEntry.objects.count() == 1


# create


def test_create_publishes_an_open_bounty(staff_user):
    bounty = services.create_bounty(title="  建造磨坊 ", description="城东", reward=80, created_by=staff_user)
    assert (bounty.title, bounty.description, bounty.reward, bounty.status) == ("建造磨坊", "城东", 80, "open")
    assert bounty.created_by == staff_user


@pytest.mark.parametrize("title", ["", "   ", None])
def test_create_needs_a_title(title):
    error = error_of(services.create_bounty, title=title, reward=10)
    assert (error.code, error.field) == ("title_required", "title")
    assert not Bounty.objects.exists()


def test_create_refuses_a_title_over_200_characters():
    error = error_of(services.create_bounty, title="字" * 201, reward=10)
    assert (error.code, error.field) == ("title_too_long", "title")


def test_create_refuses_a_description_over_5000_characters():
    error = error_of(services.create_bounty, title="修路", reward=5, description="字" * 5001)
    assert (error.code, error.field) == ("description_too_long", "description")


@pytest.mark.parametrize("reward", [0, -5, None, "50", 2.5, True, 1_000_001])
def test_create_needs_a_positive_whole_reward(reward):
    error = error_of(services.create_bounty, title="修路", reward=reward)
    assert (error.code, error.field) == ("invalid_reward", "reward")
    assert not Bounty.objects.exists()


def test_create_does_not_commit_the_callers_transaction():
    with transaction.atomic():
        services.create_bounty(title="修路", reward=5)
        transaction.set_rollback(True)
    assert not Bounty.objects.exists()


# cancel


def test_cancel_withdraws_an_open_bounty(make_bounty):
    bounty = services.cancel_bounty(bounty_id=make_bounty().pk)
    assert bounty.status == "cancelled"
    assert bounty.cancelled_at is not None


def test_cancel_of_a_claimed_bounty_is_refused(alice, make_bounty):
    bounty = make_bounty(status="claimed", claimed_by=alice)
    error = error_of(services.cancel_bounty, bounty_id=bounty.pk)
    assert (type(error), error.code) == (Conflict, "bounty_not_open")
    assert Bounty.objects.get().status == "claimed"


def test_cancel_of_a_missing_bounty_is_bounty_not_found():
    assert error_of(services.cancel_bounty, bounty_id=5).code == "bounty_not_found"


def test_post_bounties_to_keep_open_posts_the_missing_ones_in_turn():
    from bounties.services import post_bounties_to_keep_open

    drafts = [("甲", "", 10), ("乙", "", 20)]
    first = post_bounties_to_keep_open(minimum=3, drafts=drafts)
    assert [b.title for b in first] == ["甲", "乙", "甲"]
    assert post_bounties_to_keep_open(minimum=3, drafts=drafts) == []
    Bounty.objects.filter(pk=first[0].pk).update(status="cancelled")
    assert [b.title for b in post_bounties_to_keep_open(minimum=3, drafts=drafts)] == ["乙"]  # the next in turn
    assert post_bounties_to_keep_open(minimum=0, drafts=drafts) == []
