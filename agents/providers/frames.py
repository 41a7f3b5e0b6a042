"""Frames: what each tool needs, read from its schema, and the words that ask for it.

A domain app declares, beside its tools (in its ``intents.py``), one ``@frame`` per way of
asking for a tool: a short list of trigger words in both languages and, where the schema's
argument names do not say it, the kind of span that fills each argument. The schema gives
the rest: which arguments exist and which are required.

``choose`` is the one place that decides, from the scores the pipeline passed on:

* act: a frame's trigger is in the message and every required slot is filled by a span of
  the user's words (or an entity resolved from one) that is sure enough;
* ask back: a slot is missing, or two entities fit the same words, or a fuzzy match is
  below ``SURE``;
* decline (``None``): no frame's trigger is in the message.

``provenance`` checks the result: every argument of a write is a span of the user's words,
an entity resolved from one, or a row a look-up of this turn returned for one. The corpus
test runs it over every write the chat makes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from django.utils.translation import gettext as _

from ..registry import registry
from . import restraint
from .understanding import Reading, Span, fold

# A fuzzy entity at or above this is taken; below it the frame asks "did you mean …?".
SURE = 0.85

# What an argument's name says about the span that fills it (a frame may say otherwise).
SLOT_KINDS = {
    "to_agent_id": "resident",
    "name": "text",
    "resource_type": "resource",
    "quantity": "number",
    "fund_id": "fund",
    "bounty_id": "bounty",
    "order_no": "order",
    "item_id": "item",
    "building_id": "building",
    "order_id": "number",
    "price": "number",
    "content": "text",
    "remarks": "text",
    "fund_name": "text",
    "kind": "building_kind",
}


@dataclass
class Filled:
    """The slots of one frame as this message fills them."""

    frame: Frame
    reading: Reading
    slots: dict[str, Span] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    # (slot, span) whose words fit several entities, or a fuzzy one not sure enough.
    unsure: list[tuple[str, Span]] = field(default_factory=list)
    # The count slot the words fill with "all of it" ("give Eve all my apples"): the handler looks it up.
    whole: str = ""

    def value(self, slot: str, default: Any = None) -> Any:
        span = self.slots.get(slot)
        return span.value if span is not None else default


Handler = Callable[[Any, Filled], Any]  # (Turn, Filled) -> Step | None


@dataclass(frozen=True)
class Frame:
    name: str
    tool: str
    triggers: tuple[str, ...]
    handler: Handler
    slots: dict[str, str]
    required: tuple[str, ...]
    priority: int = 0
    # Words that, present, mean this frame is not the one ("from the shop" is not a transfer).
    not_with: tuple[str, ...] = ()
    # The question for each required slot a message leaves out (gettext_lazy strings).
    asks: dict = field(default_factory=dict)
    # A count slot that "all of it" may fill ("把我的面包全给Bob"): the handler reads the stock for it.
    whole: str = ""

    @property
    def words(self) -> list[str]:
        return [t for t in self.triggers if not t.startswith("@")]

    def triggered(self, reading: Reading) -> bool:
        """A trigger word in the message ("@order": a span of that kind), and no word that rules it out
        (a clause that only reports what was done, "sold 3 wood yesterday, now give Eve 2 bread", rules nothing out)."""
        words = self.words
        spans = any(reading.of(t[1:]) for t in self.triggers if t.startswith("@"))
        head = _head(reading)
        if (unsaid := getattr(self.handler, "unsaid", None)) is not None:
            # Words that look like a trigger, or a word that rules one out, and are neither ("compliance signed off"
            # switches nothing off).
            reading, head = (sub_reading(r, 0, len(r.said), unsaid.sub(lambda found: " " * len(found.group()), r.said)) for r in (reading, head))
        # "message the supplier: can we refund …?": after a verb of saying and a colon, the words
        # are the message, and no trigger of another tool.
        said = head if head is not reading and SAYING_HEAD.search(head.folded) else reading
        if not (spans or said.has(*words)):
            return False
        if not self.not_with:
            return True
        if not head.has(*self.not_with):
            return True
        reports = [(a, b) for a, b in clauses(head.said) if tells_what_was_done(head.said[a:b]) and not sub_reading(head, a, b).has(*words)]
        if not reports or len(reports) == len(clauses(head.said)):
            return False
        kept = "".join(" " if any(a <= i < b for a, b in reports) else char for i, char in enumerate(head.said))
        return not sub_reading(head, 0, len(kept), kept).has(*self.not_with) and sub_reading(head, 0, len(kept), kept).has(*words)


# Where one clause of a message ends: punctuation, or a word that starts another ("…, so transfer",
# "…所以给他"). A write's count is read in its own clause.
CLAUSE_MARK = re.compile(
    r"[,，。;；!！?？\n]|(?<!\d)\.(?!\d)|\s(?:so|then|now|but|and\s+then)\s|所以|然后|但是|不过|现在",
    re.IGNORECASE,
)
# A dash too: "disable it — we can't keep it listed" says why after it (where a no stands, not what "him" names).
CLAUSE_OR_DASH = re.compile(CLAUSE_MARK.pattern + r"|\s[—–-]{1,2}\s|[—–]{1,2}", re.IGNORECASE)
# A clause that tells what was done ("我刚收了一筐苹果", "sold 3 wood yesterday"), not what to do.
REPORTED = re.compile(
    r"[了过](?![吧吗])|昨天|前天|刚才|刚刚|上次|之前|已经"
    r"|\b(?:yesterday|earlier|already|last\s+(?:week|night|time)|ago)\b"
    r"|\b(?:i|we|he|she|they)\s+(?:just\s+)?(?:sold|bought|got|made|gave|took|ate|sent|paid|received|picked|collected|harvested|earned|had)\b"
    r"|^\s*(?:just\s+)?(?:sold|bought|got|made|gave|took|ate|sent|paid|received|picked|collected|harvested|earned)\b",
    re.IGNORECASE,
)
# A clause that asks for something is no report, whatever its tense ("给他转了吧" is rare; "帮我" is not).
ASKING = re.compile(r"帮我|请|麻烦|吧|\b(?:please|can\s+you|could\s+you|would\s+you)\b", re.IGNORECASE)


def clauses(said: str, marks: re.Pattern = CLAUSE_MARK) -> list[tuple[int, int]]:
    """(start, end) of each clause of ``said``."""
    out, start = [], 0
    for mark in marks.finditer(said):
        if mark.start() > start:
            out.append((start, mark.start()))
        start = mark.end()
    if start < len(said):
        out.append((start, len(said)))
    return [(a, b) for a, b in out if said[a:b].strip()]


def asked_in_another_clause(reading: Reading, offered: set[str], tool: str, reason: tuple[str, ...]) -> bool:
    """Another clause, free of the ``reason`` words, asks for another of the offered writes
    ("农田的活太累了，辞了吧": the tiredness is why, quitting is what is asked): the reason
    triggers nothing of its own."""
    others = [w for f in _frames if f.tool in offered and f.tool != tool and is_write(f.tool) for w in f.words]
    bounds = clauses(reading.said, CLAUSE_OR_DASH)  # "your satiety's at 55 — have an apple": after a dash, another clause
    return len(bounds) > 1 and any(
        not sub_reading(reading, a, b).has(*reason) and sub_reading(reading, a, b).has(*others) for a, b in bounds
    )


# "he", "她": someone the sentence talks about, not the speaker.
THIRD_PERSON = re.compile(r"\b(?:he|she|they|him|her|his)\b|他|她", re.IGNORECASE)


def someone_elses_state(reading: Reading, speaker: str, states: tuple[str, ...]) -> bool:
    """Each state word ("hungry", "饿", "tired", "累") is said of someone else: another resident or a he/she
    stands before it in its clause ("Eve's been hungry all day, poor thing"). Their hunger asks the speaker
    to eat nothing."""
    said, folded = reading.said, reading.said.casefold()
    others = [s.start for s in reading.of("resident") if s.name.casefold() != speaker.casefold()]
    found = False
    for a, b in clauses(said):
        for state in states:
            pattern = rf"\b{re.escape(state)}" if state.isascii() else re.escape(state)
            for hit in re.finditer(pattern, folded[a:b]):
                found = True
                at = a + hit.start()
                if not (any(a <= o < at for o in others) or THIRD_PERSON.search(said[a:at])):
                    return False
    return found


def tells_what_was_done(clause: str) -> bool:
    return bool(REPORTED.search(clause)) and not ASKING.search(clause)


def sub_reading(reading: Reading, start: int, end: int, text: str | None = None) -> Reading:
    """The words of ``reading`` from ``start`` to ``end`` (or ``text`` in their place), for a word test only."""
    from .understanding import tokens

    piece = text if text is not None else reading.said[start:end]
    return Reading(piece, fold(piece), tokens(fold(piece)))


def action_clause(frame_: Frame, reading: Reading) -> tuple[int, int] | None:
    """The clause that asks for ``frame_``'s tool: the last one holding one of its trigger words; None
    when the message is one clause or no clause alone holds a trigger."""
    bounds = clauses(reading.said)
    if len(bounds) < 2:
        return None
    words = frame_.words
    holding = [(a, b) for a, b in bounds if sub_reading(reading, a, b).has(*words)]
    # "买俩苹果，…，别买面包哈": a clause that says no to the deed is not where its goods are named.
    meant = [(a, b) for a, b in holding if not NOT_THIS.match(reading.said[a:b])] or holding
    return meant[-1] if meant else None


# A clause that opens with a no to the deed it names ("别买面包哈", "don't buy bread").
NOT_THIS = re.compile(r"\s*(?:但是?|可|也)?(?:先|千万|可)?(?:别|不要|甭|不用)|\s*(?:but\s+)?(?:don'?t|do\s+not|never|no)\b", re.IGNORECASE)


def _counts_for(frame_: Frame, reading: Reading) -> list[Span]:
    """The counts a write may take: those of its own clause when it has one; otherwise every count
    outside the clauses that report what was done ("我刚收了一筐苹果，送给Eve吧" names no count)."""
    numbers = [s for s in reading.of("number")]
    action = action_clause(frame_, reading)
    if action is None:
        return numbers
    a, b = action
    inside = [s for s in numbers if a <= s.start and s.end <= b and s.value is not None]
    if inside:
        return inside
    reported = [(x, y) for x, y in clauses(reading.said) if (x, y) != action and tells_what_was_done(reading.said[x:y])]
    # ("你跟戴夫昨天谈好的那三块石料，现在给他转过去吧": the goods pointed at in the report are what the write moves.)
    return [s for s in numbers if not any(x <= s.start < y for x, y in reported) or POINTED_COUNT.search(reading.said, 0, s.start)]


# A count the words before point at as the goods spoken of: "那三块石料", "those 3 stone".
POINTED_COUNT = re.compile(r"(?:[那这]|\b(?:those|these))\s*$", re.IGNORECASE)


SAYING_HEAD = re.compile(
    r"说|告诉|通知|转告|提醒|留言|发消息|发个消息|发条消息|广播|喊|发言"
    r"|\b(?:tell|message|notify|inform|let\s+\w+\s+know|say|write\s+to|send|remind|post|announce|broadcast|shout)\b"
)


def _head(reading: Reading) -> Reading:
    """The message up to its first colon: what follows ("跟供应商说：…请尽快回复") is text to pass
    on, whose words say nothing about which tool is wanted."""
    from .understanding import tokens

    colon = re.search(r"[:：]", reading.said)
    if colon is None:
        return reading
    if restraint.notice_to_agent(reading.said, colon):
        return reading  # "Frank，城管办通知：…请你现在上班打卡": a notice to the agent, whose words are the request
    head = reading.said[: colon.end()]
    return Reading(head, fold(head), tokens(fold(head)))


_frames: list[Frame] = []


def frame(
    tool: str,
    *,
    triggers: tuple[str, ...] | list[str],
    slots: dict[str, str] | None = None,
    required: tuple[str, ...] | None = None,
    priority: int = 0,
    not_with: tuple[str, ...] = (),
    asks: dict | None = None,
    whole: str = "",
) -> Callable[[Handler], Handler]:
    """Register a frame for ``tool``: its slots come from the tool's schema unless given."""

    def decorator(handler: Handler) -> Handler:
        name = f"{handler.__module__}.{handler.__qualname__}"
        spec = registry.get(tool)
        schema = spec.input_schema if spec is not None else {"properties": {}, "required": []}
        kinds = {arg: SLOT_KINDS.get(arg, "text") for arg in schema.get("properties", {})}
        kinds.update(slots or {})
        needed = tuple(schema.get("required", ())) if required is None else required
        _frames[:] = [f for f in _frames if f.name != name]
        _frames.append(Frame(name, tool, tuple(triggers), handler, kinds, needed, priority, tuple(not_with), asks or {}, whole))
        _frames.sort(key=lambda f: -f.priority)
        return handler

    return decorator


