"""Chat phrases the offline ``rules`` provider understands for the city tools (zh and en).

"把 5 flour 给 Bob" takes two rounds, like a real model would: ``find_agent("Bob")`` gives
Bob's id, then ``transfer_resource`` moves the calling agent's own flour. A request to
move someone else's goods ("把 Bob 的 flour 给我") gets a refusal and no tool call: no
tool could do it anyway, since every city tool acts for the calling agent only.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext as _

from agents.providers.rules import Outcome, Step, Turn, intent, summarize

QTY = r"(?P<qty>\d+)"
RES = r"(?P<res>[A-Za-z][A-Za-z0-9_-]*)"
NAME = r"(?P<name>[^\s，。,.!！?？#]+)"
UNIT = r"\s*(?:个|份|块|袋|捆|斤|单位|units?\s+of)?\s*"
SELF_WORDS = {"我", "me", "myself", "自己", "us", "我们"}
NOT_A_FOOD = {"something", "anything", "food", "now", "some", "please", "lunch", "dinner", "breakfast"}
# Words that end in 's without being an owner ("it's", "let's" …).
NOT_OWNERS = r"(?!(?:my|your|our|its?|that|what|there|here|he|she|who|let|one)['’]s\b)"


def _result(outcome: Outcome) -> str:
    """One line for a tool outcome: its message on success, the error's message otherwise."""
    if outcome.ok:
        data = outcome.data
        return str(data.get("message", "")) if isinstance(data, dict) else str(data)
    return str(outcome.result.get("error", {}).get("message", "") or outcome.result.get("message", ""))


def _call(tool_name: str, **arguments) -> Step:
    # Not Step.call: tool arguments may be called "name".
    return Step(calls=((tool_name, arguments),))


def _once(turn: Turn, tool_name: str, **arguments) -> Step:
    """Call ``tool_name`` once, then reply with its result."""
    done = turn.last(tool_name)
    if done is not None:
        return Step.say(_result(done))
    if not turn.offered:  # the runner's last call, once the tool rounds are spent
        return Step.say(summarize(turn) or _("工具调用轮数已用完，请再说一次。"))
    return _call(tool_name, **arguments)


def _resident_then(turn: Turn, name: str, then: str, **arguments) -> Step:
    """Resolve a resident's name with ``find_agent``, then call ``then`` with ``to_agent_id``."""
    if name.lower() in SELF_WORDS:
        return Step.say(_("请告诉我要转给哪位居民（名字）。"))
    found = turn.last("find_agent")
    if found is None:
        return _once(turn, "find_agent", name=name)
    if not found.ok:
        return Step.say(_result(found))
    return _once(turn, then, to_agent_id=found.data["agent_id"], **arguments)


def _listed(turn: Turn, listing: str, key: str, matches) -> tuple[Step | None, dict | None]:
    """Call ``listing`` once, then pick the first row of its ``key`` list that ``matches``.

    Returns (the step to take now, None) until the listing is known, then (None, row or None).
    """
    listed = turn.last(listing)
    if listed is None:
        return _once(turn, listing), None
    if not listed.ok:
        return Step.say(_result(listed)), None
    return None, next((row for row in listed.data[key] if matches(row)), None)


# ---------------------------------------------------------------------------- transfers


@intent(
    r"把\s*(?!我的|自己的)(?P<owner>[^\s的，。,]{1,20})\s*的",
    r"让\s*(?!我|自己)(?P<owner>[^\s，。,]{1,20}?)\s*(?:把|给|转|送)",
    r"从\s*(?!我|自己)(?P<owner>[^\s，。,]{1,20}?)\s*(?:那里|那儿|手里|手上|处)?\s*(?:拿|取|转|要|抢)",
    rf"\b(?:give|transfer|send|move|hand)\b.*?\b{NOT_OWNERS}(?P<owner>[A-Za-z][\w-]*)['’]s\b",
    r"\btake\b.*?\bfrom\s+(?!the\b|shop\b|market\b|me\b|my\b)(?P<owner>[A-Za-z][\w-]*)",
    r"\bmake\s+(?!me\b)(?P<owner>[A-Za-z][\w-]*)\s+(?:give|send|transfer)",
    priority=5,
)
def someone_elses_goods(turn: Turn, match: re.Match) -> Step:
    owner = match["owner"]
    return Step.say(_("我只能转出我自己的资源，不能动用 %(owner)s 的东西。如有需要，请让 %(owner)s 自己转赠。") % {"owner": owner})


