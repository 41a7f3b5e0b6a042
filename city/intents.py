"""Chat phrases the offline ``rules`` provider understands for the city tools (zh and en).

"把 5 flour 给 Bob" takes two rounds, like a real model would: ``find_agent("Bob")`` gives
Bob's id, then ``transfer_resource`` moves the calling agent's own flour. A request to
move someone else's goods ("把 Bob 的 flour 给我") gets a refusal and no tool call: no
tool could do it anyway, since every city tool acts for the calling agent only.
"""

from __future__ import annotations

import re
from dataclasses import replace

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from agents.models import Agent
from agents.providers.rules import DECLINE, GUARD, Outcome, Step, Turn, intent, offer, summarize
from agents.providers.vocabulary import vocabulary

from .models import Building, BuildingKind, ResourceType, ShopItem

QTY = r"(?P<qty>\d+)"
RES = r"(?P<res>[A-Za-z][A-Za-z0-9_-]*)"
NAME = r"(?P<name>[^\s，。,.!！?？#]+)"
# A resident's name where no space ends it ("给Bob转…", "给张三转…").
GIVEN = r"(?![了我你他她它过])(?P<name>[A-Za-z][A-Za-z_.-]*|[\u4e00-\u9fff·]{1,8}?)"
UNIT = r"\s*(?:个|份|块|袋|捆|斤|张|只|件|单位|units?\s+of|pieces?\s+of|loaf\s+of|loaves\s+of|bags?\s+of)?\s*"
# What people call a resource besides its slug and its name: a word in either language.
SYNONYMS = {
    "wood": ("木头", "木料", "木柴", "柴火", "柴禾", "lumber", "timber", "logs", "firewood", "mucai"),
    "stone": ("石头", "石材", "石块", "rock", "rocks", "stones", "shiliao"),
    "wheat": ("麦子", "xiaomai"),
    "bread": ("馒头", "loaf", "loaves", "loaf of bread", "loaves of bread", "mianbao"),
    # The pinyin input's homophones for 苹果 (píngguǒ): the commonest slip of Chinese typing.
    "apple": ("平果", "萍果", "苹菓", "pingguo"),
    # Pinyin typed for the goods when the keyboard was not switched ("那个12块一袋的mianfen").
    "flour": ("mianfen",),
}
# What people call a kind of building besides its slug and its name.
KIND_SYNONYMS = {
    "farm": ("农场", "田地", "farmland"),
    "mill": ("磨房", "面粉厂", "flour mill"),
    "bakery": ("面包房", "面包店", "烘焙坊", "bakehouse"),
    "lumberyard": ("木材厂", "伐木厂", "sawmill", "lumber yard", "lumber mill", "timber yard", "logging camp", "wood yard"),
    "quarry": ("石料场", "石场", "stone quarry", "stone pit", "rock quarry"),
}
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


# "him", "她": the resident the same message named ("Bob is hungry, give him two bread").
PRONOUNS = {"他", "她", "ta", "him", "her", "them", "他们", "她们"}


def _named_earlier(turn: Turn) -> str | None:
    """The one resident the message names, besides the speaker, or else the one the conversation named last; None for
    none or several."""
    from agents.providers.rules import agent_name
    from agents.providers.understanding import read

    speaker = agent_name(turn.system)
    # "eve刚来城里啥也没有…" … "就给她两个面包吧": the one resident the conversation last named.
    for message in (turn.said or turn.plain, turn.earlier, *turn.history):
        named = {s.name for s in read(message).of("resident") if s.exact and s.name != speaker} if message else set()
        if named:
            return named.pop() if len(named) == 1 else None
    return None


# "give Eve 2 apples for 3 credits", "给Eve两个苹果，收她10块": a trade, and a transfer is a gift.
PAID = re.compile(
    r"\d+\s*(?:credits?|coins?|信用点|块钱|元)|\b(?:for|at)\s+(?:a|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?:credits?|coins?)\b"
    r"|\bin\s+(?:exchange|return)\b|(?:换|收)(?:她|他|ta)?\s*\d+|卖给|\bsell\b",
    re.IGNORECASE,
)


def _resident_then(turn: Turn, name: str, then: str, **arguments) -> Step:
    """Resolve a resident's name with ``find_agent``, then call ``then`` with ``to_agent_id``."""
    if then == "transfer_resource" and PAID.search(re.sub(SOLD_BY_THEM, " ", turn.said, flags=re.IGNORECASE)):
        return Step.say(
            _("转赠是白送的，收不了信用点。要卖，可以挂到市场上，例如「出售 4 个面粉，总价 20」。要白送给 %(name)s 吗？那就不提价格再说一次。")
            % {"name": name}
        )
    if name.lower() in SELF_WORDS:
        return Step.say(_("要转给哪位居民？请告诉我名字。"))
    alternatives, chosen = _named_as_alternatives(turn.said)
    if alternatives and not chosen:
        return Step.say(which_of(alternatives))  # "give 2 bread to Bob or Dave, whichever is hungrier": which one?
    name = chosen or name  # "…给Bob或者Dave吧" → "你指的是…？" → "Dave": the one answered
    if name.lower() in PRONOUNS:
        name = _named_earlier(turn) or ""
        if not name:
            return Step.say(_("要转给哪位居民？请告诉我名字。"))
    found = turn.last("find_agent")
    if found is None:
        return _once(turn, "find_agent", name=name)
    if not found.ok:
        # "给小王三个苹果": nobody of that name; asked who, never guessed.
        return Step.say("\n".join([_result(found), _("要给哪位居民？请说出名字。")]))
    return _once(turn, then, to_agent_id=found.data["agent_id"], **arguments)


def _named_as_alternatives(said: str) -> tuple[list[str], str]:
    """Two residents the message names as alternatives ("Bob or Dave", "Bob还是Dave"), and the one its last line
    names alone when it is the answer read after them ("…\nDave"); ([], "") when none."""
    reading = read(said)
    residents = reading.of("resident")
    for span in residents:
        if (other := or_other(span, residents, reading.folded)) is not None:
            chosen = chosen_after(reading, "resident", {span.value, other.value})
            return [span.name or str(span.value), other.name or str(other.value)], chosen.name if chosen else ""
    return [], ""


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


@vocabulary(
    reads={
        ResourceType: ("slug", "name"), BuildingKind: ("slug", "name"), Agent: ("name", "is_active"), Building: ("name",),
        ShopItem: ("name",),
    }
)
def city_words() -> dict[str, str]:
    """Resource types by slug, name and synonym; residents, buildings and shop items by name."""
    words: dict[str, str] = {}
    for slug, name in ResourceType.objects.values_list("slug", "name"):
        words.update({slug: slug, f"{slug}s": slug, name: slug})
        words.update({synonym: slug for synonym in SYNONYMS.get(slug, ())})
    for slug, name in BuildingKind.objects.values_list("slug", "name"):
        words.update({slug: slug, name: slug})
    # Names stay as they are, but as one word that no numeral or resource rewrite breaks up.
    names = [
        *Agent.objects.filter(is_active=True).values_list("name", flat=True),
        *Building.objects.values_list("name", flat=True),
        *ShopItem.objects.values_list("name", flat=True),
    ]
    for name in names:
        words.setdefault(name, name)
    return words


# ---------------------------------------------------------------------------- transfers


@intent(
    r"把\s*(?!我|自己|所有|全部|这些|那些|剩下|剩余|多余)(?P<owner>[^\s的，。,]{1,20})\s*的",
    r"让\s*(?!我|自己)(?P<owner>[^\s，。,]{1,20}?)\s*(?:把|给|转|送)",
    r"从\s*(?!我|自己)(?P<owner>[^\s，。,]{1,20}?)\s*(?:那里|那儿|那|手里|手上|处)?\s*(?:拿|取|转|要|抢)",
    r"\b(?:move|transfer|get|grab|give|send|hand)\b.*?\bfrom\s+(?!me\b|my\b|the\b|shop\b|market\b|store\b)(?P<owner>[A-Za-z][\w-]*)\b",
    rf"\b(?:give|transfer|send|move|hand)\b.*?\b{NOT_OWNERS}(?P<owner>[A-Za-z][\w-]*)['’]s\b",
    r"\btake\b.*?\bfrom\s+(?!the\b|shop\b|market\b|me\b|my\b)(?P<owner>[A-Za-z][\w-]*)",
    r"\bmake\s+(?!me\b)(?P<owner>[A-Za-z][\w-]*)\s+(?:give|send|transfer)",
    rf"\b(?:steal|rob|grab|take|seize)\b.*?\b{NOT_OWNERS}(?P<owner>[A-Za-z][\w-]*)['’]s\b",
    r"\b(?:steal|rob)\s+(?:from\s+)?(?!me\b)(?P<owner>[A-Za-z][\w-]*)",
    r"(?:偷|抢)\s*(?P<owner>[^\s，。,的]{1,20}?)\s*的",
    r"\b(?:give|transfer|send|move|hand)\b.*?\bfrom\s+(?!me\b|my\b)(?P<owner>[A-Za-z][\w-]*)['’]?s?\s+(?:stock|inventory|resources|goods)",
    # "Frank said … so move his stone over to me": "his" is the one named before.
    r"\b(?:transfer|send|move|give|bring)\s+(?P<pronoun>his|her|their)\s+(?:stone|wood|wheat|flour|bread|apples?|goods|stuff|resources)\b[^.!?]*?\bto\s+me\b",
    priority=5,
    tool="transfer_resource",
)
def someone_elses_goods(turn: Turn, match: re.Match) -> Step:
    if match.groupdict().get("pronoun"):
        # The goods of the resident named before the pronoun, never the speaker's ("his stone" in a message about Frank).
        me = agent_name(turn.system).casefold()
        before = [s.name for s in read(turn.said[: match.start("pronoun")]).of("resident") if s.name.casefold() != me]
        if not before:
            return DECLINE
        owner = before[-1]
    else:
        owner = match["owner"]
    if "transfer_resource" not in turn.offered:
        return DECLINE  # "把和客人的聊天记录调出来" to the desk: no resident's goods are at stake for it
    if re.fullmatch(r"(?:仓库|库房|背包|口袋|包)(?:里|中)?|手(?:里|上|头)|身上|兜里", owner):
        return DECLINE  # "把仓库里的5个面包给Eve": where the speaker keeps the goods, not another's
    if re.search(r"我|自己|咱|俺", owner):
        return DECLINE  # "把市场上我挂的那单撤了": the speaker's own, whatever words stand before 我
    if re.fullmatch(r"[A-Za-z]{2}\d{8,}", owner):
        return DECLINE  # "把HT…的钱退给客人" is a refund, not a resident's goods
    if re.search(rf"{re.escape(owner)}\s*的\s*(?:工作|活儿?|岗位|差事|职位|班)", turn.plain) or read(owner).of("building") + read(owner).of("building_kind"):
        return DECLINE  # "把伐木场的工作辞了吧": a job at a building, no one's goods
    if owner.isascii() and "from" in match.group().lower() and not Agent.objects.filter(name__iexact=owner).exists():
        return DECLINE  # "give Eve 2 flour from yesterday's harvest": no resident's goods named
    if (
        owner.isascii() and match.group().endswith(("'s", "’s")) and not Agent.objects.filter(name__iexact=owner).exists()
        and not restraint.possesses_goods(turn.said[turn.said.casefold().find(match.group().casefold()) + len(match.group()) :])
    ):
        return DECLINE  # "give 5 flour to bob - poor guy's always short": no resident, and nothing of his named
    if match.group().endswith(("'s", "’s")) and restraint.IS_NOT_OWNS.match(match.string[match.end() - 2 :]):
        return DECLINE  # "grab two breads from the store, Dave's stopping by": Dave is, he owns nothing here
    if BUYING.search(turn.plain) and not re.search(r"偷|抢|\b(?:steal|rob)\b", turn.plain, re.IGNORECASE):
        return DECLINE  # "把Carol的小麦买下来": her market listing, which the market frame reads
    if re.search(r"\b(?:take|grab)\b", match.group(), re.IGNORECASE) and (
        re.search(r"\bmarket\b|\blisting|\border\b|市场|挂单", turn.plain, re.IGNORECASE)
        or any(name == "list_market_orders" for name, _a in turn.earlier_calls)
    ):
        return DECLINE  # "I'll take Dave's" after the market's list: his listing, which the market frame reads
    return Step.say(_("我只能转出我自己的资源，不能动用 %(owner)s 的东西。如有需要，请让 %(owner)s 自己转赠。") % {"owner": owner})


@intent(
    rf"(?:把|将)\s*(?:我的|自己的)?\s*{QTY}{UNIT}{RES}\s*(?:转赠给|转给|送给|交给|拿给|分给|给|转到|转)\s*{NAME}",
    rf"(?:转赠|转账|转|送|拿|分)\s*{QTY}{UNIT}{RES}\s*(?:给|到)\s*{NAME}",
    rf"(?:给|帮|替|送|转给|送给|转赠给)\s*{GIVEN}\s*(?:转赠|转账|转|送|发|拿|分)?\s*{QTY}{UNIT}{RES}",
    rf"(?:转给|送给|转赠给)\s*{GIVEN}\s*{QTY}{UNIT}{RES}",
    rf"\b(?:give|transfer|send|hand|pass|gift|move)\s+{QTY}\s+(?:units?\s+of\s+|pieces?\s+of\s+|bags?\s+of\s+)?{RES}\s+(?:over\s+)?(?:to|for)\s+{NAME}",
    rf"\b(?:give|send|hand|pass|gift)\s+(?!me\b|us\b){NAME}\s+{QTY}\s+(?:units?\s+of\s+|pieces?\s+of\s+)?{RES}",
    # "3 stone to Eve", "3 stone to Eve, don't forget": the verbless gift ends its clause.
    rf"\b{QTY}\s+{RES}\s+(?:to|for)\s+(?!\d)(?!credits?\b){NAME}\s*(?:$|[,，.。!！;；])",  # "twelve wood for 60" is a price
    tool="transfer_resource",
    example=gettext_lazy("把 5 个面包给 Bob"),
)
def give(turn: Turn, match: re.Match) -> Step:
    name = match["name"]
    if BUYING.search(turn.plain):
        return DECLINE  # "buy 2 apples for Eve": bought first, never given out of the stock; the frames read it
    if SHARE.search(fold(turn.said)):
        return DECLINE  # "十二块石料拿一半出来给Alice": a share, not the number said; the frame asks how many
    if two_resources(turn.said):
        # "give Eve 3 flour and 2 bread": asked, never one moved and the other dropped.
        return Step.say(_("一次只能转一种资源（你提到了：%(things)s）。先转哪一种、转多少？") % {"things": _resources_named(turn.said)})
    # "送给Dave好吗": the resident's name the words hold, less what follows it; "给爱丽丝…": the resident it names.
    inside = [s for s in read(turn.said).of("resident") if s.exact and s.text in name.lower()]
    if len(inside) == 1 and name.lower().startswith(inside[0].text):
        name = inside[0].name
    if name.isascii() and name.islower() and name not in SELF_WORDS and not Agent.objects.filter(name__iexact=name).exists():
        return DECLINE  # "hand over 4 flour to Bob" names no resident where the phrase looked: the frames read it
    return _resident_then(turn, name, "transfer_resource", resource_type=match["res"].lower(), quantity=int(match["qty"]))


