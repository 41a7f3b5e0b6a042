"""Fund phrases of the offline rules provider (zh and en).

Phrases that name a fund look its id up first (``list_funds`` in round 1), then call the
tool with the id (round 2), then reply with that tool's message (round 3): the pending
confirmation question for a write, the detail for a query.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext as _

from agents.providers.rules import Outcome, Step, Turn, intent

# A fund name as people type it: quoted (spaces allowed), or one word without sentence punctuation.
NAME = r"(?:[「“\"'《](?P<quoted>[^「」“”\"'《》]+)[」”\"'》]|(?P<name>[^\s「」“”\"'《》，,。？?！!]+?))"
EN_NAME = r"[\"'“]?(?P<name>[^\"'“”?!,]+?)[\"'”]?"
TEXT_END = r"\s*[。.!！]?\s*$"
_LEADING_VERBS = re.compile(r"^(?:查看|查询|看看|看一下|显示|获取|请|帮我)+")


def _clean(name: str) -> str:
    return _LEADING_VERBS.sub("", name.strip().strip("「」“”\"'《》")).strip()


def _named(match: re.Match) -> str:
    groups = match.groupdict()
    return (groups.get("quoted") or "").strip() or _clean(groups.get("name") or "")


def _said(outcome: Outcome) -> str:
    """What to tell the user about one tool call: its message, question or error."""
    result = outcome.result
    if result.get("status") == "pending_confirmation":
        return str(result.get("message", ""))
    if outcome.ok:
        data = outcome.data
        return str(data.get("message", "")) if isinstance(data, dict) else ""
    return str(result.get("error", {}).get("message", ""))


def _on_fund(turn: Turn, match: re.Match, tool_name: str, **arguments) -> Step:
    """Call ``tool_name`` on the fund the user named (by id, or by name through list_funds)."""
    done = turn.last(tool_name)
    if done is not None:
        return Step.say(_said(done))
    groups = match.groupdict()
    if groups.get("id"):
        return Step.call(tool_name, fund_id=int(groups["id"]), **arguments)
    name = _named(match)
    if not name:
        return Step.say(_("请告诉我基金的名称或 ID。"))
    found = turn.last("list_funds")
    if found is None:
        return Step.call("list_funds", fund_name=name)
    if not found.ok:
        return Step.say(_said(found))
    funds = found.data.get("funds", [])
    exact = [fund for fund in funds if fund["fund_name"].casefold() == name.casefold()]
    candidates = exact or funds
    if not candidates:
        return Step.say(_("没有找到名为「%(name)s」的基金。") % {"name": name})
    if len(candidates) > 1:
        names = "、".join(f"{fund['fund_name']}（ID {fund['id']}）" for fund in candidates[:10])
        return Step.say(_("有多个基金匹配「%(name)s」：%(funds)s。请说明是哪一个（可用 ID）。") % {"name": name, "funds": names})
    return Step.call(tool_name, fund_id=candidates[0]["id"], **arguments)


@intent(
    r"(?:有哪些|有什么|列出|查看|显示)(?:所有的?)?(?P<active>启用的?|在用的?|可用的?)?基金",
    r"(?P<active>启用的?)?基金列表",
    r"\b(?:list|show)(?: me)?(?: all)?(?: the)?(?P<active> active| enabled)? funds\b",
    r"\b(?:which|what) funds\b(?: are)?(?P<active> active| enabled)?",
    priority=2,
)
def list_funds_intent(turn: Turn, match: re.Match) -> Step | None:
    done = turn.last("list_funds")
    if done is not None:
        return Step.say(_said(done))
    if match.groupdict().get("active"):
        return Step.call("list_funds", active_only=True)
    return Step.call("list_funds")


@intent(
    r"基金\s*#?(?P<id>\d+)\s*的?(?:详情|详细信息|信息)",
    NAME + r"\s*基金\s*的?(?:详情|详细信息|信息|情况)",
    r"(?:查看|查询)\s*基金\s*" + NAME + r"\s*的?(?:详情|详细信息|信息)",
    r"\b(?:details?|info(?:rmation)?) (?:of|for|about|on) (?:the )?fund #?(?P<id>\d+)\b",
    r"\b(?:details?|info(?:rmation)?) (?:of|for|about|on) (?:the )?(?:fund )?" + EN_NAME + r"(?: fund)?\s*\??\s*$",
    r"^\s*" + EN_NAME + r" fund(?:'s)? (?:details?|info)\s*\??\s*$",
    priority=1,
)
def fund_detail_intent(turn: Turn, match: re.Match) -> Step:
    return _on_fund(turn, match, "get_fund_detail")


@intent(
    r"(?:创建|新建|新增|添加)(?:一个|一只|个)?新?的?(?:叫做?|名为|名叫|名字叫|名称为)\s*" + NAME
    + r"\s*的?基金(?:\s*[，,]?\s*备注(?:是|为|：|:)?\s*(?P<remarks>.+?))?" + TEXT_END,
    r"(?:创建|新建|新增|添加)(?:一个)?基金\s*" + NAME + r"(?:\s*[，,]?\s*备注(?:是|为|：|:)?\s*(?P<remarks>.+?))?" + TEXT_END,
    r"\b(?:create|add|make)(?: a)?(?: new)? fund (?:called|named) " + EN_NAME
    + r"(?:\s*(?:,|with|and)\s*(?:the )?remarks?\s*[:：]?\s*(?P<remarks>.+?))?\s*[.!]?\s*$",
    r"\b(?:create|add)(?: a)?(?: new)? fund [\"“](?P<name>[^\"”]+)[\"”]",
    priority=1,
)
def create_fund_intent(turn: Turn, match: re.Match) -> Step:
    done = turn.last("create_fund")
    if done is not None:
        return Step.say(_said(done))
    arguments = {"fund_name": _named(match)}
    if match.groupdict().get("remarks"):
        arguments["remarks"] = match["remarks"].strip().strip("「」“”\"'")
    return Step.call("create_fund", **arguments)


@intent(
    r"(?:把|将)\s*" + NAME + r"\s*基金?的?备注(?:改成|改为|修改为|更新为|设为|设置为|换成)\s*(?P<remarks>.+?)" + TEXT_END,
    r"(?:把|将)\s*" + NAME + r"\s*基金的?(?:名称|名字)?(?:改名为|改名成|重命名为|改为|改成)\s*[「“\"']?(?P<new>[^\s「」“”\"'，,。]+)",
    r"\b(?:change|set|update) (?:the )?remarks? (?:of|for|on) (?:the )?(?:fund )?" + EN_NAME
    + r"(?: fund)? to (?P<remarks>.+?)\s*\.?\s*$",
    r"\brename (?:the )?(?:fund )?" + EN_NAME + r"(?: fund)? to [\"'“]?(?P<new>[^\"'”]+?)[\"'”]?\s*\.?\s*$",
    priority=1,
)
def update_fund_intent(turn: Turn, match: re.Match) -> Step:
    groups = match.groupdict()
    if groups.get("new"):
        return _on_fund(turn, match, "update_fund", fund_name=_clean(groups["new"]))
    return _on_fund(turn, match, "update_fund", remarks=groups["remarks"].strip().strip("「」“”\"'"))


@intent(
    r"启用基金\s*#?(?P<id>\d+)",
    r"启用\s*" + NAME + r"\s*基金",
    r"启用基金\s*" + NAME + TEXT_END,
    r"\benable (?:the )?fund #?(?P<id>\d+)\b",
    r"\benable (?:the )?(?:fund )?" + EN_NAME + r"(?: fund)?\s*[.!]?\s*$",
    priority=1,
)
def enable_fund_intent(turn: Turn, match: re.Match) -> Step:
    return _on_fund(turn, match, "enable_fund")


@intent(
    r"(?:停用|禁用)基金\s*#?(?P<id>\d+)",
    r"(?:停用|禁用)\s*" + NAME + r"\s*基金",
    r"(?:停用|禁用)基金\s*" + NAME + TEXT_END,
    r"\bdisable (?:the )?fund #?(?P<id>\d+)\b",
    r"\bdisable (?:the )?(?:fund )?" + EN_NAME + r"(?: fund)?\s*[.!]?\s*$",
    priority=1,
)
def disable_fund_intent(turn: Turn, match: re.Match) -> Step:
    return _on_fund(turn, match, "disable_fund")
