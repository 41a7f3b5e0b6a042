"""The frames at work in a chat turn: read the message, pick a frame, act, ask back or decline.

``read_frames`` is tried when no phrase of an app's ``intents.py`` reads the message;
``follow_up`` first, when the message only makes sense after the last one ("yes", "三个",
"same to Carol", "再转两个", "no, three", "the second one"): it reads the earlier message
again with this one's words in the slots they fill.
"""

from __future__ import annotations

import re
from dataclasses import replace

from django.utils.translation import gettext as _

from .frames import AGAIN, CORRECTION, NO, WHAT_ABOUT, YES, ask_for, candidates, fill, is_bare, is_follow_up, is_write, ordinal
from .restraint import NOT_TO_SAY, asked
from .rules import DECLINE, Step, Turn
from .understanding import CJK_RUN, Reading, Span, quotation, read


def read_frames(turn: Turn, reading: Reading | None = None, *, queries_only: bool = False, reads_only: bool = False) -> Step:
    """The first frame this message triggers that can act or ask; DECLINE when none can.
    ``queries_only``: the look-ups that answer what happened; ``reads_only``: any look-up."""
    from .frames import is_write

    reading = reading or read(turn.said)
    first_question = None
    # The last round offers no tool: the frames of the tools this turn ran say how it ended (the early check-out's four
    # calls, then its own reply), and never call again.
    offered = turn.offered or {outcome.name for outcome in turn.outcomes}
    for frame_ in candidates(reading, offered):
        if queries_only and (is_write(frame_.tool) or not getattr(frame_.handler, "answers_past", False)):
            continue
        if reads_only and is_write(frame_.tool):
            continue
        filled = fill(frame_, reading)
        question = ask_for(filled)
        if question is not None and not getattr(frame_.handler, "asks_itself", False):
            # A name the words give that no entity has ("启用基金天马行空") is said to be missing.
            if filled.missing and (miss := getattr(frame_.handler, "names_the_miss", None)):
                question = miss(filled) or question
            if filled.unsure and is_write(frame_.tool) and not queries_only and not asked(reading.said):
                return Step.say(question)  # "turn the Beta fund off": which fund is asked, never looked up instead
            # "Beta那只的备注是什么": a question; a look-up that answers it may come after the write's question.
            first_question = first_question or question
            continue  # a frame the message fills whole comes first ("启用中的基金有哪些" is a list)
        step = frame_.handler(turn, filled)
        if step is not DECLINE and not turn.offered and step is not None and acts(step):
            continue
        if step is not DECLINE:
            return replace(step, toward=step.toward or frame_.tool) if step is not None else step
    return Step.say(first_question) if first_question else DECLINE


def acts(step: Step) -> bool:
    """Whether a step calls or proposes a tool (rather than only replying)."""
    return bool(step.calls or step.proposed)


def guarded(turn: Turn, *, any_read: bool = False) -> Step | None:
    """A question about what happened that a query answers ("供应商回了没"), or (``any_read``) a
    yes-or-no question a look-up answers ("is Beta Balanced active?"): read, never written."""
    from .rules import summarize

    step = read_frames(turn, queries_only=not any_read, reads_only=any_read)
    if step is DECLINE or (step is not None and not acts(step) and not turn.outcomes):
        return None  # a question back ("which fund?") is no answer to a question
    return step if step is not None else Step.say(summarize(turn))


def write_frames(turn: Turn) -> Step | None:
    """What a write frame makes of a message a listing phrase matched: its calls, or None."""
    from .frames import is_write

    reading = read(turn.said)
    for frame_ in candidates(reading, turn.offered):
        if not is_write(frame_.tool):
            continue
        filled = fill(frame_, reading)
        if ask_for(filled) is not None and not getattr(frame_.handler, "asks_itself", False):
            continue
        step = frame_.handler(turn, filled)
        if step is not DECLINE and step is not None and (acts(step) or turn.outcomes):
            return step
    return None


def _complete_alone(turn: Turn, reading: Reading) -> bool:
    """Whether the message alone makes a frame call a tool (then it is no follow-up)."""
    step = read_frames(replace(turn, outcomes=[]), reading)
    return step is not DECLINE and step is not None and acts(step)


# "disable it", "把它停用", "给这个客人退款": a word that points back at what the last message named.
POINTS_BACK = re.compile(r"\b(?:it|that\s+one|this\s+one|him|her)\b|它|他|她|这个|那个|这只|那只|这单|那单|这笔", re.IGNORECASE)
CARRIED_KINDS = ("fund", "order", "bounty", "resident", "resource")
# What a message that asks for a missing slot may take from the last one without pointing back.
ASKED_KINDS = ("fund", "order", "bounty", "resource")
# Someone pointed at with a pronoun: "她", "他" (not 他们), "her", "him".
SOMEONE = re.compile(r"[她他](?!们)|\b(?:she|he|her|him)\b", re.IGNORECASE)
# What a message may take from further back than the last message: the case the conversation is about.
HISTORY_KINDS = ("fund", "order")


def points_back(turn: Turn) -> Step | None:
    """This message's verb on the thing the last message named ("how is Beta Balanced?" → "disable
    it"): its name is carried over, as the earlier message typed it; the earlier message's words
    stand for the earlier message: the gate reads them with this message, and the provenance
    finds the carried arguments in them. None when nothing is carried."""
    if not turn.earlier:
        return None
    alone = read_frames(replace(turn, outcomes=[]), read(turn.said))
    complete = alone is not DECLINE and alone is not None and acts(alone)
    # "那就退款吧" after a message about one order: the slot it asks for is what that message named.
    asking = alone is not DECLINE and alone is not None and not acts(alone) and bool(alone.reply)
    if not complete and not asking and not POINTS_BACK.search(turn.said):
        return None
    named = {s.kind for s in read(turn.said).spans}
    carried = _carried(turn.earlier, named)
    if asking and not complete and not POINTS_BACK.search(turn.said):
        carried = [(s, text) for s, text in carried if s.kind in ASKED_KINDS]  # never a resident unnamed
    if not carried and asking and turn.history and SOMEONE.search(turn.said) and SOMEONE.search(turn.earlier):
        # "eve是不是刚来的那个学者？" → "她好像饿得不行了" → "那就给她一个面包吧": "her" twice, the resident named before.
        carried = [(s, text) for s, text in _carried(turn.history[0], named) if s.kind == "resident"]
    if not carried and (asking or POINTS_BACK.search(turn.said)) and not complete:
        # "HT… 客人要提前走" → "供应商说可以退两晚" → "那就登记退款": the order (or fund) the conversation named a
        # few turns back, when the turns since named nothing of the kind; goods or a resident never come from that far.
        carried = next(
            (found for older in turn.history if (found := [(s, t) for s, t in _carried(older, named) if s.kind in HISTORY_KINDS])), []
        )
    if not carried and POINTS_BACK.search(turn.said) and (name := _the_one_shown(turn)):
        return read_with(turn, name)  # "把它启用" after a list with one disabled fund in it: that one
    if not carried or len({s.kind for s, _text in carried}) != len(carried):
        return None  # nothing named before, or two of a kind: which one is asked as usual
    from .rules import summarize

    names = " ".join(text for _s, text in carried)
    said = f"{names}\n{turn.said}"  # before the message: never inside the words it passes on
    carrying = _carrying(turn, said, names)
    if complete and not _adds_to(alone, read_frames(replace(carrying, outcomes=[]), read(said))):
        # "给这个订单的客人发消息：…" acts alone: what the earlier message named only fills a slot it leaves open.
        return None
    step = read_frames(carrying, read(said))
    if step is None and turn.outcomes:
        return Step.say(summarize(turn))  # the call ran; its result is the reply
    if step is DECLINE or step is None or not (acts(step) or turn.outcomes):
        return None
    # The names carried stand for the earlier message: what the gate and the provenance read with this one.
    turn.earlier = turn.continues = names
    return step


