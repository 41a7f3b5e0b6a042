from django.urls import path

from . import views

urlpatterns = [
    path("agents/", views.AgentList.as_view(), name="api-agents"),
    path("agents/<id:pk>/", views.AgentDetail.as_view(), name="api-agent-detail"),
    path("agents/transfer-resource/", views.TransferResource.as_view(), name="api-transfer-resource"),
    path("transfers/", views.TransferList.as_view(), name="api-transfers"),
    path("market-orders/", views.MarketOrderList.as_view(), name="api-market-orders"),
    path("market-orders/<id:pk>/accept/", views.MarketOrderAccept.as_view(), name="api-market-order-accept"),
    path("market-orders/<id:pk>/cancel/", views.MarketOrderCancel.as_view(), name="api-market-order-cancel"),
]
