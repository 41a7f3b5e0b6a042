"""Who is behind a call, and what they may do: Django model permissions, checked at every surface.

Staff are active ``is_staff`` users; what each may read or change is the Django permissions
of their groups (superusers hold all). The API (``core.api.permissions``), the pages
(``staff_page``), the admin actions, the WebSocket events and the confirmation of an agent's
proposal all ask ``has_permissions``.
"""

from collections.abc import Callable, Iterable
from functools import wraps
from typing import Any

from django.contrib.admin.views.decorators import staff_member_required
from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext as _

from .errors import Forbidden


def signed_in(user: Any):
    """``user`` when it is a signed-in user, else None (anonymous, a script without one)."""
    return user if getattr(user, "is_authenticated", False) else None


def is_active_staff(user: Any) -> bool:
    """A signed-in, active staff member: the only people Agent Desk serves."""
    return bool(signed_in(user) and getattr(user, "is_active", False) and getattr(user, "is_staff", False))


def _as_tuple(permissions: str | Iterable[str]) -> tuple[str, ...]:
    return (permissions,) if isinstance(permissions, str) else tuple(permissions)


def has_permissions(user: Any, permissions: str | Iterable[str]) -> bool:
    """An active staff member holding every one of ``permissions`` ("app_label.codename")."""
    return is_active_staff(user) and user.has_perms(_as_tuple(permissions))


def require_permissions(user: Any, permissions: str | Iterable[str]) -> None:
    """Raise ``Forbidden("permission_denied")`` unless ``has_permissions``."""
    if not has_permissions(user, permissions):
        raise Forbidden("permission_denied", _("您没有执行此操作的权限"))


def staff_page(*permissions: str) -> Callable:
    """A page for staff holding ``permissions``: anyone else signs in first, staff without them get 403.

    What a page's buttons do is checked where it is done (``require_permissions`` in the view,
    which ``core.pages.form_errors`` puts on the form).
    """

    def decorator(view: Callable) -> Callable:
        @wraps(view)
        def checked(request, *args, **kwargs):
            if not request.user.has_perms(permissions):
                raise PermissionDenied
            return view(request, *args, **kwargs)

        return staff_member_required(checked)

    return decorator