def _carried(message: str, named: set[str]) -> list[tuple[Span, str]]:
    """What ``message`` named that a later message may carry (its kinds not named again), as typed, once each:
    exact names, or a part of one name only, quoted or not ("名字带“稳健”的基金" → 稳健增长一号)."""
    earlier = read(message)
    spans = [(s, message[s.start : s.end]) for s in earlier.spans if s.kind != "quoted"]
    spans += [(inner, s.value) for s in earlier.of("quoted") for inner in read(s.value).spans if inner.end - inner.start == len(s.value)]
    carried = [(s, text) for s, text in spans if s.kind in CARRIED_KINDS and s.kind not in named and (s.exact or _sure_alone(s))]
    return [(s, text) for i, (s, text) in enumerate(carried) if all((o.kind, o.value) != (s.kind, s.value) for o, _t in carried[:i])]


# The state the last message asked about ("有哪些停用的基金", "which funds are disabled?") and the row values that have it.
SHOWN_STATES = (
    (re.compile(r"停用|禁用|关闭|下线|\b(?:disabled|inactive|switched\s+off|turned\s+off|offline)\b", re.IGNORECASE), {"disable", "disabled", "inactive"}),
    (re.compile(r"启用|开启|在用|上线|\b(?:enabled|active|live|running)\b", re.IGNORECASE), {"enable", "enabled", "active"}),
)


# The one in a state, named as such ("the disabled one", "停用的那个"), in the order of SHOWN_STATES.
NAMED_STATES = (
    re.compile(r"\bthe\s+(?:disabled|inactive|switched[- ]off|turned[- ]off)\s+one\b|(?:已)?(?:停用|禁用|关闭)的(?:那个|那只|那支|那一个)", re.IGNORECASE),
    re.compile(r"\bthe\s+(?:enabled|active|live|running)\s+one\b|(?:启用|在用)(?:中)?的(?:那个|那只|那支|那一个)", re.IGNORECASE),
)


def _the_one_shown(turn: Turn) -> str:
    """What "it" stands for after a list that came without a name in the message: its only row, or the only row in
    the state the message asked about (the one disabled fund of "which funds are disabled?"); "" when not one."""
    rows = listed_rows(turn)
    if len(rows) > 1:
        # "the disabled one — switch it back on": the state this message names picks first.
        for named, (_words, values) in zip(NAMED_STATES, SHOWN_STATES):
            if named.search(turn.said):
                rows = [row for row in rows if any(isinstance(v, str) and v.casefold() in values for v in row.values())]
                return row_name(rows[0]) if len(rows) == 1 else ""
        for words, values in SHOWN_STATES:
            if words.search(turn.earlier):
                rows = [row for row in rows if any(isinstance(v, str) and v.casefold() in values for v in row.values())]
                break
    return row_name(rows[0]) if len(rows) == 1 else ""


def answers_question(turn: Turn) -> Step | None:
    """The answer to what the last turn asked back ("新建一个基金" → "叫什么名字？" → "叫「养老目标」";
    "create a new fund" → "call it Northstar Value"): the two messages read as one. Only when the
    earlier message wrote nothing and was asked back, and this one does nothing alone."""
    from .frames import is_write

    if any(is_write(name) for name, _arguments in turn.earlier_calls):
        return None
    alone = read_frames(replace(turn, outcomes=[]), read(turn.said))
    # "4 of them, 24 credits total" after "how much stone?": a look-up its words trigger alone ("credits")
    # is no answer of its own; a write alone is.
    reads_alone = alone is not DECLINE and alone is not None and acts(alone) and not any(
        is_write(name) for name, _a in (*alone.calls, *alone.proposed)
    ) and not is_write(alone.toward)
    if alone is not DECLINE and (alone is None or acts(alone)) and not reads_alone:
        return None
    # The question may have been asked two messages back, with a word in between that answered nothing ("我想建个新基金"
    # → "名字还没想好，你等我一下" → "叫 港股通精选 吧").
    for earlier in (turn.earlier, *([f"{turn.history[0]}\n{turn.earlier}"] if turn.history else [])):
        step = _answered(turn, earlier, reads_alone)
        if step is not None:
            return step
    return None


def _answered(turn: Turn, earlier: str, reads_alone: bool) -> Step | None:
    """``answers_question`` for the question ``earlier`` (the message or messages it answers) was asked back with."""
    asked = read_frames(replace(turn, said=earlier, outcomes=[]), read(earlier))
    if asked is DECLINE or asked is None or any(is_write(name) for name, _a in (*asked.calls, *asked.proposed)):
        return None
    # Asked back outright, or looked something up on the way to a write ("我想在商店买点吃的" lists the shop).
    if not (asked.reply and not acts(asked)) and not (acts(asked) and is_write(asked.toward)):
        return None
    said = f"{earlier}\n{turn.said}"
    both = replace(turn, said=said, continues=earlier)
    first = _read_as_one(replace(both, outcomes=[]), asked.toward)
    if first is DECLINE or first is None or not acts(first) or (asked.toward and first.toward != asked.toward):
        return None
    if reads_alone and not (is_write(first.toward) and is_write(asked.toward)):
        return None  # the look-up stands: only an answer that completes the write asked about replaces it
    step = _read_as_one(both, asked.toward)
    if step is DECLINE:
        return None
    # The message that asked stands for what this one continues (a word in between that only hesitated is moot).
    if earlier != turn.earlier:
        turn.earlier = earlier.split("\n", 1)[0]
    turn.continues = turn.earlier
    if step is None:
        from .rules import summarize

        return Step.say(summarize(turn))
    return step


