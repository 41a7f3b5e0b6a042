from django.conf import settings
from django.contrib import admin
from django.contrib.auth.decorators import login_required
from django.templatetags.static import static
from django.urls import include, path, re_path, register_converter
from django.utils.translation import gettext_lazy as _
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from core.api.errors import unknown_api_path
from core.converters import IdConverter

register_converter(IdConverter, "id")  # before the apps' urls, which use <id:…>

admin.site.site_header = admin.site.site_title = "Agent Desk"
admin.site.index_title = _("管理后台")
# The change lists get the whole width (a laptop showed the bounty list cut and its titles
# squeezed beside the sidebar); the breadcrumbs and the index still lead everywhere.
admin.site.enable_nav_sidebar = False

api_patterns = [
    path("", include("agents.api.urls")),
    path("", include("city.api.urls")),
    path("", include("bounties.api.urls")),
    path("", include("funds.api.urls")),
    path("", include("orders.api.urls")),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up code as a file: the CSP allows no inline script.
    # A signed-out browser is sent to sign in and back (not a bare 401); signed-in non-staff get 403.
    path("docs/", login_required(SpectacularSwaggerSplitView.as_view(url_name="api-schema")), name="api-docs"),
    # Anything else under /api/ is the API's JSON 404, not the site's HTML page.
    re_path(r"^[\s\S]*$", unknown_api_path),  # not ".*": a path may hold an encoded newline
]

urlpatterns = [
    # Browsers ask for /favicon.ico on every page, the admin's included.
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"), permanent=True)),
    path("admin/", admin.site.urls),
    path("api/", include(api_patterns)),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("agents.urls")),
    path("", include("city.urls")),
    path("", include("bounties.urls")),
    path("", include("funds.urls")),
    path("", include("orders.urls")),
]

if settings.DEBUG:
    from django.contrib.staticfiles.urls import staticfiles_urlpatterns

    urlpatterns += staticfiles_urlpatterns()
