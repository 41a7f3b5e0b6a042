"""The HTTP side of ``config.asgi``: Django's ASGI handler with the middlewares and the view in one
thread hop (``core.asgi``), serving what it served before: plain views, API views with a token,
errors, and streaming responses whose iterator is asynchronous."""

import asyncio
import threading

import pytest
from asgiref import sync
from channels.testing import HttpCommunicator
from django.http import HttpResponse, StreamingHttpResponse
from django.urls import path
from rest_framework.authtoken.models import Token

from config.asgi import http_application

pytestmark = pytest.mark.django_db(transaction=True)

SEEN: dict[str, int] = {}


def plain(request):
    SEEN["view"] = threading.get_ident()
    return HttpResponse(f"hello {request.LANGUAGE_CODE}")


async def pieces():
    for piece in ("one ", "two ", "three"):
        await asyncio.sleep(0)
        yield piece


def streamed(request):
    return StreamingHttpResponse(pieces(), content_type="text/plain")


def broken(request):
    raise RuntimeError("a view that fails")


urlpatterns = [path("plain/", plain), path("streamed/", streamed), path("broken/", broken)]


@pytest.fixture
def test_urls(settings):
    settings.ROOT_URLCONF = __name__
    SEEN.clear()


def request(path_: str, headers=()) -> dict:
    """One GET through the ASGI application: its status and whole body (every ``http.response.body``)."""
    communicator = HttpCommunicator(http_application, "GET", path_, headers=[(b"host", b"testserver"), *headers])

    async def exchange() -> dict:
        await communicator.send_input({"type": "http.request", "body": b""})
        start = await communicator.receive_output(10)
        body, more = b"", True
        while more:
            message = await communicator.receive_output(10)
            body += message.get("body", b"")
            more = message.get("more_body", False)
        await communicator.wait(10)
        return {"status": start["status"], "body": body}

    return asyncio.run(exchange())


def test_the_middlewares_and_the_view_run_in_one_thread_hop(test_urls, monkeypatch):
    """No ``async_to_sync`` inside a request: the middleware chain is synchronous and called once."""
    crossings = []
    original = sync.AsyncToSync.__call__

    def counted(self, *args, **kwargs):
        crossings.append(self)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(sync.AsyncToSync, "__call__", counted)
    response = request("/plain/")
    assert response["status"] == 200
    assert response["body"] == b"hello zh-hans"
    assert crossings == []
    assert SEEN["view"] != threading.get_ident()  # in the request's thread, not the loop's


def test_an_api_view_answers_with_a_token(admin_user):
    token = Token.objects.create(user=admin_user).key
    response = request("/api/agents/", headers=[(b"authorization", f"Token {token}".encode())])
    assert response["status"] == 200
    assert b'"results":[]' in response["body"].replace(b" ", b"")


def test_a_wrong_token_is_still_a_401():
    response = request("/api/agents/", headers=[(b"authorization", b"Token nope")])
    assert response["status"] == 401


def test_an_asynchronous_stream_is_sent_piece_by_piece(test_urls):
    response = request("/streamed/")
    assert response["status"] == 200
    assert response["body"] == b"one two three"


def test_a_failing_view_is_a_500_page_not_a_broken_connection(test_urls, settings):
    settings.DEBUG_PROPAGATE_EXCEPTIONS = False
    response = request("/broken/")
    assert response["status"] == 500