@intent(
    rf"把\s*(?:我的|自己的)?\s*{RES}\s*(?:转赠给|转给|送给|给)\s*{NAME}",
    rf"\b(?:give|send)\s+(?:some\s+)?{RES}\s+to\s+{NAME}",
    tool="transfer_resource",
)
def give_without_quantity(turn: Turn, match: re.Match) -> Step:
    res, name = match["res"], match["name"]
    if res.lower() in ("something", "anything", "stuff", "things", "some"):
        return DECLINE  # "I want to send something to Carol eventually — what's her id?": no goods named, nothing to count
    if not Agent.objects.filter(name__iexact=name).exists():
        return DECLINE  # "把面包给Frank两个": the frames read the count after the name
    return Step.say(_("要给 %(name)s 多少 %(res)s？请说一个数量，比如「把 5 %(res)s 给 %(name)s」。") % {"name": name, "res": res})


@intent(
    r"(?:查找|找一下|查一下|查查|查下|查一查)\s*(?:居民)?\s*(?P<name>[^\s，。,?？]+?)\s*(?:的\s*ID)?$",
    r"\bfind\s+(?:the\s+)?(?:resident|agent)\s+(?P<name>[\w-]+)",
    r"\bwho\s+is\s+(?P<name>[A-Za-z][\w-]*)",
    # ("carol的id是多少，回头转东西要用": the look-up asked, and why, for later.)
    r"(?P<name>[A-Za-z][\w-]*|[\u4e00-\u9fff·]{1,8}?)\s*的\s*(?:ID|id|编号)(?:是(?:多少|什么))?\s*(?:\??$|[?？,，]\s*(?=回头|之后|以后|待会|等会|一会|过会|改天|后面|要用|我要用))",
    r"\b(?:what\s+is|what's)\s+(?P<name>[A-Za-z][\w-]*)['’]s\s+id\b",
    r"\b(?:what\s+is|what's|whats)\s+(?:his|her|their)\s+id\b",
    tool="find_agent",
    example=gettext_lazy("查找居民 Bob"),
)
def find(turn: Turn, match: re.Match) -> Step:
    if not match.groupdict().get("name"):
        # "I want to send something to Carol eventually — what's her id?": the one resident named before the question.
        named = {s.name for s in read(match.string[: match.start()]).of("resident") if s.exact}
        return _once(turn, "find_agent", name=named.pop()) if len(named) == 1 else DECLINE
    if re.fullmatch(r"[a-z]+ing|there|that|this|it", match["name"].lower()):
        return DECLINE  # "who is selling wheat": no resident named; the frames read it
    if re.match(r"再|然后|之后|回头|以后", match["name"]) and not read(match["name"]).of("resident"):
        return DECLINE  # "…还剩多少？先查一下再说": what comes next, no resident's name
    if re.search(r"悬赏|任务|订单|基金|挂单|商店|市场|建筑", match["name"]) and not read(match["name"]).of("resident"):
        return DECLINE  # "查一下已经完成的悬赏": a thing of the city looked up, no resident
    name = match["name"]
    if re.search(r"(?:他|她|(?<![A-Za-z])ta|这人|那人|这个人|那个人)(?:的情况|的状态|的近况|的编号|的id|在不在\S*|还在\S*|是谁)?$|^(?:那个人|这个人|那人|这人|某人|有个人|人$|个人$)", name, re.IGNORECASE) and not read(name).of("resident"):
        # "帮我查下他的id": someone pointed at, never named; asked who, never looked up as "帮我查下他" ("Eve最近怎么样" →
        # "查一下她的情况": the one the last message named).
        if re.match(r"他|她|ta\b", name, re.IGNORECASE) and (earlier := _named_earlier(turn)):
            return _once(turn, "find_agent", name=earlier)
        return Step.say(_("要找哪位居民？请说出名字。"))
    if re.search(r"的(?!\s*(?:id|编号|信息|资料|情况)\s*$)", name, re.IGNORECASE) and read(name).of("resident"):
        return DECLINE  # "查下Dave的精力还剩多少": a thing of the resident's asked, not who they are
    # "查一下Frank这个人", "找一下Bob吧": the resident's name the words begin with, less what follows it.
    inside = [s.name for s in read(name).of("resident") if s.exact and s.start == 0]
    if len(inside) == 1:
        name = inside[0]
    return _once(turn, "find_agent", name=name)


@intent(
    r"\bhow\s+(?:many|much)\b.*?\b(?:does|did|has)\s+(?P<owner>[A-Za-z][\w-]*)\s+(?:have|got|hold|own)\b",
    r"\bhow\s+(?:many|much)\b[^.?!;]*?\b(?P<owner>she|he)\s+(?:still\s+)?(?:has|'s\s+got|got)\b",
    r"\bwhat\s+(?:does|has)\s+(?P<owner>[A-Za-z][\w-]*)\s+(?:have|got|hold|own)\b",
    rf"\b{NOT_OWNERS}(?P<owner>[A-Za-z][\w-]*)['’]s\s+(?:resources|inventory|stock|goods|holdings)\b",
    r"(?P<owner>[A-Za-z][A-Za-z0-9_-]*|[\u4e00-\u9fff·]{1,8}?)\s*的\s*(?:资源|库存|东西)",
    r"(?P<owner>[A-Za-z][A-Za-z0-9_-]*|[\u4e00-\u9fff·]{1,8}?)\s*的\s*\S{1,12}?\s*(?:还)?(?:有|剩)(?:多少|几)",
    r"(?P<owner>[A-Za-z][A-Za-z0-9_-]*|[\u4e00-\u9fff·]{1,8}?)\s*(?:还|现在)?有\s*\S{1,12}?吗",
    # ("Frank名下现在有几个石料？": what is held in the name of.)
    r"(?P<owner>[A-Za-z][A-Za-z0-9_-]*|[\u4e00-\u9fff·]{1,8}?)\s*(?:名下)?(?:现在|目前|手里|手上|仓库里|库房里)?(?:还|都)?(?:有|拥有|持有|剩)\s*(?:多少|几|什么|哪些|啥)",
    r"\b(?:does|is|has)\s+(?P<owner>[A-Za-z][\w-]*)\s+(?:have|holding|hold|got|own)\b",
    r"\bwhat\s+(?P<owner>[A-Za-z][\w-]*)\s+(?:is\s+|'s\s+)?(?:carrying|holding|has\s+got|has|owns)\b",
    priority=4,
    tool="get_my_resources",
)
def someone_elses_stock(turn: Turn, match: re.Match) -> Step | None:
    owner = match["owner"]
    if told_what_there_is(turn):
        return DECLINE
    if re.search(r"信用点|精力|体力|饱食度|credits|energy|satiety", turn.plain, re.IGNORECASE):
        return DECLINE  # the status, not the stock
    # "Show me what Eve is carrying", said to Eve: the agent named by its own name is the agent.
    if owner.lower() in SELF_WORDS | {"you", "i"} or owner[-1] in "我你" or owner.lower() == agent_name(turn.system).lower():
        if re.search(r"钱|\bmoney\b", turn.plain, re.IGNORECASE):
            return DECLINE  # "我还有多少钱": the credits are the status
        return _once(turn, "get_my_resources")
    if owner.lower() in THIRD_PERSON:
        # "can you check how much flour she has left": a staff member talking to this resident about her, unless the
        # last message named another resident ("eve looks hungry" → "how much bread does she have?").
        others = {s.name for s in read(turn.earlier).of("resident") if s.name.lower() != agent_name(turn.system).lower()} if turn.earlier else set()
        if not others and not read(turn.said).of("resource"):
            return Step.say(_("你问的是谁的、哪种东西？我只能查看自己的资源。"))  # "how many does he have?": who, and of what
        if not others:
            return _once(turn, "get_my_resources")
        owner = sorted(others)[0]
    elif not Agent.objects.filter(name__iexact=owner).exists():
        return DECLINE  # "商店里有什么": a place, not a resident
    return Step.say(_("我只能查看自己的资源，看不到 %(owner)s 的。") % {"owner": owner})


THIRD_PERSON = {"she", "he", "her", "him", "她", "他"}


# "先告诉我有哪些选择", "跟我说有什么活": "我" is who is told; what there is, not what I have, is asked.
TOLD_WHAT_THERE_IS = re.compile(r"(?:告诉|跟|给|和|帮)我(?:说(?:一下|下)?)?(?:都|还)?有(?:哪些|什么|啥)")


def told_what_there_is(turn: Turn) -> bool:
    return bool(TOLD_WHAT_THERE_IS.search(turn.plain)) and not read(turn.plain).of("resource")


@intent(
    r"我的资源|我(?:现在|目前|手里|手上)?(?:有|拥有|持有)(?:哪些|什么|多少)|我有什么|查看资源|(?:我的)?库存|背包",
    # "我仓库里面粉还剩几个？": the speaker's own store, what is left in it.
    r"我(?:的)?(?:仓库|手上|手里|这儿|家里)(?:里|里面)?[^，,。？?]{0,12}?(?:还剩|还有|剩)(?:几|多少)",
    r"\bmy\s+(?:resources|inventory|stock|goods|items|stuff|holdings|storage|warehouse|storehouse)\b",
    r"\bwhat'?s\s+in\s+my\s+(?:bag|backpack|pack|pockets?|basket)\b|\bwhat\s+is\s+in\s+my\s+(?:bag|backpack|pack|pockets?|basket)\b",
    r"\bwhat\s+(?:do|did)\s+i\s+(?:have|hold|own|got)\b",
    r"\bwhat\s+i\s+(?:have|hold|own|got)\b|\bdo\s+i\s+(?:still\s+)?(?:have|hold|own)\b",
    r"\bwhat\s+(?:resources|goods|items|stuff)\b.*?\b(?:i|me)\b",
    # Asked of the resident: "can you tell us what resources you currently have?"
    r"\bwhat\s+(?:resources|goods|items|stuff)\s+(?:do\s+)?you\s+(?:currently\s+|still\s+|now\s+)?(?:have|hold|own|got|are\s+holding)\b",
    r"\bhow\s+(?:many|much)\b.*?\b(?:do|have)\s+(?:i|you)\s+(?:have|got|hold|own)\b",
    # Asked indirectly: "tell me how much bread you've got", "let me know how many apples I have left".
    r"\bhow\s+(?:many|much)\b[^.?!;]*?\b(?:i|you)\s*(?:'ve|have|got|hold|own|'ve\s+got|still\s+have|are\s+holding|'re\s+holding)\b",
    r"\b(?:am\s+i|are\s+you)\s+(?:still\s+)?(?:holding|carrying)\b",
    r"\b(?:list|show|check)\s+(?:my\s+|your\s+)?(?:resources|inventory)\b",
    tool="get_my_resources",
    example=gettext_lazy("我有哪些资源？"),
)
def my_resources(turn: Turn, match: re.Match) -> Step:
    if told_what_there_is(turn):
        return DECLINE
    if re.search(r"credits?|energy|satiety|stamina|money|信用点|精力|体力|饱食度|饱不饱|钱", turn.plain, re.IGNORECASE):
        return DECLINE  # the status, not the stock
    return _once(turn, "get_my_resources")


# ---------------------------------------------------------------------------- needs and work


# Looking for a job rather than starting a shift: "找个地方入职", "报个名", "找份工作".
JOB_SOUGHT = re.compile(r"入职|应聘|报名|报个名|找(?:个|份)?(?:地方|工作|活|差事|岗位)|求职|招人|缺人|跳槽|换(?:个|份|一个|一份)?(?:地方|工作|活儿?|岗位|差事|单位|地儿)")
# Another job wanted: "伐木场太累了，换个地方上班吧", "sick of the farm, find me another job". A building named before
# these words is the one left, never the one joined.
JOB_CHANGED = re.compile(
    r"跳槽|换(?:个|份|一个|一份)?(?:地方|工作|活儿?|岗位|差事|单位|地儿)"
    r"|\b(?:another|a\s+different|a\s+new|some\s+other)\s+(?:job|workplace|place\s+to\s+work|gig)\b|\bswitch\s+jobs?\b|\bchange\s+(?:my\s+)?jobs?\b",
    re.IGNORECASE,
)


@intent(
    # "今天的班还没打吧？打一下": the shift's check-in, its 卡 left out.
    r"签到|打卡|上班|[班卡](?:还)?没打|打(?:一下|下|个)[班卡]",
    # (Latin letters beside Chinese: "帮我checkin一下", no \b between 我 and c.)
    r"(?<![A-Za-z])check[ -]?in(?![A-Za-z])",
    r"(?<![A-Za-z])clock[ -]?in(?![A-Za-z])",
    tool="checkin",
    example=gettext_lazy("上班打卡"),
)
def check_in(turn: Turn, match: re.Match) -> Step:
    if match.group() == "上班" and re.search(r"签到|打卡", turn.plain):
        return _once(turn, "checkin")  # "我到城东农田了，上班打卡": the shift starts, whatever building is named
    if match.group() == "上班" and JOB_SOUGHT.search(turn.plain):
        return DECLINE  # "想去上班了，帮我找个地方入职": a job sought (asked where), not a check-in
    if match.group() == "上班" and re.search(r"去[^，,。]{0,16}上班", turn.plain):
        return DECLINE  # "去那个厂上班": a job somewhere, asked which (the frames), not a check-in
    if match.group() == "上班" and any(name in turn.plain for name in Building.objects.values_list("name", flat=True)):
        return DECLINE  # "去西市磨坊上班" asks for a job there, not a check-in
    if match.group() == "上班" and re.search(r"去|到|在", turn.plain) and (reading := read(turn.said)).of("building_kind") + reading.of("building"):
        return DECLINE  # "我想去磨坊上班": a kind of building is a job there too
    return _once(turn, "checkin")


@intent(
    rf"吃\s*(?:点|\d*\s*[个份块口])?\s*{RES}",
    r"吃饭|吃东西|进食|吃点东西|我饿了|好饿|饿了",
    r"\beat(?:\s+(?:a|an|some|one|1|my|\d+|two|three|four|five|(?:a\s+)?couple(?:\s+of)?|both|(?:all\s+)?my(?:\s+(?:last|two|three))?))?\s+(?P<res>[A-Za-z][\w-]*)",
    r"\beat\b",
    r"\bi'?m\s+hungry\b|\bhave\s+(?:a\s+)?(?:meal|something\s+to\s+eat)\b",
    tool="eat",
    example=gettext_lazy("吃一个面包"),
)
def eat(turn: Turn, match: re.Match) -> Step:
    if HOW_HUNGRY.search(turn.said.casefold()):
        return DECLINE  # "do i still have that bread or did i eat it already?": asked, nothing eaten
    if PURCHASE_ASKED.search(restraint.OWN_LATER.sub(" ", turn.said)):  # "…, I'll buy more later" is the speaker's
        return DECLINE  # "im hungry, buy me some food": a purchase, which the frames read (or ask which item)
    me = agent_name(turn.system).casefold()
    others = [s for s in read(turn.said).of("resident") if s.name.casefold() != me]
    if others or re.search(r"(?:给|送|转)(?:他|她)|\b(?:give|send|pass|hand)\s+(?:him|her|them)\b", turn.said, re.IGNORECASE):
        return DECLINE  # "Eve饿了，给她一个面包": someone else is hungry; the transfer frame reads it
    if (which := _which_food(turn, turn.said)) is not None:
        return which
    food = (match.groupdict().get("res") or "").lower()
    if food and food not in NOT_A_FOOD:
        return _once(turn, "eat", resource_type=food)
    return _once(turn, "eat")


