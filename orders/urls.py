from django.urls import path

from . import views

app_name = "orders"

urlpatterns = [
    path("orders/", views.desk, name="desk"),
]
