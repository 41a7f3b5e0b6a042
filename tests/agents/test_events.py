"""Live events over ``/ws/events/`` (DESIGN §10), driven through the real ASGI application.

The tests are synchronous and run their WebSocket side with ``async_to_sync``: the
consumer's database calls then run in this thread, on the test database, and
``broadcast`` is called from synchronous code as services do.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import suppress
from datetime import datetime, timedelta

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.core.management import call_command
from django.db import transaction
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token

from agents.models import Agent
from config.asgi import application
from core.events import EVENTS_GROUP, REPLAY_LIMIT, broadcast, latest_event_seq, send_ui_action, stored_message
from core.models import EventLog
from tests.support.services import free_port
from tests.support.staff import create_staff

pytestmark = pytest.mark.django_db(transaction=True)

ORIGIN = (b"origin", b"http://127.0.0.1:8000")


@pytest.fixture(autouse=True)
def fresh_channel_layer(settings):
    # A new in-memory layer per test: its queues belong to the test's event loop.
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def session_headers(user, origin=ORIGIN) -> list[tuple[bytes, bytes]]:
    client = Client()
    client.force_login(user)
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    headers = [(b"cookie", cookie.encode())]
    return headers + [origin] if origin else headers


def token_headers(user) -> list[tuple[bytes, bytes]]:
    return [(b"authorization", f"Token {Token.objects.create(user=user).key}".encode())]


def handshake(headers, path: str = "/ws/events/") -> bool:
    """Whether the handshake is accepted; a refusal must come before any accept."""

    async def attempt() -> bool:
        communicator = WebsocketCommunicator(application, path, headers=headers)
        accepted, _ = await communicator.connect(timeout=3)
        await communicator.disconnect()
        return accepted

    return async_to_sync(attempt)()


def commit_event(event: str, **data) -> int:
    """Broadcast ``event`` from a committed transaction; returns its seq."""
    with transaction.atomic():
        broadcast(event, **data)
    return EventLog.objects.latest("seq").seq


def seqs(messages: list[dict]) -> list[int]:
    return [message["data"]["seq"] for message in messages]


async def receive_all(communicator: WebsocketCommunicator, count: int) -> list[dict]:
    return [await communicator.receive_json_from(timeout=3) for _ in range(count)]


# --- who may connect -------------------------------------------------------------------


def test_anonymous_is_refused():
    assert handshake([ORIGIN]) is False


def test_non_staff_session_is_refused(django_user_model):
    visitor = django_user_model.objects.create_user("visitor", password="pw-visitor-1")
    assert handshake(session_headers(visitor)) is False


def test_staff_session_is_accepted(staff_user):
    assert handshake(session_headers(staff_user)) is True


def test_staff_session_from_a_foreign_origin_is_refused(staff_user):
    assert handshake(session_headers(staff_user, origin=(b"origin", b"http://evil.example"))) is False


def test_staff_session_without_origin_is_refused(staff_user):
    assert handshake(session_headers(staff_user, origin=None)) is False


def test_staff_token_header_is_accepted_without_origin(staff_user):
    assert handshake(token_headers(staff_user)) is True


def test_staff_token_header_from_a_foreign_origin_is_refused(staff_user):
    assert handshake([*token_headers(staff_user), (b"origin", b"http://evil.example")]) is False


def test_unknown_token_is_refused_even_with_a_staff_session(staff_user):
    assert handshake([*session_headers(staff_user), (b"authorization", b"Token not-a-key")]) is False


def test_non_staff_token_is_refused(django_user_model):
    visitor = django_user_model.objects.create_user("visitor", password="pw-visitor-1")
    assert handshake(token_headers(visitor)) is False


def test_malformed_since_is_refused(staff_user):
    headers = session_headers(staff_user)
    assert handshake(headers, "/ws/events/?since=abc") is False
    assert handshake(headers, "/ws/events/?since=-1") is False
    assert handshake(headers, "/ws/events/?since=0") is True


# --- what arrives ----------------------------------------------------------------------


def test_committed_event_arrives_with_the_documented_shape(staff_user):
    headers = session_headers(staff_user)

    async def scenario():
        communicator = WebsocketCommunicator(application, "/ws/events/", headers=headers)
        assert (await communicator.connect())[0]
        seq = await database_sync_to_async(commit_event)("bounty_created", bounty_id=7, title="修路", reward=5)
        message = await communicator.receive_json_from(timeout=3)
        await communicator.disconnect()
        return seq, message

    seq, message = async_to_sync(scenario)()
    data = message["data"]
    assert message == {
        "type": "system_event",
        "data": {"event": "bounty_created", "timestamp": data["timestamp"], "seq": seq, "bounty_id": 7, "title": "修路", "reward": 5},
    }
    assert abs(datetime.fromisoformat(data["timestamp"]) - timezone.now()) < timedelta(seconds=30)
    stored = EventLog.objects.get(seq=seq)
    assert (stored.event, stored.data) == ("bounty_created", {"bounty_id": 7, "title": "修路", "reward": 5})
    assert stored.created_at.isoformat() == data["timestamp"]  # the frame sent is the row stored


def test_rolled_back_event_never_arrives_nor_is_stored(staff_user):
    headers = session_headers(staff_user)

    def roll_back():
        with suppress(RuntimeError), transaction.atomic():
            Agent.objects.create(name="Ghost")
            broadcast("agent_action", agent_name="Ghost", action="appear")
            raise RuntimeError("the business call failed")

    async def scenario():
        communicator = WebsocketCommunicator(application, "/ws/events/", headers=headers)
        assert (await communicator.connect())[0]
        await database_sync_to_async(roll_back)()
        nothing = await communicator.receive_nothing(timeout=0.3)
        await database_sync_to_async(commit_event)("agent_action", agent_name="Alice", action="bake")
        following = await communicator.receive_json_from(timeout=3)
        await communicator.disconnect()
        return nothing, following

    nothing, following = async_to_sync(scenario)()
    assert nothing is True
    assert following["data"]["agent_name"] == "Alice"  # the stream works; the rolled-back one was skipped
    assert list(EventLog.objects.values_list("event", "data__agent_name")) == [("agent_action", "Alice")]


def test_event_is_not_sent_before_its_transaction_commits(staff_user):
    headers = session_headers(staff_user)

    async def scenario():
        communicator = WebsocketCommunicator(application, "/ws/events/", headers=headers)
        assert (await communicator.connect())[0]
        transaction_open = []

        def business_call():
            with transaction.atomic():
                broadcast("bounty_created", bounty_id=1)
                transaction_open.append(async_to_sync(communicator.receive_nothing)(0.2))
            return EventLog.objects.count()

        stored = await database_sync_to_async(business_call)()
        message = await communicator.receive_json_from(timeout=3)
        await communicator.disconnect()
        return transaction_open, stored, message

    transaction_open, stored, message = async_to_sync(scenario)()
    assert transaction_open == [True]
    assert stored == 1
    assert message["data"]["bounty_id"] == 1


def test_replay_since_returns_exactly_the_missed_events_in_order_then_live_ones(staff_user):
    headers = session_headers(staff_user)
    stored = [commit_event("bounty_created", bounty_id=n) for n in range(1, 6)]

    async def scenario():
        communicator = WebsocketCommunicator(application, f"/ws/events/?since={stored[1]}", headers=headers)
        assert (await communicator.connect())[0]
        replayed = await receive_all(communicator, 3)
        replay_done = await communicator.receive_nothing(timeout=0.3)
        live_seq = await database_sync_to_async(commit_event)("bounty_created", bounty_id=6)
        live = await communicator.receive_json_from(timeout=3)
        after = await communicator.receive_nothing(timeout=0.3)
        await communicator.disconnect()
        return replayed, replay_done, live_seq, live, after

    replayed, replay_done, live_seq, live, after = async_to_sync(scenario)()
    assert seqs(replayed) == stored[2:]
    assert [message["data"]["bounty_id"] for message in replayed] == [3, 4, 5]
    assert replay_done is True
    assert live["data"]["seq"] == live_seq == stored[-1] + 1
    assert after is True


def test_live_copy_of_an_event_already_replayed_is_dropped(staff_user):
    # An event committed while the consumer reads the log arrives twice: replayed and live.
    headers = session_headers(staff_user)
    stored = [commit_event("bounty_created", bounty_id=n) for n in range(1, 4)]

    async def scenario():
        communicator = WebsocketCommunicator(application, f"/ws/events/?since={stored[0]}", headers=headers)
        assert (await communicator.connect())[0]
        replayed = await receive_all(communicator, 2)
        row = await database_sync_to_async(EventLog.objects.get)(seq=stored[2])
        await get_channel_layer().group_send(EVENTS_GROUP, stored_message([row]))
        await database_sync_to_async(commit_event)("bounty_created", bounty_id=4)
        following = await communicator.receive_json_from(timeout=3)
        nothing = await communicator.receive_nothing(timeout=0.3)
        await communicator.disconnect()
        return replayed, following, nothing

    replayed, following, nothing = async_to_sync(scenario)()
    assert seqs(replayed) == stored[1:]
    assert following["data"]["bounty_id"] == 4
    assert nothing is True


def test_live_event_after_a_lost_send_first_delivers_the_lost_one_from_the_log(staff_user):
    headers = session_headers(staff_user)

    def lose_a_send() -> int:
        # Stored but never sent: what a dropped channel-layer message leaves behind.
        return EventLog.objects.create(event="bounty_created", data={"bounty_id": 2}).seq

    async def scenario():
        communicator = WebsocketCommunicator(application, "/ws/events/", headers=headers)
        assert (await communicator.connect())[0]
        await database_sync_to_async(commit_event)("bounty_created", bounty_id=1)
        first = await communicator.receive_json_from(timeout=3)
        await database_sync_to_async(lose_a_send)()
        await database_sync_to_async(commit_event)("bounty_created", bounty_id=3)
        rest = await receive_all(communicator, 2)
        nothing = await communicator.receive_nothing(timeout=0.3)
        await communicator.disconnect()
        return [first, *rest], nothing

    messages, nothing = async_to_sync(scenario)()
    assert [message["data"]["bounty_id"] for message in messages] == [1, 2, 3]
    assert seqs(messages) == list(range(seqs(messages)[0], seqs(messages)[0] + 3))
    assert nothing is True


def test_replay_of_more_than_the_limit_sends_only_the_newest(staff_user):
    EventLog.objects.bulk_create(EventLog(event="bounty_created", data={"bounty_id": n}) for n in range(REPLAY_LIMIT + 5))
    stored = list(EventLog.objects.values_list("seq", flat=True))
    headers = session_headers(staff_user)

    async def scenario():
        communicator = WebsocketCommunicator(application, "/ws/events/?since=0", headers=headers)
        assert (await communicator.connect())[0]
        replayed = await receive_all(communicator, REPLAY_LIMIT)
        nothing = await communicator.receive_nothing(timeout=0.3)
        await communicator.disconnect()
        return replayed, nothing

    replayed, nothing = async_to_sync(scenario)()
    assert seqs(replayed) == stored[-REPLAY_LIMIT:]  # the client sees the jump from 0 and re-syncs
    assert nothing is True


def test_ui_action_reaches_only_that_staff_members_pages(staff_user, django_user_model):
    colleague = create_staff("colleague", password="pw-colleague-1")
    mine, theirs = session_headers(staff_user), session_headers(colleague)

    def propose():
        with transaction.atomic():
            send_ui_action(
                staff_user, "open_form", url="/funds/", form="fund-form", pending_action_id=12, fields={"fund_name": "稳健"}
            )

    async def scenario():
        own = WebsocketCommunicator(application, "/ws/events/", headers=mine)
        other = WebsocketCommunicator(application, "/ws/events/", headers=theirs)
        assert (await own.connect())[0] and (await other.connect())[0]
        await database_sync_to_async(propose)()
        received = await own.receive_json_from(timeout=3)
        nothing = await other.receive_nothing(timeout=0.3)
        await own.disconnect()
        await other.disconnect()
        return received, nothing

    received, nothing = async_to_sync(scenario)()
    assert received == {
        "type": "ui_action",
        "data": {"action": "open_form", "url": "/funds/", "form": "fund-form", "pending_action_id": 12, "fields": {"fund_name": "稳健"}},
    }
    assert nothing is True
    assert EventLog.objects.count() == 0  # UI actions are for open pages only, never replayed


def test_failing_channel_layer_does_not_break_the_business_call(settings, staff_user, caplog):
    # A Redis layer whose server is down: every send fails with a connection error.
    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": [f"redis://127.0.0.1:{free_port()}/0"]}}
    }
    with caplog.at_level(logging.ERROR, logger="core.events"), transaction.atomic():
        agent = Agent.objects.create(name="Dora")
        broadcast("agent_action", agent_id=agent.pk, agent_name="Dora", action="arrive", reason="new")
        send_ui_action(staff_user, "open_form", url="/funds/")

    assert Agent.objects.filter(name="Dora").exists()
    # Stored before the send: a client that reconnects with ?since= still gets it.
    assert list(EventLog.objects.values_list("event", flat=True)) == ["agent_action"]
    failures = [record.getMessage() for record in caplog.records if record.name == "core.events"]
    assert failures == ["could not send to channel group events", f"could not send to channel group user.{staff_user.pk}"]


def test_event_data_may_not_override_the_envelope():
    with pytest.raises(ValueError, match="reserved"):
        broadcast("bounty_created", seq=1)


# --- the event log ---------------------------------------------------------------------


def age_events(days: float, *seq_list: int) -> None:
    EventLog.objects.filter(seq__in=seq_list).update(created_at=timezone.now() - timedelta(days=days))


def test_prune_events_deletes_what_is_older_than_the_retention_setting(settings):
    settings.EVENT_LOG_RETENTION_DAYS = 7
    old, recent, new = (commit_event("bounty_created", bounty_id=n) for n in range(3))
    age_events(8, old)
    age_events(6, recent)
    out = call_command_output("prune_events")
    assert list(EventLog.objects.values_list("seq", flat=True)) == [recent, new]
    assert "Deleted 1 events older than 7 days" in out


def test_prune_events_days_option_overrides_the_setting():
    old, new = commit_event("bounty_created", bounty_id=1), commit_event("bounty_created", bounty_id=2)
    age_events(2, old)
    call_command_output("prune_events", "--days", "1")
    assert list(EventLog.objects.values_list("seq", flat=True)) == [new]


def test_prune_keeps_the_newest_event_so_pages_resume_where_the_stream_is():
    first, newest = commit_event("bounty_created", bounty_id=1), commit_event("bounty_created", bounty_id=2)
    age_events(30, first, newest)
    call_command_output("prune_events", "--days", "0")
    assert list(EventLog.objects.values_list("seq", flat=True)) == [newest]
    assert latest_event_seq() == newest
    assert commit_event("bounty_created", bounty_id=3) == newest + 1


def call_command_output(*args: str) -> str:
    from io import StringIO

    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


# --- the page --------------------------------------------------------------------------


def test_page_resumes_the_stream_after_the_seq_it_was_rendered_at(client, staff_user):
    seq = commit_event("bounty_created", bounty_id=1)
    client.force_login(staff_user)
    html = client.get("/").content.decode()
    assert f'data-event-seq="{seq}"' in html


def test_page_has_a_content_security_policy_and_no_inline_script(client, staff_user):
    client.force_login(staff_user)
    response = client.get("/")
    assert response.status_code == 200
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    html = response.content.decode()
    assert "<script>" not in html and " hx-on" not in html
    assert '<span class="live" id="live-status" role="status" data-state="connecting"' in html
    # Sockets only to this site's own host, not ws: anywhere.
    assert "connect-src 'self' ws://testserver wss://testserver;" in response.headers["Content-Security-Policy"]


def test_htmx_and_the_events_client_are_served_locally(client, staff_user):
    import re

    client.force_login(staff_user)
    html = client.get("/").content.decode()
    sources = re.findall(r'<script src="([^"]+)"', html)
    assert any("htmx" in source for source in sources) and any("events.js" in source for source in sources)
    for source in sources:
        assert source.startswith("/static/"), source  # no CDN
        response = client.get(source)
        assert response.status_code == 200, source
        assert b"".join(response.streaming_content if response.streaming else [response.content])



@pytest.mark.parametrize("revoke", ["token", "staff"])
def test_an_open_socket_closes_once_its_user_may_no_longer_see_events(staff_user, monkeypatch, revoke):
    from agents import consumers

    monkeypatch.setattr(consumers, "RECHECK_SECONDS", 0.2)
    headers = token_headers(staff_user)

    def take_away():
        if revoke == "token":
            Token.objects.filter(user=staff_user).delete()
        else:
            type(staff_user).objects.filter(pk=staff_user.pk).update(is_staff=False)

    async def scenario():
        communicator = WebsocketCommunicator(application, "/ws/events/", headers=headers)
        accepted, _ = await communicator.connect(timeout=3)
        assert accepted
        await asyncio.sleep(0.5)
        assert await communicator.receive_nothing(timeout=0.1)  # still open while allowed
        await database_sync_to_async(take_away)()
        closed = await communicator.receive_output(timeout=3)
        await communicator.disconnect()
        return closed

    closed = async_to_sync(scenario)()
    assert closed["type"] == "websocket.close" and closed["code"] == 4403
