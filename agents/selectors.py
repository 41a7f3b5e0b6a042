"""Read-only queries of the agents app."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, Min, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from core import rows
from core.errors import ApplicationError, NotFound
from core.params import parse_id

from .models import Agent, AgentActionLog, AutonomyRound, Conversation, Message, PendingAction, ToolCall
from .registry import ToolContext, localized_schema, registry


def residents() -> QuerySet[Agent]:
    """The city's residents: every agent but the desk assistants. The one place that tells them apart."""
    return Agent.objects.filter(kind=Agent.Kind.RESIDENT)


def conversation_awaits_reply(*, conversation: Conversation) -> bool:
    """The conversation's newest message still waits for the agent's reply: a turn is being written
    (or broke before any text). A page that stopped a reply asks until its stopped reply is stored."""
    last = conversation.messages.order_by("-id").values("role", "tool_calls").first()
    return last is not None and (last["role"] != Message.Role.ASSISTANT or bool(last["tool_calls"]))


def agent_status(*, agent_id: int) -> dict:
    agent = Agent.objects.filter(pk=agent_id).values("id", "name", "credits", "satiety", "energy").first()
    if agent is None:
        raise NotFound("agent_not_found", _("居民不存在"))
    return dict(agent)


# The action with the relations deciding and showing it read (``PendingActionSerializer``'s too),
# composed once: a confirm's dearest statement to build.
_PENDING_ACTION = rows.OneByKey(PendingAction.objects.select_related("agent", "conversation", "requested_by", "decided_by"))


def pending_action_get(*, action_id: int) -> PendingAction:
    """The action with the relations deciding and showing it read."""
    action = _PENDING_ACTION.get(action_id)
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


# ---------------------------------------------------------------------------- overview

# Ages a waiting proposal is counted under: (upper bound, key), then ``older``.
PENDING_AGE_BUCKETS = ((timedelta(minutes=5), "within_5m"), (timedelta(hours=1), "within_1h"), (timedelta(days=1), "within_1d"))


@dataclass(frozen=True)
class TickRow:
    """One tick's numbers as the overview charts them (from ``AutonomyRound.stats``)."""

    id: int
    started_at: datetime
    duration_s: float
    decided: int
    failed: int
    fallbacks: int
    tokens: int
    workers: tuple[str, ...] = ()  # the processes that executed its batches

    @property
    def tokens_per_decision(self) -> float:
        return round(self.tokens / self.decided, 1) if self.decided else 0.0


def recent_ticks(*, limit: int = 100) -> list[TickRow]:
    """The last ``limit`` finished ticks, oldest first, in one query."""
    rounds = AutonomyRound.objects.filter(finished_at__isnull=False).order_by("-started_at", "-id")[:limit]
    rows = [
        TickRow(
            id=pk,
            started_at=started_at,
            duration_s=float(stats.get("duration_s", 0) or 0),
            decided=int(stats.get("decided", 0) or 0),
            failed=int(stats.get("failed", 0) or 0),
            fallbacks=int(stats.get("fallback", 0) or 0),
            tokens=int(stats.get("tokens", 0) or 0),
            workers=tuple(str(worker) for worker in workers or ()),
        )
        for pk, started_at, stats, workers in rounds.values_list("id", "started_at", "stats", "workers")
    ]
    return rows[::-1]


NOT_FAILURES = ("success", "pending")  # the tool-call outcomes that are not failures; any other is an error code


def _tool_call_outcome(status: str, error_code: str) -> str:
    """``success``, ``pending`` or the tool result's error code (``error`` when it has none)."""
    return {"success": "success", "pending_confirmation": "pending"}.get(status) or error_code or "error"