def registered_frames() -> list[Frame]:
    return list(_frames)


def fill(frame_: Frame, reading: Reading) -> Filled:
    """Each slot from the first span of its kind; entity slots note a tie or an unsure guess."""
    filled = Filled(frame_, reading)
    used: list[Span] = []
    count_slots = [slot for slot, kind in frame_.slots.items() if kind == "number"]
    # Only for a write taking one count (a transfer, a purchase): a listing's count and price, or a
    # number that picks a thing ("the one for 15"), are read by their frames.
    one_count = len(count_slots) == 1 and _numbers_taken(frame_.tool) == 1 and is_write(frame_.tool)
    # A write's count comes from its own clause ("我刚收了一筐苹果，送三个给Eve吧" gives three); two
    # different counts there can't say which is meant: it asks, as for a count that is missing.
    numbers = _counts_for(frame_, reading) if one_count else reading.of("number")
    if frame_.whole and (whole := WHOLE.search(reading.folded)):
        numbers = [s for s in numbers if not (whole.start() <= s.start < whole.end())]  # "every last one" counts no one
    # "十二块石料拿一半出来", "half my flour": a share of a count, so no number said is the count.
    unclear_count = one_count and (len({s.value for s in numbers if s.value is not None}) > 1 or bool(SHARE.search(reading.folded)))
    action = action_clause(frame_, reading)

    def ranked(kind: str) -> list[Span]:
        spans = numbers if kind == "number" else reading.of(kind)
        if action is None or kind == "number":
            return spans
        a, b = action  # the action's own clause first ("sold wood yesterday, now give Eve bread": bread)
        return sorted(spans, key=lambda s: not (a <= s.start and s.end <= b))

    for slot, kind in frame_.slots.items():
        if kind == "text":
            continue  # free text is the handler's: where it starts depends on the frame's words
        if kind == "number" and unclear_count:
            filled.missing.append(slot)
            continue
        # A count the words leave open ("几个", "a few") has no value: the slot stays missing.
        span = next((s for s in ranked(kind) if all(s is not u for u in used) and s.value is not None), None)
        if span is None:
            if slot == frame_.whole and WHOLE.search(reading.folded):
                filled.whole = slot  # "all my apples": as many as there are
            elif slot in frame_.required:
                filled.missing.append(slot)
            continue
        if kind != "number" and (other := or_other(span, reading.of(kind), reading.folded)) is not None:
            # "give 2 bread to Bob or Dave", "给Bob或者Dave": two named as alternatives are two candidates, and ask; the
            # answer read with the question ("…Bob或者Dave吧\nDave") picks one.
            if (chosen := chosen_after(reading, kind, {span.value, other.value})) is not None:
                used.extend(s for s in reading.of(kind) if s.value in (span.value, other.value) and s is not chosen)
                span = chosen
            else:
                span = replace(span, rivals=(*span.rivals, (other.name or str(other.value), other.value, other.score)), score=min(span.score, other.score))
                used.append(other)
        used.append(span)
        filled.slots[slot] = span
        # An order named by its guest may be one of two orders: a rival asks, as for any name.
        if kind != "number" and (span.rivals or span.score < SURE):
            filled.unsure.append((slot, span))
    return filled


