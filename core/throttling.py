"""Who is asking, by address, and how many wrong tokens that address may send.

``client_address`` trusts ``X-Forwarded-For`` only from the proxies named in
``DJANGO_TRUSTED_PROXIES`` (none by default): a client that sets the header itself is counted
by the address it connects from, so rotating the header gains nothing.

``BadTokenThrottle`` counts failed authentications per address, shared by the API, MCP and the
events socket. It throttles failures, never requests: a valid token is always let in, whatever
others sent from the same address; a wrong one past the limit is answered 429 instead of 401.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle


@lru_cache(maxsize=1)
def _trusted_networks(proxies: tuple[str, ...]) -> tuple:
    return tuple(ipaddress.ip_network(proxy, strict=False) for proxy in proxies)


def _is_trusted_proxy(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return False
    return any(ip in network for network in _trusted_networks(tuple(settings.TRUSTED_PROXIES)))


def client_address(remote_addr: str | None, forwarded_for: str | None) -> str:
    """The client's address: the peer's, or, when the peer is a trusted proxy, the nearest address
    in ``X-Forwarded-For`` that is not one of the trusted proxies (read from the right, since a
    client can prepend anything)."""
    remote = (remote_addr or "").strip()
    if not forwarded_for or not _is_trusted_proxy(remote):
        return remote
    for hop in reversed(forwarded_for.split(",")):
        hop = hop.strip()
        if not _is_trusted_proxy(hop):
            try:
                return str(ipaddress.ip_address(hop))
            except ValueError:
                return remote  # a garbled header: count the proxy, not a made-up name
    return remote


def request_address(request) -> str:
    """``client_address`` of a Django request (also axes' ``AXES_CLIENT_IP_CALLABLE``)."""
    return client_address(request.META.get("REMOTE_ADDR"), request.META.get("HTTP_X_FORWARDED_FOR"))


def scope_address(scope) -> str:
    """``client_address`` of an ASGI scope (MCP, the events socket)."""
    client = scope.get("client") or ("", 0)
    forwarded = [v.decode("latin1") for k, v in scope.get("headers", []) if k.lower() == b"x-forwarded-for"]
    return client_address(client[0], ",".join(forwarded) or None)


class BadTokenThrottle(SimpleRateThrottle):
    """Wrong tokens per address, at the ``bad_token`` rate (``API_THROTTLE_BAD_TOKEN``)."""

    scope = "bad_token"

    def __init__(self, address: str) -> None:
        super().__init__()
        self.address = address

    def get_cache_key(self, request=None, view=None) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.address}

    def failed(self) -> bool:
        """Count one wrong token; whether the address had used up its allowance (answer 429).

        Guessing on past the limit keeps the address refused: each failure is counted, and only
        the newest ``num_requests`` are kept, so the wait ends a period after the last of them.
        """
        self.key = self.get_cache_key()
        self.now = self.timer()
        self.history = [moment for moment in self.cache.get(self.key, []) if moment > self.now - self.duration]
        over = len(self.history) >= self.num_requests
        self.history = [self.now, *self.history][: self.num_requests]
        self.cache.set(self.key, self.history, self.duration)
        return over
