"""Chat phrases the rules provider understands for the bounty tools (zh and en).

A bounty is named by its id ("悬赏 #4") or by its title, which the vocabulary turns into
its id; "领取一个悬赏" reads the open board first, claims the one open bounty if there is one, and otherwise asks
which, naming them.
"""

import re
from dataclasses import replace

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from agents.providers import restraint
from agents.providers.rules import DECLINE, Step, Turn, intent, summarize
from agents.providers.vocabulary import vocabulary

from . import selectors
from .models import Bounty

STATUS_WORDS = {
    "进行中": "claimed",
    "已接取": "claimed",
    "被接取": "claimed",
    "已完成": "completed",
    "完成": "completed",
    "已取消": "cancelled",
    "开放": "open",
    "可接": "open",
    "open": "open",
    "available": "open",
    "claimed": "claimed",
    "taken": "claimed",
    "completed": "completed",
    "finished": "completed",
    "done": "completed",
    "cancelled": "cancelled",
    "canceled": "cancelled",
}
BOUNTY = r"(?:悬赏(?:任务)?|任务|bounty|bounties)"
ID = r"(?:number\s+|no\.?\s*|编号\s*)?#?\s*(?P<id>\d+)"
STATUS = r"(?P<status>进行中|已接取|被接取|已完成|已取消|开放|可接|open|available|claimed|taken|completed|finished|done|cancelled|canceled)"


@vocabulary(reads={Bounty: ("title",)})
def bounty_words() -> dict[str, str]:
    """A bounty's title stands for its id: "领取修缮城墙" is "领取 悬赏 #4"."""
    return {title: f" 悬赏 #{pk} " for pk, title in Bounty.objects.values_list("pk", "title")}


def _once(turn: Turn, tool_name: str, **arguments) -> Step | None:
    if turn.last(tool_name) is None:
        return Step.call(tool_name, **arguments)
    return None  # the default summary reports the tool's message


@intent(
    rf"(?:接取|领取|认领|接下|接受|抢|接|领)\s*(?:了)?\s*(?:{BOUNTY}[\s「」“”\"']*)+{ID}",
    rf"{BOUNTY}\s*{ID}\s*(?:我来接|我接了|我要了|给我)",
    rf"把\s*{BOUNTY}\s*{ID}\s*(?:接|领|认领)(?:了|取|下|走)?",
    # A number alone after "take"/"pick up" is no bounty ("pick up 2 apples"): the bounty word or a "#" says it is.
    rf"\b(?:claim|take|grab|accept|pick up|take on)\s+(?:the\s+)?(?:bounty\s+)+(?:悬赏\s*)?{ID}",
    rf"\b(?:claim|take|grab|accept|pick up|take on)\s+(?:the\s+)?(?:bounty\s+)*(?:悬赏\s*)(?:number\s+|no\.?\s*|编号\s*)?#?\s*(?P<id>\d+)",
    r"\b(?:claim|take|grab|accept|pick up|take on)\s+(?:the\s+)?#\s*(?P<id>\d+)(?!\s*[A-Za-z\u4e00-\u9fff])",
    priority=2,
    tool="claim_bounty",
    example=gettext_lazy("接取悬赏 #1"),
)
def claim(turn: Turn, match) -> Step | None:
    return _once(turn, "claim_bounty", bounty_id=int(match["id"]))


def either(rows: list[dict]) -> str:
    """The bounties a question offers to choose from, at most four: 「#4 修缮城墙」还是「#3 …」."""
    return _("还是").join(f"「#{row['bounty_id']} {row['title']}」" for row in rows[:4])


