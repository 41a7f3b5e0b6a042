from drf_spectacular.utils import extend_schema
from rest_framework import generics

from agents.models import Agent, Tool

from .serializers import AgentSerializer, ToolSerializer


@extend_schema(tags=["tools"])
class ToolList(generics.ListAPIView):
    """The tool registry as synced into the database."""

    queryset = Tool.objects.order_by("name")
    serializer_class = ToolSerializer
    pagination_class = None


@extend_schema(tags=["agents"])
class AgentList(generics.ListAPIView):
    queryset = Agent.objects.prefetch_related("tools").order_by("id")
    serializer_class = AgentSerializer


@extend_schema(tags=["agents"])
class AgentDetail(generics.RetrieveAPIView):
    queryset = Agent.objects.prefetch_related("tools")
    serializer_class = AgentSerializer