def tool_call_outcomes(*, since: datetime) -> tuple[list[str], list[tuple[str, list[int]]]]:
    """Tool calls since ``since`` per tool and outcome, as a table: the outcomes (columns) and
    one row per tool, busiest first. An outcome is ``success``, ``pending`` or the error code."""
    counts: dict[str, dict[str, int]] = {}
    calls = ToolCall.objects.filter(created_at__gte=since).values("tool_name", "status", "error_code")
    for row in calls.annotate(calls=Count("id")).order_by():
        outcome = _tool_call_outcome(row["status"], row["error_code"])
        by_outcome = counts.setdefault(row["tool_name"], {})
        by_outcome[outcome] = by_outcome.get(outcome, 0) + row["calls"]
    errors = sorted({outcome for by_outcome in counts.values() for outcome in by_outcome} - set(NOT_FAILURES))
    outcomes = [*(o for o in NOT_FAILURES if any(o in c for c in counts.values())), *errors]
    tools = sorted(counts, key=lambda tool: (-sum(counts[tool].values()), tool))
    return outcomes, [(tool, [counts[tool].get(outcome, 0) for outcome in outcomes]) for tool in tools]


def error_rate(outcomes: list[str], rows: list[tuple[str, list[int]]]) -> float:
    """The failed share of the tool calls in a ``tool_call_outcomes`` table, in percent: the sum
    of its error-code columns over all its calls, so the rate and the breakdown always agree."""
    total = sum(sum(counts) for _tool, counts in rows)
    failed = sum(n for _tool, counts in rows for outcome, n in zip(outcomes, counts, strict=True) if outcome not in NOT_FAILURES)
    return round(100 * failed / total, 1) if total else 0.0


def tick_error_rates(*, round_ids: list[int]) -> dict[int, float]:
    """Per tick, the failed share of the tool calls made in it, in percent (one query): the same
    rows and outcomes as ``tool_call_outcomes``; a tick without tool calls is absent."""
    calls: dict[int, list[int]] = {}
    rows = ToolCall.objects.filter(round_id__in=round_ids).values_list("round_id", "status", "error_code")
    for round_id, status, error_code, n in rows.annotate(n=Count("id")).order_by():
        failed_total = calls.setdefault(round_id, [0, 0])
        failed_total[0] += n if _tool_call_outcome(status, error_code) not in NOT_FAILURES else 0
        failed_total[1] += n
    return {round_id: round(100 * failed / total, 1) for round_id, (failed, total) in calls.items()}


def pending_proposal_ages(*, now: datetime | None = None) -> dict:
    """Proposals waiting for staff: how many, when the oldest was made, and how many per age bucket (one query)."""
    now = now or timezone.now()
    buckets, newer_than = {}, now
    for bound, key in PENDING_AGE_BUCKETS:
        buckets[key] = Count("id", filter=Q(created_at__gt=now - bound, created_at__lte=newer_than))
        newer_than = now - bound
    buckets["older"] = Count("id", filter=Q(created_at__lte=newer_than))
    return PendingAction.objects.open(now=now).aggregate(waiting=Count("id"), oldest=Min("created_at"), **buckets)


# ---------------------------------------------------------------------------- ticks and the audit


def tick_list() -> QuerySet[AutonomyRound]:
    """Every kept tick, newest first."""
    return AutonomyRound.objects.order_by("-started_at", "-id")


def tick_get(*, tick_id: int) -> AutonomyRound:
    tick = AutonomyRound.objects.filter(pk=tick_id).first()
    if tick is None:
        raise NotFound("tick_not_found", _("回合不存在：%(key)s") % {"key": tick_id})
    return tick


def tick_decisions(*, tick: AutonomyRound) -> QuerySet[AgentActionLog]:
    """One row per resident of the tick, in the order the residents were batched."""
    return tick.actions.select_related("agent").order_by("batch", "agent_id")


def tool_call_list(*, source: str | None = None, tick_id: int | None = None, agent_id: int | None = None) -> QuerySet[ToolCall]:
    """The audit, newest first, narrowed to a source, a tick and an agent when given."""
    calls = ToolCall.objects.select_related("agent", "user").order_by("-created_at", "-id")
    if source is not None:
        calls = calls.filter(source=source)
    if tick_id is not None:
        calls = calls.filter(round_id=tick_id)
    if agent_id is not None:
        calls = calls.filter(agent_id=agent_id)
    return calls
