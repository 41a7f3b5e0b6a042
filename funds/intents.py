"""Fund phrases of the offline rules provider (zh and en).

Phrases that name a fund look its id up first (``list_funds`` in round 1), then call the
tool with the id (round 2), then reply with that tool's message (round 3): the pending
confirmation question for a write, the detail for a query.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace
from typing import TYPE_CHECKING

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from agents.providers import restraint
from agents.providers.rules import DECLINE, GUARD, Outcome, Step, Turn, intent
from agents.providers.vocabulary import NUMBER_LABEL, chinese_number, chinese_numeral, vocabulary
from core.text import join_items

from .models import Fund

if TYPE_CHECKING:
    from agents.providers.understanding import Span

# A fund name as people type it: quoted (spaces allowed), or one word without sentence punctuation.
NAME = (
    # An apostrophe inside a word ("Bob's") neither opens nor closes a quotation.
    r"(?:(?:[「“\"《]|(?<![A-Za-z0-9])')(?P<quoted>(?:[^「」“”\"'《》]|(?<=[A-Za-z0-9])'(?=[A-Za-z0-9]))+)(?:[」”\"》]|'(?![A-Za-z0-9]))"
    r"|(?P<name>[A-Za-z0-9][A-Za-z0-9 ._-]*[A-Za-z0-9]|[^\s「」“”\"'《》，,。？?！!]+?))"
)
EN_NAME = r"[\"'“]?(?P<name>[^\"'“”?!,]+?)[\"'”]?"
TEXT_END = r"\s*[。.!！]?\s*$"
_LEADING_VERBS = re.compile(r"^(?:查看|查询|看看|看一下|显示|获取|请|帮我|把|将|一下)+")
ONE = r"(?:1\s*[个只支]|一个|一只|个|a|an|one)?"
# "名称为X，类型为Y": the fields a sentence gives, each "key 为/是/: value" up to the next comma.
FIELD = re.compile(
    r"(?:(?P<key>[\u4e00-\u9fff]{2,6}?)\s*(?:(?:写上|写成|写着|写|填上|填)\s*(?:为|是|:|：)?|为|是|叫|:|：|=|\s|(?=[A-Za-z0-9「“\"']))"
    r"|(?<![A-Za-z])(?:the\s+)?(?P<ekey>fund\s+name|name|remarks?|notes?|description|type|risk\s+level|category)\b\s*(?:is|says?|reads?|:|=|of|as)?)\s*"
    r"[「“\"']?(?P<value>[^,，;；。「」“”\"']+?)[」”\"']?\s*(?=[,，;；。]|\s+and\s|$)",
    re.IGNORECASE,
)
NAME_KEYS = {"名称", "名字", "基金名称", "基金名", "name", "fund name", "called", "named"}
REMARK_KEYS = {"备注", "说明", "描述", "remark", "remarks", "note", "notes", "description"}


@vocabulary(reads={Fund: ("fund_name",)})
def fund_words() -> dict[str, str]:
    """Fund names, kept whole: a numeral inside one ("稳健增长一号") is part of the name."""
    return {name: name for name in Fund.objects.values_list("fund_name", flat=True)}


# "稳健增长那只", "那只平衡型的": pointers and a trailing 的 around a name are not part of it.
_POINTERS = re.compile(r"^(?:那只|这只|那个|这个|那支|这支|那一只|这一只|的)+|(?:那只|这只|那个|这个|那支|这支|的)+$")


def _clean(name: str) -> str:
    return _POINTERS.sub("", _LEADING_VERBS.sub("", name.strip().strip("「」“”\"'《》")).strip()).strip()


def _named(match: re.Match) -> str:
    groups = match.groupdict()
    return (groups.get("quoted") or "").strip() or _clean(groups.get("name") or "")


def _names_a_fund(name: str) -> bool:
    """Whether the words name a fund (whole, in part, or with a typo): never search for a stray fragment."""
    from agents.providers.understanding import read

    reading = read(name, {"fund"})
    return any(span.kind == "fund" for span in reading.spans)


def _said(outcome: Outcome) -> str:
    """What to tell the user about one tool call: its message, question or error."""
    result = outcome.result
    if result.get("status") == "pending_confirmation":
        return str(result.get("message", ""))
    if outcome.ok:
        data = outcome.data
        return str(data.get("message", "")) if isinstance(data, dict) else ""
    return str(result.get("error", {}).get("message", ""))


NAME_NUMERAL = re.compile(r"([一二三四五六七八九十]+)(号|期)")


def _whole_name(name: str) -> str:
    """The fund an extracted name holds whole ("绿色能源主题这只", "the old fund (货币市场旧份额)",
    "稳健增长1号"): its own name; the words as extracted when they hold no fund's whole name."""
    from agents.providers.understanding import read

    spans = [span for span in read(name, {"fund"}).of("fund") if span.exact]
    if len({span.name for span in spans}) != 1 or spans[0].name.casefold() == name.strip().casefold():
        return name  # no fund's whole name, two of them, or exactly the name as typed
    return spans[0].name


def _on_fund(turn: Turn, match: re.Match, tool_name: str, **arguments) -> Step:
    """Call ``tool_name`` on the fund the user named (by id, or by name through list_funds)."""
    from agents.providers.understanding import read

    done = turn.last(tool_name)
    if done is not None:
        return Step.say(_said(done))
    groups = match.groupdict()
    if groups.get("id"):
        if tool_name != "get_fund_detail" and not Fund.objects.filter(pk=int(groups["id"])).exists():
            # "rename fund 9 to Alpha One" with no fund 9: which one is asked, before anything is proposed.
            return Step.say(_("没有 ID 为 %(id)s 的基金。你说的是哪一个？请说出名称或 ID。") % {"id": groups["id"]})
        return Step.call(tool_name, fund_id=int(groups["id"]), **arguments)
    name = _whole_name(_named(match))
    if not name:
        return DECLINE  # "货币市场旧份额重新启用一下" captured "一下": the frames read the name where it stands
    if not _names_a_fund(name):
        return DECLINE  # "状态的" is a piece of the sentence, not a fund: the frames read it again
    if twins := _twins(turn.said, name):
        return Step.say(which_of(twins))
    if tool_name not in ("get_fund_detail", "list_funds") and (step := _one_fund_at_a_time(read(turn.said, {"fund"}))) is not None:
        return step
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
        names = join_items(f"{fund['fund_name']}（ID {fund['id']}）" for fund in candidates[:10])
        return Step.say(_("有多个基金匹配「%(name)s」：%(funds)s。请说明是哪一个（可用 ID）。") % {"name": name, "funds": names})
    return Step.call(tool_name, fund_id=candidates[0]["id"], **arguments)


def _twins(said: str, name: str) -> list[str]:
    """The funds the words naming ``name`` fit alike ("the balanced fund": Beta Balanced by its name, 稳健增长一号 by its
    remarks) or name as alternatives ("X or Y"), or [] when they fit one."""
    from agents.providers.understanding import read

    from agents.providers.frames import or_other

    first = name.split()[0].casefold() if name.split() else ""
    for span in read(said, {"fund"}).of("fund"):
        if span.rivals and span.score >= 0.99 and first and first in span.text.casefold():
            return [span.name, *(rival for rival, _value, _score in span.rivals)]
    # "disable either Beta Balanced or the tech pioneer fund", "停用科技先锋或者绿色能源主题": two named as alternatives.
    named = read(name, {"fund"})
    sure = [span for span in named.of("fund") if span.score >= 0.9]
    return next(([span.name, other.name] for span in sure if (other := or_other(span, sure, named.folded)) is not None), [])


def _one_fund_at_a_time(reading) -> Step | None:
    """A change asked of two funds named together: which one ("科技先锋和绿色能源主题里面停掉一只"), or one at a time
    ("…都停掉", each is confirmed on its own); None when the words name one fund."""
    funds = list(dict.fromkeys(span.name for span in reading.of("fund") if span.score >= 0.9))
    if len(funds) < 2:
        return None
    if ONE_OF_THEM.search(reading.folded):
        return Step.say(which_of(funds))
    if EVERY_ONE.search(reading.folded):
        return Step.say(_("一次处理一个基金，每个都由员工单独确认：先处理哪一个？%(funds)s") % {"funds": join_items(funds)})
    return None


# Every one of the things just named: "…都停掉", "both", "all of them".
EVERY_ONE = re.compile(r"都|全部|统统|\bboth\b|\ball\s+of\s+them\b|\beach\s+of\s+them\b", re.IGNORECASE)
# One of the things just named: "…里面停掉一只", "其中一个", "one of them", "one of the two".
ONE_OF_THEM = re.compile(r"(?:里面?|中间?|之中|其中|当中)[^，,。;；]{0,6}?[一1](?:只|个)|\bone\s+of\s+(?:them|the\s+two|these|those|the\s+(?:two\s+)?funds)\b|\beither\s+one\b")


@intent(
    r"(?:几个|多少(?:个|只)?)基金",
    r"(?:有哪些|有什么|列出|查看|显示|看看|看一下|查询|所有)(?:所有的?|全部的?)?(?P<active>启用的?|在用的?|可用的?|生效的?|正常的?)?基金(?:列表)?\s*[?？。.!！]?\s*$",
    r"(?P<active>启用的?|在用的?)?基金列表",
    r"(?P<active>启用|在用)的基金有哪些",
    # "停用的基金都列出来我看看": the list, the disabled named as what to look at (the list says which).
    r"(?:已经?)?(?:停用|关停|关掉)的(?:基金|那些|几个)[^，,。]{0,6}?(?:列|看|有哪些|是哪些|有几个|给我)",
    r"\b(?:list|show|see|display|get)(?: me)?(?: only| just)?(?: all)?(?: of)?(?: the)?(?: our)?(?P<active> active| enabled| live| running)? funds\b",
    r"\b(?:which|what) funds\b(?: are)?(?: there)?(?P<active> active| enabled)?",
    r"\ball(?: the)?(?P<active> active| enabled)? funds\b",
    # "show me the disabled ones", "list the active ones": the list (no filter holds the disabled alone; the list says).
    r"\b(?:show|list|see|display)(?: me)?(?: all)?(?: the)? (?:(?P<active>active|enabled|live)|disabled|inactive|deactivated|switched[- ]off|turned[- ]off) (?:ones|funds)\b",
    priority=2,
    verbatim=True,
    tool="list_funds",
    example=gettext_lazy("有哪些基金？"),
)
def list_funds_intent(turn: Turn, match: re.Match) -> Step | None:
    done = turn.last("list_funds")
    if done is not None:
        return Step.say(_said(done))
    if part := name_holds(turn.said):
        return Step.call("list_funds", fund_name=part)  # "list funds containing 能源": the funds whose name holds it
    if match.groupdict().get("active") or wants_active(turn.said):
        return Step.call("list_funds", active_only=True)
    return Step.call("list_funds")