def _read_as_one(turn: Turn, toward: str) -> Step:
    """The frames' reading of a question and its answer as one message; where they decline, the phrase of the tool
    the question was asked toward ("给X改个名" → "要改成什么名字？" → "对，就叫Y": 改个名…叫Y is the rename's phrase)."""
    from .rules import understand

    step = read_frames(turn, read(turn.said))
    if step is not DECLINE or not toward:
        return step
    text, plain, found = understand(turn.said, turn.offered)
    for item, match in found:
        if item.tool == toward and (step := item.handler(replace(turn, text=text, plain=plain), match)) is not DECLINE:
            return replace(step, toward=step.toward or toward) if step is not None else step
    return DECLINE


def _sure_alone(span: Span) -> bool:
    from .frames import SURE

    return not span.rivals and span.score >= SURE


def _adds_to(alone: Step, carried: Step | None) -> bool:
    """Whether ``carried`` makes the same calls as ``alone`` with every argument kept and more given."""
    if carried is None or carried is DECLINE:
        return False
    ours, theirs = [*alone.calls, *alone.proposed], [*carried.calls, *carried.proposed]
    return (
        len(ours) == len(theirs)
        and all(a[0] == b[0] and a[1].items() <= b[1].items() for a, b in zip(ours, theirs))
        and any(len(b[1]) > len(a[1]) for a, b in zip(ours, theirs))
    )


def _pick_named(turn: Turn) -> Step | None:
    """"Carol's", "Frank的那个" after a list: the one row the words name, as "the second one" picks by place."""
    rows = listed_rows(turn)
    if not rows or _complete_alone(turn, read(turn.said)):
        return None
    named = [s for s in read(turn.said).spans if s.kind in ("resident", "fund", "bounty") and s.exact]
    if len({(s.kind, s.value) for s in named}) != 1:
        return None
    name = named[0].name.casefold()
    hits = [i for i, row in enumerate(rows) if name == row_name(row).casefold() or name in row_name(row).casefold().split(" ")]
    return _pick_row(turn, hits[0]) if len(hits) == 1 else None


# The change of mind within one message: "给Alice三根木头，哦不对，五根", "send 4 flour to frank... wait no, to bob".
CHANGE_OF_MIND = re.compile(
    r"(?:[,，.。;；!！…—–\s-]+|^)(?:(?:oh|uh|um|oops|sorry|hmm)[\s,，.!]*)?"
    # ("…wait no, I mean buy Frank's flour listing": one change of mind, said twice.)
    r"(?:(?:no\s+wait|wait\s*,?\s*no)\s*,?\s*i\s+mean(?:t)?|no\s+wait(?:\s*,?\s*make\s+(?=(?:it|that)\s))?|wait\s*,?\s*no|i\s+mean(?:t)?|actually\s*,?\s*no(?:\s*,?\s*wait)?|scratch\s+that|(?:actually\s*,?\s*)?make\s+(?=(?:it|that)\s)|我是说|我的意思是"
    r"|(?:哦|啊|呃|噢|额|等下|等一下|等等)?\s*(?:不对|说错了)(?:[，,\s]*不对)*|更正一下|(?:哦|啊)\s*不是)(?:\s*(?:it|that)\b)?[\s,，.。:：!！…—-]*",
    re.IGNORECASE,
)


# "— wait, …": a pause that corrects only when the request is said again after it (see ``said_again``).
WAITED = re.compile(r"(?:[,，.。;；!！…—–]|\s-)\s*wait\s*[,，.。!！…—–-]+\s*", re.IGNORECASE)
CLAUSES = re.compile(r"[,，.。;；!！?？…]+|\s[—–-]+\s|[—–]+")


def said_again(first: str, correction: str) -> str:
    """The clause of ``correction`` that asks the first words' write again with a count of its own, after the reasons
    for the change ("…哦不对，我总共才12个，自己还得留点，给6个就够了" → "给6个就够了", "买一个面包，不对，面包太贵了，买三个苹果吧"
    → "买三个苹果吧"); "" when it is the correction's only clause, or none does."""
    from .frames import registered_frames
    from .understanding import numbers

    verbs = [w for f in registered_frames() if is_write(f.tool) for w in f.words if not w.startswith("@") and read(first).has(w)]
    pieces = [p.strip() for p in CLAUSES.split(correction) if p.strip()]
    if not pieces or not verbs:
        return ""
    if len(pieces) == 1:
        # "…哦不对，买四个就行": the count said with the first words' verb again is the count.
        count, verb = _less_verb(pieces[0], verbs)
        return count if verb and _count_only(count) else ""
    for piece in reversed(pieces[1:]):
        if len([n for n in numbers(piece) if n.score >= 0.9]) != 1:
            continue
        # "…钱不够，买四个就行", "…钱不够，四个就行": the count alone, after the reasons (the verb is the first words').
        count, _verb = _less_verb(piece, verbs)
        if _count_only(count):
            return count
        if read(piece).has(*verbs):
            return piece
    # "…不对，来两捆，一捆不够用": the new count first, then why.
    if len([n for n in numbers(pieces[0]) if n.score >= 0.9]) == 1 and not read(pieces[0]).spans[1:]:
        return pieces[0]
    return ""


# What may stand beside a count alone ("四个就行", "六个吧", "two's enough"): a measure and a word that settles it.
SETTLED = re.compile(
    r"\s*(?:就|just)?\s*(?:[个份块袋捆车根只张]|\b(?:of\s+them|ones?)\b)?\s*(?:就(?:行|够了?|好|可以)|吧|好了|得了|(?:is|'s)\s+(?:enough|fine|plenty)|will\s+do)?\s*[.!。！~]*",
    re.IGNORECASE,
)


def _less_verb(piece: str, verbs: list[str]) -> tuple[str, str]:
    """``piece`` without the first words' verb it opens with ("买四个就行", "还是买四个吧" → "四个就行", "四个吧"), and that
    verb ("" for none)."""
    if (settled := SETTLING.match(piece)) and any(piece.startswith(v, settled.end()) for v in verbs):
        piece = piece[settled.end() :]
    verb = next((v for v in sorted(verbs, key=len, reverse=True) if piece.startswith(v)), "")
    return piece[len(verb) :].lstrip(), verb


