"""bounty_* events go out after commit, carry DESIGN §10's fields, and never undo a change."""

import json
import logging

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.test import override_settings

from agents.models import Agent
from bounties import services
from bounties.models import Bounty
from core.events import EVENTS_GROUP
from core.models import EventLog

pytestmark = pytest.mark.django_db

# A Redis layer on a port nobody listens on: every send fails for real.
UNREACHABLE_LAYER = {
    "default": {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": ["redis://127.0.0.1:1/0"]}}
}


def test_claim_broadcasts_bounty_claimed_only_after_commit(alice, make_bounty, sent_events, django_capture_on_commit_callbacks):
    bounty = make_bounty(reward=50)
    with django_capture_on_commit_callbacks(execute=True):
        services.claim_bounty(agent_id=alice.pk, bounty_id=bounty.pk)
        assert sent_events == []
    assert [sent["event"] for sent in sent_events] == ["bounty_claimed"]
    event = EventLog.objects.get()
    assert event.event == "bounty_claimed"
    assert {k: event.data[k] for k in ("bounty_id", "title", "reward", "claimed_by", "claimed_by_name")} == {
        "bounty_id": bounty.pk,
        "title": "收集100小麦",
        "reward": 50,
        "claimed_by": alice.pk,
        "claimed_by_name": "Alice",
    }


def test_rolled_back_claim_broadcasts_nothing(alice, make_bounty, django_capture_on_commit_callbacks):
    bounty = make_bounty()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with transaction.atomic():
            services.claim_bounty(agent_id=alice.pk, bounty_id=bounty.pk)
            transaction.set_rollback(True)
    assert callbacks == []
    assert not EventLog.objects.exists()


def test_refused_claim_broadcasts_nothing(alice, bob, make_bounty, django_capture_on_commit_callbacks):
    bounty = make_bounty(status="claimed", claimed_by=bob)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(services.Conflict):
            services.claim_bounty(agent_id=alice.pk, bounty_id=bounty.pk)
    assert callbacks == []


def test_create_complete_and_cancel_broadcast_their_events(alice, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        done = services.create_bounty(title="建造磨坊", reward=80)
        dropped = services.create_bounty(title="作废", reward=1)
        services.claim_bounty(agent_id=alice.pk, bounty_id=done.pk)
        services.complete_bounty(agent_id=alice.pk, bounty_id=done.pk)
        services.cancel_bounty(bounty_id=dropped.pk)
    events = [(e.event, e.data["bounty_id"], e.data["status"]) for e in EventLog.objects.order_by("seq")]
    assert events == [
        ("bounty_created", done.pk, "open"),
        ("bounty_created", dropped.pk, "open"),
        ("bounty_claimed", done.pk, "claimed"),
        ("bounty_completed", done.pk, "completed"),
        ("bounty_cancelled", dropped.pk, "cancelled"),
    ]
    completed = EventLog.objects.get(event="bounty_completed").data
    assert (completed["reward"], completed["claimed_by"], completed["claimed_by_name"]) == (80, alice.pk, "Alice")


def test_claimed_event_reaches_the_events_group(alice, make_bounty, django_capture_on_commit_callbacks):
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(EVENTS_GROUP, channel)
    bounty = make_bounty()
    with django_capture_on_commit_callbacks(execute=True):
        services.claim_bounty(agent_id=alice.pk, bounty_id=bounty.pk)
    frame = json.dumps(async_to_sync(layer.receive)(channel), ensure_ascii=False)
    assert "bounty_claimed" in frame
    assert "Alice" in frame


@pytest.mark.django_db(transaction=True)
def test_failed_broadcast_never_rolls_back_the_claim(make_agent, caplog):
    alice = make_agent("Alice", credits=100)
    bounty = Bounty.objects.create(title="收集100小麦", reward=50)
    with override_settings(CHANNEL_LAYERS=UNREACHABLE_LAYER), caplog.at_level(logging.ERROR, logger="core.events"):
        with transaction.atomic():
            claimed = services.claim_bounty(agent_id=alice.pk, bounty_id=bounty.pk)
        with transaction.atomic():
            services.complete_bounty(agent_id=alice.pk, bounty_id=bounty.pk)
    assert claimed.status == "claimed"
    assert Bounty.objects.get().status == "completed"
    assert Agent.objects.get(pk=alice.pk).credits == 150
    assert "could not send to channel group events" in caplog.text
    assert list(EventLog.objects.values_list("event", flat=True).order_by("seq")) == [
        "bounty_claimed",
        "bounty_completed",
    ]
