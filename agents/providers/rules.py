"""The offline ``rules`` provider's chat half: a deterministic reader of chat messages.

A turn is read in this order: a follow-up of the last turn ("yes", "three", "same to
Carol", see ``framing.follow_up``); the guards and phrases below; then the frames each app
declares beside its tools (``frames.py``, read by ``framing.read_frames`` from the typed
spans of ``understanding.py``). Whatever decided, a write runs only when every argument is
a span of the user's words or an entity resolved from one (``RulesChatPolicy.unfounded``).

Each app contributes its phrases in its own ``intents.py`` (autodiscovered), next to its
tools, with ``@intent(pattern, ...)``, and the words it must recognise with ``@vocabulary``
(read from the database on every turn, see ``vocabulary.py``). The message is normalised
first (full-width, numerals, padding, domain words); a message no intent matches is tried
once more with its English typos corrected. A handler sees the message and the results of
the tool calls made since, and returns the next ``Step``: more tool calls, or a reply.
The provider only ever calls tools it was offered, exactly like a real model. Replies are
gettext strings, rendered in the language the user wrote in (``Turn.language``).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from asgiref.sync import sync_to_async
from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from ..registry import registry
from .base import Completion, ToolCallRequest
from .understanding import lexicon, one_lexicon, spoken_language
from .vocabulary import correct_typos, domain_terms, normalize, retyped, without_slips

# A question about how things are ("is Beta Balanced active?", "科技先锋是启用的吗"), not about what to do
# ("should I disable fund 2?"): a look-up may answer it.
STATE_QUESTION = re.compile(r"^\s*(?:is|are|was|were|does|do|has|have)\b|吗\s*[?？]?\s*$", re.IGNORECASE)
# A look-up phrase that is itself a question ("what's frank's id?"): the answer is what is asked.
WH_ASKED = re.compile(r"\s*(?:what|who|which|where|how)\b", re.IGNORECASE)
# A message that opens with a question: "Which buildings pay the best wage? …".
QUESTION_FIRST = re.compile(r"\s*(?:what|which|where|who)\b[^?？.!]*[?？]", re.IGNORECASE)
# How many things the "not understood" reply offers.
SUGGESTIONS = 4


@dataclass(frozen=True)
class Outcome:
    """One tool call of this turn and what it returned."""

    name: str
    arguments: dict
    result: dict

    @property
    def ok(self) -> bool:
        return self.result.get("status") == "success"

    @property
    def data(self) -> Any:
        return self.result.get("data")


# Reads of one thing the question names that answer it as well as a list does.
ANSWERING_READS = {"order_query", "get_fund_detail"}


@dataclass
class Turn:
    # The message in its normal form (what the intents match); ``said`` is as typed, and
    # ``plain`` normalised with the domain words left as typed (names and free text).
    text: str
    offered: set[str]
    outcomes: list[Outcome] = field(default_factory=list)
    system: str = ""
    said: str = ""
    plain: str = ""
    # The user's message before this one, and the calls its turn made: what a follow-up continues.
    earlier: str = ""
    earlier_calls: list[tuple[str, dict]] = field(default_factory=list)
    # Those calls with their results: the rows a list showed ("the second one" picks among them).
    earlier_outcomes: list[Outcome] = field(default_factory=list)
    # The agent's reply to that message: the options it named ("「稳健增长一号」还是「稳健增长2号」？").
    answered: str = ""
    # The user's messages before ``earlier``, the newest first (a few): where an order or fund named two turns
    # back is found when the last message named none ("HT… 要提前走" → "供应商说可以退" → "那就登记退款").
    history: list[str] = field(default_factory=list)
    # Set while a follow-up is read: the earlier message whose frame it continues.
    continues: str = ""
    # The user said "yes" to what the earlier message proposed.
    confirmed: bool = False
    # The user said "no" to it ("不是" to "是这一单吗？").
    declined: bool = False

    @property
    def language(self) -> str:
        """The language the user wrote in: a model answers in it, whatever the page's language.
        A reply without words ("12", "HT20260301001") is in the language of the message it answers."""
        said = self.said or self.text
        if self.earlier and not re.search(r"[A-Za-z\u4e00-\u9fff]{2,}", re.sub(r"[A-Za-z]{2}\d{8,}", "", said)):
            return spoken_language(self.earlier)
        return spoken_language(said)

    def last(self, name: str) -> Outcome | None:
        return next((o for o in reversed(self.outcomes) if o.name == name), None)


@dataclass(frozen=True)
class Step:
    calls: tuple[tuple[str, dict], ...] = ()
    reply: str = ""
    # Calls that wait for staff's "yes" as pending actions (free text to a third party), whatever
    # the tool's grant says.
    proposed: tuple[tuple[str, dict], ...] = ()
    # Arguments the agent composed itself from look-ups (the desk's question to the supplier).
    composed: tuple[str, ...] = ()
    # The write this step's look-ups lead to (the cancel that lists the market first): the gate
    # of ``RulesChatPolicy.held_back`` stops it before the first look-up.
    toward: str = ""

    @classmethod
    def call(cls, name: str, **arguments: Any) -> Step:
        return cls(calls=((name, arguments),))

    @classmethod
    def say(cls, text: str) -> Step:
        return cls(reply=text)


Handler = Callable[[Turn, re.Match], "Step | None"]
# The guards (negations, hypotheticals, questions about the past) sit at this priority.
GUARD = 50
# What a handler returns when its pattern matched words that are not its business
# ("商店里有什么" is not a resident's stock): the next matching intent decides.
DECLINE = Step(reply="\0decline")
# The message, or the words it gives a write, corrects itself on the way: which words stand is not sure.
SAID_TWO_WAYS = gettext_lazy("这句话中途改了口，我不确定以哪个为准，没有执行任何操作。请把最终的要求完整地说一遍，好吗？")


@dataclass(frozen=True)
class Intent:
    name: str
    patterns: tuple[re.Pattern, ...]
    handler: Handler
    priority: int
    # The tool this intent leads to and a sentence that reaches it (a gettext_lazy string):
    # what the "not understood" reply offers.
    tool: str = ""
    example: str | Promise = ""
    # Matched against ``Turn.plain``: for phrases whose captures are free text (names, remarks).
    verbatim: bool = False


_intents: list[Intent] = []


def intent(
    *patterns: str, priority: int = 0, tool: str = "", example: str | Promise = "", verbatim: bool = False
) -> Callable[[Handler], Handler]:
    """Register a chat intent; patterns are searched case-insensitively in the normalised message."""

    def decorator(handler: Handler) -> Handler:
        name = f"{handler.__module__}.{handler.__qualname__}"
        _intents[:] = [i for i in _intents if i.name != name]  # re-import replaces, never duplicates
        compiled = tuple(re.compile(p, re.IGNORECASE) for p in patterns)
        _intents.append(Intent(name, compiled, handler, priority, tool, example, verbatim))
        _intents.sort(key=lambda i: -i.priority)
        return handler

    return decorator


def offer(tool: str, example: str | Promise) -> None:
    """What the "not understood" reply offers for a tool whose frame reads the messages itself
    (no phrase of its own): the tool and a sentence that reaches it."""

    def handler(turn: Turn, match: re.Match) -> Step | None:
        return DECLINE

    spec = registry.get(tool)
    handler.__qualname__ = f"offer_{tool}"
    handler.__module__ = spec.func.__module__ if spec is not None else __name__  # its app, for ``suggestions``
    intent(tool=tool, example=example)(handler)


def registered_intents() -> list[Intent]:
    return list(_intents)


def matches(text: str, offered: set[str] | None = None, plain: str | None = None) -> list[tuple[Intent, re.Match]]:
    """Every intent with a pattern in ``text``, best first: those of the offered tools first, so
    that another app's phrase never shadows this agent's; then any (its reply says what is missing)."""
    passes = [_intents] if offered is None else [[i for i in _intents if not i.tool or i.tool in offered], _intents]
    found: list[tuple[Intent, re.Match]] = []
    for intents in passes:
        for item in intents:
            searched = plain if item.verbatim and plain is not None else text
            cut = _words_to_pass_on(searched)
            hit = next((m for m in (p.search(searched) for p in item.patterns) if m and m.start() < cut), None)
            if hit is not None and all(item is not seen for seen, _match in found):
                found.append((item, hit))
    return found


def _words_to_pass_on(text: str) -> int:
    """Where the words to pass on begin ("在城市频道说一句：今晚请大家吃面包", "tell the guest: …"): a
    phrase found only there asks for nothing. ``len(text)`` when the message passes nothing on."""
    from .frames import SAYING_HEAD
    from .restraint import notice_to_agent

    colon = re.search(r"[:：]", text)
    if colon is None or not SAYING_HEAD.search(text[: colon.start()].lower()) or notice_to_agent(text, colon):
        return len(text)
    return colon.start()


def match_intent(text: str, offered: set[str] | None = None, plain: str | None = None) -> tuple[Intent, re.Match] | None:
    """The first intent ``matches`` finds, or None."""
    return next(iter(matches(text, offered, plain)), None)


def keywords() -> set[str]:
    """The English words the intents' patterns spell out: what a typo is corrected towards."""
    return {word for item in _intents for pattern in item.patterns for word in re.findall(r"[a-z]{4,}", pattern.pattern)}