@intent(
    r"基金\s*#?(?P<id>\d+)\s*的?(?:详情|详细信息|信息)",
    NAME + r"\s*基金\s*的?(?:详情|详细信息|信息|情况)",
    r"(?:查看|查询)\s*基金\s*" + NAME + r"\s*的?(?:详情|详细信息|信息)",
    r"基金\s*#?(?P<id>\d+)\s*(?:怎么样|的情况|是什么)",
    r"(?:查看|查询|看看|看一下)\s*基金\s*#?(?P<id>\d+)",
    r"\b(?:details?|info(?:rmation)?) (?:of|for|about|on) (?:the )?fund #?(?P<id>\d+)\b",
    r"\b(?:show|describe|look up|check)(?: me)? (?:the )?fund #?(?P<id>\d+)\b",
    r"\bfund #?(?P<id>\d+) (?:details?|info)\b",
    r"\b(?:details?|info(?:rmation)?) (?:of|for|about|on) (?:the )?(?:fund )?" + EN_NAME + r"(?: fund)?\s*\??\s*$",
    r"^\s*" + EN_NAME + r" fund(?:'s)? (?:details?|info)\s*\??\s*$",
    r"\b(?:show|describe|look up)(?: me)? (?:the )?fund " + EN_NAME + r"\s*\??\s*$",
    priority=1,
    verbatim=True,
    tool="get_fund_detail",
    example=gettext_lazy("基金 1 的详情"),
)
def fund_detail_intent(turn: Turn, match: re.Match) -> Step:
    return _on_fund(turn, match, "get_fund_detail")


@intent(
    # "从数据库里彻底删掉，要物理删除", "permanently delete fund 3": no tool deletes a fund; disabling is not what is asked.
    r"彻底删|物理删|永久删|硬删|从数据库(?:里|中)?(?:彻底)?(?:删|清|抹)|连(?:历史)?记录都不留|删(?:得)?干干净净",
    r"\b(?:permanently|physically|hard)[ -]?(?:delete|remove|erase)|\bdelete\b[^.!?]{0,40}\bfrom\s+the\s+(?:database|db|system)\b|\bpurge\b|\bhard\s+delete\b",
    priority=GUARD,
)
def deleted_for_good(turn: Turn, match: re.Match) -> Step:
    return Step.say(_("基金不能删除，我只能停用它（停用后还能再启用，历史记录都保留）。要停用的话，请直接说「停用 …」。"))


@intent(
    # "稳健增长一号需要改一下", "Beta Balanced needs some changes": a fund to change, and what is not said.
    r"(?:需要|要|得|帮我)?(?:改|修改|调整|更新)(?:一下|下|改)\s*(?:吧)?\s*[。.!！]?\s*$",
    r"\bneeds?\s+(?:some\s+|a\s+few\s+)?(?:changes?|changing|editing|edits|an?\s+update|updating|fixing)\b",
    r"\b(?:change|edit|update|fix)\s+(?:something|a\s+few\s+things|some\s+things)\s+(?:on|in|about)\b",
    priority=1,
    tool="update_fund",
)
def change_unsaid(turn: Turn, match: re.Match) -> Step:
    from agents.providers.understanding import read

    if not read(turn.said, {"fund"}).of("fund"):
        return DECLINE  # no fund named: the other phrases and frames read it
    if re.search(r"名字|名称|\bname\b", turn.said, re.IGNORECASE) and not FIELD_NAMED.search(re.sub(r"名字|名称|\bname\b", "", turn.said, flags=re.IGNORECASE)):
        return Step.say(_("要改成什么名字？"))  # "稳健增长一号的名字需要改一下": the new name is asked
    if FIELD_NAMED.search(turn.said):
        return DECLINE  # what to change is said: the other phrases and frames read it
    return Step.say(_("要改这个基金的什么：名称还是备注？请把新的内容也告诉我。"))


# A field of a fund named: what a change is about.
FIELD_NAMED = re.compile(r"名|备注|说明|启用|停用|\b(?:name|remarks?|notes?|enable|disable|rename|status)\b", re.IGNORECASE)


def _fields(text: str) -> tuple[str, str, list[tuple[str, str]]]:
    """(name, remarks, [(key, value)] of the fields a fund does not have) from "名称为X，类型为Y"."""
    name, remarks, others = "", "", []
    matched = [found.span() for found in FIELD.finditer(text)]
    offset = 0
    for piece in PIECES.split(text):
        start = text.find(piece, offset)
        offset = start + len(piece)
        clean = piece.strip(" ?？!！.。")
        if clean and not any(a < offset and start < b for a, b in matched):
            others.append(("", clean))  # "bond type", "低风险": kept as typed, never dropped
    for found in FIELD.finditer(text):
        key, value = (found["key"] or found["ekey"]).strip(), found["value"].strip()
        lowered = re.sub(r"^(?:the|with|and)\s+", "", key.lower())
        if lowered in NAME_KEYS:
            quoted = text[found.start("value") - 1 : found.start("value")] in "「“\"'"
            name = value if quoted else without_particle(value)  # "名称：稳盈宝吧" is 稳盈宝
        elif lowered in REMARK_KEYS:
            remarks = value
        else:
            others.append((key, value))
    return name, remarks, others


def _left_in_remarks(others: list[tuple[str, str]]) -> str:
    if not others:
        return ""
    return kept_in_remarks("；".join(f"{key}：{value}" if key else value for key, value in others))


@intent(
    r"(?:打开|开|显示|弹出)\s*(?:新建|创建|新增)?基金(?:的)?表单|(?:新建|创建|新增)基金(?:的)?表单",
    r"\b(?:open|show|bring up)(?: me)? (?:the )?(?:new|create|add)(?:[ -]fund)? (?:fund )?form\b",
    r"\bnew fund form\b",
    r"\b(?:open|show|bring up)(?: me)? (?:the )?(?:new |create |add )?fund form\b",
    priority=3,
    verbatim=True,
    tool="create_fund",
)
def fund_form_intent(turn: Turn, match: re.Match) -> Step:
    rest = turn.plain[match.end() :]
    name, remarks, others = _fields(rest)
    if not name:
        return Step.say(_("新基金叫什么名字？（还可以加备注）我会预填新建基金表单，由员工确认。"))
    done = turn.last("create_fund")
    if done is not None:
        return Step.say("\n".join(filter(None, [_said(done), _left_in_remarks(others)])))
    remarks = "；".join(filter(None, [remarks, *(f"{key}：{value}" if key else value for key, value in others)]))
    return Step.call("create_fund", fund_name=name, **({"remarks": remarks} if remarks else {}))


# Where a new name after "rename … to" ends: the message, a comma, a new sentence ("… to 'X'. Leave the remarks"), a dash.
# (" for the English prospectus": what the name is for, no part of it.)
QUOTED_NAME_END = r"(?:\s+(?=for\s+(?:the|our|its|a|an)\s+(?:\w+\s+)?(?:prospectus|report|filing|launch|clients?|investors?|documents?|docs?|website)\b)|\s*(?:\.?\s*$|[,;]\s|[.!]\s+(?=[A-Z])|(?<=['\"”])[?？.!](?=\s|$)|\s[—–-]{1,2}\s|[—–]|(?<=['\"”])\s+(?=(?:so|because|since|as|for)\b)))"
# Where an unquoted new name ends: its clause ("rename X to Tech Pioneer, keep the remarks").
NEW_NAME_END = re.compile(r"\s*[,，;；。!！?？]\s*|\.\s+|\s+[—–-]{1,2}\s*|\s*[—–]{1,2}\s*|\s+(?:and|but|please|thanks)\b", re.IGNORECASE)


def _new_name(typed: str, quoted: bool = False) -> str:
    stripped = typed.strip()
    if quoted or stripped[:1] in QUOTES:
        return _clean(stripped)
    return _clean(NEW_NAME_END.split(stripped, maxsplit=1)[0])


def _typed_width(turn: Turn, name: str) -> str:
    """``name`` as typed where the normal form only changed its characters' width ("货币市场（历史）", not "(历史)");
    never another spelling of it ("稳健增长1号" stays, though the message also holds 稳健增长一号)."""
    typed = as_typed(turn, name)
    # ("Steady Growth No.1", whose normal form is "Steady Growth #1": the label as typed.)
    return typed if _width_and_labels(typed) == _width_and_labels(name) else name


def _width_and_labels(text: str) -> str:
    return NUMBER_LABEL.sub("#", unicodedata.normalize("NFKC", text))


def _quoted_at(text: str, start: int) -> bool:
    return start > 0 and text[start - 1] in QUOTES


def _typed_new_name(match: re.Match) -> str:
    """The new name a pattern's ``new`` group starts: in quotes, the whole quotation ("叫“贝塔 平衡”": its space too)."""
    start = match.start("new")
    if not _quoted_at(match.string, start):
        return _new_name(match["new"])
    close = re.search(f"[{QUOTES}]", match.string[start:])
    return _new_name(match.string[start : start + close.start()] if close else match["new"], True)


# "名字改成中文 贝塔平衡", "改成英文名：Beta Two": the language says which name follows, it is not the name
# ("改名为中文教育基金" names 中文教育基金: the word must stand apart, or be 中文名/英文名).
IN_LANGUAGE = r"(?:(?:中文|英文)(?:名(?:字|称)?(?:叫|是)?\s*[:：]?\s*|\s*[:：]\s*|\s+))?"


@intent(
    r"(?:把|将)?\s*基金\s*#?(?P<id>\d+)\s*的?备注(?:改成|改为|修改为|更新为|设为|设置为|换成|写成)\s*(?P<remarks>.+?)" + TEXT_END,
    r"(?:把|将)?\s*基金\s*#?(?P<id>\d+)\s*的?(?:名称|名字)?(?:改名为|改名成|重命名为|改为|改成|更名为)\s*" + IN_LANGUAGE + r"[「“\"']?(?P<new>[^\s「」“”\"'，,。]+(?:[ ][A-Za-z0-9][\w.&-]*)*)",
    r"(?:修改|更新|更改)\s*基金\s*#?(?P<id>\d+)\s*的?备注\s*(?:为|成|:|：)\s*(?P<remarks>.+?)" + TEXT_END,
    r"(?:把|将)\s*" + NAME + r"\s*(?:基金)?的?备注(?:改成|改为|修改为|更新为|设为|设置为|换成|写成)\s*(?P<remarks>.+?)" + TEXT_END,
    r"(?:把|将)\s*" + NAME + r"\s*基金的?(?:名称|名字)?(?:改名为|改名成|重命名为|改为|改成|更名为)\s*" + IN_LANGUAGE + r"[「“\"']?(?P<new>[^\s「」“”\"'，,。]+(?:[ ][A-Za-z0-9][\w.&-]*)*)",
    r"(?:把|将)\s*" + NAME + r"\s*(?:改名为|改名成|重命名为|更名为)\s*" + IN_LANGUAGE + r"[「“\"']?(?P<new>[^\s「」“”\"'，,。]+(?:[ ][A-Za-z0-9][\w.&-]*)*)",
    r"\b(?:change|set|update|edit) (?:the )?(?:remarks?|notes?) (?:of|for|on) (?:the )?fund #?(?P<id>\d+) to(?:\s+(?:read|say))?\s*[:：]?\s+(?P<remarks>.+?)\s*\.?\s*$",
    r"\b(?:change|set|update|edit) (?:the )?fund #?(?P<id>\d+)(?:'s)? (?:remarks?|notes?) to(?:\s+(?:read|say))?\s*[:：]?\s+(?P<remarks>.+?)\s*\.?\s*$",
    r"\brename (?:the )?fund #?(?P<id>\d+) to [\"'“]?(?P<new>[^\"'”]+?)[\"'”]?" + QUOTED_NAME_END,
    r"\b(?:change|set|update|edit) (?:the )?(?:remarks?|notes?) (?:of|for|on) (?:the )?(?:fund )?" + EN_NAME
    + r"(?: fund)? to(?:\s+(?:read|say))?\s*[:：]?\s+(?P<remarks>.+?)\s*\.?\s*$",
    r"\brename (?:the )?(?:fund )?" + EN_NAME + r"(?: fund)? to [\"'“]?(?P<new>[^\"'”]+?)[\"'”]?" + QUOTED_NAME_END,
    priority=1,
    verbatim=True,
    tool="update_fund",
    example=gettext_lazy("把基金 3 的备注改成 长期持有"),
)
def update_fund_intent(turn: Turn, match: re.Match) -> Step:
    groups = match.groupdict()
    if groups.get("new"):
        return _on_fund(turn, match, "update_fund", fund_name=_typed_width(turn, _typed_new_name(match)))
    return _on_fund(turn, match, "update_fund", remarks=without_aside(as_typed(turn, groups["remarks"])))


