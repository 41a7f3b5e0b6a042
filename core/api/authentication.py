"""Token authentication that slows down guessing: wrong tokens are counted per address.

DRF's throttles run only after authentication succeeded, so they never see a guess. Here each
wrong token is counted (``core.throttling.BadTokenThrottle``, shared with MCP and the events
socket), and one past the limit is a 429; a right token is never refused for what others sent.
"""

from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication, get_authorization_header
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from core.language import follow_token_user
from core.throttling import BadTokenThrottle, request_address


class ThrottledTokenAuthentication(TokenAuthentication):
    def authenticate(self, request):
        if not get_authorization_header(request):
            return None  # no token sent: nothing to guess, other authentications decide
        try:
            authenticated = super().authenticate(request)
        except exceptions.AuthenticationFailed:
            throttle = BadTokenThrottle(request_address(request))
            if throttle.failed():
                raise exceptions.Throttled(throttle.wait()) from None
            raise
        if authenticated is not None:
            follow_token_user(request._request, authenticated[0])
        return authenticated

    def authenticate_credentials(self, key):
        """DRF's, with the user's saved language read in the same query (``core.language``)."""
        try:
            token = self.get_model().objects.select_related("user__preference").get(key=key)
        except self.get_model().DoesNotExist:
            raise exceptions.AuthenticationFailed(_("Invalid token.")) from None
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return (token.user, token)


class AddressAnonRateThrottle(AnonRateThrottle):
    """DRF's per-address throttle, by ``core.throttling.client_address`` (X-Forwarded-For only from a trusted proxy)."""

    def get_ident(self, request):
        return request_address(request)


class AddressUserRateThrottle(UserRateThrottle):
    def get_ident(self, request):
        return request_address(request)
