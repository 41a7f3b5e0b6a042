"""The ids of what a chat message names, for the model's prompt (issue 27).

Tools take ids (``to_agent_id``, ``fund_id``, a resource's slug). A large model looks a name up
with ``find_agent`` first; a small one invents an id instead (its own, from the system prompt).
So the user's message, as sent to the model (not as stored), ends with one line naming what it
names, each resolved by the offline reader
(:func:`agents.providers.understanding.read`) the way the rules provider resolves it: only exact,
unambiguous names, never a guess. The model still decides whether and how to act.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from .models import Agent
from .providers.understanding import read

# What each kind of span is called, and whether its value is an id the tools take.
KINDS = {
    "resident": lambda: pgettext("mention", "居民"),
    "resource": lambda: pgettext("mention", "资源"),
    "fund": lambda: pgettext("mention", "基金"),
    "bounty": lambda: pgettext("mention", "悬赏"),
    "building": lambda: pgettext("mention", "建筑"),
}  # an order is named by its number already, as its tools take it


def mentions(said: str) -> str:
    """One line naming the ids of the entities ``said`` names, or "" when it names none."""
    if not said.strip():
        return ""
    spans = [s for s in read(said).spans if s.kind in KINDS and s.exact and not s.rivals]
    residents = dict(
        Agent.objects.filter(name__in={s.value for s in spans if s.kind == "resident"}).values_list("name", "pk")
    )
    named: dict[str, str] = {}
    for span in spans:
        label = KINDS[span.kind]()
        if span.kind == "resident":
            if span.value not in residents:
                continue
            value = residents[span.value]
        else:
            value = span.value
        if span.kind == "resource":
            named.setdefault(span.text, _("%(kind)s「%(name)s」：resource_type %(value)s") % {"kind": label, "name": span.text, "value": value})
        else:
            named.setdefault(span.text, _("%(kind)s「%(name)s」：ID %(value)s") % {"kind": label, "name": span.text, "value": value})
    if not named:
        return ""
    return _("（提到的：%(things)s）") % {"things": _("；").join(named.values())}


def annotated(turns: list[dict], note: str) -> list[dict]:
    """``turns`` with ``note`` under the last user message (the one being answered)."""
    last = max((i for i, turn in enumerate(turns) if turn.get("role") == "user"), default=None)
    if not note or last is None:
        return turns
    return [*turns[:last], {**turns[last], "content": f"{turns[last]['content']}\n{note}"}, *turns[last + 1 :]]
