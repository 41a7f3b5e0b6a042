from django.urls import path

from . import views

app_name = "funds"

urlpatterns = [
    path("funds/", views.fund_page, name="page"),
    path("funds/chat/", views.fund_chat, name="chat"),
]