# A food pointed at, not named: "eat the thing", "把那个吃了".
POINTED_FOOD = re.compile(r"\beat\s+(?:the|that|this)\s+(?:thing|one|stuff)\b|\beat\s+(?:it|that|this)\b|吃(?:了)?(?:那个|这个|它)(?:东西)?|把(?:那个|这个|它)吃", re.IGNORECASE)


def _which_food(turn: Turn, said: str) -> Step | None:
    """"eat the thing", "把那个吃了" with nothing named before it: which food is asked, nothing eaten."""
    if POINTED_FOOD.search(said) and not turn.earlier:
        return Step.say(_("要吃哪样？请说出食物的名字，比如「吃一个面包」。"))
    return None


# How the resident feels, not what they ask for: "太累了" may be the reason for another request.
WEARY = ("tired", "exhausted", "累")
REST_WORDS = ("rest", "sleep", "nap", "lie down", "take a break", "休息", "睡", "歇", "躺")
# "the rest I'm keeping", "the rest of my wheat": what is left over.
REMAINDER = re.compile(r"\b(?:the|all\s+the|whatever)\s+rest\b|\brest\s+of\b", re.IGNORECASE)


RESTING = re.compile("|".join(rf"\b{re.escape(w)}\b" if w.isascii() else re.escape(w) for w in (*REST_WORDS, *WEARY)), re.IGNORECASE)


def only_what_is_left(said: str) -> bool:
    """"rest" says only what is left over ("the rest I'm keeping"), and no other word asks for a rest."""
    return bool(REMAINDER.search(said)) and not RESTING.search(REMAINDER.sub(" ", said))


@intent(
    r"休息(?![日天])|睡觉|睡一觉|歇一会|歇会|我累了|好累",  # ("今天休息日": a day off, told as why)
    r"\b(?:take|have|get)\s+(?:a\s+|some\s+)?rest\b",
    r"\brest\b",
    r"\b(?:sleep|nap)\b|\bi'?m\s+tired\b",
    tool="rest",
    example=gettext_lazy("休息一下"),
)
def take_rest(turn: Turn, match: re.Match) -> Step:
    if only_what_is_left(turn.said):
        return DECLINE  # "the rest I'm keeping": what is left, nobody resting
    if JOB_CHANGED.search(turn.said):
        return DECLINE  # "tired of the mill, get me a different job": the tiredness is why another job is asked
    return _once(turn, "rest")


@intent(
    # "辞了吧", "辞掉算了": 辞 with 了/掉 quits the job (告辞 is a goodbye, 辞退 dismisses someone else).
    r"离职|辞职|不干了|(?<!告)辞(?:了|掉)",
    # ("…: leave the bakery job", "quit my farm job": the job named by its place.)
    r"\bquit\s+(?:my\s+|the\s+|this\s+)?(?:[a-z]+\s+)?job\b",
    r"\bleave\s+(?:my|the|this)\s+(?:[a-z]+\s+)?job\b",
    r"\bresign\b",
    priority=1,
    tool="unassign_building",
    example=gettext_lazy("辞职"),
)
def quit_job(turn: Turn, match: re.Match) -> Step:
    return _once(turn, "unassign_building")


@intent(
    r"(?:应聘|入职|加入)\s*(?:建筑)?\s*#?(?P<id>\d+)(?!\d|\s*(?:份|个|家|次|天))",  # "应聘一份工作" counts a job, names no building
    r"\b(?:apply|work)\s+(?:for\s+a\s+job\s+)?(?:at|to|in)\s+(?:building\s+)?#?(?P<id>\d+)",
    priority=2,
    tool="assign_building",
)
def apply_by_id(turn: Turn, match: re.Match) -> Step:
    return _once(turn, "assign_building", building_id=int(match["id"]))


@intent(
    r"(?:应聘|入职)\s*(?:到)?\s*(?P<name>[^\s，。,]+)",
    r"\bapply\s+(?:for\s+a\s+job\s+)?(?:at|to|in)\s+(?:the\s+)?(?P<name>.+?)[.!]?$",
    # (The name ends with its sentence: "Take a job at the mill in the west market. Trading's slow …".)
    r"\b(?:get|take)\s+a\s+job\s+(?:at|in)\s+(?:the\s+)?(?P<name>[^.!?;]+?)\s*(?:[.!?;]|$)",
    priority=1,
    tool="assign_building",
    example=gettext_lazy("应聘 城东农田"),
)
def apply_by_name(turn: Turn, match: re.Match) -> Step:
    name = re.sub(r"^(?:一下|下)[，,\s]*", "", match["name"].strip())  # "应聘一下，磨坊…": no name yet
    if not name:
        return DECLINE  # the frames read which building (or ask)
    if re.fullmatch(r"(?:\d+\s*[份个]|[一个份])?\s*(?:工作|活儿?|差事|岗位)", name):
        return DECLINE  # "帮我应聘一份工作": a job, no building named; the frames ask which
    wanted = name.lower()
    step, building = _listed(turn, "list_buildings", "buildings", lambda b: wanted in (b["name"].lower(), b["kind"]))
    if step is None and building is None and (where := re.split(r"\s+(?:in|at|by|near|on)\s+(?:the\s+)?", wanted, maxsplit=1))[1:]:
        # "the mill in the west market": the kind before where it stands, when the kind names one building.
        kinds = [b for b in turn.last("list_buildings").data.get("buildings", []) if b["kind"] == where[0]]
        building = kinds[0] if len(kinds) == 1 else None
    if step is not None:
        return step
    if building is None:
        # "应聘城东农田的工作": the frames read the building out of the longer words.
        from agents.providers.framing import read_frames

        if (done := turn.last("assign_building")) is not None:
            return Step.say(_result(done))
        step = read_frames(turn)
        if step is not DECLINE and step is not None and any(name == "assign_building" for name, _a in step.calls):
            return step
        return Step.say(_("没有找到名为「%(name)s」的建筑。") % {"name": name})
    return _once(turn, "assign_building", building_id=building["building_id"])


@intent(
    r"有(?:哪些|什么)(?:建筑|工作|岗位)|建筑列表|招聘|(?:查看|看看|列出)(?:所有)?(?:的)?建筑|哪里(?:有工作|招人)"
    r"|(?:哪些|什么|哪)(?:地方|建筑|里|儿)(?:在)?(?:招人|招工|缺人|要人)"
    r"|(?:几|多少)\s*(?:座|个|栋|间|处)?\s*建筑|建筑(?:物)?(?:一共|总共)?(?:有)?(?:几|多少)",  # "城里现在有几座建筑"
    r"\b(?:list\s+)?(?:the\s+|all\s+)?buildings\b",
    r"\b(?:what|which|any)\s+jobs\b",
    r"\bjobs?\s+(?:available|openings)\b",
    tool="list_buildings",
    example=gettext_lazy("有哪些建筑"),
)
def buildings(turn: Turn, match: re.Match) -> Step:
    return _once(turn, "list_buildings")


# "盖个磨坊要多少钱", "what would a bakery cost to build": the buildings' list shows the costs.
COST_ASKED = re.compile(
    r"多少钱|多少信用点|价格|价钱|费用|成本|要花|花多少|得花|要多少|得多少|需要多少|贵不贵|\b(?:cost|costs|price|how\s+much|expensive)\b", re.IGNORECASE
)


# Where an unquoted new name stops besides a clause's end: a full stop before the next sentence ("name it North
# Woods. I have the stone"), a word that opens a reason ("…called Oak Hall because …"), a dash or an ellipsis.
NAME_STOPS = re.compile(
    r"\.(?=\s|$)|\s+(?:because|since|but|cause|cuz|so\s+that|as\s+i|as\s+we)\b"
    r"|\s[—–-]{1,2}\s|[—–]{1,2}|……|…",  # "…call it Sunny Acres — I've got the wood": an aside after a dash or an ellipsis
    re.IGNORECASE,
)


def building_name(said: str) -> Span | None:
    """The new building's name as typed, ending where its sentence or clause does; None when nothing is left."""
    named = named_phrase(said)
    if named is None or (stop := NAME_STOPS.search(named.value)) is None:
        return named
    value = named.value[: stop.start()].rstrip()
    return replace(named, value=value, text=value, end=named.start + len(value)) if value else None


def _about_a_bounty(said: str) -> bool:
    """"claim the bounty for building the mill", "把建造磨坊这个悬赏提交": building is the bounty's work, not asked of me."""
    return bool(re.search(r"悬赏|任务|的活儿?(?![^，,。]*(?:盖|建|造))|\bbount(?:y|ies)\b", said, re.IGNORECASE))


def building_costs(turn: Turn) -> Step | None:
    """The buildings' list, a look-up toward nothing: a question about a cost builds nothing."""
    if "list_buildings" not in turn.offered:
        return Step.say(summarize(turn))
    step = _once(turn, "list_buildings")
    return replace(step, toward="list_buildings") if step is not None else None


@intent(
    # "how much would a new mill cost me?": what a kind of building costs, the buildings' list.
    r"\bhow\s+much\s+(?:would|does|will|do|is|did)\s+(?:a|an|one|another)\s+(?:new\s+)?(?P<kind>[A-Za-z][\w-]*)\s+(?:cost|be|run)\b",
    tool="list_buildings",
)
def kind_cost(turn: Turn, match: re.Match) -> Step | None:
    if match["kind"].lower() not in set(BuildingKind.objects.values_list("slug", flat=True)):
        return DECLINE  # "how much does a bread cost": the shop's price
    return building_costs(turn)


@intent(
    r"(?:建造|建|盖|修建|新建)\s*(?:1\s*[座个间栋])?\s*(?P<kind>[A-Za-z][A-Za-z0-9_-]*)",
    # "自己搞个采石场", "弄个磨坊": a kind of building got up, colloquially (the kind is a slug once normalised).
    r"(?:搞|弄|整|起)\s*(?:1\s*)?[座个间栋]\s*(?P<kind>[A-Za-z][A-Za-z0-9_-]*)",
    r"\b(?:build|construct)\s+(?:a|an|1)?\s*(?:new\s+)?(?P<kind>[A-Za-z][\w-]*)",
    tool="construct_building",
    example=gettext_lazy("建造 mill 叫 西市磨坊"),
)
def construct(turn: Turn, match: re.Match) -> Step:
    if only_an_aside(turn, read(turn.said), "construct_building"):
        return DECLINE  # "give Frank 5 wood, he wants to build a mill someday": the gift is asked, the mill is why
    if _about_a_bounty(turn.said) or match["kind"].lower() not in set(BuildingKind.objects.values_list("slug", flat=True)):
        # "build something", "把建造磨坊这个悬赏提交": no kind of building named, or a bounty's title: the frames read it
        return DECLINE
    if (given_up := restraint.GIVEN_UP.search(match.string)) and match.start() < given_up.end():
        return DECLINE  # "一直想再整一座磨坊，…，算了先盖个采石场吧": the kind given up; the frame reads the one asked
    # The new name as typed: a kind's name inside it ("新农田") is not the kind.
    named = building_name(turn.said)
    if named is None and COST_ASKED.search(turn.said):
        return building_costs(turn)
    if named is None:
        return Step.say(_("新建筑叫什么名字？比如「建造 mill 叫 西市磨坊」。"))
    return _once(turn, "construct_building", kind=match["kind"].lower(), name=named.value)


# Speaking in the city channel is read by its frame (``chat_frame``): the phrase once took "说一句：…"
# for words beginning "一句".
offer("chat", gettext_lazy("在城市频道说：今天面包打折"))


# ---------------------------------------------------------------------------- shop and market


@intent(
    # "这个多少钱？", "how much does it cost?": a price asked of nothing named; which thing is asked back.
    # (A leading "那个" is padding to the normal form, which drops it.)
    r"^\s*(?:(?:那|这)?(?:这个|那个|它|这|那)(?:个|东西|玩意儿?)?)?\s*(?:一共|总共|全部)?\s*(?:要|得|卖)?\s*多少钱\s*(?:一个)?\s*(?:来着)?\s*[?？吗呢啊]*\s*$",
    # "那个东西现在还有吗，多少钱来着": a thing pointed at, nothing named.
    r"^\s*(?:(?:那|这)(?:个)?)?(?:东西|玩意儿?)[^，,。]{0,10}[，,]\s*(?:一共|总共)?(?:要|得|卖)?\s*多少钱\s*(?:来着)?\s*[?？吗呢啊]*\s*$",
    r"^\s*(?:(?:hey|hi|so|ok|okay|and)[,\s]+)?how\s+much\s+(?:(?:does|did|will|would)\s+(?:it|this|that)(?:\s+(?:one|1))?\s+cost|(?:is|was|for)\s+(?:it|this|that)(?:\s+(?:one|1))?)\s*[?？]*\s*$",
    priority=1,
)
def price_of_nothing_named(turn: Turn, match: re.Match) -> Step:
    return Step.say(_("你问的是哪样东西的价格？比如「面包多少钱」，或者说「商店里有什么」看看价目。"))


@intent(
    # "is it still available?", "那个还在吗？": a listing, a bounty or a job asked after, none named.
    r"^\s*(?:is|are)\s+(?:it|that|this|they|those)(?:\s+(?:one|1))?\s+still\s+(?:available|there|open|up|for\s+sale|on\s+sale|around)\s*[?？]*\s*$",
    r"^\s*(?:(?:那|这)?(?:这个|那个|它))?\s*(?:还|现在还)(?:在|有|能买|能接|开着)(?:吗|么|不|没)\s*[?？]*\s*$",
    priority=GUARD + 1,  # before "is …" is read as a question about how things work
)
def availability_of_nothing_named(turn: Turn, match: re.Match) -> Step:
    return Step.say(_("你问的是哪一个：市场上的挂单、悬赏，还是商店的东西？请说出名字或编号。"))


@intent(
    r"商店|有什么(?:可以|能)?买|卖什么|商品|价格表",
    r"\b(?:the\s+)?shop\b|\bstore\b",
    r"\bwhat\s+can\s+i\s+buy\b|(?<!\bup\s)\bfor\s+sale\b",  # ("put my apples up for sale" is a sale)
    tool="list_shop_items",
    example=gettext_lazy("商店里有什么"),
)
def shop(turn: Turn, match: re.Match) -> Step:
    if MARKET_SAID.search(turn.plain):
        return DECLINE  # "what's for sale on the market?": the residents' listings, not the shop
    if VAGUE_PURCHASE.search(turn.plain):
        return DECLINE  # "grab a few things from the shop for the party": what to buy, which the frame asks
    return _once(turn, "list_shop_items")