@intent(
    rf"(?:接取|领取|认领|接下|接|领)\s*(?:1\s*个|个|一下)?\s*{BOUNTY}(?!\s*#?\s*\d)",
    r"\b(?:claim|take|grab|pick up|take on)\s+(?:a|an|1|any|some|the\s+first|one)\s+(?:open\s+)?bounty\b",
    r"\b(?:claim|take|grab)\s+(?:a|an|1|any)?\s*bounty\s*$",
    priority=1,
    tool="claim_bounty",
    example=gettext_lazy("领取一个悬赏"),
)
def claim_any(turn: Turn, match) -> Step | None:
    if (done := turn.last("claim_bounty")) is not None:
        return Step.say(summarize(Turn(text=turn.text, offered=turn.offered, outcomes=[done])))
    listed = turn.last("list_bounties")
    if listed is None:
        return Step.call("list_bounties", status="open")
    if not listed.ok:
        return None
    bounties = listed.data.get("bounties", [])
    if not bounties:
        return Step.say(_("目前没有开放的悬赏可以接取。"))
    if len(bounties) == 1:
        return Step.call("claim_bounty", bounty_id=bounties[0]["bounty_id"])
    # "接个悬赏，就那个建造磨坊的": the one the rest of the message names.
    named = {span.value for span in read(turn.said).of("bounty") if span.score >= 0.9} & {row["bounty_id"] for row in bounties}
    if len(named) == 1:
        return Step.call("claim_bounty", bounty_id=named.pop())
    # A write never picks what the message does not name: with several open, ask which, naming them.
    return Step.say(_("要接哪一个悬赏？%(names)s") % {"names": either(bounties)})


@intent(
    rf"(?:完成|交付|提交)\s*(?:了)?\s*(?:{BOUNTY}\s*)+{ID}",
    rf"{BOUNTY}\s*{ID}\s*(?:已经|已)?(?:完成|做完|搞定)了?\s*$",
    rf"\b(?:complete|finish|finished|completed|submit|turn in|mark)\s+(?:the\s+)?(?:bounty\s+)+{ID}",
    rf"\bbounty\s+{ID}\s+(?:is\s+)?(?:done|complete|completed|finished)\b",
    rf"\bi\s+(?:have\s+|'ve\s+)?(?:finished|completed|done)\s+(?:the\s+)?(?:bounty\s+)+{ID}",
    priority=2,
    tool="complete_bounty",
    example=gettext_lazy("完成悬赏 #1"),
)
def complete(turn: Turn, match) -> Step | None:
    return _once(turn, "complete_bounty", bounty_id=int(match["id"]))


@intent(
    rf"(?:有哪些|有什么|有没有|列出|查看|看看|显示|看一下|查一下|查查|查下|所有)(?:的)?(?:已经(?:完成|被接|被人接|接)了?)?{STATUS}?的?{BOUNTY}",
    rf"{STATUS}?的?{BOUNTY}(?:列表|任务板|板|有哪些|有什么)",
    r"悬赏(?:任务)?板|任务板",
    rf"\b(?:list|show|see|view|display|get)(?:\s+me)?(?:\s+all)?(?:\s+of)?(?:\s+the)?(?:\s+{STATUS})?\s+bount(?:y|ies)\b",
    rf"\b(?:what|which|any)(?:\s+{STATUS})?\s+bounties\b",
    rf"\b{STATUS}\s+bounties\b",
    r"\bbounty\s+board\b",
    tool="list_bounties",
    example=gettext_lazy("有哪些悬赏"),
)
def list_board(turn: Turn, match) -> Step | None:
    word = (match.groupdict().get("status") or "").lower()
    if not word and (anywhere := re.search(STATUS, turn.plain, re.IGNORECASE)):
        word = anywhere["status"].lower()  # "which bounties are already taken?": the status after the noun
    status = STATUS_WORDS.get(word) or board_status(turn.said or turn.plain)
    return _once(turn, "list_bounties", **board_arguments(turn.said or turn.plain, status))


