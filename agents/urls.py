from django.urls import path

from . import views

app_name = "agents"

urlpatterns = [
    path("", views.home, name="home"),
    path("agents/<id:pk>/chat/", views.agent_chat, name="chat"),
]
