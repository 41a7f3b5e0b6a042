from django.conf import settings
from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path, re_path, register_converter
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from core.api.docs import sign_in_first
from core.api.errors import unknown_api_path
from core.converters import IdConverter
from core.views import set_language, set_time_zone

register_converter(IdConverter, "id")  # before the apps' urls, which use <id:…>

api_patterns = [
    path("", include("agents.api.urls")),
    path("", include("city.api.urls")),
    path("", include("bounties.api.urls")),
    path("", include("funds.api.urls")),
    path("", include("orders.api.urls")),
    # A signed-out browser is sent to sign in and back; scripts keep the JSON 401.
    path("schema/", sign_in_first(SpectacularAPIView.as_view()), name="api-schema"),
    # The split view serves Swagger UI's start-up code as a file: the CSP allows no inline script.
    path("docs/", sign_in_first(SpectacularSwaggerSplitView.as_view(url_name="api-schema")), name="api-docs"),
    # Anything else under /api/ is the API's JSON 404, not the site's HTML page.
    re_path(r"^[\s\S]*$", unknown_api_path),  # not ".*": a path may hold an encoded newline
]

urlpatterns = [
    # Browsers ask for /favicon.ico on every page, the admin's included.
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"), permanent=True)),
    path("admin/", admin.site.urls),
    path("api/", include(api_patterns)),
    path("i18n/setlang/", set_language, name="set_language"),  # Django's, saving a signed-in user's choice
    path("i18n/settz/", set_time_zone, name="set_time_zone"),  # the signed-in user's zone for times on the pages
    path("", include("agents.urls")),
    path("", include("city.urls")),
    path("", include("bounties.urls")),
    path("", include("funds.urls")),
    path("", include("orders.urls")),
]

if settings.DEBUG:
    from django.contrib.staticfiles.urls import staticfiles_urlpatterns

    urlpatterns += staticfiles_urlpatterns()
