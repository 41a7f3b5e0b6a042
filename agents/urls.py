from django.urls import path

app_name = "agents"

urlpatterns: list = []
