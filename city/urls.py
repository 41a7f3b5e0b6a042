from django.urls import path

from . import views

app_name = "city"

urlpatterns = [
    path("", views.overview, name="overview"),
    path("trade/", views.trade, name="trade"),
]