# "…to: 债券为主，季度调仓 — keep the name as is", "…改成：长期持有——名字别动": after a dash, the user talks to the
# agent about the rest of the fund, which is no part of the remarks.
ASIDE = re.compile(
    r"\s+[—–-]{1,2}\s+|\s*[—–]{1,2}\s*"
)
ASIDE_OPENS = re.compile(
    r"^(?:and\s+|but\s+|please\s+)?(?:keep|leave|don'?t|do\s+not|no\s+need|never\s+mind|not\s+the|the\s+name|name\s+(?:stays|unchanged))\b"
    r"|^(?:名字|名称|其他|别的|其余)?(?:别|不用|不要|不必|保持|照旧|不变|先别)",
    re.IGNORECASE,
)


def without_aside(remarks: str) -> str:
    """``remarks`` less a trailing aside to the agent after a dash ("— keep the name as is", "——名字别动") and less
    the sentences that close the request ("… . thanks, legal asked for it")."""
    remarks = LANGUAGE_LABEL.sub("", remarks, count=1)  # "备注改成中文：全球平衡配置": the remarks are after the language
    parts = ASIDE.split(remarks, maxsplit=1)
    remarks = parts[0].strip() if len(parts) == 2 and ASIDE_OPENS.match(parts[1].strip()) else remarks
    remarks = OLD_DROPPED.split(remarks, maxsplit=1)[0].rstrip()  # "…，原来那句英文的不要了": said of the old remarks
    return remarks[: closing_words_at(remarks, remarks)].rstrip()


LANGUAGE_LABEL = re.compile(r"^\s*(?:中文|英文|(?:in\s+)?(?:english|chinese))(?:的|版)?\s*[:：]\s*(?=\S)", re.IGNORECASE)
OLD_DROPPED = re.compile(r"\s*[，,;；]\s*(?=原来(?:那|的)(?:句|段|个|条)?[^，,。!！]{0,8}?(?:不要了|删了|去掉|不用了|别要了))")


def as_typed(turn: Turn, fragment: str) -> str:
    """Free text exactly as the user typed it (punctuation and numerals too), from its normal form.
    Words in quotes inside it ("改一下，就写「关注半导体」") are the text, whole."""
    from agents.providers.understanding import QUOTED

    if quote := QUOTED.search(fragment):
        fragment = quote.group(1).strip()  # found below as typed: the normal form made "，" a ","
    else:
        fragment = re.sub(r"^(?:一下|下)?\s*[:：]?\s*", "", fragment.strip()).strip().strip("「」“”\"'")
    loose = "".join(
        # ("#1" was typed "No.1", "number 1" or "编号1": the normal form's "#" stands for the label.)
        r"\s*" if c.isspace() else r"(?:[#＃]|(?:number|[Nn]o\.?|编号|第)\s*#?\s*)" if c == "#" else
        (rf"[{re.escape(c)}{chr(ord(c) + 0xFEE0)}]" if 0x21 <= ord(c) <= 0x7E and not c.isalnum() else
        (r"[\d一二两三四五六七八九十百千]+" if c.isdigit() else re.escape(c)))
        for c in fragment
    )
    loose = re.sub(r"(?:\[\\d一二两三四五六七八九十百千\]\+)+", r"[\\d一二两三四五六七八九十百千]+", loose)
    found = re.search(loose, turn.said) if fragment else None
    return found.group().strip().strip("「」“”\"'") if found else fragment


# "启用5号", "停用2号": a bare "N号" right after the verb is the fund's id (elsewhere it is a date or a count).
BARE_ID = r"\s*(?P<id>\d{1,4})\s*号(?!\s*(?:之前|以前|之后|以后|前|后|到期|起))"


@intent(
    r"(?:启用|激活|恢复|重新启用)\s*基金\s*#?(?P<id>\d+)",
    r"(?:启用|激活|恢复|重新启用)" + BARE_ID,
    r"(?:启用|激活|重新启用)(?![的了过中])\s*" + NAME + r"\s*基金",
    r"(?:启用|激活|重新启用)(?![的了过中])\s*(?:基金)?\s*" + NAME + TEXT_END,
    r"\b(?:enable|activate|re-?enable|reactivate) (?:the )?fund #?(?P<id>\d+)\b",
    r"\b(?:enable|activate|re-?enable|reactivate) (?:the )?(?:fund )?" + EN_NAME + r"(?: fund)?\s*[.!]?\s*$",
    priority=1,
    verbatim=True,
    tool="enable_fund",
    example=gettext_lazy("启用基金 5"),
)
def enable_fund_intent(turn: Turn, match: re.Match) -> Step:
    return _on_fund(turn, match, "enable_fund")


@intent(
    r"(?:停用|禁用|下线|关闭|暂停)\s*基金\s*#?(?P<id>\d+)",
    r"(?:停用|禁用|下线|关闭|暂停)" + BARE_ID,
    r"(?:停用|禁用|下线|关闭|暂停)(?![的了过中])\s*" + NAME + r"\s*基金",
    r"(?:停用|禁用|下线)(?![的了过中])\s*(?:基金)?\s*" + NAME + TEXT_END,
    r"\b(?:disable|deactivate|suspend) (?:the )?fund #?(?P<id>\d+)\b",
    r"\b(?:disable|deactivate|suspend) (?:the )?(?:fund )?" + EN_NAME + r"(?: fund)?\s*[.!]?\s*$",
    priority=1,
    verbatim=True,
    tool="disable_fund",
    example=gettext_lazy("停用科技先锋"),
)
def disable_fund_intent(turn: Turn, match: re.Match) -> Step:
    return _on_fund(turn, match, "disable_fund")


# ---------------------------------------------------------------------------- any word order
# A fund the sentence names (a known name, or "基金 3") and a new name or remarks, wherever they
# stand: "科技先锋备注改成…". Switching a fund on or off and its detail in any word order are the
# frames' (below), which read the same sentences.

FUND_ID = re.compile(r"(?:基金|\bfund)\s*#?\s*(?P<id>\d+)", re.IGNORECASE)


def _known_fund(turn: Turn, before: int | None = None) -> dict | None:
    """The fund the message names: {"id": …} or {"name": …} (the longest known name in it; else the one fund the words
    before ``before`` name surely in part: "绿色能源那只改个名，叫 新能源先锋", the new name being no fund's)."""
    from agents.providers.understanding import read

    if found := FUND_ID.search(turn.plain):
        return {"id": found["id"]}
    lowered = turn.plain.casefold()
    names = [name for name in Fund.objects.values_list("fund_name", flat=True) if name.casefold() in lowered]
    if names:
        return {"name": max(names, key=len)}
    sure = {s.name for s in read(turn.plain[:before], {"fund"}).of("fund") if s.score >= 0.9 and not s.rivals} if before else set()
    return {"name": sure.pop()} if len(sure) == 1 else None


def _the_fund_before(turn: Turn) -> Span | None:
    """The one fund the last message named exactly, as it typed it; None when it named none or several."""
    from agents.providers.understanding import read

    funds = [s for s in read(turn.earlier).of("fund") if s.exact] if turn.earlier else []
    return funds[0] if len({s.value for s in funds}) == 1 else None


class _Named:
    """A stand-in match for ``_on_fund``: the fund as ``_known_fund`` found it."""

    def __init__(self, fund: dict) -> None:
        self.fund = fund

    def groupdict(self) -> dict:
        return {"id": self.fund.get("id"), "quoted": self.fund.get("name"), "name": None}


def _on_known_fund(turn: Turn, tool_name: str, before: int | None = None, **arguments) -> Step:
    fund = _known_fund(turn, before)
    if fund is None:
        return DECLINE
    return _on_fund(turn, _Named(fund), tool_name, **arguments)


@intent(
    r"备注\s*(?:改成|改为|修改为|更新为|设为|设置为|换成|写成|为|改(?![掉了好动一下])|:|：)\s*(?P<remarks>.+?)" + TEXT_END,
    # "set the remarks on X to: closed to new money": after "to:" the remarks run whole, their own "to" kept.
    r"\b(?:remarks?|notes?)\b[^:：]*?\bto\s*[:：]?\s+(?P<remarks>.+?)\s*\.?\s*$",
    # "…改个名，叫科技先锋精选", "改个中文名，就叫「…」": the new name after the 叫; "科技先锋改名 科技先锋二期": after the space.
    r"(?:改名为|改名成|改名叫|(?:改名|重命名|更名)\s*(?:->|=>|→)|(?:(?<=[\w\u4e00-\u9fff] )|(?<=[\w\u4e00-\u9fff]))(?:改名|更名)\s+(?=\S)|改叫|重命名为|更名为|(?:名称|名字)(?:改为|改成|换成|改叫)|(?:改|换)(?:个|一下|下)?(?:中文|英文|新)?名(?:字|称)?\s*[，,]?\s*(?:(?:对|好|嗯|行|是的?)[\s，,]*)?(?:就)?(?:叫|改成|改为|换成))\s*" + IN_LANGUAGE + r"[「“\"']?(?P<new>[^\s「」“”\"'，,。]+(?:[ ][A-Za-z0-9][\w.&-]*)*)",
    # ("rename Beta Balanced -> Beta Global Balanced": an arrow says "to".)
    # ("rename Beta Balanced" → "What should the new name be?" → "call it Northstar": the two read as one.)
    r"\b(?:renam(?:e|ing)\b.*?(?:\bto\s+|\s*(?:->|=>|→)\s*)|rename\b.*?[\s,;.]\s*(?:(?:ok|okay|yes|yeah|sure)\b[\s,]*)?(?:call|name)\s+it\s+|(?:name\s+to|change\s+the\s+name\b.*?\bto)\s+)[\"'“]?(?P<new>[^\"'”]+?)[\"'”]?" + QUOTED_NAME_END,
    verbatim=True,
    tool="update_fund",
)
def update_any_order(turn: Turn, match: re.Match) -> Step:
    groups = match.groupdict()
    if NEW_FUND_SAID.search(turn.said) and NAMED.search(turn.said):
        return DECLINE  # "set up a fund named 'Beta Balanced II' with remarks 'Successor to Beta Balanced'": a new fund
    if REPORTED_CHANGE.search(turn.said):
        return DECLINE  # "…, I think someone changed its remarks last week and I want to check": a change told, the frames read
    if groups.get("new"):
        new_name = _typed_width(turn, _typed_new_name(match))
        if _known_fund(turn, match.start("new")) is None and (earlier := _the_fund_before(turn)) is not None:
            # "Beta Balanced 这个名字客户看不懂" → "改名叫 全球平衡配置": the fund the last message named. Its name stands
            # for that message: the gate and the provenance read it with this one.
            turn.earlier = turn.continues = earlier.text
            return _on_fund(turn, _Named({"id": earlier.value}), "update_fund", fund_name=new_name)
        return _on_known_fund(turn, "update_fund", before=match.start("new"), fund_name=new_name)
    remarks = without_aside(as_typed(turn, groups["remarks"]))
    # "add a remark to fund 2: long term": the fund named before the colon is not part of the remarks (inside quotes,
    # "'Balanced: 60% bonds, …'", the colon is the remarks' own).
    from agents.providers.understanding import QUOTED

    if not QUOTED.search(groups["remarks"]) and (head := re.match(r"^\s*(?:(?:the\s+)?fund\s*#?\s*\d+|基金\s*#?\s*\d+|[^:：]{1,30}?)\s*[:：]\s*(?=\S)", remarks, re.IGNORECASE)) and (
        FUND_ID.match(head.group().strip()) or _names_a_fund(head.group().rstrip(":： "))
    ):
        remarks = remarks[head.end() :]
    return _on_known_fund(turn, "update_fund", remarks=remarks)


