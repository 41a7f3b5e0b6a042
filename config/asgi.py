"""ASGI entry point (Daphne): Django for HTTP, MCP at ``/mcp/agents/<id>/``, Channels for ``/ws/events/``."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from core.asgi import get_asgi_application  # noqa: E402  (Django's, with the middlewares and view in one thread hop)

# Set Django up before importing anything that touches models (the consumers do).
http_application = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import re_path  # noqa: E402

from agents.mcp.http import mcp_urlpatterns  # noqa: E402
from config.request_limits import answer_overlong_lines  # noqa: E402
from agents.routing import websocket_application  # noqa: E402

answer_overlong_lines()


def _warm_up_offline_chat() -> None:
    """The rules provider's segmenter loads before the server listens (about a second of CPU).

    Not in a background thread: there it competes for the GIL with the first requests, and a burst
    of 150 pages connecting to a freshly started server failed once on 2 cores while it loaded.
    """
    from django.conf import settings

    if settings.AGENT_PROVIDER == "rules":
        from agents.providers.understanding import warm_up

        warm_up()


_warm_up_offline_chat()

application = ProtocolTypeRouter(
    {
        "http": URLRouter([*mcp_urlpatterns, re_path(r"", http_application)]),
        "websocket": websocket_application(),
    }
)
