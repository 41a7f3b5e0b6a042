from django.urls import path

app_name = "orders"

urlpatterns: list = []
