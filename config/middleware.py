from django.conf import settings


class ContentSecurityPolicyMiddleware:
    """Send a Content-Security-Policy on every response: pages load only their own assets, and
    open a WebSocket only to this site's own host (not ``ws:`` anywhere)."""

    policy = (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; connect-src 'self' {sockets}; frame-ancestors 'none'; "
        "base-uri 'self'; form-action 'self'"
    )

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if "Content-Security-Policy" not in response.headers:
            policy = getattr(settings, "CONTENT_SECURITY_POLICY", None) or self.policy.format(sockets=self._sockets(request))
            response.headers["Content-Security-Policy"] = policy
        return response

    @staticmethod
    def _sockets(request) -> str:
        try:
            host = request.get_host()  # validated against ALLOWED_HOSTS
        except Exception:
            return ""
        return f"ws://{host} wss://{host}"
