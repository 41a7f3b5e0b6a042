from django.urls import path

from . import autonomy, pending_actions, ticks, views

urlpatterns = [
    path("tools/", views.ToolList.as_view(), name="api-tools"),
    path("pending-actions/", pending_actions.PendingActionList.as_view(), name="api-pending-actions"),
    path("pending-actions/<id:pk>/", pending_actions.PendingActionDetail.as_view(), name="api-pending-action-detail"),
    path("pending-actions/<id:pk>/confirm/", pending_actions.PendingActionConfirm.as_view(), name="api-pending-action-confirm"),
    path("pending-actions/<id:pk>/reject/", pending_actions.PendingActionReject.as_view(), name="api-pending-action-reject"),
    path("agents/<id:pk>/chat/", views.AgentChat.as_view(), name="api-agent-chat"),
    path("autonomy/tick/", autonomy.AutonomyTick.as_view(), name="api-autonomy-tick"),
    path("autonomy/ticks/", ticks.TickList.as_view(), name="api-autonomy-ticks"),
    path("autonomy/ticks/<id:pk>/", ticks.TickDetail.as_view(), name="api-autonomy-tick-detail"),
    path("tool-calls/", ticks.ToolCallList.as_view(), name="api-tool-calls"),
]