@intent(
    rf"(?:买|购买|买入)\s*{QTY}?\s*(?:个|份|块|捆|袋|车)?\s*(?P<item>[^\s，。,?？#\d][^\s，。,?？]*)",
    r"\b(?:buy|purchase)\s+(?:(?P<qty>\d+)\s+)?(?:an?\s+|some\s+)?(?:units?\s+of\s+|loaves\s+of\s+)?(?P<item>[A-Za-z][\w-]*)",
    priority=1,
    tool="purchase",
    example=gettext_lazy("买 2 个面包"),
)
def buy(turn: Turn, match: re.Match) -> Step:
    if re.search(r"market|listing|市场|挂单|挂的", turn.plain, re.IGNORECASE) and not FROM_THE_SHOP.search(turn.plain) or not any(word in turn.plain.lower() for word in SHOP_WORDS) and any(
        name.lower() in turn.plain.lower() for name in Agent.objects.filter(is_active=True).values_list("name", flat=True)
    ):
        return DECLINE  # another resident's listing, not the shop
    if match["qty"] is None and any(s.score >= 0.9 or s.value is None for s in numbers(turn.plain.lower())):
        # "买苹果 3个", "buy apples, 3 of them": a count after the item; "买几个苹果", "buy some apples": a count left
        # open. The frame reads the one and asks for the other.
        return DECLINE
    wanted = match["item"].lower()
    step, item = _listed(turn, "list_shop_items", "items", lambda i: wanted in (i["name"].lower(), i["resource_type"]))
    if step is not None:
        return step
    if item is None:
        return DECLINE  # "一袋面粉给我", "两份小麦": the frames read the item out of the words
    if item["quantity"] > 1 and wanted != item["name"].lower():
        return DECLINE  # "5 wood" is not five bundles, "两捆木材" is two: the frame tells them apart
    return _once(turn, "purchase", item_id=item["item_id"], quantity=int(match["qty"] or 1))


@intent(
    r"交易市场|市场(?:上)?(?:的)?挂单|看看市场|有(?:哪些|什么)挂单|挂单列表|市场上有什么",
    r"\bmarket\s+(?:orders?|listings?)\b",
    r"\bthe\s+market\b",
    tool="list_market_orders",
    example=gettext_lazy("看看市场挂单"),
)
def market(turn: Turn, match: re.Match) -> Step:
    if FROM_THE_SHOP.search(turn.plain) and re.search(r"\b(?:buy|get|grab)\b|买", turn.plain, re.IGNORECASE):
        return DECLINE  # "get me 2 apples from the shop, the market ones are overpriced": the shop's, the frames read it
    return _once(turn, "list_market_orders")


@intent(
    rf"(?:出售|卖出?|挂单卖)\s*{QTY}{UNIT}{RES}\s*[，,]?\s*(?:总价|价格|要价|卖|换|for)?\s*(?P<price>\d+)",
    rf"\b(?:sell|list)\s+{QTY}\s+(?:units?\s+of\s+)?{RES}\s+(?:for|at)\s+(?P<price>\d+)",
    priority=1,
    tool="create_market_order",
    example=gettext_lazy("出售 4 个面粉，总价 20"),
)
def sell(turn: Turn, match: re.Match) -> Step:
    if EACH.search(turn.plain) or LOT.match(turn.plain, match.end()):
        return DECLINE  # a price each, or "20 bags": the frame works out the total and says so
    if re.search(r"\d", turn.plain[match.end() :]):
        return DECLINE  # "list 5 wheat for 20, actually 25": a number after the price; the frame reads which stands
    return _once(
        turn,
        "create_market_order",
        resource_type=match["res"].lower(),
        quantity=int(match["qty"]),
        price=int(match["price"]),
    )


@intent(
    r"(?:接受|买下|购买|接|买)\s*(?:市场)?挂单\s*#?(?P<id>\d+)",
    r"挂单\s*#?(?P<id>\d+)\s*我(?:要|买|接)",
    r"\b(?:accept|buy|take|fill)\s+(?:the\s+)?(?:market\s+)?order\s*#?(?P<id>\d+)",
    priority=2,
    tool="accept_market_order",
    example=gettext_lazy("接受挂单 #1"),
)
def accept_order(turn: Turn, match: re.Match) -> Step:
    return _once(turn, "accept_market_order", order_id=int(match["id"]))


@intent(
    r"(?:取消|撤销|撤回|撤掉|下架)\s*(?:我的)?(?:市场)?挂单\s*#?(?P<id>\d+)",
    r"\b(?:cancel|withdraw|remove)\s+(?:the\s+)?(?:market\s+|my\s+)?(?:market\s+)?order\s*#?(?P<id>\d+)",
    priority=2,
    tool="cancel_market_order",
)
def cancel_order(turn: Turn, match: re.Match) -> Step:
    return _once(turn, "cancel_market_order", order_id=int(match["id"]))


# ---------------------------------------------------------------------------- frames
# What the regex phrases above do not read: each tool's trigger words and slot kinds, the
# slots filled from typed spans (see agents/providers/frames.py).

from agents.providers.framing import COLON, trailing_text  # noqa: E402
from agents.providers.frames import (  # noqa: E402
    SHARE, Filled, asked_in_another_clause, chosen_after, clauses, frame, or_other, registered_frames, someone_elses_state, sub_reading, which_of,
)
from agents.providers import restraint  # noqa: E402
from agents.providers.rules import agent_name  # noqa: E402
from agents.providers.understanding import Entity, Reading, entities, fold, named_phrase, numbers, read  # noqa: E402


# How Chinese writes common English given names: a resident called Alice answers to 爱丽丝 too.
CHINESE_NAMES = {
    "alice": ("爱丽丝", "艾丽丝", "爱丽斯", "艾丽斯"), "bob": ("鲍勃", "鲍伯", "包勃"), "carol": ("卡罗尔", "卡罗", "卡萝"),
    "dave": ("戴夫",), "david": ("大卫", "戴维"), "eve": ("伊芙", "伊娃"), "frank": ("弗兰克", "法兰克"), "tom": ("汤姆",),
    "jack": ("杰克",), "mary": ("玛丽",), "john": ("约翰",), "mike": ("迈克",), "lucy": ("露西",), "anna": ("安娜",),
    "emma": ("艾玛",), "grace": ("格蕾丝",), "henry": ("亨利",), "peter": ("彼得",), "sam": ("山姆", "萨姆"),
}


@entities(
    reads={
        Agent: ("name", "is_active"), ResourceType: ("slug", "name"), Building: ("name", "kind"), BuildingKind: ("slug", "name"),
        ShopItem: ("name", "resource_type"),
    }
)
def city_entities() -> list[Entity]:
    """Residents, resources (slug, name, synonyms), buildings (name, or a kind only one has) and shop items."""
    found: list[Entity] = []
    for name in Agent.objects.filter(is_active=True).values_list("name", flat=True):
        found.append(Entity("resident", name, name, name, partial=False))
        found += [Entity("resident", chinese, name, name, partial=False) for chinese in CHINESE_NAMES.get(name.lower(), ())]
    for slug, name in ResourceType.objects.values_list("slug", "name"):
        for surface in {slug, f"{slug}s", name, *SYNONYMS.get(slug, ())}:
            found.append(Entity("resource", surface, slug, name))
    kinds: dict[str, list[tuple[int, str]]] = {}
    for pk, name, slug, kind_name in Building.objects.values_list("pk", "name", "kind__slug", "kind__name"):
        found.append(Entity("building", name, pk, name, partial=True))
        for word in {slug, kind_name, *KIND_SYNONYMS.get(slug, ())}:  # "the sawmill" is the one lumberyard
            kinds.setdefault(word, []).append((pk, name))
    for word, buildings in kinds.items():
        if len(buildings) == 1:
            found.append(Entity("building", word, buildings[0][0], buildings[0][1]))
    for slug, name in BuildingKind.objects.values_list("slug", "name"):
        for surface in {slug, name, *KIND_SYNONYMS.get(slug, ())}:
            found.append(Entity("building_kind", surface, slug, name))
    for pk, name, slug in ShopItem.objects.values_list("pk", "name", "resource_type__slug"):
        found.append(Entity("item", name, pk, name))
    return found


BUYING = re.compile(r"买|购买|\b(?:buy|purchase)\b", re.IGNORECASE)
GIVE_WORDS = ("give", "send", "transfer", "hand", "pass", "gift", "toss", "给", "转", "送", "分给", "转赠", "匀", "分他", "分她", "分点", "分些", "分一", "分两", "分俩", "分几", "分个")
SHOP_WORDS = ("shop", "store", "商店", "店里", "小卖部")
MARKET_WORDS = ("market", "listing", "市场", "挂单", "挂的")
BOUNTIES_SAID = re.compile(r"\bbount(?:y|ies)\b|悬赏", re.IGNORECASE)
MARKET_SAID = re.compile(r"\bmarket|\blistings?\b|市场|挂单|挂的|单子|[那这]单", re.IGNORECASE)  # "list" is no listing; "frank卖的面粉那个单子"
BUY_WORDS = ("buy", "purchase", "买", "购买", "购入")
# "他居然买不起面粉", "she can't afford bread": buying no one can do.
CANT_BUY = re.compile(r"买不起|买不到|买不了|(?:做|倒腾|搞)?买卖|\bcan'?t\s+afford\b", re.IGNORECASE)
# "Carol的小麦我要了", "要Carol的那批": 要 wanting the goods; "回头可能要给她送点麦子" is a 要 of what will be done.
WANTED = re.compile(r"(?<![不想还])要(?![给送转去来把做吃买卖挂接领查问发用])")  # "回头转东西要用": needed later, no listing wanted
# Taking another's listing without the word "buy": "拍下", "拿下", "snap up", "I'll take it".
TAKE_WORDS = ("accept", "take", "want", "snap up", "grab", "接受", "接", "要", "拍下", "拍了", "拿下", "入手", "收了", "收下")
SELL_WORDS = ("sell", "卖", "出售", "挂出", "挂到", "put", "list", "post", "挂市场", "挂单卖", "挂个单", "挂一单", "挂张单", "挂一个单", "挂")
EACH = re.compile(
    r"\beach\b|\bapiece\b|\ba\s+piece\b|\bper\s+(?:unit|piece|loaf|one|item|bag)\b|每(?:个|份|块|袋|斤|单位)|单价"
    r"|[一1](?:个|份|袋|斤)\s*(?:卖|要|算|是)?\s*\d+|\d+\s*(?:块钱?|元|信用点|credits?)?\s*[一1](?:个|份|袋|斤)",
    re.IGNORECASE,
)
# "一个卖4块": the 一 counts nothing, it says what the price is for.
PER_ONE = re.compile(r"一(?:个|份|袋|斤)\s*(?:卖|要|算|是)?\s*(?=\d)|(?<=\d)\s*(?:块钱?|元|信用点)?\s*一(?:个|份|袋|斤)")
# A price for the whole lot, said outright ("一共40", "20 total"): never multiplied.
PRICE_AGAIN = re.compile(r"(?:还是|改成|改为|不对|我是说|算了)\s*(?:要|卖)?\s*$|\b(?:no\s+wait|make\s+it|actually|i\s+mean)\s*,?\s*$", re.IGNORECASE)
# A number in credits: "40个信用点", "30 credits", "20块钱".
PRICED = re.compile(r"\s*(?:个)?\s*(?:信用点|credits?|cr\b|块钱|元)", re.IGNORECASE)
TOTAL = re.compile(r"一共|总共|总价|合计|整批|\btotal\b|\baltogether\b|\bfor\s+(?:all|the\s+lot|everything)\b|\bin\s+all\b", re.IGNORECASE)
# A count, not a price: a measure word or "of them" after the number.
COUNTED = re.compile(r"\s*(?:个|份|块(?!钱)|袋|捆|斤|只|件|units?\b|pieces?\b|of\s+them\b|bags?\b|loaves\b)", re.IGNORECASE)
CLAUSE_END = re.compile(r"[,，。.;；!！?？、\n]")
# Questions about who sells what: the market's listings, never a sale of mine.
# "…, 市场上没人卖木头", "nobody is selling any on the market": why the speaker buys from the shop; the market named
# as where nothing is, no listing and no sale.
NOBODY_SELLING = re.compile(
    r"[^,，。.;；!！?？]*(?:没(?:有)?人(?:在)?卖|\b(?:nobody|no\s+one)(?:'s|\s+is)?\s+sell)[^,，。.;；!！?？]*", re.IGNORECASE
)
# "石头最近挺好卖的", "bread sells well lately": how goods sell, told as a reason or a musing; no sale asked.
SELLS_WELL = re.compile(
    r"[^,，。.;；!！?？]*(?:好卖|卖得(?:好|动|快|不错|火)|畅销|卖疯了|抢手|\bsells?\s+(?:well|fast|like\s+hot\s*cakes)\b|\bselling\s+(?:well|fast)\b)[^,，。.;；!！?？]*",
    re.IGNORECASE,
)
# "the shop still sells those bundles of wood right?", "商店还卖木材吧": what the shop sells, no sale of mine.
SHOP_SELLS = re.compile(
    r"[^,，。.;；!！?？]*(?:\b(?:shop|store)\s+(?:still\s+|also\s+|even\s+)?(?:sells?|stocks?|carries)\b|(?:商店|店里)(?:里)?(?:还|也)?(?:在)?(?:卖|有卖))[^,，。.;；!！?？]*",
    re.IGNORECASE,
)
SELLING_WORDS = ("who is selling", "who's selling", "anyone selling", "anybody selling", "someone selling", "谁在卖", "有人在卖", "有人卖", "谁卖")
# A price left to the agent ("whatever price seems fair", "价格你看着定"): no question, and no price either.
PRICE_LEFT_TO_ME = re.compile(
    r"\bwhatever\s+price\b|\b(?:a\s+)?fair\s+price\b|\bany\s+price\b|\bprice\s+it\s+(?:yourself|however)\b|价格?(?:你|您)(?:看着|自己)?(?:定|办|开)|随便(?:什么)?价|你(?:来)?定价",
    re.IGNORECASE,
)
# A price asked, not given ("卖多少钱", "how much"): a question, never a sale.
COST_ASKED_HOW = re.compile(r"多少钱|几块钱|什么价|\bhow\s+much\b|\bwhat\s+price\b", re.IGNORECASE)
# Questions about a price: the shop's list answers them.
PRICE_WORDS = ("多少钱", "价格", "价钱", "几块钱", "售价", "how much is", "how much are", "how much does", "how much do", "cost", "price")
# What a lot of the shop is called ("三捆木材", "two carts of stone"): a count of these is a count of lots.
LOT_WORDS = {"捆": "捆", "车": "车", "袋": "袋", "包": "袋", "bundle": "捆", "cart": "车", "cartload": "车", "bag": "袋", "sack": "袋"}
ONE_LOT = re.compile(r"\b(?:a|an|one)\s+(bundle|cartload|cart|bag|sack)\s+of\b", re.IGNORECASE)
LOT = re.compile(r"\s*(捆|车|袋|包|份|(?:bundle|cartload|cart|bag|sack|lot|pack)s?\b)", re.IGNORECASE)
# The shop's lots named as the goods ("those bundles of wood"), and a count with nothing after it ("buy me one,").
LOTS_NAMED = re.compile(r"\b(bundle|cartload|cart|bag|sack)s?\s+of\b", re.IGNORECASE)
BARE_COUNT = re.compile(r"\s*(?:[,，。.;；!！?？]|$)")
# "two of those wood bundles": the count of the lots named after it.
LOT_OF_THOSE = re.compile(r"\s+of\s+(?:those|these|the|them)\s+(?:[a-z]+\s+)?((?:bundle|cartload|cart|bag|sack|lot|pack)s?)\b", re.IGNORECASE)