# "Beta Balanced 现在的备注是什么" → "改成 全球股债平衡配置", "what's the remark on the green energy fund?" → "ok change
# it to '…'": the remarks the last message asked about, of the one fund it named.
CHANGE_IT = re.compile(
    # ("太笼统了，改成“…”", "too vague, change it to …": a word on the remarks read, then the change.)
    r"^(?P<lead>[^，,。.!！?？:：]{1,12}[，,]\s*)?(?:(?:那就|那|就|好的?|行|嗯|ok(?:ay)?|then|so|alright)[，,\s]*)?"
    r"(?:(?P<zh>改成|改为|换成|写成)|(?:change|set|update|make|switch)\s+(?:it|them|that|those)\s+to\b)\s*(?P<text>\S.*)$",
    re.IGNORECASE,
)
ASKED_REMARKS = re.compile(r"备注|\bremarks?\b|\bnotes?\b", re.IGNORECASE)


@intent(CHANGE_IT.pattern, tool="update_fund")
def change_as_asked(turn: Turn, match: re.Match) -> Step:
    from agents.providers.framing import read_with

    from agents.providers.understanding import read

    fund = _the_fund_before(turn)
    if fund is None or not ASKED_REMARKS.search(turn.earlier) or (match["lead"] and read(match["lead"], {"fund"}).of("fund")):
        return DECLINE  # no one fund, or not its remarks, asked about (or this message names one): read as usual
    told = f"备注{match['zh']} {match['text']}" if match["zh"] else f"change the remarks to {match['text']}"
    return read_with(turn, fund.text, told) or DECLINE


# "update Beta Balanced", "修改一下科技先锋": a fund named and nothing said of what changes; asked, never guessed.
@intent(
    r"^\s*(?:(?:please|pls|can\s+you|could\s+you)\s+)?(?:update|modify|edit|change)\s+(?P<rest>[^,.;!?]+?)\s*[.!?]?\s*$",
    r"^\s*(?:请|麻烦)?(?:帮我)?(?:修改|更新|编辑|改改|改一下|动一下)(?:一下)?\s*(?P<rest>[^，,。；;！!？?]+?)\s*[。!！?？]?\s*$",
    tool="update_fund",
)
def update_what(turn: Turn, match: re.Match) -> Step:
    from agents.providers.understanding import read

    rest = match["rest"]
    funds = read(rest, {"fund"}).of("fund")
    if len({s.value for s in funds}) != 1:
        return DECLINE
    left = "".join(char for i, char in enumerate(rest) if not any(s.start <= i < s.end for s in funds))
    if re.sub(r"(?i)\b(?:the|fund)\b|基金|的|这只|那只|一下|\s", "", left):
        return DECLINE  # "update the remarks of Beta Balanced …": a field named, the frames read it
    return Step.say(_("要改「%(name)s」的什么：名称还是备注？改成什么？") % {"name": funds[0].name})


# ---------------------------------------------------------------------------- frames

from agents.providers.frames import Filled, frame, which_of  # noqa: E402
from agents.providers.restraint import FIELD_LEFT_ALONE  # noqa: E402
from agents.providers.understanding import QUOTED, Entity, entities, read, without_particle  # noqa: E402

FUND_WORDS = ("fund", "基金")
ACTIVE_WORDS = ("active", "enabled", "live", "running", "open", "运行", "运作", "开着", "启用", "在用", "生效", "正常")
# "which funds are not running", "停用的基金": every fund, the list says which are off.
INACTIVE = re.compile(r"\b(?:not|inactive|disabled|off|closed)\b|停用|禁用|没有?(?:启用|运行|在用)|不在|关闭|关掉", re.IGNORECASE)


# "停用的不用管", "ignore the disabled ones": the inactive funds left out, which is asking for the active ones.
LEFT_OUT = re.compile(
    r"(?:停用|禁用|关闭)的?(?:基金)?\s*(?:就|都|也)?\s*(?:不用管|不用看|不要|别管|除外|不算|不看|忽略|别列|不用列|不要列|别显示|不用显示|别放)|(?:除了|不要|不看|忽略|别管)(?:那些)?(?:停用|禁用|关闭)的?"
    r"|\b(?:ignore|skip|except|excluding|without|not)\s+(?:the\s+)?(?:disabled|inactive|closed)(?:\s+ones)?\b",
    re.IGNORECASE,
)


def wants_active(said: str) -> bool:
    from agents.providers.understanding import read

    return read(said).has(*ACTIVE_WORDS) and not INACTIVE.search(LEFT_OUT.sub(" ", said))


# "名字里带“能源”的基金", "funds with 'Beta' in the name": the funds whose name holds these words.
NAME_HAS = (
    re.compile(r"(?:名字|名称|名)(?:里|中|里面)?(?:带|带有|包含|含有?|有)\s*[「“\"'‘]?(?P<part>[^「」“”\"'‘’，,。的\s]{1,20})[」”\"'’]?\s*(?:字样|字)?的"),
    # ("anything with 'tech' or 科技 in the name?": quotes inside, around each alternative.)
    re.compile(r"(?:\bwith|\bw/)\s*[\"'“‘]?(?P<part>[^\"“”‘’]{1,30}?)[\"'”’]?\s+in\s+(?:the|its|their)\s+names?\b", re.IGNORECASE),
    re.compile(r"\bnames?\s+(?:contain(?:s|ing)?|includ(?:es|ing)|with)\s+[\"'“‘]?(?P<part>[^\"'“”‘’?,.\s]{1,30})", re.IGNORECASE),
    # "list funds containing 能源", "funds matching 'tech'", "含“能源”的基金", "包含稳健的基金".
    re.compile(r"\bfunds?\s+(?:contain(?:s|ing)?|includ(?:es|ing)|match(?:es|ing)?)\s+[\"'“‘]?(?P<part>[^\"'“”‘’?,.\s]{1,30})", re.IGNORECASE),
    re.compile(r"(?:包含|含有?|带有?)\s*[「“\"'‘]?(?P<part>[^「」“”\"'‘’，,。的\s]{1,20})[」”\"'’]?\s*(?:字样|字)?的基金"),
    # "搜一下“稳健”", "search for 'tech'": a search by what the name holds.
    re.compile(r"(?:搜|搜索|查找|找)(?:一下|下)?\s*(?:基金)?\s*[「“\"'‘](?P<part>[^「」“”\"'‘’]{1,20})[」”\"'’]"),
    re.compile(r"\bsearch\s+(?:the\s+funds\s+)?(?:for\s+)?[\"'“‘](?P<part>[^\"'“”‘’]{1,30})[\"'”’]", re.IGNORECASE),
)


def glossed_back(part: str) -> str:
    """``part`` as the fund names hold it: as typed, or the one Chinese word whose gloss it is ("tech" → 科技)."""
    names = [name.casefold() for name in Fund.objects.values_list("fund_name", flat=True)]
    if not part.isascii() or any(part.casefold() in name for name in names):
        return part
    words = {word for word, glosses in NAME_GLOSSES.items() if part.casefold() in glosses and any(word in name for name in names)}
    return words.pop() if len(words) == 1 else part


def name_holds(said: str) -> str:
    """The words a fund's name should hold, as typed (or the Chinese a Chinese name holds for them: "any fund with tech
    in the name?" looks for 科技), or ""."""
    part = next((found["part"].strip() for pattern in NAME_HAS if (found := pattern.search(said))), "")
    # "anything with 'tech' or 科技 in the name?": alternatives that mean the same are one.
    glossed = {glossed_back(one.strip(" '\"“”「」")) for one in re.split(r"\s+or\s+|或者?|/", part) if one.strip(" '\"“”「」")}
    return glossed.pop() if len(glossed) == 1 else ""


# Where a fund's name stands when the words name one no fund has: quoted, "X基金", "基金X",
# "X那个基金", "the X fund", "fund X", "a fund called X".
_ZH_NAME = r"([\u4e00-\u9fffA-Za-z0-9]{2,16}?)"
MISSED_NAME = (
    re.compile(r"[「“\"'《]([^「」“”\"'《》]{1,40})[」”\"'》]"),
    re.compile(r"(?:启用|激活|停用|禁用|停掉|关掉|关闭|暂停|恢复|查看|查询|查一下|查下|看看|看一下|打开|重新打开)\s*(?:一下)?\s*(?:基金)\s*" + _ZH_NAME + r"\s*(?:的|吧|[，,。.!！?？]|$)"),
    re.compile(r"(?:启用|激活|停用|禁用|停掉|关掉|关闭|暂停|恢复|查看|查询|查一下|查下|看看|看一下|打开|重新打开|把)\s*(?:一下)?\s*" + _ZH_NAME + r"\s*(?:那个|这个|那只|这只)?\s*基金"),
    re.compile(r"\b(?:fund\s+(?:called|named)|fund)\s+((?:[A-Z0-9][\w-]*)(?:\s+[A-Z0-9][\w-]*){0,3})"),
    re.compile(r"\b(?:the|a|an)\s+((?:[A-Z0-9][\w-]*)(?:\s+[A-Z0-9][\w-]*){0,3})\s+fund\b"),
)
NOT_A_NAME = {
    "所有", "全部", "哪些", "哪个", "几个", "一个", "这个", "那个", "列表", "详情", "状态", "信息", "启用", "停用", "新建", "创建",
    "一只", "那只", "这只", "某个", "某只", "一支", "那支", "这支",
}


def missed_fund_name(said: str) -> str:
    """The name a message gives a fund, when no fund has it (entity resolution found none): or ""."""
    for pattern in MISSED_NAME:
        found = pattern.search(said)
        name = _clean(found[1]) if found else ""
        if name and name not in NOT_A_NAME and not name.isdigit() and not re.fullmatch(r"(?:启用|停用|禁用|在用)的?\S{0,2}", name):
            return name
    return ""