def understand(said: str, offered: set[str] | None = None) -> tuple[str, str, list[tuple[Intent, re.Match]]]:
    """The message's normal forms and the intents it matches, trying a typo-corrected form last."""
    terms = domain_terms()
    text = normalize(said, terms)
    plain = normalize(said, {surface: surface for surface in terms})
    found = matches(text, offered, plain)
    if not found:
        known = keywords() | {word for pair in terms.items() for word in pair if word.isascii()}
        corrected, corrected_plain = correct_typos(text, known), correct_typos(plain, known)
        if corrected != text and (found := matches(corrected, offered, corrected_plain)):
            text, plain = corrected, corrected_plain
    return text, plain, found


def _writes_now(step: Step) -> bool:
    from .frames import is_write

    return any(is_write(name) for name, _arguments in (*step.calls, *step.proposed))


def answered(turn: Turn) -> Step:
    """The reply to a question a look-up answered: nothing done, and what was found."""
    return Step.say("\n".join([_("这是一个问题，我不会因此执行操作。以下是查到的信息："), summarize(turn)]))


def state_read(turn: Turn) -> Step:
    """A question about the speaker's own state: read it, then answer with what was found; nothing written."""
    if turn.outcomes:
        return answered(turn)
    return Step(calls=(("get_my_status", {}),), reply=_("这是一个问题，我不会因此执行操作；先看看你的状态。"))


def summarize(turn: Turn) -> str:
    """The default reply once the calls of a turn have run: each result in one line."""
    lines = []
    for outcome in turn.outcomes:
        if outcome.ok:
            data = outcome.data
            message = data.get("message") if isinstance(data, dict) else None
            lines.append(message or json.dumps(data, ensure_ascii=False))
        elif outcome.result.get("status") == "pending_confirmation":
            lines.append(outcome.result.get("message", ""))
        else:
            lines.append(outcome.result.get("error", {}).get("message", ""))
    return "\n".join(line for line in lines if line)


def _calls_in(messages: list[dict]) -> list[tuple[str, dict]]:
    out = []
    for message in messages:
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            try:
                arguments = json.loads(function.get("arguments") or "{}")
            except (json.JSONDecodeError, TypeError):
                arguments = {}
            out.append((function.get("name", ""), arguments if isinstance(arguments, dict) else {}))
    return out


