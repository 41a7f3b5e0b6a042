from django import template

from core.services import time_zone_choices

register = template.Library()


@register.simple_tag
def time_zone_options() -> list[str]:
    """The zones the footer's switch offers: TIME_ZONE first, then the common ones."""
    return time_zone_choices()
