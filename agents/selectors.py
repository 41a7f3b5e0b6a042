"""Read-only queries of the agents app."""

from django.utils.translation import gettext as _

from .errors import NotFound
from .models import Agent


def agent_status(*, agent_id: int) -> dict:
    agent = Agent.objects.filter(pk=agent_id).values("id", "name", "credits", "satiety", "energy").first()
    if agent is None:
        raise NotFound("agent_not_found", _("居民不存在"))
    return dict(agent)


def agents_by_keys(keys: list[str]) -> list[Agent]:
    """Agents named on a command line, each by id or by name, in the order given."""
    found = []
    for key in keys:
        key = key.strip()
        agent = Agent.objects.filter(pk=int(key)).first() if key.isdigit() else None
        agent = agent or Agent.objects.filter(name=key).first()
        if agent is None:
            raise NotFound("agent_not_found", _("居民不存在：%(key)s") % {"key": key})
        found.append(agent)
    return found
