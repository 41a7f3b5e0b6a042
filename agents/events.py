"""Live events: one helper every app uses to tell open pages and scripts what changed.

``broadcast`` runs after the surrounding transaction commits (nothing is sent for a
rolled-back change), stores the event in ``EventLog`` (its ``seq`` lets a reconnecting
client replay what it missed) and sends it to the ``events`` group. A failed store or
send is logged, never raised into the business call.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone

from .models import EventLog

logger = logging.getLogger(__name__)

EVENTS_GROUP = "events"


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def _jsonable(data: dict) -> dict:
    import json

    return json.loads(json.dumps(data, cls=DjangoJSONEncoder))


def broadcast(event: str, **data: Any) -> None:
    """Queue ``event`` for every connected staff client, after the current transaction commits."""
    transaction.on_commit(lambda: _store_and_send(event, data), robust=True)


def _store_and_send(event: str, data: dict) -> None:
    try:
        payload = {"event": event, "timestamp": timezone.now().isoformat(), **_jsonable(data)}
        row = EventLog.objects.create(event=event, data=payload)
        payload["seq"] = row.seq
    except Exception:
        logger.exception("could not store event %s", event)
        return
    _group_send(EVENTS_GROUP, {"type": "event.send", "message": {"type": "system_event", "data": payload}})


def send_ui_action(user: Any, action: str, **data: Any) -> None:
    """Deliver a UI instruction to one staff member's open pages only, after commit."""
    message = {"type": "ui_action", "data": {"action": action, **_jsonable(data)}}
    transaction.on_commit(
        lambda: _group_send(user_group(user.pk), {"type": "event.send", "message": message}), robust=True
    )


def _group_send(group: str, message: dict) -> None:
    try:
        layer = get_channel_layer()
        if layer is not None:
            async_to_sync(layer.group_send)(group, message)
    except Exception:
        logger.exception("could not send to channel group %s", group)