@intent(
    # "and which ones are done already?", "the completed ones?", "那已经完成的有哪些" after the board: the board in that state.
    r"^\s*(?:and|so|ok|okay|what\s+about)?[\s,]*(?:which|what)\s+ones?\b",
    r"^\s*(?:and|so|ok|okay|what\s+about)?[\s,]*the\s+(?:\w+\s+){0,2}ones?\s*[?？]?\s*$",
    r"^\s*(?:那|那么)?(?:已经|已)?(?:完成|做完|被接|接了|取消|开放)(?:了)?的(?:呢|有哪些|是哪些)",
    tool="list_bounties",
)
def list_board_again(turn: Turn, match) -> Step | None:
    said = turn.said.split("\n", 1)[0]
    if not about_bounties_before(turn) or not (COMPLETED_SAID.search(said) or CLAIMED_SAID.search(said) or CANCELLED_SAID.search(said)):
        return DECLINE
    return _once(turn, "list_bounties", **board_arguments(said, board_status(said)))


# How people say a bounty's state when they ask for a list: "被人接了", "已经做完的", "someone took".
CLAIMED_SAID = re.compile(
    r"接了|接走|被人?接|有人接|已经?接|领走|被人?领|有人领|认领了|抢走|被抢|\b(?:claimed|taken|took|grabbed|picked\s+up|in\s+progress)\b", re.IGNORECASE
)
COMPLETED_SAID = re.compile(r"完成|做完|搞定|交付了|\b(?:completed|finished|done)\b", re.IGNORECASE)
CANCELLED_SAID = re.compile(r"取消|撤销|\b(?:cancell?ed|withdrawn)\b", re.IGNORECASE)
# "我自己接了哪些", "my bounties", "which ones did I claim": the speaker's own claims.
MINE_SAID = re.compile(
    r"我自己|我(?:之前|以前|已经|刚才|上次|都|先前|现在|目前)?(?:接|领|认领)|我的悬赏|我的任务|\b(?:my|mine)\b|\bi(?:\s+have\s+|['’]ve\s+|\s+)(?:claimed|taken|took|picked)|\bdid\s+i\s+(?:claim|take|sign\s+up\s+for|grab|pick)|我报名的|我报了"
    # Staff asking the resident agent: "which bounties you've claimed", "your bounties" are the agent's own.
    r"|\byou(?:'ve|\s+have)?\s+(?:currently\s+|already\s+)?(?:claimed|taken|took|picked\s+up)\b|\byour\s+(?:bounties|claims)\b"
    # "what bounty am I on right now?", "我现在在做哪个悬赏": the one the speaker is working.
    r"|\b(?:am\s+i|i'?m)\s+(?:currently\s+)?(?:on|doing|working\s+on)\b|我(?:现在|目前)?(?:在做|正在做|手上)",
    re.IGNORECASE,
)
# A question for a list of bounties, not an order to claim or complete one.
LISTING_SAID = re.compile(
    r"(?:查一下|查查|查下|看一下|看看|看下)[^，,。!！?？]{0,8}的(?:悬赏|任务)|哪些|哪几个|是哪个|是哪一个|哪个(?:悬赏|任务)|有没有.{0,8}(?:悬赏|任务)|(?:悬赏|任务).{0,6}(?:啥|什么|怎么样)?(?:状态|进度|情况)|什么悬赏|多少个?悬赏|列出|列表|(?:啥|什么)(?:样的)?(?:悬赏|任务)|(?:悬赏|任务).{0,8}(?:可以|能)接"
    # "did I take a bounty yesterday?": the speaker's claims, asked about.
    r"|\b(?:did|have|had)\s+i\s+(?:\w+\s+){0,2}?(?:claim|take|took|grab|pick|get|got)\w*\s+(?:(?:a|any|the|one|some)\s+)?bount|"
    r"\b(?:which|what|any|list|show)\b.{0,20}\bbount|\bbount(?:y|ies)\b.{0,40}\b(?:show|list)\s+(?:me\s+)?(?:the\s+|those\s+)?\w*\s*ones\b|\bbount(?:y|ies)\b.{0,20}\b(?:available|open|can\s+i|could\s+i)\b",
    re.IGNORECASE,
)