def price_each(folded: str, price: Span) -> bool:
    """Whether the price in the clause around ``price`` is per unit ("3 each", "每个5块", "5 credits apiece")."""
    start = max((m.end() for m in CLAUSE_END.finditer(folded, 0, price.start)), default=0)
    end = next((m.start() for m in CLAUSE_END.finditer(folded, price.end)), len(folded))
    clause = folded[max(start, price.start - 16) : min(end, price.end + 24)]
    return bool(EACH.search(clause)) and not TOTAL.search(clause)


# A purchase asked for ("buy me some food", "买个面包"), not one told ("昨天买的面包"): never a meal from the stock.
# "grab me a bread from the store", "去商店拿个苹果": fetched from the shop is bought too.
PURCHASE_ASKED = re.compile(
    r"(?<!没钱)(?<![没不别])买(?![了的过不到])|(?<!can't\s)(?<!cant\s)(?<!don't\s)(?<!dont\s)\b(?:buy|purchase)\b"
    r"|\b(?:get|grab|fetch|pick\s+up)\b[^.!?;]{0,40}?\b(?:from|at)\s+(?:the\s+)?(?:shop|store)\b|(?:去|从|到)商店(?:里)?(?:拿|取|带)",
    re.IGNORECASE,
)
# A clause that muses instead of asking: a possibility ("石头多了还能拿去卖"), a someday ("以后盖个小农田"), someone
# else's wish ("he wants to build a mill someday").
ASIDE = re.compile(
    r"还能|还可以|也能|也可以|能拿去|可以拿去|以后|将来|有朝一日|哪天|琢磨|寻思|想着"
    r"|(?:他|她|他们|她们)(?:一直|总|也)?(?:想|要|打算|准备|计划)"
    r"|\b(?:he|she|they)\s+(?:wants?|wanted|plans?|planned|hopes?|is\s+going|'s\s+going|means?)\s+to\b"
    r"|\b(?:someday|some\s+day|one\s+day|eventually|down\s+the\s+road|could\s+always|can\s+always)\b",
    re.IGNORECASE,
)


def only_an_aside(turn: Turn, reading, tool: str) -> bool:
    """Every clause holding ``tool``'s words muses about it, and another clause asks for another write: the aside
    says why or what next ("…, he wants to build a mill someday"), and the other clause is the request."""
    words = [w for f in registered_frames() if f.tool == tool for w in f.words]
    holding = [(a, b) for a, b in clauses(reading.said) if sub_reading(reading, a, b).has(*words)]
    return (
        bool(holding) and all(ASIDE.search(reading.said[a:b]) for a, b in holding)
        and asked_in_another_clause(reading, turn.offered, tool, ())
    )


GIVING = re.compile(r"给|转|送|\b(?:give|send|transfer|hand|pass|gift|toss)\b", re.IGNORECASE)
EATING = re.compile(r"吃|\beat", re.IGNORECASE)


def _resources_named(said: str) -> str:
    return "、".join(dict.fromkeys(s.text for s in read(said).of("resource")))


# "…，她上次帮我收麦子", "…, she helped me with the wheat": what someone did for the speaker, the reason for a gift.
WHAT_THEY_DID = re.compile(
    r"[，,;；]\s*(?:因为|毕竟)?\s*(?:他们|她们|他|她|ta)(?:上次|昨天|前天|之前|刚才|以前|一直|总是|经常|前几天|那天)?(?:帮|替|给|送|借|陪|教)[^，,。!！?？;；]*"
    r"|[,;]\s*(?:since|because|as)?\s*(?:she|he|they)\s+(?:(?:just|once|always|already)\s+)?(?:helped|gave|lent|sent|brought|fixed|saved|taught)\b[^,.;!?]*",
    re.IGNORECASE,
)


MEASURE_ONLY = re.compile(r"\s*(?:[个份袋捆块斤车只根张件]|(?:bags?|loaves|units?|pieces?|sacks?|bundles?|carts?)\s+of)?\s*", re.IGNORECASE)


def two_resources(said: str) -> bool:
    """The message asks to move two kinds of goods, each with its count ("3 flour and 2 bread"): one transfer
    can't carry both. Goods named without a count ("…，他要磨面粉") are the reason, not the request."""
    from agents.providers.frames import clauses, tells_what_was_done

    reading = read(said)
    told = [(a, b) for a, b in clauses(said) if tells_what_was_done(said[a:b])]  # "I sold 3 wood yesterday, now …"
    counts = [s for s in reading.of("number") if s.value is not None and not any(a <= s.start < b for a, b in told)]
    counted = {
        s.value for s in reading.of("resource")
        # (a measure between them at most: "他一个种麦子的" counts no wheat)
        if any(0 <= s.start - n.end <= 9 and MEASURE_ONLY.fullmatch(reading.folded[n.end : s.start]) for n in counts)
    }
    return len(counted) > 1


# The words right before the one who receives: "give Eve", "送给Eve", "to Eve", "给Eve".
TO_RECEIVER = re.compile(r"(?:\b(?:give|send|hand|pass|gift|toss|transfer)|\bto|给)\s*$", re.IGNORECASE)


def _eating_beside_giving(said: str) -> bool:
    """Eating said in the clause that gives: a reason in a clause of its own ("Bob hasn't eaten,
    send him an apple", "Eve饿了没吃饭，给她一个面包") leaves the gift a gift."""
    return any(GIVING.search(clause) and EATING.search(clause) for clause in CLAUSE_END.split(said))


def _resource_word(filled: Filled) -> str:
    span = filled.slots.get("resource_type")
    return filled.reading.said[span.start : span.end] if span is not None else ""


@frame(
    "transfer_resource",
    triggers=GIVE_WORDS,
    # "Bob gave me 5 bread" tells what happened; "give me" asks for another's goods.
    not_with=(*SHOP_WORDS, *MARKET_WORDS, *BUY_WORDS, *SELL_WORDS, "gave me", "give me", "给了我", "给我", "送我", "送了我", "my notice", "resignation"),
    asks={
        "to_agent_id": gettext_lazy("要给哪位居民？请说出名字。"),
        "resource_type": gettext_lazy("要给什么资源？"),
        "quantity": gettext_lazy("要给多少？请说一个数量。"),
    },
    priority=3,
    whole="quantity",
)
def give_frame(turn: Turn, filled: Filled) -> Step:
    if _eating_beside_giving(filled.reading.said):
        return DECLINE  # "give Bob a bread to eat", "让Bob吃个面包": not read as a plain gift
    if two_resources(filled.reading.said):
        return Step.say(_("一次只能转一种资源（你提到了：%(things)s）。先转哪一种、转多少？") % {"things": _resources_named(filled.reading.said)})
    resource = filled.slots.get("resource_type")
    if resource is not None and (deed := WHAT_THEY_DID.search(filled.reading.said)) and deed.start() <= resource.start < deed.end():
        # "那给carol一个吧，她上次帮我收麦子": the goods of what the receiver did are the reason, not the gift.
        others = [s for s in filled.reading.of("resource") if not deed.start() <= s.start < deed.end()]
        if len({s.value for s in others}) != 1:
            return Step.say(_("要给什么资源？"))
        filled.slots["resource_type"] = others[0]
    name = filled.slots["to_agent_id"].name
    named = {s.name for s in filled.reading.of("resident") if s.name != agent_name(turn.system)}
    if len(named) > 1:
        # "Carol told me to give Eve two apples": the one the giving words turn to, or asked.
        receivers = {s.name for s in filled.reading.of("resident") if s.name in named and TO_RECEIVER.search(filled.reading.folded[: s.start])}
        if len(receivers) != 1:
            return Step.say(_("要给哪位居民？你提到了：%(names)s。") % {"names": "、".join(sorted(named))})
        name = receivers.pop()
    if name == agent_name(turn.system) and len(named) == 1:
        name = next(iter(named))  # "Carol, Bob needs wood … send him three": the agent addressed, the other one given
    if name == agent_name(turn.system):
        return Step.say(_("要转给哪位居民？请告诉我名字。"))
    quantity = filled.value("quantity")
    if filled.whole:
        # "give Eve all my apples": as many as the stock holds, read first; none at all is said, not sent.
        stock = turn.last("get_my_resources")
        if stock is None:
            return _once(turn, "get_my_resources")
        held = (stock.data or {}).get("resources", {}) if stock.ok else {}
        quantity = int(held.get(filled.value("resource_type"), 0) or 0) if isinstance(held, dict) else 0
        if quantity <= 0:
            return Step.say(_("你现在没有%(res)s，没有可以转给 %(name)s 的。") % {"res": _resource_word(filled), "name": name})
    return _resident_then(turn, name, "transfer_resource", resource_type=filled.value("resource_type"), quantity=quantity)


# "他居然买不起面粉…给他匀五份": buying no one can do rules no gift out.
# "接给面包坊送面粉那个", "给仓库送点小麦": goods taken to a place (a bounty's work), no resident given anything.
TO_A_PLACE = r"给[\u4e00-\u9fff]{0,6}?(?:坊|场|田|厂|店|铺|仓库|工地)(?:送|运|拉|搬|交)"
# "give her 3 of my wood so she can sell it", "给她三块木材让她拿去卖": the receiver's sale, the gift's purpose.
SOLD_BY_THEM = r"\bso\s+(?:that\s+)?(?:she|he|they)\s+can\s+sell\b[^,.;!?]*|(?:让|好让)(?:她|他|他们)(?:拿去|自己)?卖[^，,。;；!！]*"
# "转手能赚一点": resold later, no gift.
give_frame.unsaid = re.compile(f"{CANT_BUY.pattern}|{TO_A_PLACE}|{SOLD_BY_THEM}|转手|倒手", re.IGNORECASE)


def _shop_item(turn: Turn, filled: Filled) -> tuple[Step | None, dict | None]:
    item = filled.slots.get("item_id")
    resource = filled.slots.get("resource_type")
    if item is not None:
        return _listed(turn, "list_shop_items", "items", lambda row: row["item_id"] == item.value)
    return _listed(turn, "list_shop_items", "items", lambda row: row["resource_type"] == resource.value)


# The shop's goods named ("商店的面包"): a purchase only with a count ordered by 来 ("来两份"), never a price asked.
SHOP_OWNED = ("商店的", "店里的")
# ("商店苹果来仨，…": a count that ends its clause orders too.)
SHOP_ORDER = re.compile(r"[来整]\s*(?:半打|(?:[一二两三四五六七八九十几俩仨\d]+\s*)?[个份袋捆车]|[一二两三四五六七八九十几俩仨\d]+(?=\s*(?:[，,。;；!！]|$)))")
# 来 with a count orders goods ("来一袋面粉") only where SHOP_ORDER finds a measure after it ("你来一下" orders nothing).
ORDERED_WITH_LAI = ("来一", "来两", "来俩", "来仨", "来个", "来三", "来几", "来半打", "整一", "整两", "整俩", "整三")


# A resident named only to pass their listing over ("Frank那单太贵了", "frank's listing is a rip-off"), for what they
# said ("frank said he'd mill it") or for what they want ("carol wants some"): no seller.
PASSED_OVER = re.compile(
    r"太贵|贵了|贵死|不划算|不值|坑人|宰人|\b(?:rip-?off|too\s+(?:expensive|pricey|much)|overpriced|pricey|a\s+scam)\b",
    re.IGNORECASE,
)
SAID_AFTER = re.compile(r"^(?:'s)?\s*(?:说|讲|答应|想要(?!卖)|需要|缺|said|says|told\s+me|promised|reckons|(?:wants?|needs?)\b(?!\s+to\s+(?:sell|get\s+rid|unload)))", re.IGNORECASE)


def _sellers(reading: Reading, me: str) -> list:
    """The residents the message names as sellers: not the speaker, nor one named to pass their listing over or for
    what they said."""
    bounds = clauses(reading.said)
    out = []
    for span in reading.of("resident"):
        if span.name == me or SAID_AFTER.match(reading.said[span.end :]):
            continue
        clause = next(((a, b) for a, b in bounds if a <= span.start < b), (0, len(reading.said)))
        if PASSED_OVER.search(reading.said[clause[0] : clause[1]]):
            continue
        if OWN_DOING.match(reading.said, span.end):
            continue  # "…, Bob might come by later": what he does, no listing of his
        out.append(span)
    return out


@frame(
    "purchase",
    triggers=(
        *BUY_WORDS, "from the shop", "from the store", "at the shop", "at the store", "in the shop", "从商店", "商店里的", "在商店", "商店拿", "去商店拿",
        "去商店", "get me", "pick up", "grab me", "grab", "order", "给我来", "帮我来",
        # "gimme bread from shop x3": the shop named without "the" is where it comes from.
        "from shop", "from store", "at shop",
        # "商店的一捆木材来两份", "来一袋面粉": the shop's goods ordered with 来 and a count (see SHOP_ORDER).
        *SHOP_OWNED, *ORDERED_WITH_LAI,
    ),
    slots={"item_id": "item", "resource_type": "resource", "quantity": "number"},
    required=(),
    # "pick up the wheat bounty", "grab Dave's listing": not the shop.
    # "商店给我来了两个苹果": what the shop gave, told; "给我来N个" asks for it.
    not_with=(*MARKET_WORDS, "bounty", "悬赏", "任务", "给我来了", "帮我来了"),
    priority=2,
)
def buy_frame(turn: Turn, filled: Filled) -> Step:
    words = [w for f in registered_frames() if f.tool == "purchase" for w in f.words if w not in SHOP_OWNED and w not in ORDERED_WITH_LAI]
    if not filled.reading.has(*words) and not SHOP_ORDER.search(filled.reading.folded):
        return DECLINE  # "商店的面包多少钱": the shop's goods named, nothing ordered
    if "item_id" not in filled.slots and "resource_type" not in filled.slots:
        return _what_to_buy(turn, filled)
    if beneficiary := _bought_for(filled.reading, agent_name(turn.system)):
        return Step.say(
            _("我只能买给自己，不能直接买给 %(name)s。要先买下来吗？之后再说「给 %(name)s …」转给他。") % {"name": beneficiary}
        )
    if _sellers(filled.reading, agent_name(turn.system)) and not filled.reading.has(*SHOP_WORDS):
        # "buy Carol's wheat": her market order, not the shop ("Frank那单太贵了" passes his over); "from the shop, eve
        # looked hungry" names the shop.
        return DECLINE
    step, item = _shop_item(turn, filled)
    if step is not None:
        return step
    wanted = filled.slots.get("item_id") or filled.slots["resource_type"]
    if item is None:
        return Step.say(_("商店里没有「%(item)s」。") % {"item": wanted.text})
    if not _count_is_sure(filled, wanted) and item["quantity"] > 1:
        return Step.say(bundle_question(item, None))  # "买一些面粉": how many of the shop's lots
    if not _count_is_sure(filled, wanted):
        return Step.say(_("要买几个「%(item)s」？请说一个数量，比如「买 2 个%(item)s」。") % {"item": item["name"]})
    count = filled.value("quantity", 1)
    named_the_item = "item_id" in filled.slots and filled.slots["item_id"].text == item["name"].lower()
    number = filled.slots.get("quantity")
    lot = (LOT.match(filled.reading.folded, number.end) or LOT_OF_THOSE.match(filled.reading.folded, number.end)) if number is not None else None
    if lot is not None and (lot[1] in ("份", "lot", "lots", "pack", "packs") or LOT_WORDS.get(lot[1].rstrip("s")) in item["name"]):
        named_the_item = True  # "三捆木材", "two carts of stone": a count of the shop's lots
    if any(LOT_WORDS.get(one[1]) in item["name"] for one in ONE_LOT.finditer(f"{filled.reading.folded}\n{turn.continues}")):
        named_the_item = True  # "make it a cart of stone instead": one of the shop's lots
    if number is not None and BARE_COUNT.match(filled.reading.folded, number.end) and any(
        LOT_WORDS.get(lot) in item["name"] for lot in LOTS_NAMED.findall(filled.reading.folded)
    ):
        named_the_item = True  # "the shop still sells those bundles of wood right? buy me one": one of the lots named
    if item["quantity"] > 1 and not named_the_item:
        # "5 wood" is not five bundles of five: say what a purchase gives, and act on nothing.
        return Step.say(bundle_question(item, count))
    return _once(turn, "purchase", item_id=item["item_id"], quantity=count)


