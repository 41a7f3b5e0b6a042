"""Read-only queries of the agents app."""

from django.utils.translation import gettext as _

from .errors import NotFound
from .models import Agent


def agent_status(*, agent_id: int) -> dict:
    agent = Agent.objects.filter(pk=agent_id).values("id", "name", "credits", "satiety", "energy").first()
    if agent is None:
        raise NotFound("agent_not_found", _("居民不存在"))
    return dict(agent)