@intent(
    rf"把\s*(?:我的|自己的)?\s*{QTY}{UNIT}{RES}\s*(?:转赠给|转给|送给|给)\s*{NAME}",
    rf"(?:转赠|转|送)\s*{QTY}{UNIT}{RES}\s*给\s*{NAME}",
    rf"\b(?:give|transfer|send|hand)\s+{QTY}\s+(?:units?\s+of\s+)?{RES}\s+to\s+{NAME}",
    rf"\b(?:give|send|hand)\s+(?!me\b){NAME}\s+{QTY}\s+(?:units?\s+of\s+)?{RES}",
)
def give(turn: Turn, match: re.Match) -> Step:
    return _resident_then(
        turn, match["name"], "transfer_resource", resource_type=match["res"].lower(), quantity=int(match["qty"])
    )


@intent(rf"把\s*(?:我的|自己的)?\s*{RES}\s*(?:转赠给|转给|送给|给)\s*{NAME}", rf"\b(?:give|send)\s+(?:some\s+)?{RES}\s+to\s+{NAME}")
def give_without_quantity(turn: Turn, match: re.Match) -> Step:
    res, name = match["res"], match["name"]
    return Step.say(_("要给 %(name)s 多少 %(res)s？请说一个数量，比如「把 5 %(res)s 给 %(name)s」。") % {"name": name, "res": res})


@intent(
    r"(?:查找|找一下|查一下)\s*(?:居民)?\s*(?P<name>[^\s，。,?？]+?)\s*(?:的\s*ID)?$",
    r"\bfind\s+(?:the\s+)?(?:resident|agent)\s+(?P<name>[\w-]+)",
    r"\bwho\s+is\s+(?P<name>[A-Za-z][\w-]*)",
)
def find(turn: Turn, match: re.Match) -> Step:
    return _once(turn, "find_agent", name=match["name"])


@intent(r"我的资源|我有(?:哪些|什么)资源|我有什么|查看资源", r"\bmy\s+(?:resources|inventory|stock|goods)\b", r"\bwhat do i (?:have|hold|own)\b")
def my_resources(turn: Turn, match: re.Match) -> Step:
    return _once(turn, "get_my_resources")


# ---------------------------------------------------------------------------- needs and work


@intent(r"签到|打卡", r"\bcheck[ -]?in\b", r"\bclock[ -]?in\b")
def check_in(turn: Turn, match: re.Match) -> Step:
    return _once(turn, "checkin")


@intent(
    rf"吃(?:点|一?[个份块口])?\s*{RES}",
    r"吃饭|吃东西|进食|吃点东西",
    r"\beat(?:\s+(?:a|an|some|one|1))?\s+(?P<res>[A-Za-z][\w-]*)",
    r"\beat\b",
)
def eat(turn: Turn, match: re.Match) -> Step:
    food = (match.groupdict().get("res") or "").lower()
    if food and food not in NOT_A_FOOD:
        return _once(turn, "eat", resource_type=food)
    return _once(turn, "eat")


@intent(r"休息|睡觉|歇一会", r"\b(?:take\s+a\s+)?rest\b", r"\bsleep\b")
def take_rest(turn: Turn, match: re.Match) -> Step:
    return _once(turn, "rest")


@intent(r"离职|辞职", r"\bquit\s+(?:my\s+)?job\b", r"\bleave\s+my\s+job\b", priority=1)
def quit_job(turn: Turn, match: re.Match) -> Step:
    return _once(turn, "unassign_building")


@intent(r"应聘\s*(?:建筑)?\s*#?(?P<id>\d+)", r"\bapply\s+(?:for\s+a\s+job\s+)?(?:at|to)\s+(?:building\s+)?#?(?P<id>\d+)", priority=2)
def apply_by_id(turn: Turn, match: re.Match) -> Step:
    return _once(turn, "assign_building", building_id=int(match["id"]))


@intent(r"应聘\s*(?P<name>[^\s，。,]+)", r"\bapply\s+(?:for\s+a\s+job\s+)?(?:at|to)\s+(?:the\s+)?(?P<name>.+?)[.!]?$", priority=1)
def apply_by_name(turn: Turn, match: re.Match) -> Step:
    name = match["name"].strip()
    wanted = name.lower()
    step, building = _listed(turn, "list_buildings", "buildings", lambda b: wanted in (b["name"].lower(), b["kind"]))
    if step is not None:
        return step
    if building is None:
        return Step.say(_("没有找到名为「%(name)s」的建筑。") % {"name": name})
    return _once(turn, "assign_building", building_id=building["building_id"])


