"""Who opened a WebSocket: the session cookie of a browser, or ``Authorization: Token <key>``
(DRF authtoken, as for the API) of a script. ``routing`` authenticates the handshake with it,
and ``consumers`` reads the user again while the socket stays open."""

from __future__ import annotations

from channels.db import database_sync_to_async
from django.contrib.auth.models import AnonymousUser

from core.auth import is_active_staff
from core.throttling import BadTokenThrottle


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