def asks_for_list(turn: Turn) -> bool:
    """This message asks for a list (a follow-up's reading appends the earlier message after a newline)."""
    # "is the wall one still open? if so, take it": the question is the claim's condition, no list asked for.
    return bool(LISTING_SAID.search(restraint.unless_gone(turn.said.split("\n", 1)[0])))


def board_status(said: str) -> str:
    for status, words in (("cancelled", CANCELLED_SAID), ("completed", COMPLETED_SAID), ("claimed", CLAIMED_SAID)):
        if words.search(said):
            return status
    return "open"


def board_arguments(said: str, status: str) -> dict:
    if MINE_SAID.search(said):
        return {"status": "claimed" if status == "open" else status, "mine": True}
    return {"status": status}


# ---------------------------------------------------------------------------- frames

from agents.providers.frames import Filled, frame, ordinal  # noqa: E402
from agents.providers.understanding import Entity, entities, read  # noqa: E402

CLAIM_WORDS = (
    "claim", "take", "grab", "accept", "pick up", "pick", "choose", "go with", "sign me up", "sign up", "put me down", "i'll do",
    "接", "领", "认领", "抢", "我要", "要这个", "选", "报名", "我来做", "我来干", "我来",
)
BOUNTY_WORDS = ("bounty", "bounties", "job", "task", "悬赏", "任务")


@entities(reads={Bounty: ("title",)})
def bounty_entities() -> list[Entity]:
    """Bounty titles; part of one ("城墙" for 修缮城墙) may stand for it."""
    found = []
    for pk, title in Bounty.objects.values_list("pk", "title"):
        found.append(Entity("bounty", title, pk, title, partial=True))
        # "3号悬赏", "悬赏#3", "bounty 3", "bounty no. 3": the id with its label, exact.
        found += [
            Entity("bounty", surface, pk, title)
            for surface in (
                f"{pk}号悬赏", f"{pk}号任务", f"悬赏{pk}", f"悬赏 {pk}", f"悬赏#{pk}", f"悬赏 #{pk}", f"bounty {pk}", f"bounty #{pk}",
                f"bounty no. {pk}", f"bounty number {pk}", f"#{pk} bounty", f"bounty no {pk}",
            )
        ]
    return found


def _pick(turn: Turn, filled: Filled, tool: str, status: str) -> Step | None:
    """The bounty the message names, or the n-th of the board ("the second one"), or a question naming them."""
    if (done := turn.last(tool)) is not None:
        return Step.say(summarize(Turn(text=turn.text, offered=turn.offered, outcomes=[done])))
    if "bounty_id" in filled.slots and not filled.unsure:
        return Step.call(tool, bounty_id=filled.value("bounty_id"))
    listed = turn.last("list_bounties")
    if listed is None:
        # Completing: only the speaker's own claims are candidates (a model knows no ids; the tool does).
        return Step.call("list_bounties", status=status, mine=True) if status == "claimed" else Step.call("list_bounties", status=status)
    rows = listed.data.get("bounties", []) if listed.ok else []
    said = filled.reading.said.split("\n", 1)[0]
    described = described_bounties(said, rows)
    if not described and about_bounties_before(turn) and POINTING.search(said):
        described = described_bounties(turn.earlier, rows)  # "yes, claim it" after "is the wall repair bounty open?"
    if len(described) == 1 and LOOSELY.search(said):
        # "跟磨坊有关的那个", "the one to do with the mill": what a bounty is about, its description too; another
        # whose description names it as well is asked about, not passed over for the title.
        described = described_bounties(said, rows, about=True)
    if len(described) > 1 and (instead := list(INSTEAD.finditer(said))):
        # "送面粉那个悬赏……算了…，还是接建磨坊那个吧": the one named after the change of mind.
        described = described_bounties(said[instead[-1].start() :], rows) or described
    if len(described) == 1:
        return Step.call(tool, bounty_id=described[0]["bounty_id"])
    if len(described) > 1:
        return Step.say(_("是哪一个悬赏？%(names)s") % {"names": either(described)})
    unfinished = selectors.unfinished_bounties() if status == "claimed" else []
    if status == "claimed" and (elsewhere := described_bounties(said, unfinished) or _described_before(turn, unfinished)):
        # "mark the flour delivery done" when it is not among my claims: the board that holds it, then the tool says why not.
        if len(outcomes := [o for o in turn.outcomes if o.name == "list_bounties"]) < 2:
            return Step.call("list_bounties", status=elsewhere[0]["status"])
        rows = [row for row in (outcomes[-1].data or {}).get("bounties", []) if row["bounty_id"] == elsewhere[0]["bounty_id"]]
        if len(elsewhere) == 1 and rows:
            return Step.call(tool, bounty_id=rows[0]["bounty_id"])
    if not rows:
        return Step.say(_("目前没有可以操作的悬赏。"))
    index = ordinal(filled.reading.said)
    if index is not None and -len(rows) <= index < len(rows):
        return Step.call(tool, bounty_id=rows[index]["bounty_id"])
    if status == "claimed" and len(rows) == 1:
        # "交任务": a resident holds one claimed bounty at a time, so its only claim is "the" bounty.
        return Step.call(tool, bounty_id=rows[0]["bounty_id"])
    return Step.say(_("是哪一个悬赏？%(names)s") % {"names": either(rows)})