# What opens a count said again ("还是买三袋吧", "那就给三个"): the verb follows it.
SETTLING = re.compile(r"(?:那还是|还是|那就|那么就|就)\s*")


def _count_only(piece: str) -> bool:
    """The piece says a count and nothing more ("四个就行", "买四个就行" less its verb); "三根不够" says why."""
    from .understanding import numbers

    counts = [n for n in numbers(piece) if n.score >= 0.9]
    return len(counts) == 1 and not piece[: counts[0].start].strip(" 就") and bool(SETTLED.fullmatch(piece[counts[0].end :]))


# A name given again after a change of mind: "…叫 红利低波 ……哦不对，叫“红利低波50”", "rename X to Y — hmm no, make it 'Z'".
NAME_GIVEN = re.compile(r"叫做?|名为|改成|改为|\b(?:called|named|to)\b|\b(?:call|name)\s+it\b", re.IGNORECASE)
NAME_GIVEN_AGAIN = re.compile(r"^\s*(?:(?P<verb>(?:就|还是|改)?叫做?|(?:call|name)\s+it)|(?:make\s+)?it)?\s*", re.IGNORECASE)
# (Remarks said again are the same: "…remarks to 'X'... wait, no, make it 'Y'" sets Y.)
NAMING_CONTEXT = re.compile(r"rename|改名|改个名|叫|called|named|名字|名称|新基金|new\s+fund|create\s+a\s+fund|备注|\bremarks?\b|\bnotes?\b", re.IGNORECASE)


def _name_said_again(first: str, correction: str) -> str | None:
    """The message with its first name replaced by the one the correction gives, when the correction gives a name
    (after 叫 / "call it", or quoted after "it") and the first words gave one; None otherwise."""
    again = NAME_GIVEN_AGAIN.match(correction)
    quoted_at = re.search(r"[「“『]|(?:^|(?<=\s))[\"']", first)  # (an apostrophe in "fund's" opens nothing)
    given = [g for g in NAME_GIVEN.finditer(first) if quoted_at is None or g.start() < quoted_at.start()]
    if again is None or not given or not NAMING_CONTEXT.search(first):
        return None
    name = correction[again.end() :]
    if not again["verb"] and not re.match(r"[「“\"'『]", name):
        return None  # "give 5 wood to Bob, no wait, make it 6": a count, no name
    return f"{first[: given[-1].end()]} {name}"


CLAUSE_COMMA = re.compile(r"[,，;；]")
# A wish given up for a reason, then what is asked instead: "想给Bob三个面包但我只有两个，那就给两个吧".
WISHED_BUT = re.compile(
    r"^\s*(?:我)?(?:本来|原本|原来)?(?:想|打算)(?P<wish>[^。!！?？，,]+?)[，,]?\s*(?:但|可是|不过|可惜)[^。!！?？]*?[，,]\s*(?:那|那就|那么|所以)(?:先|还是|就)?\s*"
)
# A name given in words of the user's own ("叫…", "call it …", "named …"): free text, never a name looked up.
NAMING = re.compile(r"^\s*(?:就|还是|改)?叫|名(?:字|称)?(?:叫|为|是)|\b(?:call(?:ed)?|name(?:d)?)\s+(?:it\s+)?\S", re.IGNORECASE)
# Where the reasons after a change of mind end and the request itself follows ("…，那就送五块石料吧", "…, so just send stone").
CONCLUDED = re.compile(
    r"[,，.。;；]\s*(?:那就|那么就|那还是|所以就?|干脆|索性|so\s+(?:just\s+)?(?=\w)|then\s+just\s+|in\s+that\s+case,?\s+)"
    # "…, he has tons. Give them to Alice instead, …": the sentence that says what instead.
    r"|[.。!！;；]\s*(?=[^.。!！;；]*\binstead\b)",
    re.IGNORECASE,
)


