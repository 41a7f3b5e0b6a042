"""Who is behind a call: a signed-in user, or nobody."""

from typing import Any


def signed_in(user: Any):
    """``user`` when it is a signed-in user, else None (anonymous, a script without one)."""
    return user if getattr(user, "is_authenticated", False) else None


def is_active_staff(user: Any) -> bool:
    """A signed-in, active staff member: the only people Agent Desk serves."""
    return bool(signed_in(user) and getattr(user, "is_active", False) and getattr(user, "is_staff", False))
