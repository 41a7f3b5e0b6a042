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
thread-sensitive context (the same thread, so the same database connection, from
``request_started`` to ``request_finished``), the response sent by the loop (a streaming
response's asynchronous iterator is still consumed there), the disconnect listener. An
asynchronous view or middleware, should one appear, is still run correctly, adapted the way WSGI
does it.
"""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIHandler


class OneHopASGIHandler(ASGIHandler):
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
