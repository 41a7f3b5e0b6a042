"""Chat replies streamed to the pages as server-sent events, and Stop.

**Why SSE on the chat form's own POST, not the page's WebSocket.** The events socket
(``/ws/events/``) is a broadcast feed of the whole desk, one per page and read-only; a chat turn
is a request with one answer. Streaming that answer as ``text/event-stream`` from the same view
keeps everything the form already has: its URL, CSRF, the permission checks, form errors, and the
exact HTML an HTMX post gets (the last event carries it). Daphne serves it like any response, the
API and pages without JavaScript post as before, and nothing has to route a reply to one socket
among many processes.

**Stop is closing the request.** The page's Stop button aborts its ``fetch``; a closed tab or a
lost connection does the same. Daphne reports the disconnect, Django cancels the response's
iterator, and this module tells the runner's listener to stop; the provider notices within
``STOP_POLL`` and closes the model's HTTP response, so a single-slot server stops generating at
once. A stop endpoint would have to find the turn in whichever process runs it; a closed request
is always in the right process. The runner stores what was written until then as the turn's
reply, marked stopped (``Message.stopped``), so the conversation shows where it was cut; a tool
call is only ever run whole, so a stopped answer runs none. A stopped page gets no more events, so
it asks for the list of conversations itself (``?part=recent``) until the stopped reply is stored.
A reply the model breaks off after some text ends like any other, with ``done``; the panel shows
it marked with the error (``Message.failure``).

Events, in order: ``began`` ``{conversation_id}``; any number of ``text`` ``{text}`` (a piece of
the reply) and ``tool`` ``{name, status, line}`` (a call that ran, in the transcript's one line); then ``done`` ``{html,
push_url, trigger}``: the panel and the ``HX-Push-Url`` / ``HX-Trigger`` headers the view's
HTMX response has, or ``failed`` ``{message}`` if the turn broke unexpectedly.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

from asgiref.sync import sync_to_async
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from .models import Conversation
from .results import result_view

logger = logging.getLogger(__name__)

EVENT_STREAM = "text/event-stream"
_DONE = object()


def wants_stream(request: HttpRequest) -> bool:
    """The page asked for the reply as it is written (its script sends ``Accept: text/event-stream``)."""
    return bool(request.htmx) and EVENT_STREAM in request.headers.get("Accept", "")


def event(name: str, data: dict) -> str:
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


class PageListener:
    """The runner's listener for one streamed turn: what it reports goes onto the response's queue
    (from the runner's thread), and ``stop()`` is read by the provider between pieces."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.queue: asyncio.Queue = asyncio.Queue()
        self._loop = loop
        self._stopped = threading.Event()

    def _put(self, item: Any) -> None:
        self._loop.call_soon_threadsafe(self.queue.put_nowait, item)

    def began(self, conversation: Conversation) -> None:
        self._put(("began", {"conversation_id": conversation.pk}))

    def text(self, piece: str) -> None:
        self._put(("text", {"text": piece}))

    def tool_done(self, made: dict) -> None:
        view = result_view(made["name"], made["result"], made["arguments"])  # the line the transcript shows
        self._put(("tool", {"name": made["name"], "status": view["status"], "line": view["line"]}))

    def stop(self) -> None:
        self._stopped.set()

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()


def streamed_turn(request: HttpRequest, answer: Callable[[PageListener], HttpResponse]) -> StreamingHttpResponse:
    """The response that runs ``answer(listener)`` (the view's own turn, returning its HTMX
    response) while the reply streams out as events; see the module doc."""
    response = StreamingHttpResponse(_events(request, answer), content_type=EVENT_STREAM)
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # a proxy (nginx) passes each event on at once
    return response


async def _events(request: HttpRequest, answer: Callable[[PageListener], HttpResponse]) -> AsyncIterator[str]:
    listener = PageListener(asyncio.get_running_loop())
    # The middleware chain has returned by the time the turn runs: it keeps the request's
    # language and time zone, and saves the session itself (the panel remembers its conversation there).
    language, zone = translation.get_language(), timezone.get_current_timezone()

    def run() -> HttpResponse:
        with translation.override(language), timezone.override(zone):
            response = answer(listener)
        if request.session.modified:
            request.session.save()
        return response

    turn = asyncio.ensure_future(sync_to_async(run)())
    turn.add_done_callback(lambda _: listener.queue.put_nowait(_DONE))
    try:
        while (item := await listener.queue.get()) is not _DONE:
            yield event(*item)
        try:
            response = turn.result()
        except Exception:
            logger.exception("streamed chat turn failed")
            yield event("failed", {"message": _("出错了：请刷新页面后再试")})
            return
        trigger = response.get("HX-Trigger")
        yield event("done", {
            "html": response.content.decode(response.charset),
            "push_url": response.get("HX-Push-Url") or "",
            "trigger": json.loads(trigger) if trigger else {},
        })
    finally:
        if not turn.done():  # the page went away (Stop, a closed tab): the runner stores what it has
            listener.stop()
            try:
                await asyncio.shield(turn)
            except Exception:
                logger.exception("stopped chat turn failed")