def fund_missed(filled: Filled) -> str | None:
    """"No fund named Unicorn", with the funds there are: instead of asking which fund."""
    if "fund_id" not in filled.missing:
        return None
    name = missed_fund_name(filled.reading.said)
    if not name:
        return None
    names = join_items(_("「%(name)s」") % {"name": n} for n in Fund.objects.order_by("pk").values_list("fund_name", flat=True))
    return _("没有找到名为「%(name)s」的基金。现有的基金：%(funds)s。是哪一个？") % {"name": name, "funds": names}


# How Chinese writes the Greek letters fund names use: "贝塔那个基金" is Beta Balanced.
LETTERS_IN_CHINESE = {"alpha": "阿尔法", "beta": "贝塔", "gamma": "伽马", "delta": "德尔塔", "theta": "西塔", "sigma": "西格玛", "omega": "欧米茄"}
# "之前停掉的那个基金", "the disabled one": the one fund that is disabled, when only one is.
THE_DISABLED_ONE = (
    # ("停用的基金有哪些" asks for the list: the bare "停用的基金" is no one fund.)
    "停掉的那个基金", "停用的那个基金", "停用的那只基金", "停掉的那只基金", "停用的那只", "停掉的那只", "停掉的那个", "停用的那个", "被停用的基金", "被停掉的基金", "关掉的那个基金", "被关掉的基金", "the disabled one", "the disabled fund", "the inactive one", "the inactive fund",
    "the one that's disabled", "the one that is disabled", "the switched off one", "the deactivated one", "the deactivated fund",
    "the one that got turned off", "the one that was turned off", "the one that got switched off", "the one that was switched off",
    "the one we turned off", "the one we switched off", "the one that got disabled", "the one that was disabled",
)


# What a fund's name or remarks say of it, in either language, and how people then call it: "the balanced fund" is
# Beta Balanced (its name) and 稳健增长一号 too (its remarks: 平衡型), two candidates the frame asks between; "那只已经清盘的基金"
# is the one whose remarks say 已清盘.
STYLES = (
    (("balanced", "平衡"), ("balanced fund", "balanced funds", "balanced one")),
    # "the growth fund": 稳健增长一号 by its name (增长), 科技先锋 by its remarks (成长股).
    (("growth", "增长", "成长"), ("growth fund", "growth funds", "growth one")),
    # "the bond one": 稳健增长一号 by its remarks (以债券为主).
    (("bond", "债券"), ("bond fund", "bond funds", "bond one", "债券基金", "债券型的", "债券那只", "债券的那只", "债券的那个")),
    (("清盘", "liquidated"), ("清盘的基金", "已清盘的基金", "已经清盘的基金", "清盘的那只", "清盘那只", "liquidated fund", "liquidated one")),
)


def styled(name: str, remarks: str) -> set[str]:
    """How a fund is called by what its name or remarks say of it ("balanced fund", "已经清盘的基金")."""
    text = f"{name} {remarks}".casefold()
    return {surface for words, surfaces in STYLES if any(word in text for word in words) for surface in surfaces}


# Where Chinese meets Latin letters or digits ("id为5的基金"): people type a space there, or not.
BETWEEN_SCRIPTS = re.compile(r"(?<=[\u4e00-\u9fff])\s*(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])\s*(?=[\u4e00-\u9fff])")


@entities(reads={Fund: ("fund_name", "active_status", "remarks")})
def fund_entities() -> list[Entity]:
    """Fund names; part of a name ("稳健增长", "Beta") may stand for it, and two that fit are asked about."""
    found = []
    funds = list(Fund.objects.values_list("pk", "fund_name", "active_status", "remarks"))
    for pk, name, _status, remarks in funds:
        found.append(Entity("fund", name, pk, name, partial=True))
        found += [Entity("fund", surface, pk, name, exact_only=True) for surface in styled(name, remarks or "")]
        # "绿能" for 绿色能源主题: the first characters of its first two words, as people shorten names.
        if re.fullmatch(r"[\u4e00-\u9fff]{4,}", name):
            found.append(Entity("fund", name[0] + name[2], pk, name, exact_only=True))
        found += [Entity("fund", english, pk, name, exact_only=True) for english in english_described(name)]
        letters = [LETTERS_IN_CHINESE[word] for word in re.findall(r"[a-z]+", name.lower()) if word in LETTERS_IN_CHINESE]
        found += [Entity("fund", chinese, pk, name, exact_only=True) for chinese in letters]
        # "fund 2", "基金3", "基金 #3": the id as people type it, exact.
        found += [Entity("fund", surface, pk, name) for surface in (f"fund {pk}", f"fund #{pk}", f"基金{pk}", f"基金 {pk}", f"基金#{pk}", f"基金 #{pk}")]
        # "3号基金", "fund id 2", "fund no. 4", "ID为5的基金": the id with its label, exact; typed with spaces between the
        # scripts too ("id 为 5 的那个基金").
        found += [
            Entity("fund", spaced, pk, name)
            for surface in (
                f"{pk}号基金", f"{pk} 号基金", f"{pk}号 基金", f"fund id {pk}", f"fund no. {pk}", f"fund no {pk}", f"fund number {pk}", f"基金id {pk}",
                f"基金id{pk}", f"id为{pk}的基金", f"id {pk}的基金", f"id{pk}的基金", f"编号{pk}的基金",
                # "ID是4的基金", "编号为3的那个基金", "fund detail for id 5", "the fund with id 2".
                f"id是{pk}的基金", f"id 是 {pk} 的基金", f"id是{pk}的那个基金", f"id为{pk}的那个基金", f"编号是{pk}的基金",
                f"id是{pk}的那个", f"id为{pk}的那个", f"id是{pk}的那只", f"编号{pk}的那个",
                f"编号为{pk}的基金", f"fund with id {pk}", f"fund with the id {pk}", f"fund detail for id {pk}",
                f"fund details for id {pk}", f"fund info for id {pk}",
                # "停用 id=4 的基金", "fund id: 2": the id as a field is written.
                f"id={pk}", f"id = {pk}", f"id:{pk}", f"id: {pk}",
            )
            for spaced in dict.fromkeys((surface, BETWEEN_SCRIPTS.sub(" ", surface)))
        ]
        # "五号基金", "基金五号": the id in Chinese numerals, exact.
        if pk <= 99:
            found += [Entity("fund", f"{chinese_numeral(pk)}号基金", pk, name), Entity("fund", f"基金{chinese_numeral(pk)}号", pk, name)]
        # "稳健增长1号" for 稳健增长一号: the numeral of a name typed as digits, exact.
        if (digits := NAME_NUMERAL.sub(lambda m: str(chinese_number(m.group(1))) + m.group(2), name)) != name:
            found.append(Entity("fund", digits, pk, name))
    disabled = [(pk, name) for pk, name, status, _remarks in funds if status == Fund.ActiveStatus.DISABLE]
    if len(disabled) == 1:  # after every name: the funds' own order stays the ids' order
        found += [Entity("fund", words, disabled[0][0], disabled[0][1], exact_only=True) for words in THE_DISABLED_ONE]
    return found


# The words Chinese fund names are made of, in English: "the tech pioneer fund" is 科技先锋, "green energy" 绿色能源主题.
# A name glossed whole (each of its words here, or a numbered series: 一号 is "no. 1") may be written in English.
NAME_GLOSSES = {
    "稳健": ("steady", "stable", "prudent"), "增长": ("growth",), "成长": ("growth",), "价值": ("value",),
    "科技": ("tech", "technology"), "先锋": ("pioneer", "vanguard"), "创新": ("innovation",), "绿色": ("green",),
    "新能源": ("new energy",), "能源": ("energy",), "环保": ("eco", "environmental"), "主题": ("theme", "thematic"),
    "货币": ("money", "currency"), "市场": ("market",), "货币市场": ("money market",), "旧": ("old", "legacy"),
    "份额": ("shares", "units", "share class"), "平衡": ("balanced",), "均衡": ("balanced",), "全球": ("global",),
    "债券": ("bond",), "纯债": ("pure bond",), "红利": ("dividend",), "收益": ("income", "yield"), "指数": ("index",),
    "量化": ("quant",), "消费": ("consumer", "consumption"), "医疗": ("healthcare",), "医药": ("pharma",),
    "精选": ("select",), "优选": ("select",), "混合": ("mixed", "hybrid"), "蓝筹": ("blue chip",), "配置": ("allocation",),
    "灵活": ("flexible",), "中国": ("china",), "回报": ("return",), "短债": ("short bond",), "高端": ("high end",),
    "制造": ("manufacturing",), "智能": ("smart",), "安心": ("safe",), "稳定": ("stable",), "策略": ("strategy",),
}

GLOSSED_LONGEST_FIRST = sorted(NAME_GLOSSES, key=len, reverse=True)  # "货币市场" before "货币"


def english_names(name: str, most: int = 12) -> list[str]:
    """How English speakers write a Chinese fund name word for word (["steady growth no. 1", "stable growth 1", …]),
    or none when a word of it has no gloss."""
    options: list[tuple[str, ...]] = []
    at = 0
    while at < len(name):
        if numbered := NAME_NUMERAL.match(name, at):
            n = chinese_number(numbered.group(1))
            options.append((f"no. {n}", f"no {n}", f"number {n}", str(n)))
            at = numbered.end()
            continue
        word = next((w for w in GLOSSED_LONGEST_FIRST if name.startswith(w, at)), None)
        if word is None:
            return []
        options.append(NAME_GLOSSES[word])
        at += len(word)
    names = [""]
    for words in options:
        names = [f"{head} {word}".strip() for head in names for word in words][:most]
    # English puts "old" first: 货币市场旧份额 is "the old money market share class" too.
    leading = [_leading(name, word) for name in names for word in LEADING_GLOSSES if re.search(rf"\s{word}\b", name)]
    return names + leading


def _leading(name: str, word: str) -> str:
    """``name`` with ``word`` moved to its front ("money market old shares" → "old money market shares")."""
    rest = re.sub(rf"\s+{word}\b", "", name)
    return f"{word} {rest}"


LEADING_GLOSSES = ("old", "legacy")


# Words of a gloss that name no fund alone ("the theme fund", "the no. 1 fund").
GLOSS_ALONE_SAYS_NOTHING = {"theme", "thematic", "shares", "units", "share", "class", "share class", "no.", "no", "number", "old", "legacy"}


def english_described(name: str) -> set[str]:
    """The English a Chinese fund name is called by: its gloss whole ("steady growth no. 1"), and any run of its
    words with "fund" or "one" after it ("the tech fund", "the green energy one"); a run that only says "theme" or
    "no. 1" is no name. Two funds described alike are two candidates, and the frame asks which."""
    described = set()
    for english in english_names(name):
        described.add(english)
        words = english.split()
        for start in range(len(words)):
            for end in range(start + 1, len(words) + 1):
                run = words[start:end]
                if all(word in GLOSS_ALONE_SAYS_NOTHING or word.isdigit() for word in run):
                    continue
                described.update(f"{' '.join(run)} {head}" for head in ("fund", "funds", "one"))
    return described