def read_turn(messages: list[dict], offered: set[str]) -> Turn:
    """Rebuild the current turn from OpenAI-format messages: the last user message, the tool
    calls (with their results) that followed it, and the user's message before it."""
    from . import restraint

    users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    last_user = users[-1] if users else -1
    # "买一袋面粉……哦不对，两袋": a bare count correcting the one count before it is read as meant.
    text = restraint.recounted(retyped(without_slips(str(messages[last_user].get("content") or ""))) if last_user >= 0 else "")
    system = "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "system")
    text = restraint.to_self(text, agent_name(system))  # "让Bob把…", said to Bob: Bob is the agent
    text = restraint.fresh_start(text)  # "never mind, quit my job": the request after the calling-off
    outcomes = _outcomes_in(messages[last_user + 1 :])
    earlier, earlier_calls, earlier_outcomes, answered = "", [], [], ""
    if len(users) > 1:
        earlier = restraint.recounted(str(messages[users[-2]].get("content") or ""))
        earlier_calls = _calls_in(messages[users[-2] + 1 : last_user])
        earlier_outcomes = _outcomes_in(messages[users[-2] + 1 : last_user])
        replies = [m for m in messages[users[-2] + 1 : last_user] if m.get("role") == "assistant" and m.get("content")]
        answered = str(replies[-1].get("content") or "") if replies else ""
    history = [str(messages[i].get("content") or "") for i in reversed(users[-5:-2])]
    return Turn(
        text=text, offered=offered, outcomes=outcomes, system=system, said=text, earlier=earlier, earlier_calls=earlier_calls,
        earlier_outcomes=earlier_outcomes, answered=answered, history=history,
    )


def _outcomes_in(messages: list[dict]) -> list[Outcome]:
    """Each tool call in ``messages`` with the result that answered it."""
    results = {m.get("tool_call_id"): m for m in messages if m.get("role") == "tool"}
    outcomes = []
    for message in messages:
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            answer = results.get(call.get("id"))
            try:
                arguments = json.loads(function.get("arguments") or "{}")
                result = json.loads(answer["content"]) if answer else {}
            except (json.JSONDecodeError, TypeError):
                arguments, result = {}, {}
            outcomes.append(Outcome(function.get("name", ""), arguments, result))
    return outcomes