# What joins two alternatives: "Bob or Dave", "Bob或者Dave", "Bob还是Dave".
OR_BETWEEN = re.compile(r"\s*(?:(?:,\s*)?or(?:\s+(?:the|maybe|perhaps|possibly))?|或者|或是|或|还是|[，,]?\s*要么(?:是|就是)?)\s*", re.IGNORECASE)  # ("给Bob，还是Dave吧" corrects itself)


def chosen_after(reading: Reading, kind: str, values: set) -> Span | None:
    """The one of ``values`` the message's last line names alone (an answer read after its question), or None."""
    tail = reading.folded.rfind("\n")
    named = [s for s in reading.of(kind) if s.start > tail >= 0 and s.value in values]
    return named[0] if named and len({s.value for s in named}) == 1 else None


def or_other(span: Span, spans: list[Span], folded: str) -> Span | None:
    """The other of two of a kind named as alternatives next to ``span`` (with a different value), or None."""
    for other in spans:
        if other.value == span.value:
            continue
        first, second = (span, other) if span.end <= other.start else (other, span)
        if OR_BETWEEN.fullmatch(folded[first.end : second.start]):
            return other
    return None


# A share of something rather than a count: "一半", "三分之一", "half", "a third of", "some of".
# ("some of my stone" is a count left open, which an answer fills; "half a dozen" is six.)
SHARE = re.compile(r"一半|半数|一部分|[一二三四五六七八九十]分之[一二三四五六七八九十]|\bhalf\b(?!\s+(?:a\s+)?dozen)|\ba\s+(?:third|quarter)\s+of\b")
# "all my apples", "全部的面包", "everything I have": a count that is the whole stock.
WHOLE = re.compile(
    r"\ball\s+(?:of\s+)?(?:my|the|your|our)\b|\ball\s+(?:the\s+)?[a-z]+\s+(?:i|we)\s+(?:have|got)\b|\bevery\s+(?:last\s+)?(?:one|bit)\b"
    r"|\beverything\s+(?:i|we)\s+(?:have|got)\b|\bwhatever\s+(?:i|we)\s+have\b"
    r"|全部|全都|统统|通通|所有的?|全(?=给|送|转|交|拿|卖)|都(?=给|送|转)"
)