def _on_resolved(turn: Turn, filled: Filled, tool_name: str, **arguments) -> Step:
    """The tool on the fund the words resolved to, looked up by those words first like the phrases do."""
    span = filled.slots["fund_id"]
    done = turn.last(tool_name)
    if done is not None:
        return Step.say(_said(done))
    if tool_name != "get_fund_detail" and (step := _one_fund_at_a_time(filled.reading)) is not None:
        return step
    if re.search(r"\d", span.text) and str(span.value) in span.text:
        return Step.call(tool_name, fund_id=span.value, **arguments)  # named by its id: nothing to look up
    if turn.last("list_funds") is None:
        typed = filled.reading.said[span.start : span.end].strip()
        return Step.call("list_funds", fund_name=typed if span.exact and typed.casefold() == span.name.casefold() else span.name)
    return Step.call(tool_name, fund_id=span.value, **arguments)


@frame(
    "list_funds",
    triggers=(
        "how many", "多少", "几个", "几只", "list", "which", "all", "哪些", "有什么", "列表", "active ones", "enabled ones",
        "count", "number of", "统计", "数一下", "数数", "列一下", "in the name", "名字里", "名字带", "名称里", "名称带", "有没有",
        "搜", "搜索", "search",
        "containing", "matching", "包含", "含有",
        "the funds", "our funds", "every fund", "启用的", "在用的", "所有", "各个基金", "每个基金", "基金们",
        "active funds", "enabled funds", "live funds", "running funds", "funds that are", "funds which are",
        "启用状态", "启用中", "在运行的", "正常的基金", "生效的",
    ),
    slots={},
    required=(),
    priority=1,
)
def list_frame(turn: Turn, filled: Filled) -> Step:
    if part := name_holds(filled.reading.said):
        done = turn.last("list_funds")
        return Step.say(_said(done)) if done is not None else Step.call("list_funds", fund_name=part)
    if filled.reading.of("fund") and not filled.reading.has("how many", "多少", "几个", "几只"):
        return DECLINE  # a fund named: its detail, not the list
    if (done := turn.last("list_funds")) is not None:
        return Step.say(_said(done))
    if wants_active(filled.reading.said):
        return Step.call("list_funds", active_only=True)
    return Step.call("list_funds")


DETAIL_WORDS = (
    "detail", "info", "about", "status", "how is", "how's", "hows", "how are", "doing", "what's up", "look up", "show", "check", "tell me", "pull up", "bring up",
    "详情", "情况", "怎么样", "信息", "查", "看", "如何", "状态", "调出",
    # "is Beta Balanced active?", "科技先锋还在运行吗": a question its detail answers (the writes come first).
    "active", "enabled", "disabled", "running", "in use", "启用", "停用", "运行", "在用", "还在",
    # "what are the remarks on …?", "备注写的是啥": the remarks frame declines a question about them.
    "remark", "note", "备注",
    # "货币市场旧份额那只是干嘛的，我怎么没印象": what the fund is, asked.
    "干嘛的", "干什么的", "做什么的", "是什么来头", "啥来头", "没印象",
)


@frame("get_fund_detail", triggers=(*DETAIL_WORDS, *FUND_WORDS), asks={"fund_id": gettext_lazy("是哪个基金？请说出名称或 ID。")})
def detail_frame(turn: Turn, filled: Filled) -> Step:
    if RENAMING.search(filled.reading.said):
        return DECLINE  # "the green energy fund" → "rename it to Clean Power": a new name given, the phrases' to read
    return _on_resolved(turn, filled, "get_fund_detail")


RENAMING = re.compile(r"\brename\b[^.;!?]*?\bto\b|改名(?:为|成|叫)|重命名为|更名为|改叫", re.IGNORECASE)


detail_frame.names_the_miss = fund_missed


@frame(
    "enable_fund",
    triggers=(
        "enable", "activate", "turn on", "switch on", "reactivate", "back on", "reopen", "re-open", "resume", "bring back",
        "back online", "online again", "restore", "restored",
        "switch", "turn", "启用", "激活", "打开", "恢复", "上线", "开起来", "重新开", "再开", "重开",
    ),
    asks={"fund_id": gettext_lazy("要启用哪个基金？请说出名称或 ID。")},
    # "turn off the tech fund": "turn" with "off" switches it off, never on.
    not_with=("off", "turn off", "switch off"),
    priority=2,
)
def enable_frame(turn: Turn, filled: Filled) -> Step:
    reading = filled.reading
    if MAYBE_LATER.search(reading.said) and reading.has(*DISABLE_WORDS):
        return DECLINE  # "先停用，之后可能还会重新开的": the stop is asked; switching it back on is for later, maybe
    if reading.has("switch", "turn") and not re.search(r"\b(?:switch|turn)\b.*\bon\b", reading.folded) and not reading.has(
        "enable", "activate", "reactivate", "reopen", "resume", "启用", "激活", "打开", "恢复", "上线", "开起来", "重新开", "再开", "重开"
    ):
        return DECLINE  # "switch" or "turn" without "on": not this
    return _on_resolved(turn, filled, "enable_fund")


enable_frame.names_the_miss = fund_missed


# "…，后面可能还会再开的", "…, we might reopen it later": what may be done to the fund some other time.
MAYBE_LATER = re.compile(
    r"(?:后面|之后|以后|回头|过段时间|将来)(?:可能|也许|或许|说不定)|\b(?:might|may|could)\b[^,.;!?]{0,30}\b(?:later|again|eventually|someday)\b",
    re.IGNORECASE,
)
DISABLE_WORDS = (
    "disable", "deactivate", "turn off", "switch off", "off", "suspend", "shut down", "pause", "take offline", "offline", "kill", "wind down",
    "delete", "remove", "retire", "停用", "禁用", "关掉", "关闭", "下线", "暂停", "停掉", "关停", "停了", "关了", "停止",
    "删除", "删掉", "注销", "停一下", "停下", "先停", "停一个", "停一只", "停个",
    # "先别停科技先锋，改成停稳健增长一号": the deed said again on another fund (the no on the first is the gate's).
    "别停", "改成停", "换成停", "改停",
    # "等等，停错了，我说的是科技先锋": the right fund named after the wrong one.
    "停错", "关错",
)


@frame(
    "disable_fund",
    triggers=DISABLE_WORDS,
    asks={"fund_id": gettext_lazy("要停用哪个基金？请说出名称或 ID。")},
    priority=2,
)
def disable_frame(turn: Turn, filled: Filled) -> Step:
    if REMARKS_REMOVED.search(filled.reading.said):
        return Step.say(_("备注要改成什么？"))  # "把X的备注删掉": the remarks go, not the fund
    said = filled.reading.said
    if (fund := filled.slots.get("fund_id")) is not None:
        said = said[: fund.start] + " " * (fund.end - fund.start) + said[fund.end :]  # "the one that got turned off" names it
    if not read(SIGNED_OFF.sub(" ", said)).has(*DISABLE_WORDS):
        return DECLINE  # "compliance signed off on them": an approval, no "off" that switches anything off
    return _on_resolved(turn, filled, "disable_fund")


# "legal signed off on it": approved. The one "off" of the message is no switching off.
SIGNED_OFF = re.compile(r"\bsign(?:ed|s|ing)?[ -]off\b|\b(?:kick(?:ed|s)?|start(?:ed|s)?|head(?:ed|s)?|paid|pay)\s+off\b", re.IGNORECASE)


# "把绿色能源的备注删掉", "remove the note on Beta": a delete whose object is the remarks.
REMARKS_REMOVED = re.compile(
    r"备注\s*(?:都|全)?\s*(?:删|去掉|清掉|清空|拿掉)|(?:删掉|删除|去掉|清空|清掉)\s*(?:\S{0,12}的)?\s*备注"
    r"|\b(?:remove|delete|clear|drop|wipe|erase)\s+(?:\w+\s+){0,4}?(?:remarks?|notes?)\b",
    re.IGNORECASE,
)


disable_frame.names_the_miss = fund_missed
# "re-enable it — compliance signed off", "turn it back on, we'll switch it off again after": neither frame reads the
# approval's "off", nor the speaker's own later deed.
# ("把停用的基金启用", "停用的那只": the disabled fund named, nothing switched off.)
# ("the one that got turned off": the disabled fund described, nothing switched on or off.)
DESCRIBED_OFF = r"\b(?:got|was|been|were|we)\s+(?:turned|switched|shut)\s+off\b|\b(?:got|was|been)\s+disabled\b"
DISABLED_NAMED = r"(?:已经?)?(?:停用|关停)的(?=基金|那|这|几|都|全)"
enable_frame.unsaid = re.compile(f"{SIGNED_OFF.pattern}|{restraint.OWN_LATER.pattern}|{DESCRIBED_OFF}", re.IGNORECASE)
disable_frame.unsaid = re.compile(f"{SIGNED_OFF.pattern}|{restraint.OWN_LATER.pattern}|{DISABLED_NAMED}|{DESCRIBED_OFF}", re.IGNORECASE)


NAMED = re.compile(
    r"\b(?:called|named|name\s+it|name\s*(?:is|:)?|call\s+it)\s+|\bfund\s*(?:pls|please|plz)?\s*[:：]\s*|(?:叫做|名叫|名为|叫|名字是|名称是?为?)\s*|基金\s*[:：]\s*|(?:名字|名称)\s*[:：]\s*"
    # "建个基金 名字 红利精选": a bare label, then the name after a space.
    r"|(?<![改换新])(?:名字|名称)[ \t]+(?=[\u4e00-\u9fffA-Za-z0-9「“\"'])"
    # "新建基金 红利精选", "add fund Quant Hedge": the name right after the new fund, set apart by a space.
    r"|(?:新建|创建|新增|添加|加)(?:一[个只支])?(?:新的?)?基金[ \t]+(?!名|叫|备注|类型)(?=[\u4e00-\u9fffA-Za-z0-9「“\"'])"
    r"|\b(?:add|create|new|open|start|set\s+up)[ \t]+(?:a[ \t]+)?(?:new[ \t]+)?fund[ \t]+(?!(?i:called|named|name|with|for)\b)(?=(?-i:[A-Z0-9])|[\"'“「])",
    re.IGNORECASE,
)
# "备注：…", "备注写“…”", "remarks say '…'": the label, then the remarks as typed (their quotes aside).
REMARKS_KEY = re.compile(
    r"^(?:(?:with|and)\s+)?(?:(?:the|a)\s+)?(?:remarks?|notes?|备注|说明)\s*(?:(?:it|them)\s+as\b|is|are|says?|reads?|为|是|写上|写成|写着|写|填上|填|[:：])?\s*[:：]?\s*", re.IGNORECASE
)
QUOTES = "“”\"'「」『』‘’"
# Where one piece of a new fund's description ends: a clause mark, a sentence's end, "and"/"with",
# or a space before another labelled field ("短债 类型:债券型", "Alpine Growth? Notes: …").
PIECES = re.compile(
    r"\s*[,，;；。?？!！]\s*|\.\s+|\s+(?:and|with)\s+|\s+(?=[^\s:：,，]{1,12}\s*[:：])|\s+(?=备注|说明)|\s*(?:\s[—–-]{1,2}\s|[—–]{1,2})\s*",
    re.IGNORECASE,
)
# Thanks and please closing a request: manners, not remarks.
COURTESY = re.compile(
    r"^(?:谢谢(?:您|你)?(?:了|啦)?|多谢(?:了)?|感谢(?:您|你)?|(?:麻烦|拜托|辛苦|有劳)(?:您|你)?(?:了|啦)?"
    r"|(?:many\s+)?thanks?(?:\s+(?:a lot|a bunch|so much|very much|kindly))?|thank\s+(?:you|u)(?:\s+(?:kindly|so much|very much))?"
    r"|thx|thnx|tks|ty|tysm|ta|much\s+appreciated|appreciate\s+it|谢(?:了|啦)|感恩|3q"
    r"|many|cheers|please)$",
    re.IGNORECASE,
)