class RulesChatPolicy:
    """Deterministic chat: a follow-up continues the last turn; otherwise the first matching
    phrase decides, then the frames; every write is checked against the user's words."""

    def __init__(self) -> None:
        self._ids = itertools.count(1)

    def decide(self, messages: list[dict], tools: list[dict]) -> Completion:
        offered = {t["function"]["name"] for t in tools if t.get("type") == "function"}
        turn = read_turn(messages, offered)
        with translation.override(turn.language), one_lexicon():
            from .framing import changed_mind

            # "…，哦不对，五根": the first words, then the correction, as two turns would be.
            corrected = changed_mind(turn) and bool(turn.earlier)
            turn.text, turn.plain, found = understand(turn.said, offered)
            return self._decide(turn, found, corrected=corrected)

    def _decide(self, turn: Turn, found: list[tuple[Intent, re.Match]], *, corrected: bool = False) -> Completion:
        from . import restraint
        from .frames import is_write
        from .framing import follow_up, guarded, read_frames, write_frames

        step = follow_up(turn)
        if corrected and step is None:
            # The correction continues nothing the first words asked: never read alone ("…，不对，三个吧，他今天没吃饭").
            return Completion(content=str(SAID_TWO_WAYS))
        if step is None:
            step, item = DECLINE, None
            # "is the quarry still hiring? if so, sign me up": the question and its condition are the tool's to check.
            available_if = restraint.unless_gone(turn.said, resident_names()) != turn.said
            for item, match in found:
                if available_if and item.name.endswith(("how_to", "hypothetical")):
                    continue
                if item.name.endswith("question_about_the_past") and (query := guarded(turn)) is not None:
                    step = query  # "供应商回了没": a question a query answers, never a write
                    break
                if item.name.endswith("how_to") and STATE_QUESTION.search(turn.said) and (query := guarded(turn, any_read=True)) is not None:
                    step = query  # "is Beta Balanced active?": the fund's detail answers it, nothing is written
                    break
                if (step := item.handler(turn, match)) is not DECLINE:
                    if step is not None and item.tool:
                        step = replace(step, toward=step.toward or item.tool)
                    break
            listing = step is not DECLINE and item is not None and bool(item.tool) and not is_write(item.tool)
            # ("what's frank's id? I want to send him something later": the look-up asked with its question mark stands.)
            asked_so = listing and bool(WH_ASKED.match(match.group())) and bool(re.match(r"\s*[?？]", match.string[match.end() :]))
            # ("Which buildings pay the best wage? I need to pick a job soon": the question opens the message and is
            # what the listing answers, unless a write is made outright.)
            opened = listing and (first := QUESTION_FIRST.match(turn.said)) is not None and match.end() <= first.end()
            if listing and not asked_so and (better := write_frames(turn)) is not None and (not opened or _writes_now(better)):
                step = better  # "cancel my market order" is not the market's listing
        if step is not DECLINE and step is not None and any(name not in turn.offered for name, _a in step.calls):
            # Another role's phrase ("查一下Beta" is a resident look-up to the city): this agent's frames first.
            if (own := read_frames(turn)) is not DECLINE:
                step = own
        if step is DECLINE or (step is not None and (step.calls or step.proposed) and self.unfounded(turn, step)):
            step = read_frames(turn)  # a phrase that misread the message: the frames read it again
        if step is DECLINE:
            return Completion(content=self.not_understood(turn))
        if step is None:
            step = Step.say(summarize(turn))
        if held := self.held_back(turn, step):
            step = held
            if not step.calls:
                return Completion(content=step.reply)
        missing = [name for name, _arguments in (*step.calls, *step.proposed) if name not in turn.offered]
        if missing:
            return Completion(content=_("我没有被授权使用工具：%(tools)s。") % {"tools": ", ".join(missing)})
        if not step.calls and not step.proposed:
            return Completion(content=step.reply or summarize(turn))
        if unfounded := self.unfounded(turn, step):
            return Completion(content=unfounded)
        # A proposed call runs only after staff's "yes": the executor makes it a pending action.
        calls = [
            ToolCallRequest(
                id=f"call_rules_{next(self._ids)}", name=name, arguments=json.dumps(args, ensure_ascii=False), propose=propose
            )
            for propose, group in ((False, step.calls), (True, step.proposed))
            for name, args in group
        ]
        return Completion(content=step.reply, tool_calls=calls)

    @staticmethod
    def held_back(turn: Turn, step: Step) -> Step | None:
        """The one gate before any write or proposal, whoever read it (a phrase, a frame, a
        follow-up): a negation or deferral, a question or musing, or another resident's goods
        around the action hold it back (``restraint.py``). None lets the step through."""
        from . import restraint
        from .frames import CORRECTION, NO, YES, is_bare, is_write
        from .understanding import read

        writes = [(name, arguments) for name, arguments in (*step.calls, *step.proposed) if is_write(name)]
        if step.toward and is_write(step.toward) and step.calls and not turn.outcomes:
            writes.append((step.toward, {}))
        if not writes:
            return None
        said = turn.said
        if YES.match(said) or NO.match(said) or is_bare(said):
            said = ""  # "yes", "three": the words that count are the earlier message's
        elif correction := CORRECTION.match(said):
            said = correction["rest"]
        messages = [m for m in (turn.earlier if turn.continues else "", said) if m]
        free = [v for _name, arguments in writes for k, v in arguments.items() if k in restraint.FREE_TEXT and isinstance(v, str)]
        if any(restraint.revised(v) for v in free):
            return Step.say(str(SAID_TWO_WAYS))
        # "在频道说一声……算了，没人看": words not dictated (no colon, no quotes) that take themselves back.
        if any(restraint.CALLED_OFF.search(v) and v in restraint.without_passed_on(said) for v in free):
            return Step.say(_("好的，我不会执行任何操作。"))
        speaker = agent_name(turn.system)
        persons = resident_names()
        # "yes" to the question a relayed instruction or a plan was asked back with: the user now asks for it.
        confirmed = bool(YES.match(turn.said))
        for message in messages:
            # "别忘了", "no worries": a courtesy's no asks nothing to stop.
            message = restraint.courteous(message)
            # The words passed on or written (a remark after its colon, a quotation) say nothing about the request.
            context = restraint.without_passed_on(restraint.without(message, free))
            # "还在的话", "if there's still a spot": a condition the write's tool checks itself holds nothing back.
            context = restraint.unless_gone(context, persons)
            context = restraint.without_left_fields(context, writes)
            # "…, we'll turn it off again after the audit": the speaker's own later deed, not the request put off.
            context = restraint.without_own_later(context, {name for name, _arguments in writes})
            if restraint.injected(message):
                return Step.say(_("这句话像是要改写我的指令，我不会因此执行任何操作。需要做什么，请直接告诉我。"))
            if not confirmed and restraint.only_asking(message):
                return Step.say(_("你是在问能不能这样做，不是让我去做，所以我没有执行任何操作。要我去做，请直接说。"))
            if not confirmed and restraint.advice_on_a_quote(message):
                return Step.say(_("引号里是别人写的话，你是在问怎么回应，所以我没有执行任何操作。要我发消息或办理，请直接说要做什么。"))
            if restraint.deferred(context, {name for name, _arguments in writes}) and not negated_elsewhere(context, writes, turn.offered):
                # "turn 绿色能源主题 back on... wait, it's already on isn't it? then just show me its details": the look-up
                # asked in the write's place.
                if SHOWN_INSTEAD.search(context) and (look := look_up(turn, ANSWERING_READS, going_on=True)) is not None:
                    return look
                return Step.say(_("好的，先不做：这句话里有否定或“先不”的意思，我没有执行任何操作。"))
            if restraint.supposed(without_their_plans(context, writes)) or (not confirmed and planned(context, writes)):
                # "面粉还剩几份？明早要烤面包，不够的话得去买": the plan waits; the question before it is answered.
                if restraint.QUESTION_MARK.search(context) and turn.outcomes:
                    return answered(turn)
                if restraint.QUESTION_MARK.search(context) and (look := look_up(turn, {*ANSWERING_READS, "get_my_resources"})) is not None:
                    return look
                if "get_my_status" in turn.offered and restraint.about_me(context) and restraint.QUESTION.search(context):
                    return state_read(turn)  # "how much money do i have, thinking of buying bread …": the state asked beside the plan
                return Step.say(_("听起来这是以后的打算或一种假设，我现在没有执行任何操作。需要时请直接说。"))
            # The count's own message: "three", answering "how many?" after "some bread", is exact.
            if message is said and any(k in restraint.COUNTS for _name, arguments in writes for k in arguments) and restraint.approximate(context):
                return Step.say(_("这个数量是个大概的数，我没有执行任何操作。请告诉我确切的数量，好吗？"))
            if restraint.corrected(context):
                return Step.say(str(SAID_TWO_WAYS))
            if not confirmed and (
                restraint.relayed(context) or asked_of_me(context, writes) or told_by_others(context, writes)
                or quoted_only(restraint.without_left_fields(restraint.without(message, free), writes), context, writes)
            ):
                return Step.say(_("这是转述别人的要求，我还没有执行。要我现在就做吗？回复「是」我就执行。"))
            if restraint.reported(context, {name for name, _arguments in writes}) and not asked_anew(context, writes):
                return Step.say(_("听起来这是已经做过的事，我没有再执行任何操作。要再做一次，请直接说。"))
            if restraint.habit(context):
                return Step.say(_("这听起来是在说别人一贯的做法，不是让我去做，我没有执行任何操作。需要时请直接说。"))
            if about_the_deed(context, writes):
                return Step.say(_("这听起来是在聊这件事，不是让我去做，我没有执行任何操作。需要时请直接说。"))
            if restraint.asked(context):
                if turn.outcomes:
                    return answered(turn)
                if "get_my_status" in turn.offered and restraint.about_me(context):
                    return state_read(turn)
                # "最近有啥悬赏可以接的吗", "HT…退款到哪一步了？": a look-up (a list, or the one order or fund named)
                # answers what the question asks about, and nothing is written.
                if (look := look_up(turn, ANSWERING_READS)) is not None:
                    return look
                return Step.say(_("这是一个问题，我不会因此执行操作；想让我做什么请直接说。"))
            # The write's own free text names no owner: "a fund called 'Bob's Pick'" is no Bob's thing.
            residents = [(s.start, s.end, s.name, s.value) for s in read(context).of("resident")]
            values = {v for _name, arguments in writes for v in arguments.values()}
            if any(restraint.others(context, name, speaker, residents, values) for name, _arguments in writes):
                return Step.say(_("这是别人的东西，我只能处理自己的物品和挂单，没有执行任何操作。"))
        return None

    @staticmethod
    def unfounded(turn: Turn, step: Step) -> str:
        """The gate before any write: an argument that is no span of the user's words, no entity
        resolved from one and no row a look-up returned is a misreading, and nothing runs."""
        from .frames import is_write, provenance

        looked_up = [o.data for o in turn.outcomes if o.ok]
        for name, arguments in (*step.calls, *step.proposed):
            if not is_write(name):
                continue
            checked = {k: v for k, v in arguments.items() if k not in step.composed}
            if provenance(turn.said, name, checked, looked_up, turn.continues):
                return _("我没能确定这个请求的全部参数，为免误操作没有执行。请换个说法，写明对象和数量。")
        return ""

    @staticmethod
    def not_understood(turn: Turn) -> str:
        """What this agent can do instead, from its granted tools: never a fixed hint."""
        lines = [
            _("- %(what)s，例如「%(example)s」") % {"what": registry.get(tool).describe(), "example": example}
            for tool, example in suggestions(turn.offered)
        ]
        if not lines:
            return _("收到：「%(text)s」。我暂时无法据此执行操作，也没有可用的工具。") % {"text": turn.said}
        name = agent_name(turn.system)
        if CAPABILITIES.search(turn.said):  # "what can you do?": the list is the answer, not a failure to read
            head = _("我是%(name)s，可以帮你：") % {"name": name} if name else _("我可以帮你：")
        elif name:
            head = _("收到：「%(text)s」，但我没有理解。我是%(name)s，可以帮你：") % {"text": turn.said, "name": name}
        else:
            head = _("收到：「%(text)s」，但我没有理解。我可以帮你：") % {"text": turn.said}
        return "\n".join([head, *lines])


