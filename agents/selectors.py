"""Read-only queries of the agents app."""

from django.utils.translation import gettext as _

from core.errors import ApplicationError, NotFound
from core.params import parse_id

from .models import Agent, PendingAction
from .registry import ToolContext, localized_schema, registry


def agent_status(*, agent_id: int) -> dict:
    agent = Agent.objects.filter(pk=agent_id).values("id", "name", "credits", "satiety", "energy").first()
    if agent is None:
        raise NotFound("agent_not_found", _("居民不存在"))
    return dict(agent)


def pending_action_get(*, action_id: int) -> PendingAction:
    action = PendingAction.objects.select_related("agent", "conversation").filter(pk=action_id).first()
    if action is None:
        raise NotFound("pending_action_not_found", _("待确认操作不存在"))
    return action


def pending_action_review(action: PendingAction) -> dict:
    """Proposed vs current values of the action's target, read now, for the staff deciding.

    The tool's ``propose`` hook (a pure read) is asked again: its ``form_data`` is what
    confirming would write, its ``current`` what is there now, its ``version`` the current
    version (``stale`` when it moved since the proposal). A hook that now refuses (say, the
    fund is already enabled) gives ``problem`` instead of a diff. Each row has the field's
    label and the values as people read them (names, not ids; 停用, not DISABLE).
    """
    spec = registry.get(action.tool_name)
    proposed, current, version, problem = dict(action.arguments), {}, None, ""
    labels, display = _parameter_labels(spec), {}
    if spec is not None and spec.propose is not None:
        context = ToolContext(agent=action.agent, source="confirmation", conversation=action.conversation, mode=action.mode)
        try:
            proposal = spec.propose(context, **action.arguments)
            proposed, current, version = dict(proposal.form_data), dict(proposal.current), proposal.version
            labels.update(proposal.labels)
            display = proposal.display
        except ApplicationError as exc:
            problem = exc.message
    rows = []
    for key in dict.fromkeys([*proposed, *current]):
        shown = display.get(key, {})
        value, now = proposed.get(key, current.get(key)), current.get(key)
        rows.append({
            "field": key,
            "label": str(labels.get(key, key)),
            "proposed": value,
            "current": now,
            "proposed_display": str(shown.get(value, "—" if value is None else value)),
            "current_display": str(shown.get(now, "—" if now is None else now)),
            "changed": key in proposed and proposed[key] != now,
        })
    stale = action.version_read is not None and version is not None and version != action.version_read
    return {"rows": rows, "version_read": action.version_read, "current_version": version, "stale": stale, "problem": problem}


def _parameter_labels(spec) -> dict:
    """A tool's parameters by their description, in the active language."""
    if spec is None:
        return {}
    properties = localized_schema(spec.input_schema).get("properties", {})
    return {name: schema["description"] for name, schema in properties.items() if schema.get("description")}


def agents_by_keys(keys: list[str]) -> list[Agent]:
    """Agents named on a command line, each by id or by name, in the order given."""
    found = []
    for key in keys:
        key = key.strip()
        agent_id = parse_id(key)
        agent = Agent.objects.filter(pk=agent_id).first() if agent_id else None
        agent = agent or Agent.objects.filter(name=key).first()
        if agent is None:
            raise NotFound("agent_not_found", _("居民不存在：%(key)s") % {"key": key})
        found.append(agent)
    return found