# "but don't create it yet", "先别建": a no to the creating itself is no remark; left in the message,
# the one gate before any write (``RulesProvider.held_back``) reads it and nothing is proposed.
NOT_YET = re.compile(
    r"^(?:but|and|just|yet)?\s*(?:don'?t|do\s+not|not|no\s+need\s+to|never)\s+(?:\w+\s+){0,2}?(?:create|make|add|set\s+up|open|start)\b"
    r"|^(?:但是?|不过|可是|只是)?\s*(?:先|暂时|还)?(?:别|不要|不用|不必|先不|暂不)(?:急着|马上|现在)?(?:新建|创建|建|开(?!放|通)|加(?!仓)|新增|添加)",  # ("暂不开放申购": a remark)
    re.IGNORECASE,
)


def new_fund(said: str) -> tuple[str, list[str]]:
    """(name, the other pieces) of "create a fund called Harbor Income, bond type, low risk": each as typed."""
    quote = QUOTED.search(said)  # an apostrophe inside a word ("I'd") is no quote mark
    named = NAMED.search(said)
    if quote and not named and re.search(r"(?:备注|说明|\bremarks?|\bnotes?)\s*(?:写|写成|写上|是|为|says?|reads?|[:：])?\s*$", said[: quote.start()], re.IGNORECASE):
        return "", []  # "新建一个基金，备注写“量化对冲”": the quotation is the remarks; the name is asked
    if quote and named and quote.start() > named.end() + 2:
        quote = None  # "named Orchard Income, with the note 'dividends first'": the quote is the remarks
    if quote:
        name, rest = quote.group(1).strip(), said[quote.end() :]
        rest = re.sub(r"^\s*(?:的)?基金|^\s*fund\b", "", rest, flags=re.IGNORECASE)  # "叫「Alpha Two」的基金，…"
    else:
        if not named:
            return "", []
        tail = said[named.end() :]
        while again := NAMED.match(tail):  # "new fund: name Nordic Bonds"
            tail = tail[again.end() :]
        tail = tail.lstrip(":： ")  # "名称：短久期"
        head = PIECES.split(tail, maxsplit=1)
        # "叫稳盈宝的基金" names 稳盈宝; "叫货币基金" names 货币基金, whole as typed.
        name = without_particle(re.sub(r"\s*的基金\s*$|\s+fund\s*$", "", head[0]).strip(" ?？!！.。"))
        rest = head[1] if len(head) > 1 else ""
    pieces = [p.strip(" ?？!！.。") for p in PIECES.split(rest)]
    # "no remarks needed", "备注以后再填": what the user says of the remarks is no remark.
    return name, [
        p for p in pieces
        if p and not COURTESY.match(p) and not NOT_YET.match(p) and not FIELD_LEFT_ALONE.search(p) and not TO_THE_AGENT.search(p)
        and not SUPPLIED_LATER.search(p)
    ]


# "…, product team will send them", "产品部回头会发过来": who gives the fields later, no field itself.
SUPPLIED_LATER = re.compile(
    r"\b(?:will|'ll|gonna|going\s+to)\s+(?:send|provide|give|supply|fill|share|write)\s+(?:them|those|it|these|that)\b"
    r"|(?:会|回头|稍后|之后|晚点|晚些)(?:再|会)?(?:发|给|补|提供|填)(?:过来|给你|给我们|上)"
    # "备注先空着，回头再补": the remarks come later.
    r"|^(?:回头|稍后|之后|晚点|晚些|以后)(?:再)?(?:补|填|加|写)(?:上)?(?:吧)?$",
    re.IGNORECASE,
)


# A piece said to the agent about the request, no field of the fund: "需要员工确认的话就提交吧", "submit it for approval".
TO_THE_AGENT = re.compile(
    r"提交|走流程|(?:员工|同事|领导)(?:来)?(?:确认|审核|审批)|帮我|麻烦你|你看着办|\b(?:submit|go\s+ahead|asap|for\s+(?:approval|confirmation|review))\b"
    # "Please set it up", "create it": the request said again.
    r"|^(?:please\s+)?(?:set\s+it\s+up|create\s+it|make\s+it|open\s+it|do\s+it|go\s+for\s+it)(?:\s+please)?$",
    re.IGNORECASE,
)


@frame(
    "create_fund",
    triggers=(
        "create", "new fund", "add", "make", "set up", "set it up", "setting up", "open", "start", "新建", "创建", "建", "开", "新增", "添加", "新基金", "加一", "加个",
        # "好，提交吧", "submit it": the new fund named before, set up (see _named_before).
        "提交", "submit",
        # "we need a fund named Harbor Value", "要一只叫红利精选的基金": the fund wanted, named.
        "need a fund", "want a fund", "need a new fund", "want a new fund", "要一只", "要一个", "要个",
    ),
    required=(),
    priority=2,
)
def create_frame(turn: Turn, filled: Filled) -> Step:
    said = filled.reading.said
    named_before = _named_before(turn) if SET_UP.search(said) and not new_fund(said)[0] else None
    # "We're launching Silver Age Care next quarter. Create it …": the product launched by name, set up as "it".
    launched = found if (found := LAUNCHED_NAMED.search(said)) and IT_CREATED.search(said, found.end()) else None
    if not filled.reading.has(*FUND_WORDS, "新产品") and named_before is None and launched is None:
        return DECLINE  # "帮我开个新产品 '碳中和精选'": the fund assistant's products are funds
    if REMARKS_NAMED.search(said) and (filled.reading.of("fund") or LINE_ADDED.search(said)) and not NEW_FUND_SAID.search(said):
        return DECLINE  # "新能源那只基金，备注里加一句“含储能”": a remark added to a fund there is, no new fund
    if named_before is not None:
        # "名字定了，就叫 安心债券" → "行，提交建档吧，备注先空着": the new fund named a message or two before; that message
        # stands for it (the gate and the provenance read it with this one). Remarks are this message's, quoted.
        name, source = named_before
        quote = QUOTED.search(said)
        remarks = quote.group(1).strip() if quote and REMARKS_NAMED.search(said[: quote.start()]) else ""
        turn.earlier = turn.continues = source
        if (done := turn.last("create_fund")) is not None:
            return Step.say(_said(done))
        return Step.call("create_fund", fund_name=name, **({"remarks": remarks} if remarks else {}))
    name, pieces = new_fund(filled.reading.said)
    if not name and launched is not None:
        # The product launched is the fund to set up, its name as typed; the remarks after their label.
        name = launched["name"]
        labelled = re.search(r"\b(?:remarks?|notes?)\b|备注", said[launched.end() :], re.IGNORECASE)
        pieces = [p.strip(" ?？!！.。") for p in PIECES.split(said[launched.end() + labelled.start() :])] if labelled else []
    if not name:
        return Step.say(_("新基金叫什么名字？（还可以加备注）我会预填新建基金表单，由员工确认。"))
    labelled = next((i for i, p in enumerate(pieces) if REMARKS_KEY.match(p)), None)
    if labelled is not None:
        # After their label the remarks run to the end as typed, commas and all ("备注：跟踪指数，费率0.5%").
        given = [_remarks_as_typed(filled.reading.said, pieces[labelled], pieces[-1])]
        others = [_as_field(p) for p in pieces[:labelled]]
    else:
        given, others = [], [_as_field(p) for p in pieces]
    remarks = "；".join(filter(None, [*given, *others]))
    done = turn.last("create_fund")
    if done is not None:
        said = [_said(done), _("备注：「%(remarks)s」") % {"remarks": remarks} if given and not others else kept_in_remarks(remarks if others else "")]
        return Step.say("\n".join(filter(None, said)))
    return Step.call("create_fund", fund_name=name, **({"remarks": remarks} if remarks else {}))


# A product launched under its name, as typed ("we're launching Silver Age Care next quarter"), then set up as "it".
LAUNCHED_NAMED = re.compile(
    r"\blaunch(?:ing|es)?\s+(?P<name>(?-i:[A-Z][\w&'.-]*)(?:\s+(?-i:[A-Z0-9][\w&'.-]*))*)(?=\s+(?:next|this|in|on|soon|later|today|tomorrow)\b|\s*[.,;!]|\s*$)",
    re.IGNORECASE,
)
IT_CREATED = re.compile(r"\b(?:create|set\s+up|add|open)\s+it\b|\bset\s+it\s+up\b", re.IGNORECASE)
# The new fund asked to be set up now, no name of its own: "提交建档吧", "go ahead and set it up".
SET_UP = re.compile(r"建档|提交|开(?:起来|出来)吧|\bset\s+it\s+up\b|\bcreate\s+it\b|\bgo\s+ahead\b", re.IGNORECASE)
# A new product talked about: "下个月准备发一只纯债基金", "we're launching an ESG product next month".
LAUNCHED = re.compile(r"发(?:一|1)?[只个支]|发行|推出|上线|新基金|新产品|\blaunch(?:ing|es)?\b|\bnew\s+(?:fund|product)\b", re.IGNORECASE)


def _named_before(turn: Turn) -> tuple[str, str] | None:
    """(the new fund's name, the message that gave it) from the last messages, when the talk is of a new product and
    the name is no fund's already; None otherwise."""
    messages = [m for m in (turn.earlier, *turn.history[:2]) if m]
    if not any(LAUNCHED.search(m) or NEW_FUND_SAID.search(m) for m in messages):
        return None
    for message in messages:
        quote = QUOTED.search(message)  # "the name will be 'Blue Harbor'": the quoted name, when no remarks are quoted
        name = quote.group(1).strip() if quote and not REMARKS_NAMED.search(message) else new_fund(message)[0]
        if name and not Fund.objects.filter(fund_name__iexact=name).exists():
            return name, message
    return None


# A line added ("加一句…", "add a line …"); with the old kept ("原来的内容保留", "append …", "keep what's there"),
# remarks added to.
LINE_ADDED = re.compile(r"加(?:上)?(?:一)?(?:句|条|行|段)|添(?:上)?(?:一)?(?:句|条|行)|\badd\s+(?:a\s+|one\s+)?(?:line|sentence|bit)\b", re.IGNORECASE)
APPENDED = re.compile(
    LINE_ADDED.pattern + r"|原来的(?:内容|备注)?(?:要)?(?:保留|留着|别删|不动)|在后面加|追加"
    r"|\bappend\b|\bkeep\s+(?:the\s+)?(?:old|existing|current)\s+(?:remarks?|text|notes?)\b|\bkeep\s+what'?s\s+there\b",
    re.IGNORECASE,
)
REMARKS_NAMED = re.compile(r"备注|说明|\bremarks?\b|\bnotes?\b", re.IGNORECASE)
# "…加一句“含港股”——算了直接整段改成“…”": the line given up for whole new remarks, which the tool writes.
WHOLE_AFTER_ALL = re.compile(r"(?:算了|不对|还是)[^“「\"']{0,8}?(?:整段|全部|直接)?(?:改成|改为|换成)|\b(?:actually|instead)\b[^'\"“]{0,30}?\b(?:replace|set|change)\b", re.IGNORECASE)
NEW_FUND_SAID = re.compile(
    r"新基金|新产品|新建|创建|新增|建一?[只个支]|开(?:个|一个|一只|只)新|\bnew\s+fund\b|\b(?:create|set\s+up|open|start)\s+(?:a|an|one)\b", re.IGNORECASE
)


