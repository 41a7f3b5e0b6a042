"""Bounty business rules: create, claim, complete, cancel.

Every service runs in one ``transaction.atomic()`` (a savepoint when the caller already
has a transaction), so a refusal half-way leaves nothing behind and the caller's
transaction lives on. Events go out after the outermost transaction commits, through
``core.events.broadcast``. Rewards are paid by ``city.services.grant_credits``: bounties
depend on the city, never the other way round.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from agents.models import Agent
from city.models import CreditEntry
from city.services import grant_credits
from core.auth import signed_in
from core.errors import ApplicationError, Conflict, NotFound
from core.events import broadcast
from core.text import clean_text

from .models import MAX_REWARD, Bounty
from .selectors import bounty_not_found

TITLE_MAX_LENGTH = Bounty._meta.get_field("title").max_length
DESCRIPTION_MAX_LENGTH = 5000


def _agent_not_found() -> NotFound:
    return NotFound("agent_not_found", _("居民不存在"))


def _active_bounty_exists(agent_name: str) -> Conflict:
    # Named, not "you": staff acting for a resident read it as well as the resident's model does.
    return Conflict(
        "active_bounty_exists", _("%(agent)s 已有进行中的悬赏，完成后才能接取新的") % {"agent": agent_name}
    )


def _bounty_not_claimed() -> Conflict:
    return Conflict("bounty_not_claimed", _("该悬赏不在进行中，无法完成"))


def bounty_event_data(bounty: Bounty) -> dict[str, Any]:
    """The payload of every bounty_* event (DESIGN §10)."""
    claimer = bounty.claimed_by
    return {
        "bounty_id": bounty.pk,
        "title": bounty.title,
        "reward": bounty.reward,
        "status": bounty.status,
        "claimed_by": claimer.pk if claimer else None,
        "claimed_by_name": claimer.name if claimer else None,
    }


def validate_bounty_draft(*, title: Any, reward: Any, description: Any = "") -> tuple[str, int, str]:
    """The cleaned (title, reward, description) of a new bounty, or ApplicationError naming the bad field."""
    title = clean_text(title, field="title", label=_("悬赏标题"), max_length=TITLE_MAX_LENGTH)
    # bool is an int in Python, but True is not a reward.
    if isinstance(reward, bool) or not isinstance(reward, int) or not 1 <= reward <= MAX_REWARD:
        raise ApplicationError(
            "invalid_reward",
            _("奖励必须是 1 到 %(max)s 之间的整数") % {"max": MAX_REWARD},
            field="reward",
        )
    description = clean_text(
        description, field="description", label=_("描述"), max_length=DESCRIPTION_MAX_LENGTH, required=False
    )
    return title, reward, description


@transaction.atomic
def create_bounty(*, title: str, reward: int, description: str = "", created_by: Any = None) -> Bounty:
    """Publish an open bounty."""
    title, reward, description = validate_bounty_draft(title=title, reward=reward, description=description)
    bounty = Bounty.objects.create(
        title=title,
        description=description,
        reward=reward,
        created_by=signed_in(created_by),
    )
    broadcast("bounty_created", **bounty_event_data(bounty))
    return bounty


@transaction.atomic
def post_bounties_to_keep_open(*, minimum: int, drafts: Sequence[tuple[str, str, int]]) -> list[Bounty]:
    """Post bounties from ``drafts`` (title, description, reward), in turn, until ``minimum`` are open.

    The demo's board stays alive this way (DEMO_BOUNTIES_OPEN): the autonomy tick calls it before
    the residents decide. Which draft comes next follows how many bounties were ever posted, so
    the board does not show the same title twice in a row.
    """
    if minimum <= 0 or not drafts:
        return []
    missing = minimum - Bounty.objects.filter(status=Bounty.Status.OPEN).count()
    posted_before = Bounty.objects.count()
    return [
        create_bounty(title=title, description=description, reward=reward)
        for title, description, reward in (drafts[(posted_before + i) % len(drafts)] for i in range(max(missing, 0)))
    ]


@transaction.atomic
def claim_bounty(*, agent_id: int, bounty_id: int) -> Bounty:
    """First come, first served: the agent takes an open bounty, at most one at a time.

    Checks in DESIGN §7's order: bounty_not_found, agent_not_found, active_bounty_exists,
    bounty_not_open. The claim itself is a compare-and-set UPDATE, so of any number of
    concurrent claims on one bounty exactly one wins.
    """
    if not Bounty.objects.filter(pk=bounty_id).exists():
        raise bounty_not_found()
    agent_name = Agent.objects.filter(pk=agent_id).values_list("name", flat=True).first()
    if agent_name is None:
        raise _agent_not_found()
    if Bounty.objects.filter(claimed_by_id=agent_id, status=Bounty.Status.CLAIMED).exists():
        raise _active_bounty_exists(agent_name)
    try:
        won = Bounty.objects.filter(pk=bounty_id, status=Bounty.Status.OPEN).update(
            status=Bounty.Status.CLAIMED, claimed_by_id=agent_id, claimed_at=timezone.now()
        )
    except IntegrityError:
        # Two claims by one agent raced past the check above; this service's savepoint undoes the claim.
        raise _active_bounty_exists(agent_name) from None
    if not won:
        raise Conflict("bounty_not_open", _("该悬赏已被接取或不再开放"))
    bounty = Bounty.objects.select_related("claimed_by").get(pk=bounty_id)
    broadcast("bounty_claimed", **bounty_event_data(bounty))
    return bounty


def ensure_completable(*, agent_id: int, bounty_id: int) -> Bounty:
    """The bounty when ``agent_id`` may complete it now, else the error completing would give."""
    bounty = Bounty.objects.select_related("claimed_by").filter(pk=bounty_id).first()
    if bounty is None:
        raise bounty_not_found()
    if bounty.status != Bounty.Status.CLAIMED:
        raise _bounty_not_claimed()
    if not Agent.objects.filter(pk=agent_id).exists():
        raise _agent_not_found()
    if bounty.claimed_by_id != agent_id:
        raise Conflict("not_claimer", _("只有接取该悬赏的居民才能完成它"))
    return bounty


@transaction.atomic
def complete_bounty(*, agent_id: int, bounty_id: int) -> Bounty:
    """The claimer finishes its bounty and is paid the reward, written in the city's credits ledger.

    The payment locks the agent before the bounty row is touched (the city's lock order).
    Of two concurrent completions only one pays: the loser meets the paid reward in the
    ledger's unique constraint, or the completed bounty in the compare-and-set.
    """
    bounty = ensure_completable(agent_id=agent_id, bounty_id=bounty_id)
    try:
        grant_credits(
            agent_id=agent_id,
            amount=bounty.reward,
            source=CreditEntry.Source.BOUNTY,
            reason=bounty.title,
            reference=f"bounty:{bounty.pk}",
        )
    except IntegrityError:
        raise _bounty_not_claimed() from None  # another completion paid it meanwhile
    done = Bounty.objects.filter(pk=bounty_id, status=Bounty.Status.CLAIMED, claimed_by_id=agent_id).update(
        status=Bounty.Status.COMPLETED, completed_at=timezone.now()
    )
    if not done:
        raise _bounty_not_claimed()  # it changed since we read it; raising undoes the payment
    bounty = Bounty.objects.select_related("claimed_by").get(pk=bounty_id)
    broadcast("bounty_completed", **bounty_event_data(bounty))
    return bounty


@transaction.atomic
def cancel_bounty(*, bounty_id: int) -> Bounty:
    """Staff withdraw a bounty nobody has claimed yet."""
    cancelled = Bounty.objects.filter(pk=bounty_id, status=Bounty.Status.OPEN).update(
        status=Bounty.Status.CANCELLED, cancelled_at=timezone.now()
    )
    if not cancelled:
        if not Bounty.objects.filter(pk=bounty_id).exists():
            raise bounty_not_found()
        raise Conflict("bounty_not_open", _("只能取消开放中的悬赏"))
    bounty = Bounty.objects.select_related("claimed_by").get(pk=bounty_id)
    broadcast("bounty_cancelled", **bounty_event_data(bounty))
    return bounty
