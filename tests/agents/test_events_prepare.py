"""``core.events.prepare_sending``: a process that writes events in bulk sets up the events layer
and its sender loop before its first commit, so that commit's events do not wait for the set-up."""

from __future__ import annotations

import logging
from io import StringIO

import pytest
from channels.layers import BaseChannelLayer
from django.core.management import call_command

from agents.autonomy import tick
from agents.management.commands import autonomy_tick
from core import events
from tests.agents.fixtures import city, endpoint, resident  # noqa: F401  (fixtures)


class CountedLayer(BaseChannelLayer):
    """A layer that counts how often it is created (the set-up a process's first send paid)."""

    created = 0
    sent: list[tuple[str, dict]] = []

    def __init__(self, **kwargs) -> None:
        super().__init__()
        type(self).created += 1

    async def group_send(self, group: str, message: dict) -> None:
        self.sent.append((group, message))


class BrokenLayer:
    def __init__(self, **kwargs) -> None:
        raise ConnectionError("no layer today")


@pytest.fixture
def counted(settings):
    CountedLayer.created, CountedLayer.sent = 0, []
    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels.layers.InMemoryChannelLayer"},
        "events": {"BACKEND": f"{__name__}.CountedLayer"},
    }
    return CountedLayer


def test_prepare_sending_creates_the_layer_and_the_sender_loop_the_first_send_then_uses(counted):
    events.prepare_sending()
    assert counted.created == 1
    loop = events._sender_loop()
    assert loop.is_running()
    events._group_send(events.EVENTS_GROUP, {"type": "events.stored", "events": [(1, "x", "{}")]})
    assert counted.created == 1  # nothing left to set up at the first send
    assert events._sender_loop() is loop
    assert counted.sent == [(events.EVENTS_GROUP, {"type": "events.stored", "events": [(1, "x", "{}")]})]


def test_prepare_sending_starts_no_sender_for_an_in_memory_layer(settings, monkeypatch):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    started = []
    monkeypatch.setattr(events, "_sender_loop", lambda: started.append(True))
    events.prepare_sending()
    assert started == []  # it sends on the listeners' loop


def test_prepare_sending_never_raises(settings, caplog):
    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels.layers.InMemoryChannelLayer"},
        "events": {"BACKEND": f"{__name__}.BrokenLayer"},
    }
    with caplog.at_level(logging.ERROR, logger="core.events"):
        events.prepare_sending()
    assert "could not prepare the events layer" in caplog.text


@pytest.mark.django_db
@pytest.mark.parametrize(("args", "prepared"), [((), 1), (("--dry-run",), 0)])
def test_the_tick_command_prepares_sending_before_its_first_tick(settings, monkeypatch, resident, args, prepared):
    settings.AGENT_PROVIDER = "rules"
    resident("Alice", energy=20, tools=("rest",))
    calls = []
    monkeypatch.setattr(tick, "prepare_sending", lambda: calls.append("prepared"))  # called by tick.prepare_coordinator
    real_run_tick = autonomy_tick.run_tick
    monkeypatch.setattr(autonomy_tick, "run_tick", lambda **kwargs: (calls.append("tick"), real_run_tick(**kwargs))[1])
    call_command("autonomy_tick", "--count", "1", *args, stdout=StringIO(), stderr=StringIO())
    assert calls == ["prepared"] * prepared + ["tick"]


def test_each_celery_worker_process_prepares_sending_at_its_start(monkeypatch):
    from celery.signals import worker_process_init

    import config.celery  # noqa: F401  (connects the receiver)

    calls = []
    monkeypatch.setattr(events, "prepare_sending", lambda: calls.append("prepared"))
    worker_process_init.send(sender=None)
    assert calls == ["prepared"]
