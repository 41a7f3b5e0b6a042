"""Cheaper fan-out on ``/ws/events/``: coalesced frames (``?batch=1``), topics (``?topics=``), and
frames encoded once per process for all the clients that see the same events."""

from __future__ import annotations

import asyncio
import time

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import transaction

from agents import consumers
from config.asgi import application
from core.events import EventBatch, broadcast
from core.models import EventLog
from tests.agents.test_events import handshake, session_headers
from tests.support.staff import create_staff

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def fresh_channel_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def commit_tick(count: int, event: str = "agent_action", **extra) -> None:
    """One transaction broadcasting ``count`` events, as the autonomy tick does."""
    with transaction.atomic():
        events = EventBatch()
        for step in range(count):
            broadcast(event, step=step, **extra)
        events.seal()


async def frames_until(communicator: WebsocketCommunicator, through: int) -> list[dict]:
    """Every frame until one covers ``through``."""
    frames = []
    while True:
        frame = await communicator.receive_json_from(timeout=5)
        frames.append(frame)
        covered = frame["data"].get("through", frame["data"].get("seq"))
        if covered is not None and covered >= through:
            return frames


def events_of(frames: list[dict]) -> list[dict]:
    found = []
    for frame in frames:
        if frame["type"] == "system_events":
            found += frame["data"]["events"]
        elif frame["type"] == "system_event":
            found.append(frame["data"])
    return found


def test_a_ticks_events_reach_a_batching_page_in_a_few_frames_with_nothing_missed(staff_user):
    headers = session_headers(staff_user)

    async def scenario():
        page = WebsocketCommunicator(application, "/ws/events/?batch=1", headers=headers)
        script = WebsocketCommunicator(application, "/ws/events/", headers=headers)
        assert (await page.connect())[0] and (await script.connect())[0]
        await database_sync_to_async(commit_tick)(450)
        last = await database_sync_to_async(lambda: EventLog.objects.latest("seq").seq)()
        frames = await frames_until(page, last)
        one_by_one = [await script.receive_json_from(timeout=5) for _ in range(450)]
        await page.disconnect()
        await script.disconnect()
        return frames, one_by_one

    frames, one_by_one = async_to_sync(scenario)()
    assert [frame["type"] for frame in frames] == ["system_events"] * 3  # 450 events, 200 a frame
    stored = list(EventLog.objects.order_by("seq").values_list("seq", flat=True))
    assert [event["seq"] for event in events_of(frames)] == stored
    # Each frame says which seqs it covers, one after the other: a page can tell a gap.
    assert frames[0]["data"]["after"] == stored[0] - 1
    for before, frame in zip(frames, frames[1:], strict=False):
        assert frame["data"]["after"] == before["data"]["through"]
    # A client that did not ask keeps one system_event per event (scripts, older pages).
    assert {frame["type"] for frame in one_by_one} == {"system_event"}
    assert [frame["data"]["seq"] for frame in one_by_one] == stored


def test_a_page_receives_only_the_topics_it_asked_for_and_no_false_gap(staff_user):
    headers = session_headers(staff_user)

    def commit_mixed():
        commit_tick(5)  # agent_action: not a topic of this page
        with transaction.atomic():
            broadcast("bounty_created", bounty_id=1, title="修路")
        commit_tick(3)
        with transaction.atomic():
            broadcast("bounty_claimed", bounty_id=1, title="修路")

    async def scenario():
        batching = WebsocketCommunicator(application, "/ws/events/?batch=1&topics=bounty_created,bounty_claimed", headers=headers)
        single = WebsocketCommunicator(application, "/ws/events/?topics=bounty_created,bounty_claimed", headers=headers)
        assert (await batching.connect())[0] and (await single.connect())[0]
        await database_sync_to_async(commit_mixed)()
        before = await database_sync_to_async(lambda: EventLog.objects.earliest("seq").seq - 1)()  # the log holds this test's only
        last = await database_sync_to_async(lambda: EventLog.objects.latest("seq").seq)()
        received = await frames_until(batching, last), await frames_until(single, last)
        assert await batching.receive_nothing(timeout=0.3) and await single.receive_nothing(timeout=0.1)
        await batching.disconnect()
        await single.disconnect()
        return before, received

    before, (batched, single) = async_to_sync(scenario)()
    for frames in (batched, single):
        assert [event["event"] for event in events_of(frames)] == ["bounty_created", "bounty_claimed"]
        # What was left out is announced before the next event shown, so no seq is unaccounted for
        # (a coalesced frame may cover hidden seqs itself: the hub merges what arrived together).
        accounted = before
        for frame in frames:
            data = frame["data"]
            if frame["type"] == "events_hidden":
                accounted = data["through"]
            elif frame["type"] == "system_event":
                assert data["seq"] == accounted + 1
                accounted = data["seq"]
            else:
                assert data["after"] == accounted
                accounted = data["through"]
        assert accounted == EventLog.objects.latest("seq").seq


