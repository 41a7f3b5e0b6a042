from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.response import Response
from rest_framework.views import APIView

from agents.chat import CHAT_PERMISSION, run_chat
from agents.models import Agent, Tool
from core.api.schema import ErrorSerializer, error_codes
from core.errors import NotFound

from .serializers import ChatInputSerializer, ChatOutputSerializer, ModelFailureSerializer, ToolSerializer


@extend_schema(tags=["tools"])
class ToolList(generics.ListAPIView):
    """The tool registry as synced into the database."""

    permissions = {"GET": "agents.view_tool"}

    queryset = Tool.objects.order_by("name")
    serializer_class = ToolSerializer
    pagination_class = None


@extend_schema(
    tags=["agents"],
    request=ChatInputSerializer,
    responses={
        200: ChatOutputSerializer, 400: ErrorSerializer, 404: ErrorSerializer,
        502: ModelFailureSerializer, 503: ModelFailureSerializer, 504: ModelFailureSerializer,
    },
)
@error_codes({400: ("empty_message", "message_too_long", "invalid_text", "invalid_mode", "agent_inactive"), 404: ("agent_not_found", "conversation_not_found"), 502: ("model_error",), 503: ("model_unavailable",), 504: ("model_timeout",)})
class AgentChat(APIView):
    """Send a message to an agent: it may call its granted tools, then replies.

    A model failure answers 502 ``model_error`` (an error or an unreadable answer), 503
    ``model_unavailable`` (unreachable) or 504 ``model_timeout``, with the conversation that
    keeps the message.
    """

    permissions = {"POST": CHAT_PERMISSION}

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