INSTEAD = re.compile(r"还是|换成|改成|\binstead\b|\brather\b", re.IGNORECASE)
# A bounty named by what it has to do with, not by its title.
LOOSELY = re.compile(
    r"有关|相关|关于|涉及|\b(?:related\s+to|to\s+do\s+with|about|involving|concerning|connected\s+(?:to|with))\b", re.IGNORECASE
)


def _described_before(turn: Turn, rows: list[dict]) -> list[dict]:
    """The one bounty of ``rows`` the conversation's earlier messages describe ("I claimed the wall repair job
    yesterday" … "so mark it as done please"), [] when none or several."""
    for message in (turn.earlier, *turn.history):
        if message and len(described := described_bounties(message, rows)) == 1:
            return described
    return []


# English words for the work a bounty's (Chinese) title names: "the wall repair bounty" is 修缮城墙. Resources and
# kinds of building need none: the lexicon knows both names ("flour" is 面粉, "mill" 磨坊).
WORK_WORDS = {
    "repair": "修", "fix": "修", "mend": "修", "restore": "修", "wall": "墙", "road": "路", "bridge": "桥", "well": "井",
    "collect": "收集", "gather": "收集", "harvest": "收集", "deliver": "送", "delivery": "送", "bring": "送", "carry": "送",
    "build": "建", "construct": "建", "building": "建", "clean": "清", "guard": "守", "plant": "种", "farm": "种",
}
# Words that say nothing about which bounty: the bounty itself, pointers, verbs of taking one.
FUNCTION_CHARS = set("的了我你他她它来给为把在是和与个那这一接领要帮吧呢吗也就都还去")
NOT_DESCRIBING = {"悬赏", "任务", "那个", "这个", "一下", "帮我", "我来", "领了", "接了", "完成", "提交", "已经", "好了"}


def _concepts(text: str) -> dict[str, float]:
    """What a text is about, as comparable pieces with a weight: the resources and kinds of building it
    names (in either language), its Chinese words, and the English work words glossed."""
    from agents.providers.understanding import exact_names, fold, lemma, lexicon, numbers, tokens

    folded = fold(text)
    # A title is read for what it names, never as the bounty it is.
    spans = exact_names(folded, [e for e in lexicon() if e.kind in ("resource", "building_kind")]) + numbers(folded)
    found: dict[str, float] = {}
    taken = []
    for span in spans:
        if span.kind in ("resource", "building_kind"):
            found[f"{span.kind}:{span.value}"] = 2.0
            taken.append((span.start, span.end))
        elif span.kind == "number" and span.value is not None and re.fullmatch(r"\d+", span.text):
            found[f"n:{span.value}"] = 1.0
    for token in tokens(folded):
        if any(a <= token.start < b for a, b in taken):
            continue
        word = token.text
        if re.fullmatch(r"[\u4e00-\u9fff]+", word):
            if word not in NOT_DESCRIBING:
                for char in set(word) - FUNCTION_CHARS:  # 修缮城墙 and 修城墙 share 修 and 墙
                    found[f"c:{char}"] = max(found.get(f"c:{char}", 0.0), 0.5)
        elif gloss := WORK_WORDS.get(lemma(word)):
            for char in gloss:
                found[f"c:{char}"] = max(found.get(f"c:{char}", 0.0), 0.5)
    return found