def _numbers_taken(tool: str) -> int:
    spec = registry.get(tool)
    properties = spec.input_schema.get("properties", {}) if spec is not None else {}
    return sum(1 for name, p in properties.items() if p.get("type") in ("integer", "number") and not name.endswith("_id"))


def candidates(reading: Reading, offered: set[str]) -> list[Frame]:
    """Frames whose trigger words the message holds, of the offered tools, best first."""
    hits = [f for f in _frames if f.tool in offered and f.triggered(reading)]
    return sorted(hits, key=lambda f: (-f.priority, -len(_filled_kinds(f, reading))))


def _filled_kinds(frame_: Frame, reading: Reading) -> set[str]:
    return {kind for kind in frame_.slots.values() if reading.of(kind)}


def which_of(names: list[str]) -> str:
    """The question between things the same words name: "你指的是「A」还是「B」？"."""
    return _("你指的是%(options)s？") % {"options": _("还是").join(f"「{n}」" for n in names[:4])}


def ask_for(filled: Filled) -> str | None:
    """The question for the first unsure or missing slot, or None when the frame can act."""
    for slot, span in filled.unsure:
        if not span.rivals and not is_write(filled.frame.tool):
            continue  # a look-up on the one name the words fit ("查一下Beta") shows which it read
        names = [span.name, *(name for name, _value, _score in span.rivals)]
        if len(names) > 1:
            return which_of(names)
        return _("你是说「%(name)s」吗？请说出完整的名称。") % {"name": span.name}
    for slot in filled.missing:
        question = filled.frame.asks.get(slot)
        if question:
            return str(question)
        return _("%(slot)s是什么？请告诉我。") % {"slot": slot}
    return None


