"""The database itself guards the bounty invariants, whatever code writes."""

import pytest
from django.db import IntegrityError, transaction

from bounties.models import Bounty

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("reward", [0, -1, 1_000_001])
def test_reward_out_of_range_is_refused_by_the_database(reward):
    with pytest.raises(IntegrityError), transaction.atomic():
        Bounty.objects.create(title="x", reward=reward)


def test_two_claimed_bounties_of_one_agent_are_refused_by_the_database(alice, make_bounty):
    make_bounty("一", status="claimed", claimed_by=alice)
    with pytest.raises(IntegrityError), transaction.atomic():
        make_bounty("二", status="claimed", claimed_by=alice)


def test_one_agent_may_hold_many_completed_bounties(alice, make_bounty):
    make_bounty("一", status="claimed", claimed_by=alice)
    make_bounty("二", status="completed", claimed_by=alice)
    make_bounty("三", status="completed", claimed_by=alice)
    assert Bounty.objects.filter(claimed_by=alice).count() == 3


def test_a_claimed_bounty_without_claimer_is_refused_by_the_database():
    with pytest.raises(IntegrityError), transaction.atomic():
        Bounty.objects.create(title="x", reward=1, status="claimed")


def test_an_open_bounty_with_a_claimer_is_refused_by_the_database(alice):
    with pytest.raises(IntegrityError), transaction.atomic():
        Bounty.objects.create(title="x", reward=1, status="open", claimed_by=alice)


def test_unknown_status_is_refused_by_the_database():
    with pytest.raises(IntegrityError), transaction.atomic():
        Bounty.objects.create(title="x", reward=1, status="lost")