# The verb that adds a line, its words after it: "加上…", "添上…", "append …".
ADDING = re.compile(r"(?:加上|添上)(?!一?[句条行段])\s*|\b(?:add|append)\s+(?!(?:a|one)\s+(?:line|sentence|bit)\b)", re.IGNORECASE)


def _remarks_appended(turn: Turn, filled: Filled, added: re.Match) -> Step:
    """"1号基金的备注加一句：12月起暂停大额申购", "备注里加一句“含储能”": the tool writes the remarks whole, so the
    fund's remarks are read and the line joined to them; the proposal shows the whole new remarks for staff to
    confirm, and it is based on the version read (a change meanwhile is a conflict). Without the line, it is asked."""
    if (done := turn.last("update_fund")) is not None:
        return Step.say(_said(done))
    said = filled.reading.said
    quote = next((q for q in filled.reading.of("quoted") if q.start >= added.start()), None)
    colon = re.compile(r"[:：]\s*").search(said, added.start())
    line = quote.value.strip() if quote is not None else said[colon.end() :].strip().rstrip("。.!！") if colon else ""
    if not line and (verb := ADDING.search(said)):
        # "科技先锋备注里加上风险等级R4，原来的内容保留": the line runs from the verb to the end of its clause.
        line = re.split(r"[，,。;；!！]", said[verb.end() :], maxsplit=1)[0].strip()
    if not line:
        return Step.say(_("要在备注里加什么？请把要加的那句话写在冒号后面。"))
    detail = turn.last("get_fund_detail")
    if detail is None or not detail.ok:
        return _on_resolved(turn, filled, "get_fund_detail")
    fund = detail.data["fund"]
    joiner = "；" if re.search(r"[\u4e00-\u9fff]", f"{fund['remarks'][-1:]}{line[:1]}") else "; "
    remarks = f"{fund['remarks'].rstrip('。.；; ')}{joiner}{line}" if fund["remarks"].strip() else line
    return replace(Step.call("update_fund", fund_id=fund["id"], remarks=remarks), composed=("remarks",))


def _remarks_as_typed(said: str, first: str, last: str) -> str:
    """The words from the remarks' label (the piece ``first``) to the end of the piece ``last``, as typed."""
    start = said.rfind(first)
    end = said.rfind(last) + len(last) if last in said[start:] else start + len(first)
    label = REMARKS_KEY.match(said[start:])
    rest = said[start + (label.end() if label else 0) :].lstrip()  # the message from the remarks on
    body = rest[: end - (len(said) - len(rest))].rstrip()
    # 'remarks "equity, high risk" — wait, not yet': quoted remarks end at their closing quote; what
    # follows is the user talking to the agent, left in the message for the gate to read.
    if (quoted := QUOTED.match(body)) is not None:
        return quoted.group(1).strip()
    return body[: closing_words_at(body, rest)].strip().strip(QUOTES).strip()


# Where a sentence of the remarks ends: "…债券。产品部那边催了好几次了，辛苦", "…healthcare. Thanks so much, …".
SENTENCE_END = re.compile(r"[。!！]\s*|\.\s+")


def closing_words_at(body: str, rest: str) -> int:
    """Where ``body`` (the start of ``rest``, the message from the remarks on) stops being remarks: at the sentence
    that thanks the agent and every one after it ("remarks: elderly care. Thanks so much, the PM has been asking since
    Monday", "备注：投资海外债券。产品部那边催了好几次了，辛苦")."""
    for end in SENTENCE_END.finditer(rest):
        sentence = SENTENCE_END.split(rest[end.end() :], maxsplit=1)[0]
        if any(COURTESY.match(piece.strip(" ?？!！.。")) for piece in PIECES.split(sentence)):
            return min(end.start(), len(body))
    return len(body)


def _as_field(piece: str) -> str:
    """A Chinese "类型为债券型" / "风险等级R2" as "类型：债券型"; anything else as typed."""
    found = FIELD.fullmatch(piece)
    if found is None or not found["key"]:
        return piece
    return f"{found['key'].strip()}：{found['value'].strip()}"


def kept_in_remarks(remarks: str) -> str:
    if not remarks:
        return ""
    return _("基金没有类型、风险等字段，这些我原样写进了备注：「%(remarks)s」。") % {"remarks": remarks}


RENAME_ASKED = re.compile(r"改|换|更名|\b(?:rename|change|new\s+name)\b", re.IGNORECASE)
NEW_NAME_BEFORE = re.compile(r"(?:\brename\b[^,.;!?\n]*?\bto\b|->|=>|→|改名为|改名成|改为|改成|更名为|重命名为|改叫)[^,.;!?，。；！？\n]*$", re.IGNORECASE)
RENAMED_TO = re.compile(r"\bto\b|\bas\b|\b(?:call|name)\s+it\b|->|=>|→|改名为|改名成|改为|改成|更名为|重命名为|改叫|叫做?|[:：]", re.IGNORECASE)


@frame(
    "update_fund",
    triggers=(
        "rename", "change the name", "change its name", "new name for", "改名", "重命名", "更名", "换个名字", "换名字", "改个名", "改一下名", "改下名",
        "改改名", "名字改", "名字换", "名称改",
        # "帮我改一下科技先锋的名字": the fund between the verb and its name (a change asked: RENAME_ASKED).
        "的名字", "的名称",
    ),
    required=("fund_id",),
    asks={"fund_id": gettext_lazy("要给哪个基金改名？请说出名称或 ID。")},
    priority=3,
)
def rename_frame(turn: Turn, filled: Filled) -> Step:
    """"rename Beta Balanced": the new name is asked; "rename X to Y" is the phrases'."""
    fund = filled.slots["fund_id"]
    if RENAMED_TO.search(filled.reading.said, fund.end) or NEW_NAME_BEFORE.search(filled.reading.said, 0, fund.start):
        return DECLINE  # ("rename it to Global Balanced": a new name read as a fund is the new name)
    if not RENAME_ASKED.search(filled.reading.said):
        return DECLINE  # "科技先锋的名字是什么": its name asked, no change
    return Step.say(_("要改成什么名字？"))


# "what are the remarks on …?", "备注写的是什么": a question about the remarks, not new ones ("its remarks should read
# '…'" says what they become).
REMARKS_CHANGED = re.compile(r"改|更新|设为|设置|换成|加上|写上|\b(?:should|must|to|needs?\s+to|will)\s+(?:read|say)\b|\b(?:chang(?:e|ed|es|ing)|updat(?:e|ed|es|ing)|set|make|replac(?:e|ed|ing)|edit(?:ed)?)\b", re.IGNORECASE)
REMARKS_ASKED = re.compile(r"\bwhat\b|\bwhats\b|\bwhat's\b|\bshow\b|\bread\b|\bsee\b|是什么|是啥|什么内容|写的(?:是)?(?:什么|啥)|看看|查看|要看|想看|看一下|看下|\bdetails?\b|\bpull\s+up\b|\bneed\s+the\s+remarks\b|[?？]", re.IGNORECASE)


# A change someone else made, told: "someone changed its remarks last week", "有人改过备注".
REPORTED_CHANGE = re.compile(
    r"\b(?:someone|somebody|they|he|she|who|anyone|somebody\s+else)\s+(?:has\s+|had\s+|just\s+|already\s+)?(?:changed|updated|edited|modified|touched)\b"
    r"|有人(?:偷偷)?(?:改|动|修改)(?:过|了)",
    re.IGNORECASE,
)
# "they want it to read 'balanced, bond-heavy'", "改成写着“…”": a verb of saying between the marker and the quotation.
SAYS_BEFORE_QUOTE = re.compile(r"\s*(?:just\s+|simply\s+)?(?:read|reads|say|says|be|写着|写|是)?\s*[:：]?\s*", re.IGNORECASE)


@frame(
    "update_fund",
    triggers=("remark", "note", "备注", "说明"),
    not_with=(
        "create", "new fund", "add a fund", "set up a fund", "setting up a fund", "a fund named", "a fund called", "新建", "创建", "建一个", "新基金",
        "新增", "新产品",
        # "go ahead and set it up, remarks '…'", "提交建档": a new fund named before, set up with its remarks.
        "set it up", "建档",
    ),
    required=("fund_id",),
    asks={"fund_id": gettext_lazy("要改哪个基金的备注？请说出名称或 ID。")},
    priority=3,
)
def remarks_frame(turn: Turn, filled: Filled) -> Step:
    if FIELD_LEFT_ALONE.search(filled.reading.said):
        return DECLINE  # "改个名，改成X，备注不动": the remarks stay as they are
    if (added := APPENDED.search(filled.reading.said)) and not WHOLE_AFTER_ALL.search(filled.reading.said, added.end()):
        return _remarks_appended(turn, filled, added)
    span = filled.slots["fund_id"]
    after = max(span.end, filled.reading.folded.find("备注") + 2, filled.reading.folded.find("remark") + 6)
    if whole := WHOLE_AFTER_ALL.search(filled.reading.said, after):
        after = whole.start()  # the remarks given after the line given up
    if REMARKS_ASKED.search(filled.reading.said) and not REMARKS_CHANGED.search(REPORTED_CHANGE.sub(" ", filled.reading.said)):
        # "what are the remarks on …?", "备注写的是什么": its detail answers, nothing is written; "show me X, I think
        # someone changed its remarks": a change told, to check.
        return DECLINE
    marker = re.compile(r"(?:改成|改为|修改为|更新为|更新成|设为|设成|设置为|换成|换为|改写成|写成|写上|写|填上|填成|为|[:：]|->|=>|→|\bto\b)\s*", re.IGNORECASE)
    found = marker.search(filled.reading.said, after)
    quote = next((q for q in filled.reading.of("quoted") if q.start >= after), None)
    if not found and quote is None:
        return Step.say(_("备注要改成什么？"))
    # ("备注写得太简单了，改成“…”吧": the marker right before the quotation says what the remarks become.)
    told = quote is not None and any(
        SAYS_BEFORE_QUOTE.fullmatch(filled.reading.said, m.end(), quote.start - 1) for m in marker.finditer(filled.reading.said, after, quote.start)
    )
    if quote is not None and (not found or quote.start - 1 <= found.end() or told):
        text = quote.value.strip()  # the new remarks in quotes, as typed
    else:
        text = filled.reading.said[found.end() :].strip().lstrip(":：").strip().strip("「」“”\"'").rstrip("。.!！")
    text = LANGUAGE_LABEL.sub("", re.sub(r"^(?:一下|下)\s*[:：]?\s*", "", text), count=1)  # "备注换成中文的：…": the remarks after it
    text = text[: closing_words_at(text, text)].rstrip("。.!！")
    if not text:
        return Step.say(_("备注要改成什么？"))
    return _on_resolved(turn, filled, "update_fund", remarks=text)
