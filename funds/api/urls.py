from django.urls import path

from . import views

urlpatterns = [
    path("funds/", views.FundListCreate.as_view(), name="api-funds"),
    path("funds/validate/", views.FundValidate.as_view(), name="api-fund-validate"),
    path("funds/batch-upsert/", views.FundBatchUpsert.as_view(), name="api-fund-batch-upsert"),
    path("funds/<id:pk>/", views.FundDetail.as_view(), name="api-fund-detail"),
    path("funds/<id:pk>/enable/", views.FundEnable.as_view(), name="api-fund-enable"),
    path("funds/<id:pk>/disable/", views.FundDisable.as_view(), name="api-fund-disable"),
]
