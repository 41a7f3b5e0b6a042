"""Streamed replies in a real browser: the text grows as the model writes it, Stop stops it (and
the model request), and the page goes on working. The chat page and the funds panel share the code."""

import os
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.agents.fixtures import endpoint  # noqa: F401  (fixture)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PIECES = [f"第{n}句。" for n in range(16)]  # 0.3 s apart: about 5 s if read to the end
SCREENSHOTS = Path(os.environ.get("AGENTDESK_SCREENSHOTS", "/tmp/agentdesk-screens"))


def stored_as_stopped() -> None:
    """Wait until the server kept the stopped reply (it does so once the model's request is closed)."""
    from agents.models import Message

    deadline = time.monotonic() + 5
    while not Message.objects.filter(stopped=True).exists():
        assert time.monotonic() < deadline, "the stopped reply was never stored"
        time.sleep(0.05)


@pytest.fixture
def alice(endpoint, transactional_db):  # the endpoint's settings before the live server forks
    from agents.models import Agent, Tool

    agent = Agent.objects.create(name="Alice", persona="热心的面包师", credits=70)
    agent.tools.set(Tool.objects.filter(name="get_my_status"))
    return agent


@pytest.fixture
def fund_agent(endpoint, transactional_db):
    from agents.models import Agent, Tool

    agent = Agent.objects.create(name="基金助理")
    agent.tools.set(Tool.objects.filter(name__in=("list_funds", "create_fund")))
    return agent


def test_the_reply_grows_as_it_is_written_and_the_panel_settles_at_the_end(alice, endpoint, staff_page):
    endpoint.reply(PIECES[:6], chunk_delay=0.3)
    page = staff_page
    page.goto(f"/agents/{alice.pk}/chat/")
    page.evaluate("window.__sameDocument = true")
    page.locator("textarea[name=message]").fill("讲个故事")
    page.get_by_role("button", name="发送").click()

    streaming = page.locator("#chat-log .msg.assistant.streaming")
    expect(streaming).to_contain_text("第1句。")
    assert "第5句。" not in streaming.inner_text()  # shown before the model wrote the rest
    expect(page.get_by_role("button", name="停止")).to_be_visible()

    reply = page.locator("#chat-log .msg.assistant").last
    expect(reply).to_contain_text("第5句。")
    expect(page.locator("#chat-log .msg.assistant.streaming")).to_have_count(0)  # the server's panel took over
    expect(page.get_by_role("button", name="停止")).to_be_hidden()
    expect(page).to_have_url(f"{page.url.split('?')[0]}?conversation={alice.conversations.get().pk}")
    assert page.evaluate("window.__sameDocument") is True


def test_what_is_typed_while_the_reply_comes_in_survives_the_panel_that_replaces_it(alice, endpoint, staff_page):
    endpoint.reply(PIECES[:6], chunk_delay=0.3)
    page = staff_page
    page.goto(f"/agents/{alice.pk}/chat/")
    page.locator("textarea[name=message]").fill("讲个故事")
    page.get_by_role("button", name="发送").click()
    expect(page.locator("#chat-log .msg.assistant.streaming")).to_contain_text("第1句。")

    page.locator("textarea[name=message]").fill("再讲一个")  # the next message, typed before the reply ends
    expect(page.locator("#chat-log .msg.assistant.streaming")).to_have_count(0)  # the server's panel took over
    expect(page.locator("#chat-log .msg.assistant").last).to_contain_text("第5句。")
    expect(page.locator("textarea[name=message]")).to_have_value("再讲一个")


def test_stop_ends_the_reply_and_the_model_request_and_the_page_goes_on(alice, endpoint, staff_page):
    from agents.models import Message

    endpoint.reply(PIECES, chunk_delay=0.3).reply("好的，换个话题。")
    page = staff_page
    page.goto(f"/agents/{alice.pk}/chat/")
    page.locator("textarea[name=message]").fill("讲个长故事")
    page.get_by_role("button", name="发送").click()

    expect(page.locator("#chat-log .msg.assistant.streaming")).to_contain_text("第1句。")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "chat-streaming.png"))
    page.get_by_role("button", name="停止").click()

    stopped = page.locator("#chat-log .msg.assistant.stopped")
    expect(stopped).to_contain_text("已停止")
    assert endpoint.stream_aborted.wait(5.0)  # the model's request was closed, not left running
    assert endpoint.streams_finished == 0
    expect(page.get_by_role("button", name="发送")).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "chat-stopped.png"))
    stored_as_stopped()

    page.locator("textarea[name=message]").fill("换个话题")
    page.get_by_role("button", name="发送").click()
    expect(page.locator("#chat-log .msg.assistant").last).to_contain_text("好的，换个话题。")
    # The server's own transcript now shows the stopped reply, marked, in the same conversation.
    expect(page.locator("#chat-log .msg.assistant.stopped")).to_contain_text("已停止")
    assert alice.conversations.count() == 1
    kept = Message.objects.get(role=Message.Role.ASSISTANT, stopped=True)
    assert kept.content.startswith("第0句。") and "第15句。" not in kept.content


