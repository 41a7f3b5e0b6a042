from django.urls import path

from . import views

urlpatterns = [
    path("bounties/", views.BountyListCreate.as_view(), name="api-bounties"),
    path("bounties/<id:pk>/", views.BountyDetail.as_view(), name="api-bounty-detail"),
    path("bounties/<id:pk>/claim/", views.BountyClaim.as_view(), name="api-bounty-claim"),
    path("bounties/<id:pk>/complete/", views.BountyComplete.as_view(), name="api-bounty-complete"),
    path("bounties/<id:pk>/cancel/", views.BountyCancel.as_view(), name="api-bounty-cancel"),
]
