"""How a WebSocket reaches ``EventsConsumer``: Origin check, authentication, URL.

Browsers authenticate with their session cookie and must come from an allowed host
(``AllowedHostsOriginValidator``: another site cannot ride the cookie). Scripts send
``Authorization: Token <key>`` (DRF authtoken, as for the API); a browser can neither
set that header on a WebSocket nor omit Origin, so a token handshake without Origin
skips the Origin check, while one with a foreign Origin is still refused.

A wrong token counts against the API's bad-token throttle (``core.throttling``); past it the
socket is accepted only to be closed with code 4429, so the client can tell "slow down" from a
refusal.
"""

from __future__ import annotations

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware
from channels.routing import URLRouter
from channels.security.websocket import AllowedHostsOriginValidator
from django.contrib.auth.models import AnonymousUser
from django.urls import path

from core.auth import is_active_staff
from core.throttling import BadTokenThrottle, scope_address

from .consumers import EventsConsumer

websocket_urlpatterns = [
    path("ws/events/", EventsConsumer.as_asgi()),
]


def header(scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return value.decode("latin1")
    return None


def token_key(scope) -> str | None:
    """The key of an ``Authorization: Token <key>`` header, or None."""
    scheme, _, key = (header(scope, b"authorization") or "").strip().partition(" ")
    if scheme.lower() != "token":
        return None
    return key.strip()


THROTTLED_CLOSE_CODE = 4429


@database_sync_to_async
def token_user(key: str, address: str):
    """The token's active user, or (AnonymousUser, whether ``address`` is over its wrong-token allowance)."""
    from rest_framework.authtoken.models import Token

    token = Token.objects.select_related("user").filter(key=key).first()
    if token is None or not token.user.is_active:
        return AnonymousUser(), BadTokenThrottle(address).failed()
    return token.user, False


@database_sync_to_async
def current_staff(scope):
    """The user who opened this socket, read again, or None once its token or session is gone or
    it stopped being active staff."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    key = token_key(scope)
    if key is not None:
        token = Token.objects.select_related("user").filter(key=key).first()
        return token.user if token is not None and is_active_staff(token.user) else None
    session = scope.get("session")
    if session is None or not session.session_key or not session.exists(session.session_key):
        return None
    user = get_user_model().objects.filter(pk=getattr(scope.get("user"), "pk", None)).first()
    return user if is_active_staff(user) else None


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