def test_the_funds_panel_streams_and_stops_the_same_way(fund_agent, endpoint, staff_page):
    endpoint.reply(PIECES, chunk_delay=0.3).reply("目前没有基金。")
    page = staff_page
    page.goto("/funds/")
    box = page.locator("#fund-chat-form textarea[name=message]")
    box.fill("讲讲基金的故事")
    page.locator("#fund-chat-form button[type=submit]").first.click()

    expect(page.locator("#chat-log .msg.assistant.streaming")).to_contain_text("第1句。")
    page.screenshot(path=str(SCREENSHOTS / "funds-streaming.png"))
    page.locator("#fund-chat-form").get_by_role("button", name="停止").click()
    expect(page.locator("#chat-log .msg.assistant.stopped")).to_contain_text("已停止")
    assert endpoint.stream_aborted.wait(5.0)
    stored_as_stopped()

    box.fill("有哪些基金？")
    page.locator("#fund-chat-form button[type=submit]").first.click()
    expect(page.locator("#chat-log .msg.assistant").last).to_contain_text("目前没有基金。")
    assert fund_agent.conversations.count() == 1


@pytest.mark.parametrize("width", [1280, 390])
def test_after_stop_the_list_of_conversations_shows_the_stopped_one_without_another_message(alice, endpoint, staff_page, width):
    from django.contrib.auth import get_user_model

    from agents.models import Conversation

    endpoint.reply(PIECES, chunk_delay=0.3)
    earlier = Conversation.objects.create(agent=alice, user=get_user_model().objects.get(username="browser-staff"))
    page = staff_page
    page.set_viewport_size({"width": width, "height": 844 if width < 600 else 900})
    page.goto(f"/agents/{alice.pk}/chat/")
    listed = page.locator("#recent-conversations li a")
    expect(listed).to_have_text([f"#{earlier.pk}"])
    page.locator("textarea[name=message]").fill("讲个长故事")
    page.get_by_role("button", name="发送").click()
    expect(page.locator("#chat-log .msg.assistant.streaming")).to_contain_text("第1句。")
    page.get_by_role("button", name="停止").click()

    stopped = alice.conversations.exclude(pk=earlier.pk).get()
    expect(listed).to_have_text([f"#{stopped.pk}", f"#{earlier.pk}"])  # the stopped one first, as after a reply
    expect(listed.first).to_have_attribute("aria-current", "page")
    stored_as_stopped()
    expect(page.locator("#recent-conversations")).not_to_have_attribute("data-awaiting-reply", "")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"chat-stopped-recent-{width}.png"), full_page=True)


def test_a_reply_the_model_breaks_off_stays_on_the_page_marked_cut_off(alice, endpoint, staff_page):
    endpoint.reply(PIECES[:6], chunk_delay=0.2, cut_after=3, cut="error")
    page = staff_page
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"/agents/{alice.pk}/chat/")
    page.locator("textarea[name=message]").fill("讲个故事")
    page.get_by_role("button", name="发送").click()

    reply = page.locator("#chat-log .msg.assistant.broken-off")
    expect(reply).to_contain_text("第0句。第1句。第2句。")
    expect(reply).to_contain_text("出错中断")
    expect(reply).to_contain_text("模型的回答中途断了")
    assert "第3句。" not in reply.inner_text()
    expect(page.get_by_role("button", name="发送")).to_be_visible()  # the stream ended: the page is ready again
    expect(page.locator("#chat-panel .errorlist")).to_have_count(0)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "chat-broken-off-390.png"), full_page=True)


def test_the_funds_panel_keeps_a_broken_off_reply_marked_the_same_way(fund_agent, endpoint, staff_page):
    endpoint.reply(PIECES[:6], chunk_delay=0.2, cut_after=3, cut="drop")
    page = staff_page
    page.goto("/funds/")
    page.locator("#fund-chat-form textarea[name=message]").fill("讲讲基金的故事")
    page.locator("#fund-chat-form button[type=submit]").first.click()

    reply = page.locator("#chat-log .msg.assistant.broken-off")
    expect(reply).to_contain_text("第0句。第1句。第2句。")
    expect(reply).to_contain_text("出错中断")
    expect(page.locator("#fund-chat-form").get_by_role("button", name="停止")).to_be_hidden()
    page.screenshot(path=str(SCREENSHOTS / "funds-broken-off.png"))
