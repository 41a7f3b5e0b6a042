"""How a WebSocket reaches ``EventsConsumer``: Origin check, authentication, URL.

Browsers authenticate with their session cookie and must come from an allowed host
(``AllowedHostsOriginValidator``: another site cannot ride the cookie). Scripts send
``Authorization: Token <key>`` (DRF authtoken, as for the API); a browser can neither
set that header on a WebSocket nor omit Origin, so a token handshake without Origin
skips the Origin check, while one with a foreign Origin is still refused. Reading the
user is ``socket_auth``'s, which the consumer uses too: this module imports the consumer,
never the other way round.

A wrong token counts against the API's bad-token throttle (``core.throttling``); past it the
socket is accepted only to be closed with code 4429, so the client can tell "slow down" from a
refusal.
"""

from __future__ import annotations

from channels.auth import AuthMiddlewareStack
from channels.middleware import BaseMiddleware
from channels.routing import URLRouter
from channels.security.websocket import AllowedHostsOriginValidator
from django.urls import path

from core.throttling import scope_address

from .consumers import EventsConsumer
from .socket_auth import header, token_key, token_user

websocket_urlpatterns = [
    path("ws/events/", EventsConsumer.as_asgi()),
]


THROTTLED_CLOSE_CODE = 4429


class TokenAuthMiddleware(BaseMiddleware):
    """A token header decides the user (a bad token is anonymous, as in the API)."""

    async def __call__(self, scope, receive, send):
        key = token_key(scope)
        if key is not None:
            user, throttled = await token_user(key, scope_address(scope))
            if throttled:
                return await close_throttled(receive, send)
            scope = dict(scope, user=user)
        return await super().__call__(scope, receive, send)


async def close_throttled(receive, send) -> None:
    """Accept the handshake and close at once with 4429: a code the client can read (a refused handshake is a bare 403)."""
    if (await receive())["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.close", "code": THROTTLED_CLOSE_CODE})


class OriginCheckForBrowsers:
    """Send browser handshakes through ``checked``; token scripts without Origin to ``scripts``."""

    def __init__(self, checked, scripts):
        self.checked = checked
        self.scripts = scripts

    async def __call__(self, scope, receive, send):
        if header(scope, b"origin") is None and token_key(scope) is not None:
            return await self.scripts(scope, receive, send)
        return await self.checked(scope, receive, send)


def websocket_application():
    authenticated = AuthMiddlewareStack(TokenAuthMiddleware(URLRouter(websocket_urlpatterns)))
    return OriginCheckForBrowsers(AllowedHostsOriginValidator(authenticated), scripts=authenticated)
