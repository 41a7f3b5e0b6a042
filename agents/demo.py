"""Demo data of the agents app: the staff logins every other demo relies on, one per role."""

import os
import secrets
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model

from .roles import DEMO_USERS, apply_roles

CREDENTIALS_FILE = Path(settings.BASE_DIR) / ".demo-credentials"
DEMO_USERNAME = "admin"


def seed(stdout) -> None:
    if CREDENTIALS_FILE.exists():
        password = CREDENTIALS_FILE.read_text().strip()
    else:
        password = secrets.token_urlsafe(12)
        # Created with mode 0600, never readable by others even for a moment.
        with os.fdopen(os.open(CREDENTIALS_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as file:
            file.write(password + "\n")
    user, created = get_user_model().objects.get_or_create(
        username=DEMO_USERNAME, defaults={"is_staff": True, "is_superuser": True}
    )
    if created or not user.check_password(password):
        user.set_password(password)
        user.is_staff = user.is_superuser = True
        user.save()
    stdout.write(f"Staff login: {DEMO_USERNAME} / {password}  (superuser; also in {CREDENTIALS_FILE.name})")
    groups = apply_roles()
    for username, role in DEMO_USERS.items():
        member, _ = get_user_model().objects.get_or_create(username=username, defaults={"is_staff": True})
        if not member.check_password(password):
            member.set_password(password)
            member.save()
        member.groups.set([groups[role]])
    stdout.write("Role logins, same password: " + ", ".join(f"{name} ({role})" for name, role in DEMO_USERS.items()))