def test_topics_narrow_the_users_permissions_never_widen_them():
    auditor = create_staff("auditor", "bounties.view_bounty")
    headers = session_headers(auditor)

    def commit_two():
        with transaction.atomic():
            broadcast("fund_changed", fund_id=1)
            broadcast("bounty_created", bounty_id=1, title="修路")

    async def scenario():
        page = WebsocketCommunicator(application, "/ws/events/?batch=1&topics=fund_changed,bounty_created", headers=headers)
        assert (await page.connect())[0]
        await database_sync_to_async(commit_two)()
        frames = await frames_until(page, await database_sync_to_async(lambda: EventLog.objects.latest("seq").seq)())
        await page.disconnect()
        return frames

    assert [event["event"] for event in events_of(async_to_sync(scenario)())] == ["bounty_created"]


def test_a_batching_page_replays_what_it_missed_in_coalesced_frames(staff_user):
    headers = session_headers(staff_user)
    commit_tick(250)
    first = EventLog.objects.order_by("seq").first().seq

    async def scenario():
        page = WebsocketCommunicator(application, f"/ws/events/?batch=1&since={first + 9}", headers=headers)
        assert (await page.connect())[0]
        frames = await frames_until(page, first + 249)
        await page.disconnect()
        return frames

    frames = async_to_sync(scenario)()
    assert len(frames) == 2 and frames[0]["data"]["after"] == first + 9
    assert [event["seq"] for event in events_of(frames)] == list(range(first + 10, first + 250))


def test_malformed_topics_are_refused(staff_user):
    headers = session_headers(staff_user)
    assert handshake(headers, "/ws/events/?topics=bounty_created,DROP%20TABLE") is False
    assert handshake(headers, "/ws/events/?topics=bounty_created,fund_changed&batch=1") is True


def test_a_burst_is_encoded_once_for_all_the_clients_that_see_the_same_events(staff_user, monkeypatch):
    encoded = []
    real = consumers.events_frame
    monkeypatch.setattr(consumers, "events_frame", lambda **kwargs: encoded.append(kwargs["through"]) or real(**kwargs))
    headers = session_headers(staff_user)

    async def scenario():
        pages = [WebsocketCommunicator(application, "/ws/events/?batch=1", headers=headers) for _ in range(5)]
        for page in pages:
            assert (await page.connect())[0]
        await database_sync_to_async(commit_tick)(10)
        received = [await page.receive_json_from(timeout=5) for page in pages]
        for page in pages:
            await page.disconnect()
        return received

    received = async_to_sync(scenario)()
    assert len(encoded) == 1  # one frame built, five sent
    assert all(frame == received[0] for frame in received) and len(received[0]["data"]["events"]) == 10


def test_events_arriving_close_together_share_a_frame_and_one_after_a_quiet_spell_goes_at_once(staff_user, monkeypatch):
    """The hub offers at most once per ``GATHER_SECONDS``: two writes' events right after an offer
    reach a batching page as one frame, instead of a frame each."""
    # Long enough that the two writes land inside one gathering even on a loaded machine (at 1 s the
    # fresh-clone run saw "second" arrive after the gathering had ended), short of the receive timeout.
    monkeypatch.setattr(consumers, "GATHER_SECONDS", 3.0)
    headers = session_headers(staff_user)

    def write(title: str) -> None:
        with transaction.atomic():
            broadcast("bounty_created", bounty_id=1, title=title)

    def two_writes() -> None:
        write("second")
        time.sleep(0.2)  # far longer than an offer takes: without the gathering, "second" went alone
        write("third")

    async def scenario():
        page = WebsocketCommunicator(application, "/ws/events/?batch=1", headers=headers)
        assert (await page.connect())[0]
        await asyncio.sleep(0.2)  # the hub has joined
        began = time.monotonic()
        await database_sync_to_async(write)("first")
        first = await page.receive_json_from(timeout=5)
        quiet_spell_delay = time.monotonic() - began
        await database_sync_to_async(two_writes)()
        last = await database_sync_to_async(lambda: EventLog.objects.latest("seq").seq)()
        later = await frames_until(page, last)
        await page.disconnect()
        return first, quiet_spell_delay, later

    first, quiet_spell_delay, later = async_to_sync(scenario)()
    assert [event["title"] for event in events_of([first])] == ["first"]
    assert quiet_spell_delay < 2.7  # not held back: nothing was offered in the last three seconds
    assert [frame["type"] for frame in later] == ["system_events"]
    assert [event["title"] for event in events_of(later)] == ["second", "third"]