def described_bounties(said: str, rows: list[dict], *, about: bool = False) -> list[dict]:
    """The rows whose title (``about``: title or description) the words describe best ("收集小麦的悬赏", "the
    bounty for building the mill"): one, several tied (to ask about), or none when the words describe nothing."""
    if not rows:
        return []
    wanted = _concepts(said)
    scores = []
    for row in rows:
        title = _concepts(f"{row['title']} {row.get('description') or ''}" if about else row["title"])
        scores.append((sum(min(weight, title[key]) for key, weight in wanted.items() if key in title), row))
    best = max(score for score, _row in scores)
    if best < 1.0:
        return []
    return [row for score, row in scores if score >= best - 0.25]


BOUNTY_TOOLS = {"list_bounties", "claim_bounty", "complete_bounty"}
# "claim it", "就这个": a word pointing back at what the last turn was about.
# ("the one about the mill", "the flour delivery one" after a list: pointed at by what it is.)
POINTING = re.compile(r"\b(?:it|that\s+one|this\s+one|that|this|the\s+(?:[\w'-]+\s+){0,5}?one)\b|这个|那个|它|这一个|那一个", re.IGNORECASE)


def about_bounties_before(turn: Turn) -> bool:
    """The last turn was about bounties ("Is the wall repair bounty still open?", "接修缮城墙的悬赏")."""
    earlier = turn.earlier if turn.earlier != turn.said else ""
    # "claim the 100 wheat bounty" → "thx. i'll go collect" → "report it done": a turn that did nothing passes it on.
    told = [earlier, *(turn.history[:1] if not turn.earlier_calls else ())]
    return any(re.search(r"悬赏|任务|\bbount(?:y|ies)\b", message, re.IGNORECASE) for message in told) or any(
        name in BOUNTY_TOOLS for name, _arguments in turn.earlier_calls
    )


def a_job_at_a_building(filled: Filled) -> bool:
    """"grab the bakery job": "job" is the only word for a bounty, a building is named and no work is
    described ("the mill-building job" is 建造磨坊's), so it is a job at that building, not a bounty."""
    from agents.providers.understanding import lemma

    reading = filled.reading
    if "bounty_id" in filled.slots or reading.has(*(word for word in BOUNTY_WORDS if word != "job")):
        return False
    places = reading.of("building") + reading.of("building_kind")
    if not places:
        return False
    # ("the East Farm (城东农田) — take that job": the building's own words describe no work.)
    return not any(
        lemma(token.text) in WORK_WORDS for token in reading.tokens if not any(p.start <= token.start and token.end <= p.end for p in places)
    )