# "以后石料就不用买了", "买不起": nothing bought.
# ("…, nobody is selling any on the market": the market named as where nothing is rules no shop purchase out.)
# "…from the shop, the market ones are overpriced": the market passed over after the shop is named as where.
MARKET_PASSED_OVER = r"(?:\b(?:from|at)\s+the\s+(?:shop|store)\b|(?:在|从)商店)[^。.!！?？]*?(?:\bmarket|市场)[^,，;；.。!！?？]*"
# "…, the market's overpriced today", "市场上太贵了": the market passed over as too dear, no listing taken.
MARKET_TOO_DEAR = (
    r"[^,，。.;；!！?？]*(?:\bmarket(?:'s|\s+(?:[a-z]+\s+)?(?:is|are))\s+(?:way\s+|too\s+|so\s+|really\s+)?(?:overpriced|too\s+(?:expensive|pricey|dear)|a\s+rip-?off)"
    r"|市场(?:上)?(?:的)?(?:价格?|东西)?(?:太|都|也太|有点)贵)[^,，。.;；!！?？]*"
)
buy_frame.unsaid = re.compile(
    f"{restraint.SPARED_LATER}|{CANT_BUY.pattern}|{NOBODY_SELLING.pattern}|{MARKET_PASSED_OVER}|{MARKET_TOO_DEAR}", re.IGNORECASE
)


# A number said about money or what one has ("花了8块", "有20块", "price 10"): no count of a purchase.
NOT_A_PURCHASE_COUNT = re.compile(r"花|付|钱|价|费|有|剩|\b(?:cost|costs|paid|pay|price|credits?|have|had|got)\b", re.IGNORECASE)


def _count_is_sure(filled: Filled, item: Span) -> bool:
    """Whether the purchase's count is known: none said (one), one before the item ("买3个苹果", "two cartloads of
    stone"), or one after it that counts ("买苹果 3个", "buy apples, 3 of them", "bread x2", "来两个"). A number the
    words tie to money or stock, or two counts, is asked, never read as one."""
    if "quantity" in filled.missing:
        return False
    number = filled.slots.get("quantity")
    folded = filled.reading.folded
    if number is None:
        # "买几个苹果", "buy me some apples": a count left open is asked, never read as one.
        return not any(s.score >= 0.9 or s.value is None for s in filled.reading.of("number"))
    if number.end <= item.start:  # "买3个苹果", "buy two carts of stone"; not "我有10块钱，买个苹果"
        return not re.search(r"[，,。.；;!！?？]", folded[number.end : item.start]) and item.start - number.end <= 20
    if NOT_A_PURCHASE_COUNT.search(folded[item.end : number.start]) or re.match(r"\s*(?:块钱|元|信用点|credits?\b)", folded[number.end :]):
        return False
    return (
        number.text[:1] in "x×*"
        or bool(COUNTED.match(folded, number.end) or LOT.match(folded, number.end))
        or not folded[number.end :].strip(" 。.!！吧~")
        # "商店苹果给我来一打，伙计们…": the count ends the clause that orders it.
        or bool(re.match(r"\s*(?:吧|啊|哈)?\s*[，,。;；!！]", folded[number.end :]))
    )


# A purchase whose goods are left open: "grab a few things from the shop", "去商店随便买点东西".
VAGUE_PURCHASE = re.compile(
    r"\b(?:buy|get|grab|pick\s+up)\s+(?:me\s+|us\s+)?(?:a\s+few|some|a\s+couple\s+of)?\s*(?:things|stuff|something|bits)\b|买(?:点|些|一些)?(?:东西|什么)",
    re.IGNORECASE,
)
# The shop said as where to buy: "from the shop", "在商店买", "从商店".
FROM_THE_SHOP = re.compile(r"\b(?:from|at)\s+the\s+(?:shop|store)\b|(?:在|从|去)商店|商店(?:里)?买", re.IGNORECASE)
# What a number counts when it counts no goods: "赚一笔", "看一下", "等一会儿".
NO_GOODS_COUNTED = re.compile(r"\s*(?:笔|下|会儿?|阵|趟|次|遍)")
# A resident as the subject of their own deed: "Bob might come by", "Eve will drop in", "Bob要来".
OWN_DOING = re.compile(r"\s+(?:might|may|will|could|would|is\s+coming|comes|came|drops?|dropped|stops?)\b|\s*(?:要来|会来|可能来|来了)", re.IGNORECASE)
# "the second one", "that one", "第二个": a "one" that points, not a count.
# ("the 8 for 30 one": "one" after the listing's price points at it too.)
POINTED_ONE = re.compile(r"(?:\b(?:first|second|third|fourth|last|that|this|the|which|other)\s*|第|\d\s+(?:credits?\s+|bucks\s+)?)$", re.IGNORECASE)
FOR_SOMEONE = re.compile(r"(?:\bfor|给|替|帮|送给)\s*$", re.IGNORECASE)


def _bought_for(reading, me: str) -> str:
    """The resident a purchase is for ("buy 2 apples for Eve", "帮Eve买两个苹果"), or ""."""
    return next(
        (s.name for s in reading.of("resident") if s.name != me and FOR_SOMEONE.search(reading.folded[: s.start])), ""
    )


def _what_to_buy(turn: Turn, filled: Filled) -> Step:
    """"我想买东西", "buy something": which item is asked, with what the shop has; nothing is bought."""
    if filled.reading.of("resident") or not (filled.reading.has(*BUY_WORDS) or VAGUE_PURCHASE.search(filled.reading.said)):
        return DECLINE
    listed = turn.last("list_shop_items")
    if listed is None:
        return Step.call("list_shop_items")
    names = "、".join(item["name"] for item in listed.data.get("items", [])) if listed.ok else ""
    return Step.say(_("想买什么、买几份？商店有：%(items)s。例如「买 2 个面包」。") % {"items": names or "—"})


def bundle_question(item: dict, count: int | None) -> str:
    per = item["quantity"]
    if count is not None and count % per == 0:
        return _("商店按份卖：「%(name)s」一份是 %(per)s %(res)s，%(price)s 信用点。%(count)s %(res)s 就是 %(n)s 份，要买 %(n)s 份「%(name)s」吗？请说「买 %(n)s 份%(name)s」。") % {
            "name": item["name"], "per": per, "res": item["resource_type"], "price": item["price"], "count": count, "n": count // per,
        }
    return _("商店按份卖：「%(name)s」一份是 %(per)s %(res)s，%(price)s 信用点。要买几份？") % {
        "name": item["name"], "per": per, "res": item["resource_type"], "price": item["price"],
    }


def _numbers_around(filled: Filled) -> tuple[Span | None, Span | None]:
    """(quantity, price) of a sale: the count next to the resource, and the other number."""
    folded = filled.reading.folded
    per_one = [m.span() for m in PER_ONE.finditer(folded)]
    numbers = [s for s in filled.reading.of("number") if s.score >= 0.9 and not any(a <= s.start < b for a, b in per_one)]
    resource = filled.slots.get("resource_type")
    if not numbers or resource is None:
        return None, None
    before = [s for s in numbers if s.end <= resource.start and resource.start - s.end <= 12]
    quantity = before[-1] if before else None
    if quantity is not None and HELD_BEFORE.search(folded[max(0, quantity.start - 16) : quantity.start]):
        # "你手上10份面粉…，挂8份到市场上", "you've got 8 wheat … list 5 of them": what is held, then the count sold.
        sold = [s for s in numbers if s.start > resource.end and SOLD_BEFORE.search(folded[max(0, s.start - 8) : s.start])]
        quantity = sold[0] if sold else quantity
    after = [s for s in numbers if s.start >= resource.end and s is not quantity]
    if quantity is None and after and (len(after) > 1 or COUNTED.match(filled.reading.folded, after[0].end)):
        quantity = after[0]  # "sell my wheat, 2 of them for 10", "木材卖了吧，10个，一共40"
    others = [s for s in numbers if s is not quantity and s.start > (quantity.end if quantity else -1)]
    # "挂一打到市场上卖，一打总共要40个信用点": the count said again is no price; the one in credits, or after
    # "total", is.
    folded = filled.reading.folded
    priced = [s for s in others if PRICED.match(folded, s.end) or TOTAL.search(folded, max(0, s.start - 6), s.start)]
    # "一根三块钱，一共十五": the total said outright is the price, never the price of one.
    totals = [s for s in priced if TOTAL.search(folded, max(0, s.start - 6), s.start)]
    price = totals[0] if totals else priced[0] if priced else others[0] if others else None
    # "一共要45，嗯…还是50吧", "for 20, no wait, 25": the price said again after a change of mind stands.
    again = [s for s in others if price is not None and s.start > price.end and PRICE_AGAIN.search(folded[price.end : s.start])]
    return quantity, (again[-1] if again else price)


PUT_ME = re.compile(r"\bput\s+(?:me|us|him|her)\b", re.IGNORECASE)
# Goods said to be held ("你手上10份", "I've got 8"), and a count said with the verb that sells it ("挂8份", "list 5").
HELD_BEFORE = re.compile(r"(?:手上|手里|手头|家里|仓库里|库里|(?:我|你|他|她)?(?:还)?有)\s*$|\b(?:(?:you|i|we)(?:'ve|\s+have)\s+(?:got\s+)?|(?:you|i|we)\s+got\s+|holding\s+)$", re.IGNORECASE)
SOLD_BEFORE = re.compile(r"(?:挂|卖|出售|卖掉|拿出)\s*$|\b(?:list|sell|post|put\s+up|offer)\s+$", re.IGNORECASE)


@frame(
    "create_market_order",
    triggers=SELL_WORDS,
    slots={"resource_type": "resource"},
    required=("resource_type",),
    asks={"resource_type": gettext_lazy("要卖什么资源？")},
    # "post something in the city chat": words for the channel, not goods on the market; "the materials list" is no listing.
    not_with=("channel", "city chat", "频道", "materials list", "price list", "shopping list", "the list", "a list"),
    priority=2,
)
def sell_frame(turn: Turn, filled: Filled) -> Step:
    if only_an_aside(turn, filled.reading, "create_market_order"):
        return DECLINE  # "去采石场上班吧，石头多了还能拿去卖": the job is asked, selling is a maybe
    if PUT_ME.search(filled.reading.said) and not filled.reading.has(*(word for word in SELL_WORDS if word != "put")):
        return DECLINE  # "the farm pays 12 right? put me there": the speaker placed, nothing put up for sale
    quantity, price = _numbers_around(filled)
    price_asked = filled.reading.has(*PRICE_WORDS) and not PRICE_LEFT_TO_ME.search(filled.reading.said)  # "whatever price seems fair": mine to ask
    if filled.reading.has(*SELLING_WORDS) or (price_asked and (price is None or COST_ASKED_HOW.search(filled.reading.folded))):
        return DECLINE  # "who is selling wheat?", "面包卖多少钱": a question the listings answer ("total price 20" is no question)
    posted = filled.reading.has("post") and MARKET_SAID.search(filled.reading.said)
    if not filled.reading.has(*(word for word in SELL_WORDS if word not in ("挂", "post")), "市场") and not posted:
        return DECLINE  # "挂" or "post" alone is no sale: "挂3个面粉到市场", "post 5 wheat on the market" are
    said = filled.reading.said
    if any(s.value != agent_name(turn.system) and not _owns_nothing_here(said, s) for s in filled.reading.of("resident")):
        return DECLINE  # "the wood Dave is selling": Dave's order, not a sale of mine
    res = _resource_word(filled)
    if quantity is None:
        return Step.say(_("要卖多少%(res)s？") % {"res": res})
    if price is None:
        return Step.say(_("%(n)s %(res)s 要卖多少信用点（整批总价）？") % {"n": quantity.value, "res": res})
    total = price.value
    if price_each(filled.reading.folded, price):
        total = price.value * quantity.value
    done = turn.last("create_market_order")
    if done is not None:
        said = _result(done)
        if done.ok and total != price.value:
            said += _("（每个 %(each)s，整批总价 %(total)s）") % {"each": price.value, "total": total}
        return Step.say(said)
    return _call("create_market_order", resource_type=filled.value("resource_type"), quantity=quantity.value, price=total)


def _owns_nothing_here(said: str, resident) -> bool:
    """"keeping the rest for Alice's roof": a resident named with a possession that is no goods."""
    after = said[resident.end :]
    return bool(restraint.POSSESSIVE.match(after)) and not restraint.possesses_goods(after)


def _my_open_orders(turn: Turn, listed) -> list[dict]:
    me = agent_name(turn.system)
    return [o for o in listed.data.get("orders", []) if o.get("seller_name") == me]


# Words that take a listing down, whatever else the message says ("off the market" alone may be a purchase).
CANCEL_WORDS = ("cancel", "cancle", "cancell", "withdraw", "take down", "get rid of", "remove", "delete", "pull down", "pull it", "pull my", "pull that", "取消", "撤", "下架", "删除", "删掉")