@intent(r"有哪些(?:建筑|工作|岗位)|建筑列表|招聘", r"\b(?:list\s+)?(?:the\s+)?buildings\b", r"\bwhat\s+jobs\b")
def buildings(turn: Turn, match: re.Match) -> Step:
    return _once(turn, "list_buildings")


@intent(
    r"建造\s*(?:一[座个间栋])?\s*(?P<kind>[A-Za-z][A-Za-z0-9_-]*)\s*[，,]?\s*(?:名为|叫做|叫|取名为?)?\s*(?P<name>[^\s，。,]+)?",
    r"\bbuild\s+(?:a|an)?\s*(?P<kind>[A-Za-z][\w-]*)(?:\s+(?:called|named)\s+(?P<name>.+?))?[.!]?$",
)
def construct(turn: Turn, match: re.Match) -> Step:
    if not match["name"]:
        return Step.say(_("请给新建筑起个名字，比如「建造 mill 叫 西市磨坊」。"))
    return _once(turn, "construct_building", kind=match["kind"].lower(), name=match["name"].strip())


@intent(r"(?:在)?城市频道(?:里)?(?:说|发言|喊)[:：]?\s*(?P<text>.+)", r"广播[:：]\s*(?P<text>.+)", r"\b(?:say|post|announce)(?:\s+in\s+the\s+city(?:\s+channel)?)?\s*:\s*(?P<text>.+)")
def city_chat(turn: Turn, match: re.Match) -> Step:
    return _once(turn, "chat", content=match["text"].strip())


# ---------------------------------------------------------------------------- shop and market


@intent(r"商店|有什么(?:可以)?买", r"\b(?:the\s+)?shop\b", r"\bwhat\s+can\s+i\s+buy\b")
def shop(turn: Turn, match: re.Match) -> Step:
    return _once(turn, "list_shop_items")


@intent(
    rf"买\s*{QTY}?\s*(?:个|份|块|捆|袋)?\s*(?P<item>[^\s，。,?？#\d][^\s，。,?？]*)",
    r"\bbuy\s+(?:(?P<qty>\d+)\s+)?(?:an?\s+|some\s+)?(?P<item>[A-Za-z][\w-]*)",
    priority=1,
)
def buy(turn: Turn, match: re.Match) -> Step:
    wanted = match["item"].lower()
    step, item = _listed(turn, "list_shop_items", "items", lambda i: wanted in (i["name"].lower(), i["resource_type"]))
    if step is not None:
        return step
    if item is None:
        return Step.say(_("商店里没有「%(item)s」。") % {"item": match["item"]})
    return _once(turn, "purchase", item_id=item["item_id"], quantity=int(match["qty"] or 1))


@intent(r"交易市场|市场挂单|看看市场|有哪些挂单", r"\bmarket\s+orders?\b", r"\bthe\s+market\b")
def market(turn: Turn, match: re.Match) -> Step:
    return _once(turn, "list_market_orders")


@intent(
    rf"(?:出售|卖出?|挂单卖)\s*{QTY}{UNIT}{RES}\s*[，,]?\s*(?:总价|价格|要价|卖|换|for)?\s*(?P<price>\d+)",
    rf"\bsell\s+{QTY}\s+(?:units?\s+of\s+)?{RES}\s+for\s+(?P<price>\d+)",
    priority=1,
)
def sell(turn: Turn, match: re.Match) -> Step:
    return _once(
        turn,
        "create_market_order",
        resource_type=match["res"].lower(),
        quantity=int(match["qty"]),
        price=int(match["price"]),
    )


@intent(r"(?:接受|买下|购买|接)挂单\s*#?(?P<id>\d+)", r"\b(?:accept|buy|take)\s+(?:market\s+)?order\s*#?(?P<id>\d+)", priority=2)
def accept_order(turn: Turn, match: re.Match) -> Step:
    return _once(turn, "accept_market_order", order_id=int(match["id"]))


@intent(r"(?:取消|撤销|撤回)挂单\s*#?(?P<id>\d+)", r"\b(?:cancel|withdraw)\s+(?:market\s+|my\s+)?order\s*#?(?P<id>\d+)", priority=2)
def cancel_order(turn: Turn, match: re.Match) -> Step:
    return _once(turn, "cancel_market_order", order_id=int(match["id"]))
