"""Buttons that change something for good ask first, saying what will happen with the amounts;
answering no changes nothing."""

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def answer(page, accept: bool) -> list[str]:
    """Answer the next question the page asks; the list receives its text."""
    questions: list[str] = []
    page.once("dialog", lambda dialog: (questions.append(dialog.message), dialog.accept() if accept else dialog.dismiss()))
    return questions


def test_complete_and_pay_says_who_gets_how_much_and_waits_for_yes(staff_page):
    from agents.models import Agent
    from bounties.models import Bounty

    alice = Agent.objects.create(name="Alice", credits=100)
    bounty = Bounty.objects.create(title="收集100小麦", reward=50, status="claimed", claimed_by=alice)
    page = staff_page
    page.goto("/bounties/")
    button = page.locator(f"#bounty-{bounty.pk} button[name=complete]")

    questions = answer(page, accept=False)
    button.click()
    page.wait_for_timeout(500)  # time for a request, had one gone out
    expect(page.locator("#column-claimed")).to_contain_text("收集100小麦")
    assert questions == [f"完成悬赏 #{bounty.pk}「收集100小麦」，并从悬赏中向 Alice 支付 50 信用点？支付后不能撤回。"]
    assert Bounty.objects.get(pk=bounty.pk).status == "claimed" and Agent.objects.get(pk=alice.pk).credits == 100

    answer(page, accept=True)
    button.click()
    expect(page.locator("#column-completed")).to_contain_text("收集100小麦")
    assert Agent.objects.get(pk=alice.pk).credits == 150


def test_cancel_a_bounty_asks_first(staff_page):
    from bounties.models import Bounty

    bounty = Bounty.objects.create(title="建造磨坊", reward=80)
    page = staff_page
    page.goto("/bounties/")
    questions = answer(page, accept=False)
    page.locator(f"#bounty-{bounty.pk} button[name=cancel]").click()
    page.wait_for_timeout(500)
    expect(page.locator("#column-open")).to_contain_text("建造磨坊")
    assert "（奖励 80 信用点）" in questions[0]
    assert Bounty.objects.get(pk=bounty.pk).status == "open"


@pytest.mark.parametrize("browser_locale", ["en-US"])
def test_disable_a_fund_asks_first_in_english(staff_page):
    from funds.models import Fund
    from funds.services import create_fund

    fund = create_fund(fund_name="Alpha")
    page = staff_page
    page.goto("/funds/")
    button = page.locator(f"#fund-{fund.pk} button[value=disable]")
    questions = answer(page, accept=False)
    button.click()
    page.wait_for_timeout(500)
    expect(button).to_be_visible()
    assert questions == [f"Disable fund #{fund.pk} “Alpha”? It will show as disabled until someone enables it again."]
    assert Fund.objects.get(pk=fund.pk).active_status == "ENABLE"

    answer(page, accept=True)
    button.click()
    expect(page.locator(f"#fund-{fund.pk} button[value=enable]")).to_be_visible()
    assert Fund.objects.get(pk=fund.pk).active_status == "DISABLE"