def changed_mind(turn: Turn) -> bool:
    """A message that takes part of itself back: read as its first words and the correction after
    them ("给Alice三根木头，哦不对，五根" is "给Alice三根木头" and then "不，五根"), when the correction names
    each thing it changes once ("五根", "to bob": one count, one resident) and names things only. A name,
    remarks or a message said two ways, or two counts after the change, is still asked about. A
    correction that names again everything the first words named is read alone."""
    from .frames import ENTITY_KINDS

    if _not_that_but(turn):
        return True  # "等下，不是停用，是改备注…": the last request was the wrong one
    if YES.match(turn.said) or NO.match(turn.said) or CORRECTION.match(turn.said):
        return False
    if _called_off_then(turn):
        return True
    changes = list(CHANGE_OF_MIND.finditer(turn.said))
    changes = [m for m in changes if m.start() > 0 and m.end() < len(turn.said)]
    # "…不对不对，…": a change of mind said twice in a row is one, ending where the second ends.
    spans: list[tuple[int, int]] = []
    for m in changes:
        if spans and not turn.said[spans[-1][1] : m.start()].strip(" ，,…。.!！"):
            spans[-1] = (spans[-1][0], m.end())
        else:
            spans.append((m.start(), m.end()))
    if not spans and (waited := WAITED.search(turn.said)) and said_again(turn.said[: waited.start()], turn.said[waited.end() :]):
        spans = [(waited.start(), waited.end())]  # "send a dozen wheat to alice — wait, I've only got 8 left. send her six then"
    wished = WISHED_BUT.match(turn.said) if not spans else None
    if wished is not None:
        # "想给Bob三个面包但我只有两个，那就给两个吧": the wish, the reason it cannot be, then what is asked.
        first, correction = wished["wish"].strip(), turn.said[wished.end() :].strip()
    elif len(spans) != 1:
        return False  # none, or changed twice ("…，不对，三个苹果，不对，四个"): what stands is not sure
    else:
        first, correction = turn.said[: spans[0][0]].strip(), turn.said[spans[0][1] :].strip()
    if (done := DONE_ALREADY.match(correction)) and correction[done.end() :].strip():
        # "先帮我签到，哦不对，签过了。那就给frank 10个小麦吧": the first request is done already; what follows is asked.
        rest = correction[done.end() :].strip()
        rest_step = read_frames(replace(turn, said=rest, outcomes=[]), read(rest))
        if rest_step is not DECLINE and rest_step is not None and acts(rest_step):
            turn.earlier, turn.said = "", rest
            turn.earlier_calls, turn.earlier_outcomes, turn.answered, turn.history = [], [], "", []
            return True
    if (renamed := _name_said_again(first, correction)) is not None:
        turn.earlier, turn.said = "", renamed  # "叫 红利低波 ……哦不对，叫“红利低波50”": the last name given stands
        turn.earlier_calls, turn.earlier_outcomes, turn.answered, turn.history = [], [], "", []
        return True
    if NAMING.search(correction):
        return False  # "新建基金叫稳健收益，哦不对，叫稳健收益二期": a name said two ways is asked, never half-read
    if concluded := list(CONCLUDED.finditer(correction)):
        # "…哦不对，他自己就是种小麦的，缺的是石料，那就送五块石料吧": the reasons, then what is asked in the end.
        correction = correction[concluded[-1].end() :].strip()
    elif again := said_again(first, correction):
        correction = again
    # "Give them to Alice instead, she's the one who asked", "make it three, the roof's worse than I thought": the
    # reason after the correction, which names nothing, is no part of it.
    if (spans := read(correction).spans) and (cut := CLAUSE_COMMA.search(correction, max(s.end for s in spans))):
        if not read(correction[cut.end() :]).spans:
            correction = correction[: cut.start()].strip()
    named = [s for s in read(correction).spans if s.score >= 0.9]  # what the words name surely ("miller" is no mill)
    before = [s for s in read(first).spans if s.score >= 0.9]
    if not first or not named or not before or any(s.kind not in {*ENTITY_KINDS, "number"} for s in named):
        return False
    measure = _measure(correction, named)  # ("两捆" after "买一捆木材": the lot's own measure)
    # ("一打苹果……买六个就行": 个 counts what a count without a measure counted.)
    first_measure = _measure(first, before)
    if (
        not {s.kind for s in named} & {"resource", "item"} and measure not in ("", first_measure) and measure not in first
        and not (measure == "个" and not first_measure)
    ):
        return False  # "给Eve两袋面粉，不对，三个": another measure may be another thing (a thing named says which)
    for kind in {s.kind for s in named}:
        if len({s.value for s in named if s.kind == kind}) > 1 or len({s.value for s in before if s.kind == kind}) > 1:
            return False  # "哦不对，给五根吧……三根不够", "sell 5 wood for 20, no wait, 25": which count changed is not sure
    # What the correction does alone, a write ("she's the one who asked" looks nobody up).
    alone_step = read_frames(replace(turn, said=correction, outcomes=[]), read(correction))
    alone = alone_step is not DECLINE and alone_step is not None and acts(alone_step) and writes_in(alone_step)
    first_step = read_frames(replace(turn, said=first, outcomes=[]), read(first)) if alone else None
    again = alone and first_step not in (None, DECLINE) and _deed(first_step) == _deed(alone_step)
    if alone and ({s.kind for s in before} <= {s.kind for s in named} or again):
        # "…wait no, send those four to bob instead": said anew, whole; "商店买一捆木头…不对不对，我木头够了，买一车石料":
        # the same deed asked again of another thing.
        turn.earlier, turn.said = "", correction
    elif alone:
        return False  # "…，不对，三个吧，他今天没吃饭": the correction asks something of its own; which stands is not sure
    else:
        turn.earlier, turn.said = first, ("不，" if CJK_RUN.search(turn.said) else "no, ") + correction
    turn.earlier_calls, turn.earlier_outcomes, turn.answered, turn.history = [], [], "", []
    return True


# The first request found done already, after the change of mind: "签过了。那就…", "already did that, so …".
DONE_ALREADY = re.compile(
    r"^(?:(?:我|你)?(?:已经|早就?|刚(?:刚|才)?)?[\u4e00-\u9fff]{1,3}过了(?:的)?|(?:i|you|we)\s+already\s+(?:did|have|\w+ed)\b(?:\s+(?:it|that|in|today))?"
    r"|(?:it'?s|that'?s)\s+already\s+done)\s*[,，.。;；!！]+\s*(?:(?:那就|那么|那|所以|so|then)[，,\s]*)?",
    re.IGNORECASE,
)


# The first request called off, then another asked of the same thing: "把科技先锋停用……算了，先别停，改一下备注就行",
# "disable beta balanced... actually no, just change its remarks to …".
CALLED_OFF = re.compile(
    r"(?:[,，.。;；!！…—–-]|\.\.\.)\s*(?:(?:算了|不对|哦不)[，,\s]*(?:先|还是)?(?:别|不要|不用|甭)[\u4e00-\u9fff]{1,3}?(?:了|啦)?"
    r"|actually\s*,?\s*no|no\s+wait|wait\s*,?\s*no|never\s*mind|scratch\s+that|forget\s+that)\s*[,，.。;；!！…—–-]+\s*",
    re.IGNORECASE,
)


def _called_off_then(turn: Turn) -> bool:
    """A message that calls its first request off and asks another of what it named: read as the thing named (a fund,
    an order: carried, as a follow-up's) and the second request, when that acts and the first would have done another
    thing. The first is never done."""
    found = list(CALLED_OFF.finditer(turn.said))
    if len(found) != 1 or found[0].start() == 0:
        return False
    return _instead(turn, turn.said[: found[0].start()].strip(), turn.said[found[0].end() :].strip())


# The last request corrected in the next message: "等下，不是停用，是改备注，改成…", "wait, not disable - change its
# remarks to …".
NOT_THAT_BUT = re.compile(
    r"^\s*(?:(?:等(?:一)?下|等等|哎|诶|不对|wait|hold\s+on|sorry|oops)[，,.\s!！-]*)?(?:不是|not)\s*(?:要)?[^，,.。;；\-–—]{1,12}?\s*[，,.。;；\-–—]+\s*"
    r"(?:(?:是|而是|我是说|是要|but|i\s+mean[t]?)[，,\s]*)?",
    re.IGNORECASE,
)


def _not_that_but(turn: Turn) -> bool:
    """This message says the last one asked the wrong thing and what it meant, of the same thing named."""
    found = NOT_THAT_BUT.match(turn.said)
    if found is None or not turn.earlier or found.end() >= len(turn.said):
        return False
    return _instead(turn, turn.earlier, turn.said[found.end() :].strip())


VALUE_AGAIN = re.compile(r"^\s*(?:(?:make|change)\s+(?:it|that)\b|(?:改成|改为|换成)(?!\S*名))", re.IGNORECASE)


