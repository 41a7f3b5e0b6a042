from django.urls import path

app_name = "bounties"

urlpatterns: list = []
