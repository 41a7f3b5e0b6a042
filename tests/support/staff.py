"""Staff users for tests: through the permission checks, holding every permission unless told which."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission


def create_staff(username: str, *permissions: str, password: str | None = None):
    """An active staff member holding ``permissions`` ("app_label.codename"), or all of them when none are named."""
    user = get_user_model().objects.create_user(username, password=password, is_staff=True)
    rows = Permission.objects.all()
    if permissions:
        wanted = {tuple(name.split(".", 1)) for name in permissions}
        rows = [row for row in rows.select_related("content_type") if (row.content_type.app_label, row.codename) in wanted]
        assert len(rows) == len(wanted), f"unknown permissions among {permissions}"
    user.user_permissions.set(rows)
    return user
