from django.urls import path

from . import views

urlpatterns = [
    path("tools/", views.ToolList.as_view(), name="api-tools"),
    path("agents/", views.AgentList.as_view(), name="api-agents"),
    path("agents/<int:pk>/", views.AgentDetail.as_view(), name="api-agent-detail"),
    path("agents/<int:pk>/chat/", views.AgentChat.as_view(), name="api-agent-chat"),
]