@frame(
    "cancel_market_order",
    triggers=(*CANCEL_WORDS, "off the market"),
    slots={},
    required=(),
    priority=3,
)
def cancel_frame(turn: Turn, filled: Filled) -> Step:
    if not filled.reading.has(*MARKET_WORDS, "order", "订单", "那单", "这单", "挂得"):  # "我那单面粉挂得太便宜了，先撤下来"
        return DECLINE
    # "buy Carol's wheat order off the market", "grab Dave's wood off the market": a purchase ("take my wheat off the
    # market" takes down the speaker's own).
    taking = filled.reading.has("grab", "snap up", "take") and _sellers(filled.reading, agent_name(turn.system))
    if (filled.reading.has(*BUY_WORDS) or taking) and not filled.reading.has(*CANCEL_WORDS):
        return DECLINE
    if turn.last("cancel_market_order") is not None:
        return Step.say(_result(turn.last("cancel_market_order")))
    listed = turn.last("list_market_orders")
    if listed is None:
        return _once(turn, "list_market_orders")
    mine = _my_open_orders(turn, listed) if listed.ok else []
    if not mine:
        return Step.say(_("你在市场上没有挂单。"))
    named = {span.value for span in filled.reading.of("resource")}
    if named and (of_named := [o for o in mine if o.get("resource_type") in named]):
        mine = of_named  # "把我的面粉挂单撤了": the listing of the goods named
    elif named:
        # "我那个木头的挂单撤了吧" with only flour listed: no such listing, and the other is not taken down instead.
        return Step.say(_("你没有这种资源的挂单；你的挂单：%(orders)s。要取消哪一个？") % {"orders": "、".join(f"#{o['order_id']}" for o in mine)})
    if len(mine) > 1:
        return Step.say(_("你有多个挂单：%(orders)s。要取消哪一个？") % {"orders": "、".join(f"#{o['order_id']}" for o in mine)})
    return _call("cancel_market_order", order_id=mine[0]["order_id"])


@frame(
    "accept_market_order",
    triggers=(*MARKET_WORDS, "@resident"),
    slots={"resident": "resident", "resource_type": "resource"},
    required=(),
    priority=2,
)
def accept_frame(turn: Turn, filled: Filled) -> Step:
    said = CANT_BUY.sub(" ", filled.reading.said)  # "他居然买不起面粉": no one buys
    if not read(said).has(*BUY_WORDS, *(word for word in TAKE_WORDS if word != "要")) and not WANTED.search(said):
        return DECLINE
    if BOUNTIES_SAID.search(filled.reading.said) and not MARKET_SAID.search(filled.reading.said):
        return DECLINE  # "the bounties someone already grabbed": the board, not a listing
    if filled.reading.has(*SHOP_WORDS) and (not MARKET_SAID.search(filled.reading.said) or FROM_THE_SHOP.search(filled.reading.said)):
        # "buy 3 apples from the shop, eve looked hungry …": the shop's, whoever else is named; "…from the shop pls, the
        # ones on the market are always bruised": the shop said as where, the market only why not.
        return DECLINE
    me = agent_name(turn.system)
    # "Alice，Dave挂的木材你买下来": the agent addressed is no seller; the other resident is.
    sellers = _sellers(filled.reading, me)
    if filled.reading.of("resident") and not sellers:
        return DECLINE  # the speaker, or a listing passed over ("Frank那单太贵了，还是商店的便宜")
    if beneficiary := _bought_for(filled.reading, me):
        return Step.say(
            _("我只能买给自己，不能直接买给 %(name)s。要先买下来吗？之后再说「给 %(name)s …」转给他。") % {"name": beneficiary}
        )
    if len({s.name for s in sellers}) > 1:
        return Step.say(_("要买谁的挂单？你提到了：%(names)s。") % {"names": "、".join(sorted({s.name for s in sellers}))})
    listed_before = {name for name, _a in turn.earlier_calls if name.startswith("list_")}
    if (
        sellers and listed_before and "list_market_orders" not in listed_before
        and not filled.reading.has(*MARKET_WORDS, *BUY_WORDS) and "resource_type" not in filled.slots
    ):
        # "接Carol的那个" after the bounties' list: which list the words point into is not sure.
        return Step.say(_("你是指 %(seller)s 在市场上的挂单吗？要买的话请说「买 %(seller)s 的挂单」。") % {"seller": sellers[0].name})
    if turn.last("accept_market_order") is not None:
        return Step.say(_result(turn.last("accept_market_order")))
    listed = turn.last("list_market_orders")
    if listed is None:
        return _once(turn, "list_market_orders")
    seller, res = (sellers[0].value if sellers else None), filled.value("resource_type")
    rows = [
        o for o in (listed.data.get("orders", []) if listed.ok else [])
        if (seller is None or o.get("seller_name") == seller) and (res is None or o.get("resource_type") == res)
    ]
    if seller is None and res is None or len(rows) != 1:
        shown = "、".join(f"#{o['order_id']} {o.get('seller_name')} {o.get('quantity')} {o.get('resource_type')}" for o in rows[:5])
        return Step.say(_("要买哪一个挂单？%(orders)s") % {"orders": shown or _("没有符合的挂单。")})
    row = rows[0]
    folded = filled.reading.folded
    counts = {
        s.value for s in filled.reading.of("number")
        if s.value is not None and s.score >= 0.9 and not POINTED_ONE.search(folded[: s.start])
        and not NO_GOODS_COUNTED.match(folded, s.end)  # "转手能赚一笔": a sum, no count of the goods
    }
    if counts - {row.get("quantity"), row.get("price"), row.get("order_id")}:
        # "buy 2 of Carol's wheat": a listing is bought whole, never a part of it.
        return Step.say(
            _("%(seller)s 的挂单 #%(id)s 是整批 %(qty)s %(res)s，总价 %(price)s 信用点，只能整批买下。要整批买吗？")
            % {"seller": row.get("seller_name"), "id": row["order_id"], "qty": row.get("quantity"), "res": row.get("resource_type"), "price": row.get("price")}
        )
    return _call("accept_market_order", order_id=row["order_id"])


@frame(
    "checkin",
    triggers=(
        "check in", "check me in", "clock in", "clock me in", "sign in", "sign me in", "punch in", "check-in", "签到", "打卡", "签个到", "打个卡", "打咔",
        "大个卡", "打一下卡", "打下卡", "卡还没打", "卡没打", "班还没打", "班没打", "把卡打了", "把卡打一下", "卡打了吧",
    ),
    not_with=("early", "提前"),
)
def checkin_frame(turn: Turn, filled: Filled) -> Step:
    return _once(turn, "checkin")


@frame(
    "eat",
    triggers=("eat", "hungry", "starving", "famished", "feed me", "吃", "饿", "have", "grab a bite", "a bite", "bite to eat"),
    slots={"resource_type": "resource"},
    not_with=GIVE_WORDS,
)
def eat_frame(turn: Turn, filled: Filled) -> Step:
    if PURCHASE_ASKED.search(restraint.OWN_LATER.sub(" ", filled.reading.said)):
        return DECLINE  # hunger as the reason for a purchase: bought, or asked which item, never eaten from the stock
    food = filled.value("resource_type")
    if HOW_HUNGRY.search(filled.reading.folded):
        return DECLINE  # "check how hungry you are": the state asked, nothing eaten
    if not filled.reading.has("eat", "hungry", "feed me", "吃", "饿", "a bite", "bite to eat") and not (food and HAVE_SOME.search(filled.reading.folded)):
        return DECLINE  # "I have an apple" tells; "have an apple" (to the resident) asks it to eat
    if not filled.reading.has("eat", "feed me", "吃") and someone_elses_state(filled.reading, agent_name(turn.system), HUNGRY):
        return DECLINE  # "Eve's been hungry all day, poor thing": her hunger, not the speaker's
    if not food and (which := _which_food(turn, filled.reading.said)) is not None:
        return which
    return _once(turn, "eat", resource_type=food) if food else _once(turn, "eat")


# "how hungry are you", "饿不饿", "or did i eat it already?": hunger, or a meal, asked about.
HOW_HUNGRY = re.compile(
    r"\bhow\s+hungry\b|饿不饿|有多饿|饿了没|饿了吗|\bdid\s+i\s+(?:already\s+)?eat\b|\bhave\s+i\s+(?:already\s+)?eaten\b"
    r"|我(?:是不是)?(?:已经)?吃(?:过|掉)?了(?:吗|没)|吃没吃"
)
# "刚才好像被我吃掉了点什么", "I ate something earlier": a meal already eaten, told.
EATEN_BEFORE = re.compile(
    r"[^，,。.;；!！?？]*(?:被(?:我|他|她)?吃(?:掉|光|完)?了|(?:刚才|刚刚|之前|早上|昨天|已经)[^，,。.;；!！?？]{0,8}?吃(?:掉|光|完|过)了"
    r"|i\s+(?:already\s+)?(?:ate|have\s+eaten|had)\s+(?:something|some|a|an|one|my)[^,.;!?]*(?:earlier|before|already|this\s+morning|yesterday))[^，,。.;；!！?？]*",
    re.IGNORECASE,
)
eat_frame.unsaid = EATEN_BEFORE
# "have an apple", "go on, have some bread": "have" as an order to eat, first in its clause.
HAVE_SOME = re.compile(r"(?:^|[,，.;!—–-]\s*|\b(?:please|go|just|you\s+should|why\s+not)\s+)have\s+(?:a|an|some|one|a\s+bit\s+of)\b")


# Hunger said of someone: the speaker's asks it to eat, another resident's does not.
HUNGRY = ("hungry", "starving", "饿")


@frame("rest", triggers=(*REST_WORDS, *WEARY))
def rest_frame(turn: Turn, filled: Filled) -> Step:
    if only_what_is_left(filled.reading.said):
        return DECLINE  # "the rest I'm keeping": what is left, nobody resting
    asked = filled.reading.has(*REST_WORDS)
    if not asked and JOB_CHANGED.search(filled.reading.said):
        return DECLINE  # "伐木场太累了，换个地方上班吧": another job is asked, the tiredness is why
    if not asked and asked_in_another_clause(filled.reading, turn.offered, "rest", WEARY):
        return DECLINE  # "农田的活太累了，辞了吧": quitting is asked, the tiredness is why
    if not asked and someone_elses_state(filled.reading, agent_name(turn.system), WEARY):
        return DECLINE  # "Carol看起来很累": her tiredness asks the speaker to rest nothing
    return _once(turn, "rest")


# "不要打卡，今天休息日", "it's my day off": the day off told as why, no rest asked.
rest_frame.unsaid = re.compile(r"休息日|休息天|\bday\s+off\b", re.IGNORECASE)


# A vacancy named ("a free slot", "空缺"): a job there only when the message takes it.
OPENING_WORDS = (
    "free slot", "open slot", "free slots", "open slots", "free spot", "open spot", "opening", "vacancy", "vacancies", "空缺", "空位", "有空岗",
)
OPENING_TAKEN = re.compile(r"\btake\s+(?:it|that|one|the\s+(?:job|slot|spot|place|opening))\b|\bgrab\s+it\b|去吧|去那(?:儿|里)?(?:吧|上班|干)|接了吧|报上吧", re.IGNORECASE)


# Signing up for a job, said without "work": the building it names, or asked which.
SIGNING_UP = (
    "报名", "报个名", "报上名", "报一下名", "sign up", "sign me up", "signing up", "enrol", "enroll", "join up", "count me in",
    "put me down for",
)


# The words right before the building gone to: "那我就去骊山采石场上班", "sign me up at the quarry".
GONE_TO = re.compile(r"(?:去|到|进)\s*$|\b(?:to|at|join)\s+(?:the\s+)?$", re.IGNORECASE)


@frame(
    "assign_building",
    triggers=(
        "work at", "work in", "job at", "apply", "hire", "sign me up at", "sign up at", "sign me up with", "上班", "上个班", "工作", "应聘", "入职", "打工",
        "打份工", "打个工", "打零工", "打短工",
        "干活", "活干", "找份活", "找个活", "找份工作", "找个工作", "找份工", "找个工", "a job", "some work", "find me work", "find me some work", "get me hired", "get hired",
        # "…听说终南那个伐木场还缺人，就去那儿", "the farm east of town pays 12 right? put me there": the place just named.
        "就去那儿", "就去那里", "就去那", "我就去了", "put me there", "put me at", "put me in", "send me there",
        # "I take the quarry job, the one at Lishan": a job at a kind of building taken ("I quit the bakery job" is no taking).
        *(f"take the {kind} job" for kind in ("quarry", "farm", "mill", "bakery", "lumberyard", "sawmill")),
        *(f"join the {kind}" for kind in ("quarry", "farm", "mill", "bakery", "lumberyard", "sawmill")),
        "another job", "different job", "new job", "switch jobs", "change jobs", "换个地方", "换份工作", "换个工作", "跳槽",
        # An operator placing the resident: "we've got you down for the East Farm — take that job".
        "take that job", "take the job", "take this job", "got you down for", "put you down for", "signed you up for",
        # "The bakery has a free slot … please take it": a vacancy offered, taken only with "take it" (OPENING_TAKEN).
        *OPENING_WORDS,
        # Signing up for a job: "帮我报个名", "go sign up there", "enrol me at the farm".
        *SIGNING_UP,
    ),
    asks={"building_id": gettext_lazy("想去哪座建筑工作？可以说「有哪些建筑」看看。")},
    # "put me down for the mill construction bounty", "报名那个悬赏": a bounty's claim, not a job.
    not_with=("bounty", "bounties", "悬赏"),
    priority=2,
)
def work_frame(turn: Turn, filled: Filled) -> Step:
    others = [w for f in registered_frames() if f.tool == "assign_building" for w in f.words if w not in OPENING_WORDS]
    if not filled.reading.has(*others) and not OPENING_TAKEN.search(filled.reading.said):
        return DECLINE  # "the bakery has a free slot": told, not taken
    # "刚到长安…听说城东农田缺人": a building named in full outranks a part of another's name ("长安" of 长安面包坊).
    named = filled.reading.of("building")
    changed = JOB_CHANGED.search(filled.reading.folded)
    if changed is not None:
        named = [s for s in named if s.start > changed.start()]  # the building left is named before "换个地方"
    exact = {s.value: s.name for s in named if s.exact} or {s.value: s.name for s in named}
    if len(exact) > 1 and len(gone_to := {s.value: s.name for s in named if s.value in exact and GONE_TO.search(filled.reading.said, 0, s.start)}) == 1:
        exact = gone_to  # "采石场给14，比伐木场强，那我就去骊山采石场上班": the one gone to, the other compared
    if len(exact) > 1:
        return Step.say(_("想去哪座建筑工作？你提到了：%(names)s。") % {"names": "、".join(sorted(exact.values()))})
    building = next(iter(exact), None) if exact or changed is not None else filled.value("building_id")
    if building is None:
        return Step.say(_("想去哪座建筑工作？可以说「有哪些建筑」看看。"))  # only the building left was named
    return _once(turn, "assign_building", building_id=building)


