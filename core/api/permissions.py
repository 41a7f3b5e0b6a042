"""The API's one permission class: each view declares the Django permissions of each method."""

from rest_framework.permissions import BasePermission

from core.auth import has_permissions

# A method a view does not declare is refused; reading the headers or the options is a read.
_SAME_AS = {"HEAD": "GET", "OPTIONS": "GET"}


class DeclaredPermissions(BasePermission):
    """Active staff holding the permissions the view names for the request's method.

    A view declares ``permissions = {"GET": "funds.view_fund", "POST": ("funds.add_fund",)}``.
    A view that declares none, or not this method, refuses everyone: a forgotten declaration
    closes the endpoint instead of opening it.
    """

    def has_permission(self, request, view) -> bool:
        declared = getattr(view, "permissions", {})
        method = _SAME_AS.get(request.method, request.method)
        return method in declared and has_permissions(request.user, declared[method])
