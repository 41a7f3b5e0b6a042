from django.urls import path

from . import views

app_name = "agents"

urlpatterns = [
    path("agents/<id:pk>/chat/", views.agent_chat, name="chat"),
]