# "what can you do", "你能做什么", "help": a question about this agent's abilities.
CAPABILITIES = re.compile(
    r"你(?:能|会|可以)(?:做|干|帮我?做?)?(?:些|点)?(?:什么|啥)|有(?:什么|啥)(?:功能|本事)|怎么用你|^\s*(?:帮助|help|\?|？)\s*[!！?？.。]*\s*$"
    r"|\bwhat\s+(?:can|could|do)\s+(?:you|u)\s+(?:do|help(?:\s+(?:me\s+)?with)?)\b|\bwhat\s+are\s+you\s+(?:for|able\s+to\s+do)\b|\bhow\s+do\s+i\s+use\s+you\b",
    re.IGNORECASE,
)


def asked_anew(message: str, writes: list[tuple[str, dict]]) -> bool:
    """A clause of its own asks for the write, beside the one that tells what was done ("I sold 3 wood
    yesterday, now give Eve 2 bread"): the report holds nothing back."""
    from . import restraint
    from .frames import clauses, registered_frames, sub_reading
    from .understanding import read

    words = [w for f in registered_frames() if f.tool in {name for name, _a in writes} for w in f.words]
    bounds = clauses(message)
    if len(bounds) < 2 or not words:
        return False
    reading = read(message)
    tools = {name for name, _a in writes}
    # "中午吃了一个苹果，现在不饿": a clause that says no ("不饿") asks for nothing anew.
    return any(
        not restraint.DONE.search(message[a:b]) and not restraint.deferred(message[a:b], tools) and sub_reading(reading, a, b).has(*words)
        for a, b in bounds
    )


def look_up(turn: Turn, answering: set[str], *, going_on: bool = False) -> Step | None:
    """The look-up (a list, or one of ``answering``: the one order or fund named) that answers the message's question
    in place of a write it will not make; None when no read answers it. ``going_on``: the look-ups this turn made
    lead on (the fund's list, then its detail), and once they are done, what they found answers."""
    from .framing import read_frames

    look = read_frames(turn if going_on else replace(turn, outcomes=[]), reads_only=True)
    if going_on and turn.outcomes and (look is DECLINE or look is None or not look.calls):
        return Step.say("\n".join([_("好的，那一步不做了。以下是查到的信息："), summarize(turn)]))
    if look is DECLINE or look is None or not look.calls:
        return None
    if not all(name.startswith("list_") or name in answering for name, _a in look.calls):
        return None
    return Step(calls=look.calls, reply=_("这是一个问题，我不会因此执行操作；先查一下相关信息。"))


# A look-up asked for once the write is taken back: "…wait, … then just show me its details", "…算了，那就查一下".
SHOWN_INSTEAD = re.compile(
    r"\b(?:then|so|instead)\s+(?:just\s+)?(?:show|tell|give)\s+me\b|\bjust\s+show\s+me\b|那(?:就|还是)(?:先)?(?:帮我)?(?:查|看)(?:一下|下|看)?",
    re.IGNORECASE,
)
CHANGED_TO = re.compile(r"^\s*(?:改成|换成|改为|而是|还是)|\binstead\b", re.IGNORECASE)
WAIT_ALONE = re.compile(r"\s*(?:等等|等一下|等下|wait|hold\s+on)\s*[,，.。!！…]*\s*", re.IGNORECASE)
LEFT_ALONE = re.compile(r"别动|不要动|不用动|\bleave\s+(?:\S+\s+){1,3}?alone\b|\bdon'?t\s+touch\b", re.IGNORECASE)
MEANT = re.compile(r"^\s*(?:我)?(?:说的是|是说|指的是|要的是)|^\s*i\s+mean(?:t)?\b", re.IGNORECASE)


def set_aside(clause: str, meant: bool) -> bool:
    """Once the message names the one meant (``meant``), a "wait" before the correction and the wrong one left alone
    ("等等，停错了，我说的是科技先锋，Beta Balanced别动") are no refusal of the request."""
    return meant and bool(WAIT_ALONE.fullmatch(clause) or LEFT_ALONE.search(clause))


LOOK_CALLED_OFF = re.compile(
    r"不(?:看|查|问|瞧)了|别(?:看|查|瞧)了|(?:不用|不必|懒得)(?:再)?(?:看|查|问)|\b(?:no\s+need\s+to|won'?t|don'?t)\s+(?:check|look)\b",
    re.IGNORECASE,
)


