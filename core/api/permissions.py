"""The API's one permission class: each view declares the Django permissions of each method."""

from rest_framework.permissions import BasePermission

from core.auth import has_permissions, is_active_staff

# A method a view does not declare is refused; reading the headers or the options is a read.
_SAME_AS = {"HEAD": "GET", "OPTIONS": "GET"}


class DeclaredPermissions(BasePermission):
    """Active staff holding the permissions the view names for the request's method.

    A view declares ``permissions = {"GET": "funds.view_fund", "POST": ("funds.add_fund",)}``.
    A view that declares none, or not this method, refuses everyone: a forgotten declaration
    closes the endpoint instead of opening it.
    """

    def has_permission(self, request, view) -> bool:
        if not is_active_staff(request.user):
            return False
        method = _SAME_AS.get(request.method, request.method)
        if not hasattr(view, method.lower()):
            return True  # a method the view does not have: staff learn it with 405, not 403
        declared = getattr(view, "permissions", {})
        return method in declared and has_permissions(request.user, declared[method])
