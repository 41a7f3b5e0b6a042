"""Django's ASGI handler with the middleware chain and the view in one thread hop.

Every middleware here is synchronous (``MIDDLEWARE``, and the views are too), but Django's
``ASGIHandler`` builds an asynchronous chain: its innermost handler is a coroutine, so the
synchronous middlewares run in a worker thread (``sync_to_async``), hand back to the event loop
for the handler (``async_to_sync``), which sends the view back to that thread (``sync_to_async``
again). Three crossings between the loop and the request's thread per request, each a future,
a lock and a wake-up of the other side: a fifth of Daphne's CPU under ``bench.load --users 50``
(py-spy, 2026-11-26), behind the GIL with everything else the process does.

``OneHopASGIHandler`` loads the same middlewares as a synchronous chain (what WSGI runs) and calls
it once in the request's thread: one crossing. Everything else is Django's: the request's
thread-sensitive context (one thread for all of a request's synchronous code, from
``request_started`` to ``request_finished``), the response sent by the loop (a streaming
response's asynchronous iterator is still consumed there), the disconnect listener. An
asynchronous view or middleware, should one appear, is still run correctly, adapted the way WSGI
does it.

The request's thread is reused. Django gives each request a new single-thread executor, so a new
thread, and asgiref joins it afterwards from yet another new thread: two thread starts per
request. ``RequestThreads`` keeps idle single-thread executors and lends one per request
(``ThreadSensitiveContext(executor=...)``, asgiref's own way). A request still has its thread to
itself: an executor comes back only once everything it was given has finished (a view still
running after its client hung up keeps its thread; that executor is shut down instead). A reused
thread is what a WSGI server's thread is: the language and the time zone live in the request's
context (asgiref ``Local``); the database connection is the thread's, and Django's
``request_started`` / ``request_finished`` handle it as under WSGI (with the pool, or
``CONN_MAX_AGE=0``, it goes back at the end of each request; with ``CONN_MAX_AGE`` > 0 the next
request on the thread reuses it, as persistent connections are meant to be reused).
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core.handlers.asgi import ASGIHandler

# Idle request threads a process keeps; beyond that a finished request's thread ends.
KEEP_THREADS = 64


class RequestThread(ThreadPoolExecutor):
    """One thread that runs one request's synchronous code at a time; knows whether it is idle."""

    def __init__(self) -> None:
        super().__init__(max_workers=1, thread_name_prefix="request")
        self.last: Future | None = None

    def submit(self, fn, /, *args, **kwargs) -> Future:
        self.last = super().submit(fn, *args, **kwargs)
        return self.last

    def idle(self) -> bool:
        # One worker takes the calls in order: the last one done means all are.
        return self.last is None or self.last.done()


class RequestThreads:
    """Idle ``RequestThread`` executors, lent one per request (called from the event loop only).

    A forked child (a server that imports the application, then forks its workers; the tests' live
    Daphne) inherits the idle executors but not their threads: work given to one would never run. The
    idle list belongs to the process that filled it."""

    def __init__(self, keep: int = KEEP_THREADS) -> None:
        self.keep = keep
        self.idle: list[RequestThread] = []
        self.pid = os.getpid()

    def take(self) -> RequestThread:
        if self.pid != os.getpid():  # forked: the inherited executors have no threads here
            self.idle, self.pid = [], os.getpid()
        return self.idle.pop() if self.idle else RequestThread()

    def give_back(self, thread: RequestThread) -> None:
        if thread.idle() and len(self.idle) < self.keep:
            self.idle.append(thread)
        else:
            thread.shutdown(wait=False)  # its work finishes, then the thread ends


class OneHopASGIHandler(ASGIHandler):
    def __init__(self) -> None:
        super().__init__()
        self.threads = RequestThreads()

    async def __call__(self, scope, receive, send):
        """Django's, with a reused thread for the request's synchronous code."""
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        thread = self.threads.take()
        try:
            async with ThreadSensitiveContext(executor=thread):
                await self.handle(scope, receive, send)
        finally:
            self.threads.give_back(thread)

    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)

    async def get_response_async(self, request):
        """The synchronous chain (middlewares and view) in the request's thread, in one call."""
        return await sync_to_async(self.get_response, thread_sensitive=True)(request)


def get_asgi_application() -> OneHopASGIHandler:
    """``django.core.asgi.get_asgi_application`` with ``OneHopASGIHandler``."""
    import django

    django.setup(set_prefix=False)
    return OneHopASGIHandler()
