from django.conf import settings


class ContentSecurityPolicyMiddleware:
    """Send a Content-Security-Policy on every response: pages load only their own assets."""

    policy = (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; connect-src 'self' ws: wss:; frame-ancestors 'none'; "
        "base-uri 'self'; form-action 'self'"
    )

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", getattr(settings, "CONTENT_SECURITY_POLICY", self.policy))
        return response
