from django.urls import path

app_name = "funds"

urlpatterns: list = []
