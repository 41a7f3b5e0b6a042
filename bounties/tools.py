"""Bounty tools. The claimer is always the calling agent (``ctx.agent``), never an argument."""

from __future__ import annotations

from typing import Annotated, Literal

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from agents.registry import Param, Proposal, ToolContext, tool
from agents.results import summarizes

from . import selectors, services
from .models import Bounty

BountyId = Annotated[int, Param(ge=1, description=gettext_lazy("悬赏任务 ID"))]
LIST_LIMIT = 50


def _with_message(bounty: Bounty, template: str) -> dict:
    return {**bounty_data(bounty), "message": template % {"id": bounty.pk, "title": bounty.title, "reward": bounty.reward}}


def bounty_data(bounty: Bounty) -> dict:
    return {
        "bounty_id": bounty.pk,
        "title": bounty.title,
        "description": bounty.description,
        "reward": bounty.reward,
        "status": bounty.status,
        "claimed_by": bounty.claimed_by_id,
    }


@tool(
    category="action",
    description=gettext_lazy("接取一个开放的悬赏任务：先到先得，同时只能接取一个"),
    permission="bounties.change_bounty",
)
def claim_bounty(ctx: ToolContext, bounty_id: BountyId) -> dict:
    bounty = services.claim_bounty(agent_id=ctx.agent.pk, bounty_id=bounty_id)
    return _with_message(bounty, _("已接取悬赏#%(id)s「%(title)s」，完成后可获得 %(reward)s 信用点"))


@tool(
    category="query",
    description=gettext_lazy("查看悬赏任务板（默认只列出开放的悬赏）"),
    permission="bounties.view_bounty",
)
def list_bounties(
    ctx: ToolContext,
    status: Annotated[
        Literal["open", "claimed", "completed", "cancelled"],
        Param(description=gettext_lazy("悬赏状态")),
    ] = "open",
    mine: Annotated[bool, Param(description=gettext_lazy("只列出我接取的悬赏"))] = False,
) -> dict:
    claimer = ctx.agent.pk if mine and ctx.agent is not None else None
    bounties = list(selectors.bounty_list(status=status, claimed_by=claimer)[:LIST_LIMIT])
    label = Bounty.Status(status).label
    if bounties:
        lines = [_("%(status)s的悬赏：") % {"status": label}]
        lines += [
            _("#%(id)s %(title)s（奖励 %(reward)s 信用点）") % {"id": b.pk, "title": b.title, "reward": b.reward}
            for b in bounties
        ]
    else:
        lines = [_("目前没有%(status)s的悬赏。") % {"status": label}]
    return {"bounties": [bounty_data(b) for b in bounties], "message": "\n".join(lines)}


@summarizes("list_bounties")
def _list_bounties_line(data: dict, arguments: dict) -> str:
    count = len(data.get("bounties") or [])
    status = arguments.get("status") if arguments.get("status") in Bounty.Status.values else Bounty.Status.OPEN
    status = Bounty.Status(status).label
    return ngettext("%(n)d 个%(status)s的悬赏", "%(n)d 个%(status)s的悬赏", count) % {"n": count, "status": status}


def _propose_completion(ctx: ToolContext, bounty_id: int) -> Proposal:
    bounty = services.ensure_completable(agent_id=ctx.agent.pk, bounty_id=bounty_id)
    message = _("即将完成悬赏#%(id)s「%(title)s」并向 %(agent)s 支付 %(reward)s 信用点，请确认是否继续？") % {
        "id": bounty.pk,
        "title": bounty.title,
        "agent": ctx.agent.name,
        "reward": bounty.reward,
    }
    return Proposal(message=message, form_data={"bounty_id": bounty.pk})


@tool(
    category="action",
    requires_confirmation=True,
    propose=_propose_completion,
    description=gettext_lazy("报告自己接取的悬赏已完成，经员工确认后获得奖励"),
    permission="bounties.change_bounty",
)
def complete_bounty(ctx: ToolContext, bounty_id: BountyId) -> dict:
    bounty = services.complete_bounty(agent_id=ctx.agent.pk, bounty_id=bounty_id)
    return _with_message(bounty, _("悬赏#%(id)s「%(title)s」已完成，获得 %(reward)s 信用点"))