@frame(
    "claim_bounty", triggers=CLAIM_WORDS, required=(),
    # "…, report it as done so i can get paid": a completion, however "finished" was typed.
    not_with=("complete", "finish", "完成", "做完", "as done", "it done", "it's done", "its done", "mark it done"), priority=2,
)
def claim_frame(turn: Turn, filled: Filled) -> Step | None:
    said = filled.reading.said.split("\n", 1)[0]
    pointing = about_bounties_before(turn) and POINTING.search(said)
    if not filled.reading.has(*BOUNTY_WORDS) and "bounty_id" not in filled.slots and not pointing:
        return DECLINE
    if a_job_at_a_building(filled):
        return DECLINE  # "take the mill job": work at the mill (assign_building), not the bounty 建造磨坊
    if restraint.CHOOSES_THEMSELVES.search(said) and "bounty_id" not in filled.slots and not pointing:
        # "get me a job, let me know the options first and I'll choose": the options asked for, none taken; a job is a
        # building's (the work frames), bounties are shown.
        return _once(turn, "list_bounties", status="open") if filled.reading.has(*(w for w in BOUNTY_WORDS if w != "job")) else DECLINE
    if asks_for_list(turn):
        # "which bounties has someone claimed?", "我之前接过哪些悬赏": the board, not a claim (nor one reported as done)
        listed = list_frame(turn, filled)
        return replace(listed, toward="list_bounties") if listed is not None and listed is not DECLINE else listed
    return _pick(turn, filled, "claim_bounty", "open")


claim_frame.asks_itself = True
# "took me forever", "took us ages": how long the work was, no taking of a bounty.
claim_frame.unsaid = re.compile(
    r"\btook\s+(?:me|us|him|her|them)\s+(?:forever|ages|a\s+while|so\s+long|long|all\s+day|hours|days|a\s+long\s+time|a\s+week)\b",
    re.IGNORECASE,
)


# "帮我报个完成，可以让员工来确认了", "mark it done for staff to check": a completion reported for staff to confirm is
# the claimed bounty's (what else of a resident's does staff confirm).
FOR_STAFF_TO_CONFIRM = re.compile(
    r"报(?:个|一下|下)?完成|提交完成|申请完成|(?:让|请|等)员工(?:来)?(?:确认|审核|验收)"
    r"|\bmark\s+(?:it|mine)\s+(?:as\s+)?(?:done|complete[d]?)\b|\bfor\s+(?:the\s+)?staff\s+to\s+(?:confirm|check|approve|sign\s+off)\b",
    re.IGNORECASE,
)


@frame(
    "complete_bounty",
    triggers=("complete", "finish", "done", "submit", "完成", "做完", "交付", "搞定", "交任务", "修好", "交了"),
    required=(),
    priority=2,
)
def complete_frame(turn: Turn, filled: Filled) -> Step | None:
    if filled.reading.has("已完成的", "list", "show", "看看", "查看", "有哪些", "which", "what") or asks_for_list(turn):
        return DECLINE  # the board of completed bounties, not a completion
    if DONE_WITH_WORK.search(filled.reading.said) and not filled.reading.has("bounty", "bounties", "悬赏", "任务"):
        return DECLINE  # "I quit. I'm done with the mill": the job left, no bounty finished
    if (
        not filled.reading.has(*BOUNTY_WORDS) and "bounty_id" not in filled.slots and not about_bounties_before(turn)
        and not FOR_STAFF_TO_CONFIRM.search(turn.said)
    ):
        return DECLINE  # "搞定了，提交吧" right after claiming one: a resident holds one claim, that one
    return _pick(turn, filled, "complete_bounty", "claimed")


complete_frame.asks_itself = True


# "I'm done with the mill", "sick and done with this job": a workplace left, not work delivered.
DONE_WITH_WORK = re.compile(
    r"\b(?:done|finished|through)\s+(?:with|at)\s+(?:the\s+|my\s+|this\s+|that\s+)?(?:mill|farm|bakery|lumberyard|sawmill|quarry|job|work|place)\b"
    r"|\bi\s+quit\b|\bquit\s+(?:the\s+|my\s+|this\s+|that\s+)?(?:\w+\s+)?job\b|辞职|辞掉|不干了",
    re.IGNORECASE,
)


@frame("list_bounties", triggers=BOUNTY_WORDS, required=(), priority=1)
def list_frame(turn: Turn, filled: Filled) -> Step | None:
    """"已经完成的悬赏有哪些", "any bounties someone already claimed?": the board in the state asked for."""
    said = turn.said.split("\n", 1)[0]
    if not asks_for_list(turn):
        return DECLINE
    return _once(turn, "list_bounties", **board_arguments(said, board_status(said)))