# ---------------------------------------------------------------------------- follow-ups

YES = re.compile(r"^\s*(?:yes|yeah|yep|ok(?:ay)?|sure|go\s+ahead|do\s+it|send\s+it|confirm(?:ed)?|好的?|好啊|可以|行|发吧|发送|确认|是的?|对|没问题|嗯)\s*[.!。！]*\s*$", re.IGNORECASE)
NO = re.compile(r"^\s*(?:no|nope|不|不是|不对|不用|算了|取消|cancel)\b\s*[,，.。!！]*\s*$", re.IGNORECASE)
CORRECTION = re.compile(r"^\s*(?:no|nope|不|不是|不对)\s*[,，]\s*(?P<rest>.+)$", re.IGNORECASE)
AGAIN = re.compile(r"^\s*(?:再|又|also|again|same|one\s+more|another)|(?:again|too|as\s+well)\s*[.!]?\s*$|^\s*同样|一样", re.IGNORECASE)
ORDINALS = {
    "first": 0, "second": 1, "third": 2, "fourth": 3, "last": -1,
    "第一": 0, "第二": 1, "第三": 2, "第四": 3, "最后": -1, "前一": 0, "后一": -1,
}
# ("提前一天", "后一晚" are no rows: 前一/后一 pick one only as 前一个/后一个. "show me the options first", "last week",
# "the first time": an adverb, a time, no row; a row is "the first", "the last one", "second one".)
ORDINAL = re.compile(
    r"\bthe\s+(first|second|third|fourth|last)\b(?!\s+(?:time|times|week|night|day|month|year|hour|minute|thing|of)\b)(?:\s+one)?"
    r"|\b(first|second|third|fourth|last)\s+one\b|(第一|第二|第三|第四|最后|前一(?=\s*个)|后一(?=\s*个))\s*个?",
    re.IGNORECASE,
)


