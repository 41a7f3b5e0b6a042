"""Read-only queries of the bounty board."""

from __future__ import annotations

from django.db.models import Count, F, QuerySet
from django.utils.translation import gettext as _

from core.errors import ApplicationError, NotFound

from .models import Bounty

# The board shows every open and claimed bounty but only the latest completed ones.
BOARD_COMPLETED_LIMIT = 30


def bounty_list(*, status: str | None = None, claimed_by: int | None = None) -> QuerySet[Bounty]:
    """Bounties, newest first, optionally of one status (``invalid_status`` otherwise) or one claimer."""
    bounties = Bounty.objects.select_related("claimed_by")
    if claimed_by is not None:
        bounties = bounties.filter(claimed_by_id=claimed_by)
    if status is not None:
        if status not in Bounty.Status.values:
            raise ApplicationError(
                "invalid_status",
                _("状态必须是以下之一：%(values)s") % {"values": ", ".join(Bounty.Status.values)},
                field="status",
            )
        bounties = bounties.filter(status=status)
    return bounties.order_by("-created_at", "-id")


# A bounty's own columns as ``bounty_rows`` gives them, and its claimer's name.
BOUNTY_ROW_FIELDS = (
    "id", "title", "description", "reward", "status", "claimed_by", "created_at", "claimed_at", "completed_at",
    "cancelled_at",
)


def bounty_rows(*, status: str | None = None) -> QuerySet:
    """``bounty_list`` as dicts of plain values (``BOUNTY_ROW_FIELDS`` and ``claimed_by_name``), for
    the API's list: one page of them costs no model instances (bench.requests, issue 28)."""
    return bounty_list(status=status).values(*BOUNTY_ROW_FIELDS, claimed_by_name=F("claimed_by__name"))


def unfinished_bounties() -> list[dict]:
    """Every bounty still open or claimed, as ``bounty_id``, ``title`` and ``status``: the board the offline
    chat looks through for a bounty described in words."""
    finished = (Bounty.Status.COMPLETED, Bounty.Status.CANCELLED)
    return [
        {"bounty_id": pk, "title": title, "status": status}
        for pk, title, status in Bounty.objects.exclude(status__in=finished).values_list("pk", "title", "status")
    ]


def bounty_not_found() -> NotFound:
    return NotFound("bounty_not_found", _("悬赏不存在"))


def bounty_get(*, bounty_id: int) -> Bounty:
    bounty = Bounty.objects.select_related("claimed_by").filter(pk=bounty_id).first()
    if bounty is None:
        raise bounty_not_found()
    return bounty


def bounty_counts() -> dict[str, int]:
    """How many bounties there are of each status (zero for none)."""
    counts = dict.fromkeys(Bounty.Status.values, 0)
    counts.update(Bounty.objects.values_list("status").annotate(n=Count("id")).order_by())
    return counts


def bounty_board() -> dict[str, list[Bounty]]:
    """The board's columns: open and claimed (oldest first, as a queue), latest completed."""
    bounties = Bounty.objects.select_related("claimed_by")
    return {
        "open": list(bounties.filter(status=Bounty.Status.OPEN).order_by("created_at", "id")),
        "claimed": list(bounties.filter(status=Bounty.Status.CLAIMED).order_by("claimed_at", "id")),
        "completed": list(
            bounties.filter(status=Bounty.Status.COMPLETED).order_by("-completed_at", "-id")[:BOARD_COMPLETED_LIMIT]
        ),
    }