def _instead(turn: Turn, first: str, then: str) -> bool:
    """``then`` asked instead of ``first``, of the one thing ``first`` named (carried as a follow-up's name is), when
    it asks another deed: the turn becomes that name and ``then``. The first is never done."""
    carried = [s for s in read(first).spans if s.kind in ("fund", "order", "bounty") and s.score >= 0.9]
    if not then or len({s.value for s in carried}) != 1 or VALUE_AGAIN.match(then):
        return False  # ("… wait, no, make it 'Y'": the value said again, no other request)
    # Another thing named in the second words asks of that thing ("…改个名叫 Beta Balanced Plus" names the same one again).
    if any(s.kind in (*HISTORY_KINDS, "bounty", "resident") and (s.kind, s.value) != (carried[0].kind, carried[0].value) for s in read(then).spans):
        return False
    names = first[carried[0].start : carried[0].end]
    asked_first, asked_then = read_frames(replace(turn, said=first, outcomes=[])), read_frames(replace(turn, said=f"{names}\n{then}", outcomes=[]))
    tools = [
        {step.toward, *(name for name, _a in (*step.calls, *step.proposed))} - {"", None, "list_funds"} if step is not DECLINE and step is not None else set()
        for step in (asked_first, asked_then)
    ]
    if not tools[1] or tools[1] <= tools[0]:
        return False  # the second words ask nothing, or the same again
    # The second words that name the thing again ("…哦不，先别停，改个名叫 Beta Balanced Plus") are read alone.
    again = any((s.kind, s.value) == (carried[0].kind, carried[0].value) for s in read(then).spans)
    turn.earlier, turn.said = ("" if again else names), then
    turn.earlier_calls, turn.earlier_outcomes, turn.answered, turn.history = [], [], "", []
    return True


def _measure(said: str, spans: list[Span]) -> str:
    """The measure word after the words' count ("两袋" → 袋), "" when none."""
    count = next((s for s in spans if s.kind == "number" and s.score >= 0.9), None)
    unit = re.match(r"\s*([个份块张袋捆斤只件瓶杯箱包颗条根堆车])", said[count.end :]) if count else None
    return unit.group(1) if unit else ""


def follow_up(turn: Turn) -> Step | None:
    """The last turn continued, or None when this message is not a follow-up."""
    if turn.earlier and not is_follow_up(turn.said):
        return _pick_named(turn) or points_back(turn) or answers_question(turn)
    if not turn.earlier:
        return None
    current = read(turn.said)
    if (pick := ordinal(turn.said)) is not None and _pick_rival(read(turn.earlier), pick) is None and (step := _pick_row(turn, pick)):
        return step  # "buy the first one" after the market's list: its first row, not a look at the shop
    if (pick := ordinal(turn.said)) is not None and _pick_rival(read(turn.earlier), pick) is None and (step := _pick_option(turn, pick)):
        return step  # "那就第一个吧" after "送面粉和建磨坊哪个好一点？": the first thing named
    if not (YES.match(turn.said) or NO.match(turn.said) or is_bare(turn.said)) and _complete_alone(turn, current):
        # "接第二个悬赏" says everything itself; "ok ask the supplier if …" too, but for the order the last turn named.
        return points_back(turn)
    earlier_turn = replace(turn, said=turn.earlier, continues=turn.earlier)
    earlier = read(turn.earlier)
    if YES.match(turn.said):
        earlier_turn.confirmed = True
        turn.continues = turn.earlier
        # "yes" to "did you mean 面包?" settles the guess.
        earlier = Reading(earlier.said, earlier.folded, earlier.tokens, [_sure(s) for s in earlier.spans])
        step = read_frames(earlier_turn, earlier)
        if step is None and turn.outcomes:
            from .rules import summarize

            return Step.say(summarize(turn))  # the confirmed call ran; its result is the reply
        return step if step is not DECLINE and step is not None and (acts(step) or turn.outcomes) else None
    if NO.match(turn.said):
        earlier_turn.declined = True
        before = read_frames(earlier_turn, earlier)
        if before is not DECLINE and before.proposed:
            return Step.say(_("好的，不发送，什么也没有做。"))
        if before is not DECLINE and before is not None and not before.calls and before.reply and before.reply != turn.answered:
            return before  # "不是" to "是这一单吗？": what the frame needs instead
        return None
    if (pick := ordinal(turn.said)) is not None:
        merged = _pick_rival(earlier, pick)
        if merged is None:
            return _pick_row(turn, pick) or _pick_listed(turn)
    else:
        said = CORRECTION.match(turn.said)["rest"] if CORRECTION.match(turn.said) else turn.said
        if SAME.search(said):
            said = SAME_PORTION.sub(" ", said)  # "一样的，再给dave也来一份": the same portion, not one of it
        merged = _merge(earlier, read(said), answer=is_bare(turn.said))
    turn.continues = f"{turn.earlier}\n{turn.said}"
    step = read_frames(replace(earlier_turn, continues=turn.continues), merged)
    if step is not DECLINE and step is not None and WHAT_ABOUT.search(turn.said) and not AGAIN.search(turn.said) and writes_in(step):
        return None  # "what about Dave?" after a gift asks about him; "same to Dave" gives
    if step is not DECLINE and step is not None and not writes_in(step) and _asks_a_write(turn, current):
        # "show me fund 5" → "ok, enable it again": a write of its own on what was shown, not the look again.
        step = points_back(turn) or DECLINE
    return None if step is DECLINE else step


def _asks_a_write(turn: Turn, current: Reading) -> bool:
    """The message alone holds a trigger of one of the agent's writes."""
    from .frames import registered_frames

    return any(is_write(f.tool) and f.tool in turn.offered and current.has(*f.words) for f in registered_frames())


# What names a row of a list a tool returned, in the order tried: a fund, a bounty, a shop item or a
# building by its name; a market order by its seller and what it sells.
ROW_NAMES = (("fund_name",), ("title",), ("name",), ("seller_name", "resource_type"))


def listed_rows(turn: Turn) -> list[dict]:
    """The rows the last turn's last list showed, in the order shown ([] when it listed nothing). When the
    agent's reply asked which one and named some of them ("要买哪一个挂单？#1 Carol …、#3 Frank …"), those
    it named, in the order it named them: "the second one" is the second option offered."""
    for outcome in reversed(turn.earlier_outcomes):
        if outcome.name.startswith("list_") and outcome.ok and isinstance(outcome.data, dict):
            rows = next((v for v in outcome.data.values() if isinstance(v, list) and v and isinstance(v[0], dict)), [])
            if rows:
                return _offered_in(turn.answered, rows)
    return []


