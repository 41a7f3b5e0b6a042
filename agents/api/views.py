from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.response import Response
from rest_framework.views import APIView

from agents.chat import run_chat
from agents.models import Agent, Tool
from core.errors import NotFound

from .serializers import ChatInputSerializer, ChatOutputSerializer, ToolSerializer


@extend_schema(tags=["tools"])
class ToolList(generics.ListAPIView):
    """The tool registry as synced into the database."""

    queryset = Tool.objects.order_by("name")
    serializer_class = ToolSerializer
    pagination_class = None


@extend_schema(tags=["agents"], request=ChatInputSerializer, responses={200: ChatOutputSerializer})
class AgentChat(APIView):
    """Send a message to an agent: it may call its granted tools, then replies."""

    def post(self, request, pk: int):
        agent = Agent.objects.filter(pk=pk).first()
        if agent is None:
            raise NotFound("agent_not_found", _("居民不存在"))
        serializer = ChatInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        result = run_chat(
            agent=agent,
            message=serializer.validated_data["message"],
            user=request.user,
            conversation_id=serializer.validated_data.get("conversation_id"),
        )
        return Response(ChatOutputSerializer(result).data)
