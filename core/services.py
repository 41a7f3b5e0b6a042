"""What a staff member sets for themselves (core.models.UserPreference)."""

from __future__ import annotations

import zoneinfo

from django.conf import settings
from django.utils.translation import gettext as _

from .errors import ApplicationError
from .models import UserPreference

# Offered on the pages, besides the server's TIME_ZONE; any other IANA name is accepted too.
COMMON_TIME_ZONES = (
    "UTC",
    "Asia/Shanghai",
    "Asia/Tokyo",
    "Asia/Singapore",
    "Asia/Kolkata",
    "Europe/London",
    "Europe/Berlin",
    "America/New_York",
    "America/Los_Angeles",
    "Australia/Sydney",
)


def time_zone_choices() -> list[str]:
    """The server's zone first, then the common ones."""
    return [settings.TIME_ZONE, *(zone for zone in COMMON_TIME_ZONES if zone != settings.TIME_ZONE)]


def set_time_zone(*, user, time_zone: str) -> UserPreference:
    """Save the zone the pages show this user's times in; "" goes back to TIME_ZONE."""
    time_zone = time_zone.strip()
    if time_zone and time_zone not in zoneinfo.available_timezones():
        raise ApplicationError("invalid_time_zone", _("未知时区：%(zone)s") % {"zone": time_zone[:64]}, field="time_zone")
    preference, _created = UserPreference.objects.update_or_create(user=user, defaults={"time_zone": time_zone})
    return preference


def saved_time_zone(*, user_id: int | None) -> str:
    if user_id is None:
        return ""
    return UserPreference.objects.filter(user_id=user_id).values_list("time_zone", flat=True).first() or ""
