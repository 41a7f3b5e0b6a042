from django.urls import path

from . import views

app_name = "bounties"

urlpatterns = [
    path("bounties/", views.board, name="board"),
]