def negated_elsewhere(message: str, writes: list[tuple[str, dict]], offered: set[str]) -> bool:
    """The negation says no to another thing, in a clause of its own ("不用休息了，先帮我上班打卡" checks in):
    each negated clause asks for another of this agent's tools, and a clause without one asks for the write."""
    from . import restraint
    from .frames import CLAUSE_OR_DASH, clauses, registered_frames, sub_reading
    from .understanding import read

    tools = {name for name, _a in writes}
    mine = [w for f in registered_frames() if f.tool in tools for w in f.words]
    others = [w for f in registered_frames() if f.tool in offered and f.tool not in tools for w in f.words]
    bounds = clauses(message, CLAUSE_OR_DASH)
    if len(bounds) < 2 or not mine:
        return False
    reading = read(message)
    negated = [(a, b) for a, b in bounds if restraint.deferred(message[a:b], tools)]
    if not negated or len(negated) == len(bounds):
        return False
    # "别把苹果给Eve，我自己还要吃的": the speaker's own need is the no's reason, not a request of its own.
    clean = [sub_reading(reading, a, b) for a, b in bounds if (a, b) not in negated and not restraint.own_need(message[a:b])]
    meant = any(MEANT.search(message[a:b]) for a, b in bounds if (a, b) not in negated)  # "…，我说的是科技先锋，…"
    # ("no remarks needed", "备注不用动", "名字别动": the gate took a field the write leaves alone out of the message.)
    asking = [(a, b) for a, b in bounds if (a, b) not in negated and sub_reading(reading, a, b).has(*mine)]
    # "先别停科技先锋，改成停稳健增长一号", "don't disable the tech fund, disable Beta instead": the no, then the
    # same deed asked again, on another thing, in a clause that says so.
    instead = [(a, b) for a, b in asking if CHANGED_TO.search(message[a:b])]
    return all(
        any(c >= b for c, _d in instead)
        # "买俩苹果，别买面包哈": a no to the same deed of other goods than the write's says nothing of the write.
        or _other_goods(reading, a, b, writes, asking) or not sub_reading(reading, a, b).has(*mine)
        and (
            sub_reading(reading, a, b).has(*others)
            or (NO_LONGER.search(message[a:b]) and not restraint.CALLED_OFF.search(message[a:b]))
            or about_someone_else(message[a:b])
            # "give Eve 2 apples, I don't really like them": the speaker not needing the goods is why.
            or restraint.not_needed(message[a:b])
            # "先查查…算了不查了，直接给bob两个苹果": the look-up called off, not the write.
            or LOOK_CALLED_OFF.search(message[a:b])
        )
        # "等等，停错了，我说的是科技先锋，Beta Balanced别动": the wait before a correction, and the wrong one left alone.
        or set_aside(message[a:b], meant)
        for a, b in negated
    ) and any(c.has(*mine) for c in clean)


def _other_goods(reading, start: int, end: int, writes: list[tuple[str, dict]], asked: list[tuple[int, int]]) -> bool:
    """The clause from ``start`` to ``end`` names goods, none of them the writes' nor those of the clauses that ask
    (``asked``): "面包啥的晚点再说" beside eating an apple, "别买面包" beside buying apples."""
    def goods(a: int, b: int) -> set[str]:
        return {str(s.value).casefold() for s in reading.spans if s.kind in ("resource", "item") and s.score >= 0.9 and a <= s.start < b}

    said_no = goods(start, end)
    meant = {str(v).casefold() for _name, arguments in writes for v in arguments.values()}
    meant |= {value for a, b in asked for value in goods(a, b)}
    return bool(said_no) and bool(meant) and not said_no & meant


# "Eve不能没有石料", "she can't build without it": a clause whose subject is someone else says why, not what to do.
SOMEONE_ELSE = re.compile(
    r"^\s*(?:(?-i:(?!(?:We|You|Please|Just|Maybe|Then|So|And|But|Ok|Okay|Now|Still)\b)[A-Z][a-z]+)(?!['’]s\b)|he|she|they|他|她|他们|她们|客人|供应商)\s*(?:\w+\s+)?(?:不|没|can'?t|cannot|won'?t|doesn'?t|isn'?t|didn'?t|has\s+no|is\s+not|does\s+not)",
    re.IGNORECASE,
)


def about_someone_else(clause: str) -> bool:
    from . import restraint

    return bool(SOMEONE_ELSE.search(clause)) and not restraint.CALLED_OFF.search(clause)


def _write_words(writes: list[tuple[str, dict]]) -> list[str]:
    from .frames import registered_frames

    return [w for f in registered_frames() if f.tool in {name for name, _a in writes} for w in f.words]


def about_the_deed(message: str, writes: list[tuple[str, dict]]) -> bool:
    """Every clause asking for the write opens with its verb as a noun ("buying bread every day adds up", "quitting
    smoking is hard"): the deed talked about, not asked for."""
    from .frames import clauses
    from .understanding import tokens

    words = {w for w in _write_words(writes) if w.isascii()}
    holding = []
    for a, b in clauses(message):
        said = tokens(message[a:b])
        if any(t.lemma in words or t.lemma + "e" in words for t in said):
            holding.append(said)
    return bool(holding) and all(
        said[0].text.lower().endswith("ing") and said[0].lemma != said[0].text.lower()  # "ping" is no gerund
        and (said[0].lemma in words or said[0].lemma + "e" in words) for said in holding
    )


def asked_of_me(message: str, writes: list[tuple[str, dict]]) -> bool:
    """Every clause asking for the write passes on someone's question to the speaker ("Eve问我能不能给她两个石料",
    "the guest asked if we could refund HT…"): theirs, not a request; a clause of the user's own asks anew."""
    from . import restraint
    from .frames import clauses, sub_reading
    from .understanding import read

    if not restraint.ASKED_OF_ME.search(message):
        return False
    words = _write_words(writes)
    reading = read(message)
    holding = [(a, b) for a, b in clauses(message) if sub_reading(reading, a, b).has(*words)] or [(0, len(message))]
    return all(restraint.ASKED_OF_ME.search(message[a:b]) and not restraint.NOW.search(message[a:b]) for a, b in holding)


# Writes whose own verb is saying something: "跟供应商说…" asks for them, whoever else is named.
SAYING = {"message_send", "chat"}


