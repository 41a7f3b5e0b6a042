"""Who may act as an agent over MCP: an active staff member holding ``agents.chat_agent``.

HTTP and stdio apply the same rule; HTTP first learns the user from a DRF token, which MCP
clients send as ``Authorization: Bearer <key>`` (``Token <key>``, as for the API, works too).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation.trans_real import parse_accept_lang_header
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

from core.auth import has_permissions
from core.errors import ApplicationError, Forbidden, NotFound, TooManyRequests
from core.throttling import BadTokenThrottle

from ..chat import CHAT_PERMISSION
from ..models import Agent

TOKEN_SCHEMES = ("bearer", "token")


class NotAuthenticated(ApplicationError):
    """No usable credentials: HTTP 401, before anything else is looked at."""

    status_code = 401


def token_user(authorization: str | None, *, address: str | None = None) -> Any:
    """The active user of the DRF token in an ``Authorization`` header value.

    A wrong token from ``address`` counts against the API's bad-token throttle (one allowance for
    the API, MCP and the events socket); past it the answer is 429, not 401. Without an address
    (a stream re-checking its own token) nothing is counted.
    """
    scheme, _sep, key = (authorization or "").strip().partition(" ")
    if scheme.lower() not in TOKEN_SCHEMES or not key.strip():
        raise NotAuthenticated("not_authenticated", _("Authentication credentials were not provided."))
    try:
        user, _token = TokenAuthentication().authenticate_credentials(key.strip())
    except AuthenticationFailed as exc:  # an unknown (revoked) token, or its user is inactive
        if address is not None and (throttle := BadTokenThrottle(address)).failed():
            raise TooManyRequests("throttled", _("Request was throttled."), wait=throttle.wait()) from exc
        raise NotAuthenticated("authentication_failed", str(exc.detail)) from exc
    return user


def agent_for(*, user: Any, agent_id: int) -> Agent:
    """The active agent ``user`` may act as; Forbidden before NotFound, so outsiders learn nothing."""
    if not has_permissions(user, CHAT_PERMISSION):
        raise Forbidden("permission_denied", _("You do not have permission to perform this action."))
    agent = Agent.objects.filter(pk=agent_id, is_active=True).first()
    if agent is None:
        raise NotFound("agent_not_found", _("居民不存在"))
    return agent


def accepted_language(accept_language: str | None) -> str:
    """The first supported language of an ``Accept-Language`` header, else the site's (zh-hans)."""
    for code, _quality in parse_accept_lang_header(accept_language or ""):
        if code == "*":
            break
        try:
            return translation.get_supported_language_variant(code)
        except LookupError:
            continue
    return settings.LANGUAGE_CODE
