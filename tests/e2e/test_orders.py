"""The early-checkout desk in a real browser: the agent works, the channels fill live, staff confirm the refund."""

import io
import re

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def desk_data(transactional_db):
    from orders import demo

    demo.seed(io.StringIO())


def test_desk_agent_handles_an_early_checkout_and_another_page_sees_it_live(desk_data, staff_page):
    watcher = staff_page
    watcher.goto("/orders/")
    expect(watcher.locator("#live-status")).to_have_attribute("data-state", "open")
    expect(watcher.locator("#order-HT20260301001")).to_have_attribute("data-refund", "")
    expect(watcher.locator("#live-upstream .feed .empty")).to_be_visible()

    # A second tab talks to the agent; the watcher gets only the live events.
    worker = watcher.context.new_page()
    worker.goto("/orders/")
    worker.locator("#desk-chat textarea[name=message]").fill("客人要提前离店，订单 HT20260301001")
    worker.locator("#desk-chat button[name=chat]").click()
    expect(worker.locator("#desk-chat")).to_contain_text("等待员工确认", timeout=20_000)
    expect(worker.locator("#desk-chat .msg.call")).to_have_count(4)

    upstream = watcher.locator("#live-upstream")
    expect(upstream.locator("li[data-sender=desk]")).to_contain_text("SUP-88901")
    expect(upstream.locator("li[data-sender=supplier]")).to_have_text(re.compile("已处理完成，可以办理退款"))
    expect(upstream.locator(".channel-head .badge")).to_have_attribute("data-unread", "2")
    # The refund waits for staff: nothing registered, the guest told nothing, the proposal listed live.
    pending = watcher.locator("#desk-refunds tr.pending-refund")
    expect(pending).to_have_count(1)
    expect(pending).to_have_attribute("data-order", "HT20260301001")
    expect(pending).to_contain_text("张三")
    expect(watcher.locator("#order-HT20260301001")).to_have_attribute("data-refund", "")
    downstream = watcher.locator("#live-downstream")
    expect(downstream.locator(".feed .empty")).to_be_visible()

    # The watcher confirms (after the page said what will happen); the refund registers and only
    # then the guest is told, on both tabs.
    questions = []
    watcher.once("dialog", lambda dialog: (questions.append(dialog.message), dialog.accept()))
    pending.locator("button[name=decide][value=confirm]").click()
    expect(watcher.locator("#desk-refunds .decided")).to_contain_text("已通知客人 张三")
    expect(watcher.locator("#desk-refunds tr.pending-refund")).to_have_count(0)
    assert "为订单 HT20260301001（客人 张三，杭州西湖大酒店）登记退款" in questions[0]
    expect(watcher.locator("#order-HT20260301001")).to_have_attribute("data-refund", "registered")
    expect(watcher.locator("#order-HT20260301001 .refund")).to_have_text("已登记")
    expect(downstream.locator("li[data-sender=desk]")).to_contain_text("张三")
    expect(worker.locator("#desk-refunds tr.pending-refund")).to_have_count(0)
    expect(worker.locator("#live-downstream li[data-sender=desk]")).to_contain_text("退款已登记")
    # The chat that proposed the refund shows its outcome live, without a reload.
    expect(worker.locator("#desk-transcript")).to_contain_text("已通知客人 张三")

    # Reading the upstream channel clears its unread marker, here and on the other tab.
    watcher.locator("#live-upstream button[name=mark_read]").click()
    expect(upstream.locator(".channel-head .badge")).to_have_attribute("data-unread", "0")
    expect(upstream.locator("li.unread")).to_have_count(0)
    expect(worker.locator("#live-upstream .channel-head .badge")).to_have_attribute("data-unread", "0")
    expect(downstream.locator(".channel-head .badge")).to_have_attribute("data-unread", "1")


def test_staff_reject_a_proposed_refund_and_the_guest_hears_nothing(desk_data, staff_page):
    page = staff_page
    page.goto("/orders/")
    expect(page.locator("#live-status")).to_have_attribute("data-state", "open")
    page.locator("#desk-chat textarea[name=message]").fill("客人要提前离店，订单 HT20260301002")
    page.locator("#desk-chat button[name=chat]").click()
    pending = page.locator("#desk-refunds tr.pending-refund")
    expect(pending).to_have_count(1, timeout=20_000)
    page.once("dialog", lambda dialog: dialog.accept())
    pending.locator("button[name=decide][value=reject]").click()
    expect(page.locator("#desk-refunds .decided")).to_contain_text("已取消")
    expect(page.locator("#desk-refunds tr.pending-refund")).to_have_count(0)
    expect(page.locator("#order-HT20260301002")).to_have_attribute("data-refund", "")
    expect(page.locator("#live-downstream .feed .empty")).to_be_visible()