def told_by_others(message: str, writes: list[tuple[str, dict]]) -> bool:
    """Every clause asking for the write tells what someone else said, before the write's words ("Carol说她明天要来买我的
    小麦", "compliance said they might ask us to disable 科技先锋"): theirs, not a request; a clause of the user's own, a
    please, or a clause ending on "吧" asks anew."""
    from . import restraint
    from .frames import clauses, sub_reading
    from .understanding import read

    tools = {name for name, _a in writes}
    if tools & SAYING or not restraint.SAID_BY_OTHERS.search(message):
        return False
    words = _write_words(writes)
    reading = read(message)
    holding = [(a, b) for a, b in clauses(message) if sub_reading(reading, a, b).has(*words)] or [(0, len(message))]

    def theirs(clause: str) -> bool:
        said = restraint.SAID_BY_OTHERS.search(clause)
        return bool(said) and not restraint.NOW.search(clause) and not restraint.ASKS_NOW.search(clause)

    return all(theirs(message[a:b]) for a, b in holding)


def quoted_only(message: str, context: str, writes: list[tuple[str, dict]]) -> bool:
    """The words asking for the write stand only inside a quotation ('"give Eve 3 stone" is what Carol typed'):
    quoted words are someone's, and the user's own words around them ask nothing."""
    from . import restraint
    from .understanding import read

    words = _write_words(writes)
    # (What a condition the tool checks took out, "还在吗？在的话…", is no quotation.)
    outside = restraint.without_passed_on(message)
    if not words or outside == message or restraint.NOW.search(context) or restraint.POLITE.search(context):
        return False
    return read(message).has(*words) and not read(outside).has(*words)


# A name given now ("起名叫…", "名字就叫…"), and the speaker's own "I plan to" it settles.
NAMED_NOW = re.compile(r"起名(?:叫|为)|取名(?:叫|为)|命名为|名字(?:就)?叫|\bname\s+it\b|\bcall\s+it\b", re.IGNORECASE)
PLAN_OF_MINE = re.compile(r"(?:我|咱|我们)(?:想|就)?(?:打算|准备)|\bi(?:'m|\s+am)\s+(?:planning|going)\s+to\b", re.IGNORECASE)


def planned(message: str, writes: list[tuple[str, dict]]) -> bool:
    """The clause asking for the write tells a plan for another time ("我明天打算给Eve两个苹果"), and no word
    asks for it now; a plan in a clause of its own is the reason ("明天要用面粉，先去商店买两袋")."""
    from . import restraint
    from .frames import CLAUSE_OR_DASH, clauses, registered_frames, sub_reading
    from .understanding import read

    # "…from the shop for the party tonight": the time is the goods' purpose, not when to act.
    message = restraint.PURPOSE_LATER.sub(lambda found: " " * len(found.group()), message)
    if NAMED_NOW.search(message):
        # "我打算投资盖一座采石场，起名叫西山采石场": the plan decided down to its name, with no time to wait for.
        message = PLAN_OF_MINE.sub(lambda found: " " * len(found.group()), message)
    if not restraint.PLANNED.search(message):
        return False
    words = [w for f in registered_frames() if f.tool in {name for name, _a in writes} for w in f.words]
    # "clock me in - missed it on monday": after a dash, the reason in a clause of its own.
    bounds = clauses(message, CLAUSE_OR_DASH) or [(0, len(message))]
    reading = read(message)
    holding = [(a, b) for a, b in bounds if sub_reading(reading, a, b).has(*words)] or bounds
    # "in an hour, give Eve 2 stone", "明天，给Eve两个": a clause that is only a time belongs to the next one.
    timed = {
        j for i, (a, b) in enumerate(bounds) for j in (i + 1,)
        if j < len(bounds) and (found := restraint.PLANNED.search(message[a:b]))
        and not TIME_FILLER.sub("", message[a:b].replace(found.group(), "")).strip()
    }

    def plans(i: int, clause: str) -> bool:
        if i in timed and not restraint.URGENT.search(clause):
            return True
        found = restraint.PLANNED.search(clause)
        # Whose plan: "客人明天就走" the guest's; "I'll give Eve 3 stone after lunch" the speaker's, whoever else it names.
        theirs = (
            restraint.THIRD_PARTY.search(clause[: found.start()]) and not FIRST_PERSON.match(clause) and not bidding(clause, words)
            # "Carol明天要来买我的小麦": the plan is the other person's own deed, not one asked of the agent.
            and not restraint.THEIR_DEED.search(clause)
            if found else False
        )
        return bool(found) and not restraint.URGENT.search(clause) and not theirs

    return all(plans(bounds.index((a, b)) if (a, b) in bounds else -1, message[a:b]) for a, b in holding)


# The speaker in a clause: "我", "I", "me", "my".
SPEAKER = re.compile(r"我|咱|\b(?:i|me|my|mine|we|us|our)\b|\bi['’]", re.IGNORECASE)


def without_their_plans(message: str, writes: list[tuple[str, dict]]) -> str:
    """``message`` less each clause telling someone else's plan ("he wants to build a mill someday") that names none
    of the write's words: their someday is why, not a supposition about the request."""
    from . import restraint
    from .frames import clauses, registered_frames, sub_reading
    from .understanding import read

    words = [w for f in registered_frames() if f.tool in {name for name, _a in writes} for w in f.words]
    reading, kept = read(message), list(message)
    for a, b in clauses(message):
        clause = message[a:b]
        # "Carol的小麦我也想买": the speaker's own wish in the clause is theirs to suppose, whoever else it names.
        if restraint.THEIR_DEED.search(clause) and not SPEAKER.search(clause) and not sub_reading(reading, a, b).has(*words):
            kept[a:b] = " " * (b - a)
    return "".join(kept)


def bidding(clause: str, words: list[str]) -> bool:
    """The clause opens with the write's own verb ("give Eve 3 stone on monday", "给Eve…"): the speaker bids it."""
    from .understanding import tokens

    said = tokens(ASKING.sub("", clause.strip(), count=1))
    if not said:
        return False
    first = said[0]
    return first.lemma in words or first.lemma + "e" in words or any(first.text.startswith(w) for w in words if not w.isascii())