def ordinal(text: str) -> int | None:
    """The row a message picks ("the second one", "第一个"); words in quotes pick nothing ("remarks to 'chips first'")."""
    from .understanding import quotation

    found = ORDINAL.search(quotation(200).sub(lambda quoted: " " * len(quoted.group()), text))
    if not found:
        return None
    word = next(group for group in found.groups() if group).lower()
    return ORDINALS.get(word)


BARE_COUNT = re.compile(
    # "ok just the one then", "就一个吧", "two please": a count and the words around an answer.
    # ("like five of them", "大概五个": a rough answer is still an answer, and the gate asks for the exact count.)
    r"^\s*(?:(?:ok(?:ay)?|fine|hm+|well|alright)[\s,.]*)?(?:just\s+|only\s+|like\s+|about\s+|around\s+|maybe\s+)?(?:the\s+)?(?:就|只要|要|大概|差不多)?"
    r"(?:\d+|[一二两三四五六七八九十俩仨]+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|a\s+couple)"
    r"\s*(?:个|份|块|袋|捆|只|件|loaves|of\s+them|please)?\s*(?:then|吧|就行|就好)?\s*[.!。！]?\s*$",
    re.IGNORECASE,
)


BARE_ORDER = re.compile(
    r"^\s*(?:(?:the\s+)?(?:订单号?|订单编号|单号|order(?:\s+(?:no\.?|number|#))?|booking)\s*(?:是|is)?\s*[:：]?)?\s*#?\s*[A-Za-z]{2}\d{8,}\s*[.。]?\s*$",
    re.IGNORECASE,
)


def is_bare(text: str) -> bool:
    """Only a count or an order number: the answer to the question the last turn asked."""
    return bool(BARE_COUNT.match(text) or BARE_ORDER.match(text))


# The last question asked again of another thing: "what about dave?", "ok and what's dave's?", "那Dave的呢？".
WHAT_ABOUT = re.compile(
    r"^\s*(?:ok(?:ay)?\s*,?\s*|so\s+)?(?:and\s+)?(?:what|how)\s+about\b"
    r"|^\s*(?:ok(?:ay)?\s*,?\s*|so\s+)?and\s+(?:what(?:'s|\s+is|\s+are)\s+)?[\w\u4e00-\u9fff]+(?:'s|s')\s*[?？]"
    r"|^\s*(?:那|那么|还有)?\s*[^\s，,。?？]{1,12}?(?:的)?呢\s*[?？]",
    re.IGNORECASE,
)


def is_follow_up(text: str) -> bool:
    """A message that means nothing without the last turn: "yes", "three", "same to Carol", "what about Dave?"."""
    return bool(
        YES.match(text) or NO.match(text) or CORRECTION.match(text) or AGAIN.search(text)
        or ordinal(text) is not None or is_bare(text) or WHAT_ABOUT.search(text)
    )


# ---------------------------------------------------------------------------- provenance

ENTITY_KINDS = {"resource", "resident", "fund", "bounty", "building", "item", "order", "building_kind"}
# Arguments that choose among a schema's fixed values (a channel, a status): read from trigger words.
ENUMS = {"channel", "status", "unread_only", "active_only"}


