from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string
import zoneinfo

from django.utils import timezone, translation

from core.api.errors import error_body
from core.language import api_language
from core.database import database_failure
from core.services import saved_time_zone


class ApiLanguageMiddleware:
    """Under /api/, ``reason`` follows Accept-Language, then the caller's saved language, then LANGUAGE_CODE
    (core.language); after LocaleMiddleware and AuthenticationMiddleware, which it overrides there."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path.startswith("/api/"):
            request.LANGUAGE_CODE = api_language(request)
            translation.activate(request.LANGUAGE_CODE)
        return self.get_response(request)


class UserTimeZoneMiddleware:
    """Times on the pages follow the signed-in user's saved zone (core.services.set_time_zone),
    else TIME_ZONE; after AuthenticationMiddleware."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        zone = saved_time_zone(user_id=request.user.pk) if request.user.is_authenticated else ""
        try:
            if zone:
                timezone.activate(zoneinfo.ZoneInfo(zone))
            else:
                timezone.deactivate()
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):  # a zone since removed from tzdata
            timezone.deactivate()
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()


class DatabaseUnavailableMiddleware:
    """A view that fails because the database does (restarted, connection killed, disk full)
    answers 503: the API's JSON error under /api/, a plain page elsewhere, never a 500."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        failure = database_failure(exception)
        if failure is None:
            return None
        if request.path.startswith("/api/"):
            return JsonResponse(error_body(failure), status=failure.status_code)
        # No request context: the page must render without the database (no user, no session).
        html = render_to_string("503.html", {"reason": failure.message})
        return HttpResponse(html, status=failure.status_code, headers={"Retry-After": "5"})
