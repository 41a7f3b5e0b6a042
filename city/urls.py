from django.urls import path

app_name = "city"

urlpatterns: list = []