def provenance(said: str, tool: str, arguments: dict, looked_up: list[Any], earlier: str = "") -> list[str]:
    """What in a write's arguments came from nowhere: [] when each is a span of ``said`` (or of the
    ``earlier`` message a follow-up continues), an entity resolved from one, or a row of a look-up."""
    from .understanding import numbers, read

    text = f"{earlier}\n{said}" if earlier else said
    reading = read(text)
    counts = {s.value for s in numbers(fold(text)) if s.value is not None} | {int(s.value) for s in reading.spans if isinstance(s.value, int)}
    counts |= {int(d) for d in re.findall(r"\d+", fold(text))}  # "#4" too
    products = {a * b for a in counts for b in counts}
    entity_values = {str(s.value).lower() for s in reading.spans} | {s.name.lower() for s in reading.spans if s.name}
    looked = _values(looked_up)
    problems = []
    for key, value in arguments.items():
        if key in ENUMS or isinstance(value, bool):
            continue
        kind = SLOT_KINDS.get(key, "text")
        if kind in ENTITY_KINDS and not isinstance(value, int):
            ok = str(value).lower() in entity_values or value in looked
        elif isinstance(value, int):
            ok = value in counts or value in products or value in looked or str(value) in entity_values
            # A resident's id resolved from the name the message gives ("give 5 flour to Bob": Bob's id).
            ok = ok or (kind == "resident" and value in _resident_ids(reading))
        else:
            word = str(value).strip()
            # Free text composed of the user's pieces ("类型：债券型；风险等级：R2"), or led by a looked-up value ("SUP-88903:
            # …", the supplier's number for the order): each piece is theirs or the look-up's.
            pieces = [p for p in re.split(r"[；;：:]", word) if p.strip()]
            ok = bool(word) and (
                _is_span(word, text) or word.lower() in entity_values or word in looked
                or all(_is_span(p.strip(), text) or p.strip() in looked for p in pieces)
            )
        if not ok:
            problems.append(f"{tool}.{key}={value!r}")
    return problems


def _resident_ids(reading: Reading) -> set[int]:
    from ..models import Agent

    names = {span.value for span in reading.of("resident")}
    return set(Agent.objects.filter(name__in=names).values_list("pk", flat=True)) if names else set()


def _is_span(words: str, text: str) -> bool:
    """``words`` occur in ``text`` whole: "d Polaris" is no span of "named Polaris"."""
    words, text = fold(words), fold(text)
    start = text.find(words)
    while start >= 0:
        end = start + len(words)
        cut_before = start > 0 and text[start - 1].isascii() and text[start - 1].isalnum() and words[0].isascii() and words[0].isalnum()
        cut_after = end < len(text) and text[end].isascii() and text[end].isalnum() and words[-1].isascii() and words[-1].isalnum()
        if not (cut_before or cut_after):
            return True
        start = text.find(words, start + 1)
    return False


def _values(data: Any) -> set:
    """Every scalar inside look-up results (ids, names, order numbers)."""
    found: set = set()
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, int | str) and not isinstance(item, bool):
            found.add(item)
    return found


def is_write(tool: str) -> bool:
    spec = registry.get(tool)
    return spec is not None and spec.category == "action"


def wrong_arguments(said: str, calls: list[tuple[str, dict, dict]]) -> list[str]:
    """The write arguments of a conversation's calls ``(name, arguments, result)`` that came from
    nowhere (see ``provenance``): what ``eval_agents`` counts and the corpus test forbids.

    The desk's own question to the supplier is composed from the order it looked up: after an
    ``order_query`` the content of an upstream ``message_send`` is the one argument not checked.
    """
    problems, looked_up, seen = [], [], []
    for name, arguments, result in calls:
        checked = dict(arguments) if isinstance(arguments, dict) else {"arguments": arguments}
        if name == "message_send" and checked.get("channel") == "upstream" and "order_query" in seen:
            checked.pop("content", None)
        if is_write(name) and result.get("status") in ("success", "pending_confirmation"):
            problems += provenance(said, name, checked, looked_up)
        if result.get("status") == "success":
            looked_up.append(result.get("data"))
        seen.append(name)
    return problems
