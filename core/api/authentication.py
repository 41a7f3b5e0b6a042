"""Token authentication that slows down guessing: wrong tokens are counted per address.

DRF's throttles run only after authentication succeeded, so they never see a guess. Here each
wrong token is counted (``core.throttling.BadTokenThrottle``, shared with MCP and the events
socket), and one past the limit is a 429; a right token is never refused for what others sent.
"""

from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication, get_authorization_header
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from core.throttling import BadTokenThrottle, request_address


class ThrottledTokenAuthentication(TokenAuthentication):
    def authenticate(self, request):
        if not get_authorization_header(request):
            return None  # no token sent: nothing to guess, other authentications decide
        try:
            return super().authenticate(request)
        except exceptions.AuthenticationFailed:
            throttle = BadTokenThrottle(request_address(request))
            if throttle.failed():
                raise exceptions.Throttled(throttle.wait()) from None
            raise


class AddressAnonRateThrottle(AnonRateThrottle):
    """DRF's per-address throttle, by ``core.throttling.client_address`` (X-Forwarded-For only from a trusted proxy)."""

    def get_ident(self, request):
        return request_address(request)


class AddressUserRateThrottle(UserRateThrottle):
    def get_ident(self, request):
        return request_address(request)
