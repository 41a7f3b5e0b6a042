"""Token authentication that slows down guessing: wrong tokens are counted per address.

DRF's throttles run only after authentication succeeded, so they never see a guess; here
an address that sent ``bad_token`` wrong tokens within the period gets 429 until it ends.
"""

from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication, get_authorization_header
from rest_framework.throttling import SimpleRateThrottle


class BadTokenThrottle(SimpleRateThrottle):
    scope = "bad_token"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}

    def exceeded(self, request) -> bool:
        """Whether this address used up its wrong tokens; reading does not count as one."""
        self.key = self.get_cache_key(request, None)
        self.now = self.timer()
        self.history = [moment for moment in self.cache.get(self.key, []) if moment > self.now - self.duration]
        return len(self.history) >= self.num_requests

    def record_failure(self) -> None:
        self.history.insert(0, self.now)
        self.cache.set(self.key, self.history, self.duration)


class ThrottledTokenAuthentication(TokenAuthentication):
    def authenticate(self, request):
        if not get_authorization_header(request):
            return None  # no token sent: nothing to guess, other authentications decide
        throttle = BadTokenThrottle()
        if throttle.exceeded(request):
            raise exceptions.Throttled(throttle.wait())
        try:
            return super().authenticate(request)
        except exceptions.AuthenticationFailed:
            throttle.record_failure()
            raise
