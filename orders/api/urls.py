from django.urls import path

from . import views

urlpatterns = [
    path("orders/", views.OrderList.as_view(), name="api-orders"),
    path("orders/<str:order_no>/", views.OrderDetail.as_view(), name="api-order-detail"),
    path("order-messages/", views.ChannelMessageList.as_view(), name="api-order-messages"),
]
