"""ASGI entry point (Daphne): Django for HTTP, MCP at ``/mcp/agents/<id>/``, Channels for ``/ws/events/``."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# Set Django up before importing anything that touches models (the consumers do).
http_application = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import re_path  # noqa: E402

from agents.mcp.http import mcp_urlpatterns  # noqa: E402
from config.request_limits import answer_overlong_lines  # noqa: E402
from agents.routing import websocket_application  # noqa: E402

answer_overlong_lines()


def _warm_up_offline_chat() -> None:
    """The rules provider's segmenter loads in the background: the first chat reply need not wait."""
    import threading

    from django.conf import settings

    if settings.AGENT_PROVIDER == "rules":
        from agents.providers.understanding import warm_up

        threading.Thread(target=warm_up, name="warm-up-offline-chat", daemon=True).start()


_warm_up_offline_chat()

application = ProtocolTypeRouter(
    {
        "http": URLRouter([*mcp_urlpatterns, re_path(r"", http_application)]),
        "websocket": websocket_application(),
    }
)