def _offered_in(reply: str, rows: list[dict]) -> list[dict]:
    """The rows ``reply`` showed: those a question names, in the order named ("要买哪一个挂单？#1 …、#3 …");
    all of them when it showed the list; none when it showed no row (a shop list read on the way to
    "the shop has no wheat" offers nothing to pick). Without a reply known, all of them."""
    if not reply:
        return rows
    folded = QUOTED_OUT.sub(lambda m: " " * len(m.group()), reply).casefold()
    at = []
    for row in rows:
        spots = [
            m.start() for key, value in row.items()
            if key.endswith("_id") and key != "seller_id" and isinstance(value, int)
            for m in [re.search(rf"#\s*{value}(?!\d)", folded)] if m
        ]
        parts = [str(row[key]).casefold() for keys in ROW_NAMES if all(row.get(k) for k in keys) for key in keys][:2]
        if not spots and parts and all(part in folded for part in parts):
            spots = [min(folded.index(part) for part in parts)]
        if spots:
            at.append((min(spots), row))
    named = [row for _at, row in sorted(at, key=lambda pair: pair[0])]
    if re.search(r"[?？]", folded) and len(named) >= 2:
        return named
    return rows if len(named) >= min(2, len(rows)) else []


# An example in quotes ("例如「接受挂单 #1」") shows no row.
QUOTED_OUT = re.compile(r"(?:例如|比如|e\.g\.|for\s+example)[,，:：]?\s*(?:「[^」]*」|“[^”]*”)", re.IGNORECASE)


def row_name(row: dict) -> str:
    for keys in ROW_NAMES:
        if all(row.get(key) for key in keys):
            return " ".join(str(row[key]) for key in keys)
    return ""


def _pick_row(turn: Turn, index: int) -> Step | None:
    """"第三个停用掉", "I'll take the second one" after a list: the n-th row shown, named as the list named
    it, read with this message's verb (or, with none, the last message's). The name stands for the
    earlier message: the gate and the provenance read it with this one."""
    rows = listed_rows(turn)
    if not rows or not -len(rows) <= index < len(rows) or not (name := row_name(rows[index])):
        return None
    return read_with(turn, name)


OPTION_KINDS = ("fund", "bounty", "resident", "item", "building", "order")


def _pick_option(turn: Turn, index: int) -> Step | None:
    """"the second one" after a message that named two or more things of one kind ("送面粉和建磨坊哪个好",
    or the agent's own question "给 Carol 还是 Eve？"): the n-th named, read with this message's verb or,
    with none, the earlier message's. The name stands for what is carried, as for a row of a list."""
    from .frames import SURE

    sources = [turn.answered] if re.search(r"[?？]", turn.answered) else []
    for source in [*sources, turn.earlier]:
        spans = [s for s in read(source).spans if s.kind in OPTION_KINDS and not s.rivals and s.score >= SURE]
        for kind in OPTION_KINDS:
            options = list(dict.fromkeys(s.name for s in sorted(spans, key=lambda s: s.start) if s.kind == kind))
            if len(options) >= 2 and -len(options) <= index < len(options):
                return read_with(turn, options[index])
    return None


# "the same again", "一样的": what the last turn asked, again; a portion said with it is that same portion.
SAME = re.compile(r"一样|同样|照旧|照样|\bsame\b", re.IGNORECASE)
SAME_PORTION = re.compile(r"(?:也)?(?:来|给|送)?(?:一份|一样的量|同样的量)|\b(?:a|one)\s+(?:share|portion|helping)\b", re.IGNORECASE)


def _deed(step: Step) -> str:
    """The write ``step`` makes or leads to, "" for none."""
    return next((name for name, _arguments in (*step.calls, *step.proposed) if is_write(name)), step.toward if is_write(step.toward or "") else "")


def writes_in(step: Step) -> bool:
    return any(is_write(name) for name, _arguments in (*step.calls, *step.proposed)) or bool(step.toward and is_write(step.toward))


def _carrying(turn: Turn, said: str, names: str) -> Turn:
    """The turn read as ``said``, with ``names`` (carried from the earlier message) standing for that message; the
    earlier message itself stays in the talk (what it was about: an early check-out)."""
    return replace(turn, said=said, earlier=names, continues=names, history=[turn.earlier, *turn.history])


def read_with(turn: Turn, name: str, message: str = "") -> Step | None:
    """This message (or ``message``, its words as they apply to ``name``) read with ``name`` in it (then with
    the earlier message's words too); the name stands for the earlier message: the gate and the provenance read
    it with this one."""
    from .rules import summarize

    done = {o.name for o in turn.outcomes}
    message = message or turn.said
    for said in (f"{name}\n{message}", f"{name}\n{message}\n{turn.earlier}"):
        carrying = _carrying(turn, said, name)
        step = read_frames(carrying, read(said))
        if step is None and turn.outcomes:
            step = Step.say(summarize(turn))
        # Once the calls ran, only the reading that made them answers ("建造磨坊" alone would ask what to build).
        if step is not DECLINE and step is not None and (acts(step) or (turn.outcomes and step.toward in done)):
            turn.earlier = turn.continues = name
            return step
    if turn.outcomes:
        return Step.say(summarize(turn))
    return None


def _pick_listed(turn: Turn) -> Step | None:
    """"接第二个" after "有哪些悬赏": this message's verb on the list the last turn showed. The
    earlier words say what was listed; the list is read again and its row is the argument."""
    from ..registry import registry

    def app(tool: str) -> str:
        spec = registry.get(tool)
        return spec.func.__module__.split(".")[0] if spec is not None else ""

    listed = {app(name) for name, _arguments in turn.earlier_calls if name.startswith("list_")}
    if not listed:
        return None
    step = read_frames(replace(turn, said=f"{turn.said}\n{turn.earlier}"))
    if step is DECLINE or step is None or not (acts(step) or turn.outcomes) or app(step.toward) not in listed:
        return None  # the same app's rows only: "take the second one" of bounties is no market order
    return step


def _sure(span: Span) -> Span:
    return Span(span.kind, span.value, span.start, span.end, span.text, max(span.score, 1.0), span.name) if not span.rivals else span


def _merge(earlier: Reading, current: Reading, *, answer: bool = False) -> Reading:
    """The earlier message's spans, each kind the new message names replaced by the new words;
    a bare answer ("10" to "how many credits?") adds its span after the earlier words instead."""
    if answer:
        shift = len(earlier.said) + 1
        added = [replace(s, start=s.start + shift, end=s.end + shift) for s in current.spans]
        return Reading(earlier.said, earlier.folded, earlier.tokens, [*earlier.spans, *added])
    kinds = {s.kind for s in current.spans if s.kind not in ("quoted",)}
    kept = [s for s in earlier.spans if s.kind not in kinds]
    return Reading(earlier.said, earlier.folded, earlier.tokens, [*kept, *current.spans])


