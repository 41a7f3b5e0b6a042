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
from core.asgi import RequestThreads

pytestmark = pytest.mark.django_db(transaction=True)

SEEN: dict[str, threading.Thread] = {}


def plain(request):
    SEEN["view"] = threading.current_thread()  # the object: an ended thread's ident is reused
    return HttpResponse(f"hello {request.LANGUAGE_CODE}")


async def pieces():
    for piece in ("one ", "two ", "three"):
        await asyncio.sleep(0)
        yield piece


def streamed(request):
    return StreamingHttpResponse(pieces(), content_type="text/plain")


def broken(request):
    raise RuntimeError("a view that fails")


BOTH_IN = threading.Barrier(2, timeout=10)


def meeting(request):
    """Answers once a second request is in this view at the same time (else the barrier breaks: 500)."""
    BOTH_IN.wait()
    return HttpResponse(str(threading.get_ident()))


urlpatterns = [path("plain/", plain), path("streamed/", streamed), path("broken/", broken), path("meeting/", meeting)]


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
    assert SEEN["view"] is not threading.current_thread()  # in the request's thread, not the loop's


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


def test_the_next_request_reuses_the_thread_of_the_last_one(test_urls):
    """Django starts a thread per request (and another to join it); here a finished request's thread serves the next."""
    threads = set()
    for _ in range(3):
        assert request("/plain/")["status"] == 200
        threads.add(SEEN["view"])
    assert len(threads) == 1


def test_concurrent_requests_each_have_a_thread_of_their_own(test_urls, settings):
    settings.DEBUG_PROPAGATE_EXCEPTIONS = False
    BOTH_IN.reset()

    async def both():
        return await asyncio.gather(*(asyncio.to_thread(request, "/meeting/") for _ in range(2)))

    first, second = asyncio.run(both())
    assert first["status"] == second["status"] == 200
    assert first["body"] != second["body"]


def test_a_thread_still_running_is_not_lent_again():
    """A view still running after its client hung up keeps its thread: the next request gets another."""
    threads = RequestThreads(keep=4)
    busy = threads.take()
    release = threading.Event()
    running = busy.submit(release.wait, 10)
    threads.give_back(busy)
    assert threads.take() is not busy
    release.set()
    running.result(10)
    idle = threads.take()
    idle.submit(int).result(10)
    threads.give_back(idle)
    assert threads.take() is idle


def test_no_more_idle_threads_are_kept_than_asked():
    threads = RequestThreads(keep=1)
    first, second = threads.take(), threads.take()
    threads.give_back(first)
    threads.give_back(second)
    assert threads.idle == [first]


def test_a_reused_thread_does_not_carry_the_last_requests_language(test_urls):
    assert request("/plain/", headers=[(b"accept-language", b"en")])["body"] == b"hello en"
    english = SEEN["view"]
    assert request("/plain/")["body"] == b"hello zh-hans"
    assert SEEN["view"] is english  # the same thread, the default language again


def test_a_forked_child_does_not_lend_the_threads_its_parent_kept():
    """The tests' live Daphne forks after this process served requests: its handler's idle executors
    came along without their threads, and every request of every later live-server test hung."""
    import os

    threads = RequestThreads()
    kept = threads.take()
    kept.submit(lambda: None).result(timeout=5)
    threads.give_back(kept)
    assert threads.idle == [kept]

    child = os.fork()
    if child == 0:  # the child: its request must run
        try:
            os._exit(0 if threads.take().submit(lambda: 42).result(timeout=5) == 42 else 1)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert threads.take() is kept  # the parent still lends its own
