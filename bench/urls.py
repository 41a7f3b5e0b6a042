"""The project's URLs and the bench's bare authenticated DRF view (see ``bench.asgi``)."""

from django.urls import path
from rest_framework.response import Response
from rest_framework.views import APIView

from config.urls import urlpatterns as project_urls


class Bare(APIView):
    """Authentication and the permission check of every API view, then an empty answer."""

    permissions = {"GET": "agents.view_agent"}

    def get(self, request):
        return Response({"ok": True})


urlpatterns = [path("bench/bare/", Bare.as_view()), *project_urls]