def _pick_rival(earlier: Reading, index: int) -> Reading | None:
    """"The second one": the earlier message's ambiguous name, settled on the candidate named."""
    for span in earlier.spans:
        if not span.rivals:
            continue
        options = [(span.name, span.value), *((name, value) for name, value, _score in span.rivals)]
        try:
            name, value = options[index]
        except IndexError:
            return None
        chosen = Span(span.kind, value, span.start, span.end, span.text, 1.0, name)
        return Reading(earlier.said, earlier.folded, earlier.tokens, [chosen if s is span else s for s in earlier.spans])
    return None


# ---------------------------------------------------------------------------- free text

# Where the words to pass on begin: after a colon, a quote, or a verb of saying.
SAYING = re.compile(
    r"[:：]\s*|(?:喊一句|喊一声|吆喝一声|吆喝一句|说一声|说一下|说|告诉他们?|告诉她|转告|通知(?:一下)?|留言)\s*[，,：:]?\s*"
    r"|\b(?:know|tell(?:ing)?|say(?:ing)?|that|message|note|whether|if)\b\s*[,:]?\s*",
    re.IGNORECASE,
)
# A verb of saying right after the noun of a message ("a note saying …", "a message that …").
SAYING_AGAIN = re.compile(r"(?:(?:saying|that\s+says|that(?=\s)|to\s+say)\b|说)\s*[,:：]?\s*", re.IGNORECASE)
MESSAGE_NOUN = re.compile(r"(?:message|note|msg|text|line|消息|留言|短信)\s*$", re.IGNORECASE)
COLON = re.compile(r"(?<!\d)[:：](?!\d)\s*")  # a time's colon ("10:30") starts nothing
FILLER = re.compile(
    r"(?:一声|一下|他们|她|他|客人|顾客|供应商|大家|所有人|全城|the guest|the supplier|them|him|her|that(?=\s)"
    # "tell everyone in the city chat that …": who hears it, and where, is no part of what is said.
    r"|(?:everyone|everybody|all|people|folks|the\s+(?:whole\s+)?(?:city|town))(?:\s+(?:in|on)\s+(?:the\s+)?(?:city\s+)?(?:chat|channel|town|city))?(?=\s)"
    # "tell the channel I've got wood for sale": the channel told.
    r"|the\s+(?:city\s+)?(?:channel|chat)(?=\s))"
    r"\s*[，,:：]?\s*",
    re.IGNORECASE,
)


ADDRESSING = re.compile(r"tell|告诉|通知|转告|喊|吆喝|说一声", re.IGNORECASE)
LONG_QUOTE = quotation(500)


def trailing_text(said: str, after: int = 0) -> Span | None:
    """The free text a message ends with, exactly as typed: a quotation, or what follows the
    first colon or verb of saying after ``after``; None when there is none."""
    quote = LONG_QUOTE.search(said[after:])
    if quote:
        start = after + quote.start(1)
        return Span("text", quote.group(1), start, start + len(quote.group(1)), quote.group(1))
    found = SAYING.search(said, after)
    # A colon right after the verb of saying ("说一句：…", "say this: …") starts the words.
    colon = COLON.search(said, found.end()) if found else None
    if colon is not None and len(said[found.end() : colon.start()].strip()) <= 6:
        found = colon
    if not found:
        return None
    start = found.end()
    # "tell everyone in the city chat that …", "告诉他们一声，…": who is told comes first (after a colon or "say",
    # "the guest leaves on the 11th" is what is said).
    while ADDRESSING.match(found.group().strip()) and (filler := FILLER.match(said, start)) and filler.end() > start:
        start = filler.end()
    if MESSAGE_NOUN.search(found.group().strip()) and (again := SAYING_AGAIN.match(said, start)):
        start = again.end()  # "a note saying we're still waiting": the words follow the second verb
    text = said[start:].strip()
    if not text:
        return None
    start = said.index(text, start)
    return Span("text", text, start, start + len(text), text)


# "订单号HT20260301001", "(order HT20260301001)", "…。HT20260301001": where the text says which
# order it is about, apart from what to pass on ("please confirm HT20260301002" keeps it: it is
# part of the sentence).
_LABEL = r"(?:(?:for|re|about|on)\s+)?(?:(?:the\s+)?order(?:\s+(?:no\.?|number|#))?|订单号?|单号|订单编号)"
_ORDER = r"[A-Za-z]{2}\d{8,}"
ORDER_HEAD = re.compile(rf"^\s*[（(]?\s*(?:{_LABEL})?\s*[:：#]?\s*{_ORDER}\s*[)）]?\s*[,，:：;；]\s*", re.IGNORECASE)
ORDER_TAIL = re.compile(
    rf"(?:(?<=[。.!！?？])\s*(?:{_LABEL})?|[\s,，;；]*[（(]\s*(?:{_LABEL})?|[\s,，;；]*{_LABEL}|[\s]*[,，;；])"
    rf"\s*[:：#]?\s*{_ORDER}\s*[)）]?\s*$",
    re.IGNORECASE,
)


def without_order_reference(text: Span) -> Span:
    """The free text less an order number it begins or ends with as a reference apart from the
    sentence: the order is a slot of its own."""
    value, start = text.value, text.start
    if head := ORDER_HEAD.match(value):
        value, start = value[head.end() :], start + head.end()
    if (tail := ORDER_TAIL.search(value)) and tail.start() > 0:
        value = value[: tail.start()]
    value = value.rstrip()
    if not value:
        return text
    return Span("text", value, start, start + len(value), value)


# "…：早餐7点开始。另外帮我查一下订单", "…: breakfast is at 7. Also, look up the order": a request to the
# agent after the words to pass on, never part of them.
TO_THE_AGENT = re.compile(
    r"[。.!！;；]\s*(?:另外|还有|顺便|然后|再)?\s*(?:帮我|麻烦你|你再|请你|你帮我)"
    r"|[.!;]\s*(?:also|and\s+also|then|and\s+then)\s*,?\s*(?:please\s+)?(?:check|look\s+up|find|refund|cancel|pull\s+up|show\s+me|tell\s+me)\b",
    re.IGNORECASE,
)


def without_request_to_agent(text: Span) -> Span:
    """The free text less a request to the agent that follows it in a sentence of its own, and less what it is told
    to leave out ("…, but don't mention the refund")."""
    cuts = [found.start() + 1 for found in (TO_THE_AGENT.search(text.value),) if found is not None and found.start() > 0]
    cuts += [found.start() for found in (NOT_TO_SAY.search(text.value),) if found is not None and found.start() > 0]
    if not cuts:
        return text
    value = text.value[: min(cuts)].rstrip()  # a request's sentence keeps its own end mark
    return Span("text", value, text.start, text.start + len(value), value)
