from django import template

from core.events import latest_event_seq

register = template.Library()


@register.simple_tag
def event_seq() -> int:
    """The newest event seq when the page is rendered: the page's live stream resumes after it."""
    return latest_event_seq()
