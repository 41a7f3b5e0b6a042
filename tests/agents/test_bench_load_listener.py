"""``bench.load``'s WebSocket clients: during the run a client only keeps each frame with its receipt
time (all 100 share one process: parsing a tick's frames as they came held every other client's
receipt behind it); ``absorb`` reads them after the run, with the same figures as before."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from bench import load
from core.events import _frame, events_frame, hidden_frame

T0 = datetime(2026, 11, 26, 6, 0, 0, tzinfo=UTC)


def event(seq: int, name: str = "agent_action", at: datetime = T0) -> str:
    return _frame(seq, name, {"agent_id": seq, "agent_name": "居民", "reason": "工作"}, at)


def test_the_newest_seq_is_read_from_the_header_of_each_kind_of_frame():
    batch = events_frame(after=9, through=12, texts=[event(10), event(11), event(12)]).encode()
    assert load.frame_through(batch) == 12
    assert load.frame_through(event(7, "fund_changed").encode()) == 7
    assert load.frame_through(hidden_frame(30).encode()) is None


def test_a_frame_laid_out_otherwise_is_parsed_whole():
    frame = json.dumps({"data": {"through": 5, "after": 3, "events": [{"seq": 4, "event": "x"}, {"seq": 5, "event": "x"}]}, "type": "system_events"})
    assert load.frame_through(frame.encode()) == 5


def test_keeping_a_frame_parses_none_of_its_events(monkeypatch):
    monkeypatch.setattr(load, "frame_events", lambda raw: pytest.fail("parsed during the run"))
    state = load.Listener(last=9)
    state.keep(events_frame(after=9, through=11, texts=[event(10), event(11)]).encode(), received=T0.timestamp() + 0.25, connected_at=0.0)
    assert state.last == 11  # what a reconnection asks ?since= for
    assert state.seqs == set()


def test_absorb_gives_the_seqs_and_the_latency_from_the_event_timestamp_to_the_receipt():
    state = load.Listener(last=0)
    connected = T0.timestamp() - 1
    state.keep(events_frame(after=0, through=2, texts=[event(1), event(2, "purchase")]).encode(), received=T0.timestamp() + 0.25, connected_at=connected)
    state.keep(event(2, "purchase").encode(), received=T0.timestamp() + 0.5, connected_at=connected)  # a copy: counted once
    # Replayed after a reconnection: written before that connection opened, so not a live latency.
    state.keep(event(3, at=T0).encode(), received=T0.timestamp() + 9, connected_at=T0.timestamp() + 8)
    state.absorb()
    assert state.seqs == {1, 2, 3}
    assert state.live_ms == pytest.approx([250.0, 250.0])
    assert {name: [round(ms) for ms in values] for name, values in state.live_ms_by_event.items()} == {"agent_action": [250], "purchase": [250]}
    assert state.replayed == 1
    assert state.received == []