@frame(
    "list_buildings",
    triggers=(
        "building", "job", "work", "hiring", "wage", "salary", "建筑", "工作", "岗位", "招人", "招工", "上班", "工资", "薪水",
        # "how much does the bakery pay per day?", "磨坊日薪多少": a building's wage, on its row.
        "pay per day", "pay a day", "pays per day", "pays a day", "daily pay", "日薪", "工钱", "一天给多少", "一天多少钱",
    ),
    not_with=("earn", "think", "quit", "挣", "赚", "辞"),
    slots={},
    required=(),
)
def buildings_frame(turn: Turn, filled: Filled) -> Step:
    """"where can I work?", "哪里招人", "面包坊一天工资多少": a question the buildings' list answers."""
    asked = filled.reading.has("where", "which", "what", "any", "list", "how much", "哪里", "哪儿", "哪些", "哪个", "有没有", "多少")
    if not asked and not restraint.CHOOSES_THEMSELVES.search(filled.reading.said):
        return DECLINE  # ("let me know the options first and I'll choose": the list, for them to choose from)
    asked_for_work = [w for f in registered_frames() if f.tool == "assign_building" for w in f.words if w not in OPENING_WORDS]
    work_sought = "assign_building" in turn.offered and filled.reading.has(*asked_for_work)
    if turn.last("list_buildings") is not None and work_sought:
        # "get me a job, no idea what's good here": the buildings shown, and which one asked (never picked for them).
        return Step.say("\n".join([summarize(turn), _("想去哪座建筑工作？")]))
    step = _once(turn, "list_buildings")
    # (Toward the job: "the quarry" after the list and its question is the answer.)
    return replace(step, toward="assign_building") if step is not None and work_sought else step


STATUS_WORDS = (
    "credit", "money", "energy", "satiety", "status", "balance", "wallet", "how hungry", "stamina", "how tired",
    "信用点", "精力", "饱食度", "状态", "钱", "余额", "饿不饿", "体力", "饱不饱", "累不累",
)


# "现在钱够了", "you've got enough credits now": the money told, a reason for what is asked.
MONEY_TOLD = re.compile(
    r"(?:钱|信用点)(?:已经|都|也|现在)?(?:够|足够|攒够)(?:了|用)?(?![吗么没不]|[^，,。!！]{0,6}[吗么?？])"
    r"|(?:you'?ve|you\s+have|i'?ve|i\s+have|you\s+got|i\s+got)\s+(?:got\s+)?(?:enough|plenty\s+of)\s+(?:money|credits)\b(?![^,.;!]{0,20}\?)",
    re.IGNORECASE,
)


@frame("get_my_status", triggers=STATUS_WORDS, priority=1)
def status_frame(turn: Turn, filled: Filled) -> Step:
    if MONEY_TOLD.search(filled.reading.said):
        return DECLINE  # "你不是一直想盖房子吗，现在钱够了，建一个吧": the money told as why, not asked about
    if not restraint.asked(filled.reading.said) and asked_in_another_clause(filled.reading, turn.offered, "get_my_status", STATUS_WORDS):
        # "你饱食度都掉到40了，把面包吃了吧", "build me something, I've got credits to spare": the state is why.
        return DECLINE
    return _once(turn, "get_my_status")


# "what can I buy at the shop?", "商店能买到什么": a question the shop's list answers.
WHAT_CAN_BE_BOUGHT = re.compile(r"\bwhat\b.{0,20}\b(?:buy|get)\b|能买(?:到)?(?:些)?什么|可以买(?:到)?(?:些)?什么|买得到什么|有什么(?:可以|能)?买", re.IGNORECASE)


@frame("list_shop_items", triggers=SHOP_WORDS)
def shop_frame(turn: Turn, filled: Filled) -> Step:
    if filled.reading.has(*BUY_WORDS, "get me", "grab me", "grab", "pick up") and not WHAT_CAN_BE_BOUGHT.search(filled.reading.folded) and not filled.reading.has("price", "prices", "价格", "价目"):
        return DECLINE  # buying, the purchase frame's ("shop prices? need to know before I go buy anything" asks the prices)
    if VAGUE_PURCHASE.search(filled.reading.said):
        return DECLINE  # "grab a few things from the shop": what to buy, which the purchase frame asks
    return _once(turn, "list_shop_items")


@frame("list_shop_items", triggers=PRICE_WORDS, slots={"resource_type": "resource", "item_id": "item"}, required=(), priority=2)
def price_frame(turn: Turn, filled: Filled) -> Step:
    """"面包多少钱一个", "how much is an apple": the shop's prices, whatever else the words say."""
    if not ({"resource_type", "item_id"} & filled.slots.keys()) or filled.reading.has(
        *SELLING_WORDS, *MARKET_WORDS, "build", "建", "盖", "挂个单", "挂一单", "挂张单", "挂出", "list it", "list my"
    ):
        return DECLINE
    return _once(turn, "list_shop_items")


@frame("list_market_orders", triggers=(*MARKET_WORDS, *SELLING_WORDS))
def market_frame(turn: Turn, filled: Filled) -> Step:
    if FROM_THE_SHOP.search(filled.reading.said) and filled.reading.has(*BUY_WORDS, "get", "grab"):
        return DECLINE  # "get me 2 apples from the shop, the market ones are overpriced": the shop's
    if not filled.reading.has(*MARKET_WORDS) and "?" not in filled.reading.folded and not filled.reading.has("吗", "谁", "who", "any"):
        return DECLINE
    if not MARKET_SAID.search(filled.reading.said) and not filled.reading.has(*SELLING_WORDS):
        return DECLINE  # "just the list is fine": a list, no listing
    return _once(turn, "list_market_orders")


@frame(
    "get_my_resources",
    triggers=(
        "inventory", "bag", "pocket", "my stuff", "have i got", "what do i have", "do i have", "still have", "have left",
        "got left", "my stock", "口袋", "背包", "包里", "手里", "手上", "手头", "身上", "库存", "存货", "还剩", "剩下多少",
        # Where one keeps one's goods: "我仓库里有啥", "what's in my storage".
        "仓库", "库房", "家当", "my storage", "my warehouse", "my storehouse",
        # Staff asking the resident: "the resources you're currently holding", "what you hold".
        "you're holding", "you are holding", "currently holding", "you hold", "your resources", "your inventory", "your stock",
        "your current stock", "stock of",
    ),
    not_with=(*GIVE_WORDS, *SELL_WORDS),
)
def stock_frame(turn: Turn, filled: Filled) -> Step:
    reading = filled.reading
    if reading.has(*HOLDING) and not restraint.asked(reading.said) and asked_in_another_clause(reading, turn.offered, "get_my_resources", HOLDING):
        return DECLINE  # "手上钱挺多的，我要盖一座新建筑": what the speaker holds is why, the build is asked
    return _once(turn, "get_my_resources")


# "just the list is fine", "a list of …": the noun, no listing for sale.
THE_LIST = re.compile(r"\b(?:the|a|that|this|your|my)\s+list\b(?!\s+(?:it|them|my|\d))|\blist\s+(?:is|was)\b", re.IGNORECASE)
stock_frame.unsaid = THE_LIST
# "let's put up a farm by the creek": a building put up, nothing put up for sale.
PUT_UP_BUILDING = r"\bput\s+up\s+(?:a|an|the|one|another)\s+(?:new\s+)?(?:farm|mill|bakery|quarry|lumberyard|lumber\s+mill|building|house|shed|barn)\b"
sell_frame.unsaid = re.compile(
    f"{THE_LIST.pattern}|{NOBODY_SELLING.pattern}|{SELLS_WELL.pattern}|{SHOP_SELLS.pattern}|{PUT_UP_BUILDING}|{SOLD_BY_THEM}", re.IGNORECASE
)
market_frame.unsaid = accept_frame.unsaid = re.compile(f"{NOBODY_SELLING.pattern}|{MARKET_TOO_DEAR}", re.IGNORECASE)


# Where the speaker's goods are said to be: "手上…挺多的" tells why, it asks nothing.
HOLDING = ("手上", "手里", "手头", "身上", "口袋", "包里")


@frame(
    "unassign_building",
    triggers=(
        "quit", "resign", "leave my job", "hand in my notice", "give notice", "give my notice", "put in my notice", "hand in my resignation",
        "辞职", "离职", "辞了", "辞掉", "不干了", "不想干", "不想在", "不想做了",
    ),
    not_with=("bounty", "悬赏", "任务"),
)
def quit_frame(turn: Turn, filled: Filled) -> Step:
    if filled.reading.has("不想在") and not filled.reading.has("干了", "做了", "上班了", "工作了", "干下去"):
        return DECLINE  # "我不想在市场上卖": not a job
    return _once(turn, "unassign_building")


@frame(
    "find_agent",
    triggers=("who is", "who's", "whos", "id", "编号", "查找", "找一下", "是谁", "look up", "resident", "居民", "这个人", "找个人", "找人"),
    slots={"name": "resident"},
    asks={"name": gettext_lazy("要找哪位居民？请说出名字。")},
)
def find_frame(turn: Turn, filled: Filled) -> Step:
    return _once(turn, "find_agent", name=filled.slots["name"].name)


@frame(
    "chat",
    triggers=(
        "city chat", "city channel", "in the channel", "to the channel", "on the channel", "tell the channel", "频道里", "post", "announce", "broadcast",
        "shout", "频道", "广播", "喊一声", "喊话", "吆喝", "喊一句",
    ),
    required=(),
    priority=6,
)
def chat_frame(turn: Turn, filled: Filled) -> Step:
    said = filled.reading.said
    if (told := SAID_IN_CHANNEL.search(said)) and (told["who"] or told["who_en"]).casefold() != agent_name(turn.system).casefold():
        return DECLINE  # "Bob刚在频道里说：“…”。你觉得…？": his words told, not the speaker's to say again
    channel_named = re.search(r"channel|city\s+chat|频道|广播|喊|吆喝", said, re.IGNORECASE)
    if not channel_named and not re.search(r"\b(?:post|announce|broadcast|shout)\b", said, re.IGNORECASE):
        return DECLINE  # "the one carol or frank posted": a listing someone posted, no words to post now
    # "say in the city channel: …": after the colon the words are said, whatever came before it.
    colon = COLON.search(said)
    text = trailing_text(said, colon.start()) if colon else trailing_text(said)
    if text is None and TALK_UNSAID.search(said):
        return Step.say(_("要在城市频道说什么？请把要说的话写在冒号后面。"))  # "我想在频道里讲几句"
    if text is None:
        return DECLINE
    if not colon and (place := CHANNEL_PLACE.search(text.value)):
        # "post a message in the city channel", "say hi in the chat": where it is said is none of the words.
        kept = (text.value[: place.start()] + text.value[place.end() :]).strip()
        if not kept or WORDS_UNSAID.fullmatch(kept.strip(" 。.!！")):
            return Step.say(_("要在城市频道说什么？请把要说的话写在冒号后面。"))
        if kept == text.value[: place.start()].strip() or kept == text.value[place.end() :].strip():
            text = replace(text, value=kept, text=kept)
    if WORDS_UNSAID.fullmatch(text.value.strip(" 。.!！")):
        return Step.say(_("要在城市频道说什么？请把要说的话写在冒号后面。"))  # "我要在频道里说句话": the words are not said yet
    done = turn.last("chat")
    if done is not None:
        return Step.say(_result(done))
    return _call("chat", content=text.value)


# Words to say, not said: "说句话", "说几句", "say something", "a few words", "post a message".
WORDS_UNSAID = re.compile(
    r"(?:一)?句话|几句(?:话)?|点(?:儿)?(?:什么|东西|话)|些什么|(?:一|几)?条(?:消息|信息)|(?:a\s+|an\s+)?(?:something|few\s+words|word|anything|message|post|note|announcement)",
    re.IGNORECASE,
)
# Where words are said, at their start or end: "… in the city channel", "在频道里…".
CHANNEL_PLACE = re.compile(
    r"^\s*(?:(?:in|on|to|into)\s+(?:the\s+)?(?:city\s+)?(?:channel|chat)\b|(?:在|往|到)(?:城市)?(?:频道|群)(?:里|上)?)"
    r"|(?:\b(?:in|on|to|into)\s+(?:the\s+)?(?:city\s+)?(?:channel|chat)|(?:在|往|到)(?:城市)?(?:频道|群)(?:里|上)?)\s*[.。!！]?\s*$",
    re.IGNORECASE,
)
TALK_UNSAID = re.compile(
    r"[说讲](?:一|几|两)?句(?:话)?\s*[。.!！]?\s*$|\b(?:say|post|write|announce|put)\s+(?:a\s+few\s+words|something|a\s+message|a\s+post|an?\s+announcement)\b",
    re.IGNORECASE,
)
# Someone else's words in the channel told: "Bob刚在频道里说：“…”", "Carol posted in the chat: …".
SAID_IN_CHANNEL = re.compile(
    r"(?P<who>(?-i:[A-Z][a-z]+)|他们|她们|他|她|有人|别人|大家)\s*(?:刚才|刚刚|刚|昨天|之前|上次|一直|又|早上|今天)?\s*(?:在|往)(?:城市)?(?:频道|群)(?:里|上)?\s*(?:说|喊|发|讲|吼)"
    r"|\b(?P<who_en>he|she|they|someone|(?-i:[A-Z][a-z]+))\s+(?:just\s+)?(?:said|posted|wrote|shouted|yelled)\s+(?:in|on)\s+(?:the\s+)?(?:city\s+)?(?:channel|chat)",
    re.IGNORECASE,
)


# The words right before the kind built: "建个农田", "盖一座采石场", "build a quarry".
BUILT_BEFORE = re.compile(
    r"(?:建|盖|造|修|搞|弄|整|起)(?:造|建)?\s*(?:一|1|个)?\s*(?:[座个间栋])?\s*(?:新的?)?\s*$|\b(?:build|construct|put\s+up)\s+(?:a|an|one|another)?\s*(?:new\s+)?$",
    re.IGNORECASE,
)


@frame(
    "construct_building",
    triggers=("build", "construct", "put up", "建", "盖", "造", "修建", "新建", "建造", "修个", "修一个", "修一座", "修座"),
    slots={"kind": "building_kind"},
    required=("kind",),
    asks={"kind": gettext_lazy("要建哪一种建筑？")},
    priority=2,
)
def construct_frame(turn: Turn, filled: Filled) -> Step:
    """"建个农田，名字叫西郊农田": the kind named outside the new name, the name whole."""
    named = building_name(filled.reading.said)
    # ("本来想再盖座磨坊的，…，那先盖个采石场吧": the kind given up is no kind asked for.)
    given_up = restraint.GIVEN_UP.search(filled.reading.said)
    kinds = [
        s for s in filled.reading.of("building_kind") if (named is None or not s.overlaps(named)) and (given_up is None or s.start >= given_up.end())
    ]
    if not kinds or _about_a_bounty(filled.reading.said) or only_an_aside(turn, filled.reading, "construct_building"):
        return DECLINE
    # ("磨坊的木材还不够，先用手头的木材建个农田吧": the kind right after the building word, not the one the reason names.)
    kinds = [s for s in kinds if BUILT_BEFORE.search(filled.reading.said, 0, s.start)] or kinds
    if named is None and COST_ASKED.search(filled.reading.said):
        return building_costs(turn)
    if named is None:
        return Step.say(_("新建筑叫什么名字？比如「建造 mill 叫 西市磨坊」。"))
    return _once(turn, "construct_building", kind=kinds[0].value, name=named.value)