# How a bid opens before its verb: "can you give Eve …", "please send …", "请给…", "麻烦帮我买…".
ASKING = re.compile(
    r"^(?:(?:hey|hi|ok|okay|so|um)\W+)?(?:(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+|pls\s+)?|(?:please|pls|plz|kindly)\s+)"
    r"|^(?:请你?|麻烦你?|劳驾)?(?:帮我|帮忙)?",
    re.IGNORECASE,
)
# What a clause that only says when may hold besides its time word ("first thing tomorrow morning,").
TIME_FILLER = re.compile(
    r"[\W_]|\b(?:ok|okay|so|then|and|well|um|hmm|first|thing|early|late|in|the|on|at|by|around|about|this|morning|evening|"
    r"night|afternoon|noon)\b|好的?|那就?|就|嗯|早上|上午|一早|晚上|下午|中午|再",
    re.IGNORECASE,
)
# A clause the speaker opens about themself: "I'll …", "I'm …", "我…".
# ("gonna give Eve 3 stone in a bit": the speaker's plan, its subject left out.)
FIRST_PERSON = re.compile(r"^\s*(?:(?:ok|okay|so|well|um|hmm)\W*)?(?:i\b|i['’]|we\b|we['’]|我|gonna\b|going\s+to\b|wanna\b)", re.IGNORECASE)


# "这个产品暂时不卖了", "we no longer sell it": a state of things, given as the reason.
NO_LONGER = re.compile(r"不再|不[\u4e00-\u9fff]{1,2}了|\bno\s+longer\b|\bnot\s+any\s*more\b", re.IGNORECASE)


def outside_negation(turn: Turn) -> Step:
    """The frames on the message less its negated clauses (blanked, so the offsets stay): "先别睡觉了，帮我签个到"
    checks in, and no phrase of the negated clause (睡觉) gets a say."""
    from . import restraint
    from .framing import read_frames
    from .frames import clauses
    from .understanding import read

    kept = list(turn.said)
    for a, b in clauses(turn.said):
        # "I don't need the flour anymore, sell 3 of them": the goods the speaker does without stay named.
        if restraint.DEFERRAL.search(turn.said[a:b]) and not restraint.not_needed(turn.said[a:b]):
            kept[a:b] = " " * (b - a)
    return read_frames(turn, read("".join(kept)))


def negation_is_elsewhere(turn: Turn) -> bool:
    """"不用休息了，先帮我上班打卡": the negation opens a clause about another tool, and another clause asks
    for something: the frames read the message, and the gate holds back only what is negated."""
    from .frames import candidates, clauses, sub_reading
    from .understanding import read

    reading = read(turn.said)
    bounds = clauses(turn.said)
    if len(bounds) < 2:
        return False
    tools_in = [{f.tool for f in candidates(sub_reading(reading, a, b), turn.offered)} for a, b in bounds]
    from . import restraint

    negated = [i for i, (a, b) in enumerate(bounds) if restraint.DEFERRAL.search(turn.said[a:b])]
    # "I don't need the flour anymore, sell 3 of them": a clause saying the speaker does without the goods is
    # why, no refusal; another clause asks. "备注不用动", "no remarks needed": a field left alone, no refusal either.
    # "等等，停错了，我说的是科技先锋，Beta Balanced别动": a "wait" that opens a correction, and the wrong one left alone
    # once the one meant is named, are no refusal either.
    meant = any(MEANT.search(turn.said[a:b]) for a, b in bounds)
    reasons = [
        i for i in negated
        if restraint.not_needed(turn.said[bounds[i][0] : bounds[i][1]]) or restraint.FIELD_LEFT_ALONE.search(turn.said[bounds[i][0] : bounds[i][1]])
        or set_aside(turn.said[bounds[i][0] : bounds[i][1]], meant)
    ]
    negated = [i for i in negated if i not in reasons]
    wanted = set().union(*(tools for i, tools in enumerate(tools_in) if i not in negated and i not in reasons))
    refused = set().union(*(tools for i, tools in enumerate(tools_in) if i in negated))
    if reasons and not negated:
        return bool(wanted)
    # "先别停科技先锋，改成停稳健增长一号": the same deed asked again after the no, on another thing.
    changed = any(i > min(negated, default=i) and tools_in[i] and CHANGED_TO.search(turn.said[a:b]) for i, (a, b) in enumerate(bounds) if i not in negated)
    # "停错了，我说的是科技先锋，Beta Balanced别动": the one meant, named before the one left alone.
    changed = changed or any(tools_in[i] and MEANT.search(turn.said[a:b]) for i, (a, b) in enumerate(bounds) if i not in negated)
    return bool(negated) and bool(wanted) and all(tools_in[i] for i in negated) and (changed or not (wanted & refused))


def suggestions(offered: set[str], limit: int = SUGGESTIONS) -> list[tuple[str, str]]:
    """(tool, example) for up to ``limit`` offered tools, taking the apps in turn so a role shows whole."""
    by_app: dict[str, list[tuple[str, str]]] = {}
    seen = set()
    for item in _intents:
        spec = registry.get(item.tool) if item.tool else None
        if spec is None or item.tool not in offered or item.tool in seen or not item.example:
            continue
        seen.add(item.tool)
        by_app.setdefault(item.name.split(".")[0], []).append((item.tool, str(item.example)))
    picked: list[tuple[str, str]] = []
    queues = [list(rows) for rows in by_app.values()]
    while len(picked) < limit and any(queues):
        for rows in queues:
            if rows and len(picked) < limit:
                picked.append(rows.pop(0))
    return picked


def resident_names() -> list[str]:
    """Every way the lexicon writes a resident: a condition naming one is about a person, not availability."""
    return [entity.surface for entity in lexicon() if entity.kind == "resident"]


def agent_name(system: str) -> str:
    """The agent's name as the system prompt gives it (「Alice」 or "Alice"), or ""."""
    found = re.search(r"「([^」]+)」|\"([^\"]+)\"", system.split("\n", 1)[0])
    return (found.group(1) or found.group(2)) if found else ""


class RulesProvider:
    """The offline default model: ``RulesChatPolicy`` behind the async provider interface.

    It spends no tokens and needs no network; the chat runner treats it exactly like a
    remote model (same messages in, same tool calls out).
    """

    name = "rules"

    def __init__(self) -> None:
        self.policy = RulesChatPolicy()

    async def complete(
        self, messages: list[dict], tools: list[dict], *, model: str | None = None, max_tokens: int | None = None,
        json_schema: dict | None = None,
    ) -> Completion:
        # The vocabulary is read from the database: back on the caller's thread (and transaction).
        return await sync_to_async(self.policy.decide)(messages, tools)
