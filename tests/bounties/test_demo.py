"""Demo bounties: open ones on the board, tools granted, idempotent."""

import io

import pytest

from bounties import demo
from bounties.models import Bounty
from city.demo import RESIDENTS

pytestmark = pytest.mark.django_db


def test_seed_puts_open_bounties_on_the_board_and_grants_the_tools_to_residents(make_agent):
    resident = make_agent(next(iter(RESIDENTS)))
    desk_agent = make_agent("前台助理")
    demo.seed(io.StringIO())
    assert Bounty.objects.get(title="收集100小麦").reward == 50
    assert Bounty.objects.get(title="建造磨坊").reward == 80
    assert set(Bounty.objects.values_list("status", flat=True)) == {"open"}
    assert {"claim_bounty", "list_bounties", "complete_bounty"} <= set(resident.tools.values_list("name", flat=True))
    assert not desk_agent.tools.exists()


def test_seed_twice_changes_nothing(alice):
    demo.seed(io.StringIO())
    before = list(Bounty.objects.values_list("id", "title", "status").order_by("id"))
    claimed = Bounty.objects.get(title="建造磨坊")
    claimed.status, claimed.claimed_by = "claimed", alice
    claimed.save()
    demo.seed(io.StringIO())
    assert list(Bounty.objects.values_list("id", "title").order_by("id")) == [(i, t) for i, t, _ in before]
    assert Bounty.objects.get(title="建造磨坊").status == "claimed"


def test_keep_board_alive_posts_nothing_unless_the_setting_asks(settings):
    settings.DEMO_BOUNTIES_OPEN = 0
    assert demo.keep_board_alive() == []
    assert not Bounty.objects.exists()


def test_keep_board_alive_tops_the_open_bounties_up_to_the_setting(settings, alice):
    settings.DEMO_BOUNTIES_OPEN = 3
    demo.seed(io.StringIO())  # four open
    Bounty.objects.filter(title__in=["收集100小麦", "建造磨坊"]).update(status="cancelled")
    posted = demo.keep_board_alive()
    assert len(posted) == 1 and posted[0].title == demo.LATER_BOUNTIES[0][0]
    assert Bounty.objects.filter(status="open").count() == 3
    assert demo.keep_board_alive() == []  # enough are open
