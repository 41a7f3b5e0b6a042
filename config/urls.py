from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

api_patterns = [
    path("", include("agents.api.urls")),
    path("", include("city.api.urls")),
    path("", include("bounties.api.urls")),
    path("", include("funds.api.urls")),
    path("", include("orders.api.urls")),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
]

urlpatterns = [
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
