"""Reading a message: tokens, then typed spans, each with where it came from and how sure it is.

The pipeline of the offline chat (STYLE.md, "Understanding text"):

1. ``tokens``: jieba for Chinese (its dictionary holds the database's names), words and
   simple lemmas for English;
2. entity extractors: numbers (digits, 两/三/仨, "a couple of"), order numbers, quoted text,
   and the names the domain apps list (``@entities``): residents, resources and their
   synonyms, funds, buildings, shop items, bounties, order numbers;
3. the synonym mapping is the lexicon itself: 木头 and wood are two surfaces of one value;
4. resolution: exact first (score 1.0), then fuzzy (``rapidfuzz``) on names and partial
   names, with the score it earned.

Nothing here decides anything: every span carries a score, and the frames (``frames.py``)
decide in one place whether to act, ask back or decline.
"""

from __future__ import annotations

import contextvars
import hashlib
import logging
import re
import threading
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .vocabulary import COMMON_WORDS, ENGLISH_COMPOUND, ENGLISH_NUMBERS, chinese_number, english_number

# A fuzzy match below this is no match; between it and EXACT it is a guess the frames may ask about.
FUZZY_FLOOR = 75.0
# Two candidates closer than this are a tie: the frame asks which one.
TIE_MARGIN = 8.0


@dataclass(frozen=True)
class Span:
    """A piece of the user's message read as something: where it is, what it means, how sure."""

    kind: str  # number, resource, resident, fund, bounty, building, item, order, quoted, text
    value: Any
    start: int
    end: int
    text: str
    score: float = 1.0
    name: str = ""  # the entity's canonical name, for replies
    # Other entities the same words could mean, best first (name, value, score): a tie asks back.
    rivals: tuple = ()

    @property
    def exact(self) -> bool:
        return self.score >= 1.0

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int
    lemma: str


@dataclass(frozen=True)
class Entity:
    """One way people write a thing of the domain: its ``surface`` stands for ``value``."""

    kind: str
    surface: str
    value: Any
    name: str = ""
    # Whether part of the name may stand for it ("稳健增长" for 稳健增长一号).
    partial: bool = False
    # Whether only these very words stand for it: no typo of them does ("the tech fund", a description, not a name).
    exact_only: bool = False


EntitySource = Callable[[], Iterable[Entity]]
_sources: dict[str, EntitySource] = {}
# What each source reads ({model: (field, ...)}), None where it did not say: see ``names_version``.
_reads: dict[str, Any] = {}


def entities(source: EntitySource | None = None, *, reads: dict | None = None):
    """Register a source of entities (autodiscovered with each app's ``intents.py``). ``reads`` names
    every column it reads ({model: (field, ...)}): then its names are cached until those change."""

    def register(source: EntitySource) -> EntitySource:
        name = f"{source.__module__}.{source.__qualname__}"
        _sources[name] = source
        _reads[name] = reads
        return source

    return register(source) if source is not None else register


class Lexicon(list):
    """The entities of one version of the database's names, with what every read derives from them."""

    @property
    def guessable(self) -> list[Entity]:
        """Those a fuzzy match may guess: a partial name, or an ASCII surface holding no digit ("fund 1",
        "bounty #4" are ids: a typo in one is another id, never a guess)."""
        if (found := self.__dict__.get("_guessable")) is None:
            found = self.__dict__["_guessable"] = [
                e for e in self if e.partial or (e.surface.isascii() and not any(c.isdigit() for c in e.surface))
            ]
        return found

    @property
    def longest_first(self) -> list[Entity]:
        if (found := self.__dict__.get("_longest_first")) is None:
            found = self.__dict__["_longest_first"] = sorted(self, key=lambda e: len(e.surface), reverse=True)
        return found


# The last lexicon read and the version of the names it was read at (``names_version``).
_cached: tuple[str, Lexicon] | None = None


_held: contextvars.ContextVar[list[Entity] | None] = contextvars.ContextVar("lexicon", default=None)


# Readings made inside ``one_lexicon``: the same words read twice against the same names read the same.
_readings: contextvars.ContextVar[dict | None] = contextvars.ContextVar("readings", default=None)


@contextmanager
def one_lexicon() -> Iterator[None]:
    """Read the database's names once for everything inside (one model call reads a message many times)."""
    token = _held.set(None)
    readings = _readings.set({})
    try:
        _held.set(lexicon())
        yield
    finally:
        _readings.reset(readings)
        _held.reset(token)


def lexicon() -> Lexicon:
    """Every entity the domain apps list now (never stale: read from the database, or kept from the last
    read while the version of the names it was read at is still the database's)."""
    global _cached
    if (held := _held.get()) is not None:
        return held
    from .names_version import version

    now = version([_reads.get(name) for name in _sources])  # a source registered some other way: None, read
    if now is not None and (cached := _cached) is not None and cached[0] == now:
        return cached[1]
    found = Lexicon()
    for source in _sources.values():
        found.extend(e for e in source() if e.surface and e.surface.strip())
    _segmenter.learn(e.surface for e in found)
    if now is not None:
        _cached = (now, found)
    return found


# ---------------------------------------------------------------------------- tokens

CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")
WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?|\d+(?:\.\d+)?|[\u4e00-\u9fff]+|\S")
IRREGULAR = {
    "loaves": "loaf", "bought": "buy", "sold": "sell", "gave": "give", "sent": "send", "took": "take",
    "paid": "pay", "made": "make", "ate": "eat", "eaten": "eat", "slept": "sleep", "left": "leave",
    "told": "tell", "said": "say", "built": "build", "people": "person", "ones": "one", "its": "its",
    "is": "be", "are": "be", "was": "be", "were": "be", "has": "have", "does": "do", "did": "do",
    "this": "this", "his": "his", "yes": "yes", "bus": "bus", "status": "status", "news": "news",
}


def lemma(word: str) -> str:
    """A simple English lemma: plural and tense endings off ("loaves" → "loaf", "funds" → "fund")."""
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    if w in IRREGULAR:
        return IRREGULAR[w]
    if len(w) <= 3 or not w.isalpha():
        return w
    for suffix, repl in (("ies", "y"), ("ches", "ch"), ("shes", "sh"), ("sses", "ss"), ("xes", "x")):
        if w.endswith(suffix):
            return w[: -len(suffix)] + repl
    if w.endswith("ing") and len(w) > 5:
        stem = w[:-3]
        return stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "ls" else stem
    if w.endswith("ed") and len(w) > 4:
        stem = w[:-2]
        return stem[:-1] if stem[-1] == stem[-2:-1] and stem[-1] not in "ls" else stem
    if w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


class Segmenter:
    """jieba, loaded on first use (its dictionary takes about a second) and told the database's names."""

    def __init__(self) -> None:
        self._tokenizer = None
        self._known: set[str] = set()
        self._version = ""
        self._lock = threading.Lock()

    def _jieba(self):
        if self._tokenizer is None:
            with self._lock:
                if self._tokenizer is None:
                    import jieba

                    jieba.setLogLevel(logging.WARNING)  # no "Building prefix dict" lines in every process
                    tokenizer = jieba.Tokenizer()
                    tokenizer.initialize()
                    for word in self._known:
                        tokenizer.add_word(word, freq=50_000)
                    self._tokenizer = tokenizer
        return self._tokenizer

    def learn(self, words: Iterable[str]) -> None:
        """Add names to the dictionary; a cheap version check skips names already known."""
        cjk = sorted({w.strip() for w in words if w and CJK_RUN.search(w)})
        version = hashlib.blake2b("\n".join(cjk).encode(), digest_size=8).hexdigest()
        if version == self._version:
            return
        new = [w for w in cjk if w not in self._known]
        self._known.update(new)
        self._version = version
        if self._tokenizer is not None:
            for word in new:
                self._tokenizer.add_word(word, freq=50_000)

    def cut(self, text: str) -> list[str]:
        return list(self._jieba().cut(text, HMM=False))


_segmenter = Segmenter()


def warm_up() -> None:
    """Load the segmenter's dictionary now (seconds), so the first message does not wait for it.

    The database's names need no warming: ``lexicon()`` reads them at each message and adds the
    new ones to the loaded dictionary, which is cheap. Nothing here touches the database.
    """
    _segmenter._jieba()


def segmenter_loaded() -> bool:
    return _segmenter._tokenizer is not None


def tokens(text: str) -> list[Token]:
    """Words with their offsets in ``text``: Chinese runs segmented by jieba, the rest by regex."""
    out: list[Token] = []
    for found in WORD.finditer(text):
        piece = found.group()
        if CJK_RUN.fullmatch(piece) and len(piece) > 1:
            offset = found.start()
            for word in _segmenter.cut(piece):
                out.append(Token(word, offset, offset + len(word), word))
                offset += len(word)
        else:
            out.append(Token(piece, found.start(), found.end(), lemma(piece) if piece.isascii() else piece))
    return out


@lru_cache(maxsize=8192)
def fold(text: str) -> str:
    """One character for one: full-width to half-width and lower case, so offsets stay the said text's.
    Cached: every read folds each name of the lexicon again (a fifth of a chat turn's CPU before)."""
    out = []
    for char in text:
        folded = unicodedata.normalize("NFKC", char).lower()
        out.append(folded if len(folded) == 1 else char)
    return "".join(out)


# ---------------------------------------------------------------------------- numbers

EN_NUMBERS = {**ENGLISH_NUMBERS, "hundred": 100, "dozen": 12, "couple": 2, "pair": 2}
ZH_NUMERAL = re.compile(r"[零〇一二两三四五六七八九十百千]+|[俩仨]")
EN_COMPOUND = re.compile(ENGLISH_COMPOUND)
EN_NUMERAL = re.compile(
    rf"\b(?:{ENGLISH_COMPOUND}|a\s+couple(?:\s+of)?(?=\s+[a-z])|a\s+pair\s+of|a\s+dozen|"
    + "|".join(sorted(EN_NUMBERS, key=len, reverse=True)) + r")\b"
)
DIGITS = re.compile(r"(?<![A-Za-z\d#.])\d+(?![\d.]*\d)(?![A-Za-z]{0,2}\d)")
# "一下", "一起", "一点", "挂一单": a numeral that counts nothing (one listing is no count of goods).
NOT_COUNTING = re.compile(r"一(?:下|起|点|些|会|直|定|共|样|般|切|边|旦|半|单)|十分|万一|第[一二三四五六七八九十]")
# "a bread", "an apple": one, when a countable thing follows (never "a few", "a dozen", "a lot").
ARTICLE = re.compile(r"\b(?:a|an)\s+(?!(?:few|couple|dozen|pair|lot|bit|little|number|bunch|handful|half)\b)(?=[a-z])")
# Words that count in groups: 一打 is twelve, 两双 four, "two dozen" 24.
ZH_GROUPS = {"打": 12, "双": 2, "对": 2}
HALF_DOZEN = re.compile(r"半打|\bhalf\s+a\s+dozen\b")
EN_GROUP = re.compile(r"\s+(?:dozen|pairs?)\b(?:\s+of\b)?")
# "bread x2", "苹果×3": a count written as a multiplier after the thing.
TIMES = re.compile(r"(?<![A-Za-z\d])[x×*]\s?(\d+)(?![\d.]|[A-Za-z])", re.IGNORECASE)
# A count the words leave open ("几个", "a few", "some"): a number span without a value, so a frame
# that needs the count asks for it instead of reading a "一" or an "a" nearby as one.
VAGUE = re.compile(
    r"几(?=\s*[个份块张袋捆斤只件瓶杯箱包颗条根堆]|十|百)|好些|若干|一些|一堆|很多|不少|"
    r"\b(?:a\s+few|several|a\s+bunch\s+of|a\s+handful\s+of|a\s+lot\s+of|lots\s+of|some|a\s+bit\s+of)\b"
)


# "she's the one who asked", "the one that's cheaper": "one" standing for someone or something, no count.
ONE_AS_PRONOUN = re.compile(r"\b(?:the|this|that|which)\s+(one)\s+(?:who|that|which|i|you|he|she|they|we)\b|(?:'s|\bis|\bwas|\bbe)\s+the\s+(one)\b")


DURATION = re.compile(r"\s*(?:天|晚|夜|周|星期|个月|年|个?小时|个?钟头|分钟)")


def numbers(folded: str) -> list[Span]:
    """Every count in the message with its span: 5, 五, 两, 仨, twelve, a couple of."""
    spans: list[Span] = [Span("number", 6, m.start(), m.end(), m.group(), score=0.95) for m in HALF_DOZEN.finditer(folded)]
    spans += [Span("number", None, m.start(), m.end(), m.group(), score=0.0) for m in VAGUE.finditer(folded)]

    def free(start: int, end: int) -> bool:
        return not any(s.start < end and start < s.end for s in spans)

    for found in TIMES.finditer(folded):
        spans.append(Span("number", int(found.group(1)), found.start(), found.end(), found.group()))
    for found in DIGITS.finditer(folded):
        value, end = int(found.group()), found.end()
        if group := EN_GROUP.match(folded, end):  # "2 dozen"
            value, end = value * (12 if "dozen" in group.group() else 2), group.end()
        if free(found.start(), end):
            spans.append(Span("number", value, found.start(), end, folded[found.start():end]))
    for found in ZH_NUMERAL.finditer(folded):
        if NOT_COUNTING.match(folded, found.start()) or NOT_COUNTING.match(folded, max(0, found.start() - 1)):
            continue
        if not free(found.start(), found.end()):
            continue
        word = found.group()
        value = {"俩": 2, "仨": 3}.get(word, None)
        if value is None:
            value = chinese_number(word)
        end = found.end()
        if value and end < len(folded) and folded[end] in ZH_GROUPS:  # 一打, 两双
            value, end = value * ZH_GROUPS[folded[end]], end + 1
        if value:
            # "跑了一天腿", "住两晚": a length of time, no count of goods (read, never sure).
            spans.append(Span("number", value, found.start(), end, folded[found.start():end], score=0.5 if DURATION.match(folded, end) else 0.95))
    pronouns = {found.start(1) if found.group(1) else found.start(2) for found in ONE_AS_PRONOUN.finditer(folded)}
    for found in EN_NUMERAL.finditer(folded):
        if not free(found.start(), found.end()) or found.start() in pronouns:
            continue
        if EN_COMPOUND.fullmatch(found.group()):  # "thirty-five"
            spans.append(Span("number", english_number(found.group()), found.start(), found.end(), found.group(), score=0.95))
            continue
        words = found.group().split()
        word = words[1] if len(words) > 1 else words[0]  # "a couple of" → "couple"
        value, end = EN_NUMBERS[word], found.end()
        if word not in ("dozen", "couple", "pair") and (group := EN_GROUP.match(folded, end)):  # "two dozen"
            value, end = value * (12 if "dozen" in group.group() else 2), group.end()
        if not any(s.start <= found.start() < s.end for s in spans):
            spans.append(Span("number", value, found.start(), end, folded[found.start():end], score=0.95))
    for found in ARTICLE.finditer(folded):
        if free(found.start(), found.end() - 1):
            spans.append(Span("number", 1, found.start(), found.end() - 1, found.group().strip(), score=0.5))
    return sorted(spans, key=lambda s: s.start)


# ---------------------------------------------------------------------------- quoted and order numbers

# A quotation. An apostrophe inside a word ("I'd", "it's", "don't", "Bob's") is no quote mark: a
# single quote opens only where no letter or digit stands before it and closes only where none
# follows, and within the quotation an apostrophe between letters is text.
QUOTE_OPEN = r"(?:[「“\"《『]|(?<![A-Za-z0-9])'(?!s\b))"  # "科技先锋's remarks": a possessive after Chinese opens nothing
QUOTE_CLOSE = r"(?:[」”\"》』]|'(?![A-Za-z0-9]))"
QUOTE_BODY = r"(?:[^「」“”\"'《》『』]|(?<=[A-Za-z0-9])'(?=[A-Za-z0-9]))"


def quotation(longest: int) -> re.Pattern:
    """A quotation of 1 to ``longest`` characters, its words as group 1."""
    return re.compile(f"{QUOTE_OPEN}({QUOTE_BODY}{{1,{longest}}}){QUOTE_CLOSE}")


QUOTED = quotation(200)
ORDER_NO = re.compile(r"(?<![A-Za-z0-9])([A-Za-z]{2}\d{8,})(?![0-9]|-\d)")
# "HT 20260301003", "HT-20260301003", "HT-20260301-003": an order number typed apart (capitals only: "at 20260301"
# is no order).
ORDER_NO_APART = re.compile(r"(?<![A-Za-z0-9])([A-Z]{2})(?=[ -]|\d{8}[ -]\d)[ -]?(\d{8})(?:[ -]?(\d+))?(?![0-9])")


def quoted(text: str) -> list[Span]:
    return [Span("quoted", m.group(1), m.start(1), m.end(1), m.group(1)) for m in QUOTED.finditer(text)]


# "h t 2 0 2 6 0 3 0 1 0 0 1": an order number spelled out character by character.
ORDER_NO_SPELLED = re.compile(r"(?<![A-Za-z0-9])([A-Za-z] [A-Za-z](?: \d){8,})(?![ ]?[0-9A-Za-z])")


def order_numbers(text: str) -> list[Span]:
    whole = [Span("order", m.group(1).upper(), m.start(1), m.end(1), m.group(1)) for m in ORDER_NO.finditer(text)]
    whole += [
        Span("order", m.group(1).replace(" ", "").upper(), m.start(1), m.end(1), m.group(1)) for m in ORDER_NO_SPELLED.finditer(text)
    ]
    apart = [
        Span("order", m.group(1) + m.group(2) + (m.group(3) or ""), m.start(), m.end(), m.group())
        for m in ORDER_NO_APART.finditer(text)
    ]
    return sorted(whole + apart, key=lambda span: span.start)


# ---------------------------------------------------------------------------- names


def _bounded(folded: str, start: int, end: int, surface: str) -> bool:
    """An ASCII name matches whole words only ("Bob" is not in "Bobby")."""
    if not surface.isascii():
        return True
    before = folded[start - 1] if start else " "
    after = folded[end] if end < len(folded) else " "
    return not (before.isalnum() and before.isascii()) and not (after.isalnum() and after.isascii())


def exact_names(folded: str, found: list[Entity]) -> list[Span]:
    """Every surface of the lexicon in the message, longest first, never two over the same words."""
    spans: list[Span] = []
    for entity in found.longest_first if isinstance(found, Lexicon) else sorted(found, key=lambda e: len(e.surface), reverse=True):
        surface = fold(entity.surface.strip())
        start = folded.find(surface)
        while start >= 0:
            end = start + len(surface)
            span = Span(entity.kind, entity.value, start, end, surface, 1.0, entity.name or entity.surface)
            if _bounded(folded, start, end, surface) and not any(
                s.overlaps(span) and (s.kind != entity.kind or s.value != entity.value) and len(s.text) > len(surface)
                for s in spans
            ):
                same_kind = [s for s in spans if s.overlaps(span) and s.kind == span.kind]
                # The same words naming two things of one kind (a guest with two orders): both, as rivals.
                if not same_kind or all((s.start, s.end) == (span.start, span.end) and s.value != span.value for s in same_kind):
                    spans.append(span)
            start = folded.find(surface, start + 1)
    return _with_rivals(spans)


def _with_rivals(spans: list[Span]) -> list[Span]:
    """The same words naming two things of one kind ("Beta" for two funds): keep one span, name the others."""
    out: list[Span] = []
    for span in spans:
        twins = [s for s in spans if s is not span and s.kind == span.kind and (s.start, s.end) == (span.start, span.end)]
        if twins and any(t in out for t in twins):
            continue
        rivals = tuple((t.name, t.value, t.score) for t in twins if t.value != span.value)
        out.append(Span(span.kind, span.value, span.start, span.end, span.text, span.score, span.name, rivals))
    return out


STOP_WORDS = {
    "the", "a", "an", "to", "of", "for", "and", "me", "my", "i", "you", "it", "on", "in", "at", "with", "fund",
    "funds", "please", "one", "ones", "that", "this", "is", "are", "up", "what", "whats", "what's", "about",
    "基金", "那个", "这个", "一下", "的", "了", "吗", "把", "给", "我", "请",
}


def _within_words(piece: str, name: str) -> bool:
    """A Latin piece is part of a name from a word's start ("market", "Alph" of "money market", "Alpha Asia"; "its" is
    not of "units")."""
    return re.search(rf"(?<![a-z0-9]){re.escape(piece)}", name) is not None


HEAD_NOUN = re.compile(r"(?:基金|悬赏|任务|订单|挂单)$")


def fuzzy_names(folded: str, found: list[Entity], taken: list[Span], kinds: set[str]) -> list[Span]:
    """Names written in part or with a typo: "稳健增长" for 稳健增长一号, "Beta" for Beta Balanced, "Bbo" for Bob.

    Each candidate piece of the message (a token, or a run of up to four tokens) is scored
    against every name of ``kinds``; the best piece per name counts, and a piece that fits
    several names carries the others as rivals.
    """
    from rapidfuzz import fuzz, process

    words = [t for t in tokens(folded) if not any(s.start < t.end and t.start < s.end for s in taken)]
    pieces: set[tuple[int, int]] = set()
    # "货币基金" is one word to jieba: the part before a head noun is the name's piece.
    for t in words:
        head = HEAD_NOUN.search(t.text)
        if head and head.start() >= 2:
            pieces.add((t.start, t.start + head.start()))
    for i in range(len(words)):
        for j in range(i, min(i + 4, len(words))):
            start, end = words[i].start, words[j].end
            if any(s.start < end and start < s.end for s in taken):
                break  # a run of words never straddles a name already read ("上Frank的")
            text = folded[start:end]
            lowered = text.strip().lower()
            if lowered in EN_NUMBERS or lowered in COMMON_WORDS:
                continue  # "four" is a count, never a typo of "flour"
            if text.strip() and lowered not in STOP_WORDS and not re.fullmatch(r"[\d\W_]+", text):
                pieces.add((start, end))
                if i == j and len(lowered) >= 5 and lowered.isascii() and lowered.endswith("s"):
                    pieces.add((start, end - 1))  # "frnaks flour": a possessive without its apostrophe, slip and all
    best: dict[tuple[str, Any], Span] = {}
    candidates = [entity for entity in found if entity.kind in kinds and not entity.exact_only]
    names = [fold(entity.surface) for entity in candidates]
    # Each piece's text, whether it is Chinese, and the names it is at least 80 % like (scored in one C loop per piece,
    # the same ``fuzz.ratio`` a pair at a time gave; below 80 a name was never a match).
    texts = {}
    for start, end in pieces:
        piece = folded[start:end].strip()
        wide = bool(CJK_RUN.search(piece))
        if len(piece) >= (2 if wide else 3):
            close = {index: score for _name, score, index in process.extract(piece, names, scorer=fuzz.ratio, processor=None, limit=None, score_cutoff=80)}
            texts[(start, end)] = (piece, wide, close)
    for index, entity in enumerate(candidates):
        name = names[index]
        for start, end in pieces:
            if (start, end) not in texts:
                continue
            piece, wide, close = texts[(start, end)]
            if entity.partial and len(piece) < len(name) and (piece in name if wide else _within_words(piece, name)):
                if any(piece == w for w in STOP_WORDS):
                    continue
                # A name's first word says more than its middle: "货币" of 货币市场旧份额, "Beta" of Beta Balanced are sure
                # where no other name shares them (a rival still asks); "Bet", a word in part, stays a guess.
                first_word = name.startswith(piece) and (wide or name[len(piece) : len(piece) + 1] in (" ", "-"))
                score = 80.0 + 15.0 * len(piece) / len(name) + (5.0 if first_word else 0.0)
            else:
                if index not in close:
                    continue
                score = close[index]
                if not wide and piece[0] != name[0] and len(piece) < 5:
                    continue
                if not wide and abs(len(piece) - len(name)) > max(2, len(name) // 3):
                    continue  # "strongest" is no slip of "stones": a typo keeps a word's length
            key = (entity.kind, entity.value)
            if key not in best or score > best[key].score * 100:
                best[key] = Span(entity.kind, entity.value, start, end, folded[start:end], score / 100, entity.name or entity.surface)
    spans = sorted(best.values(), key=lambda s: -s.score)
    out: list[Span] = []
    for span in spans:
        if any(o.kind == span.kind and o.overlaps(span) for o in out):
            continue
        rivals = tuple(
            (o.name, o.value, o.score) for o in spans
            if o is not span and o.kind == span.kind and o.overlaps(span) and span.score - o.score < TIE_MARGIN / 100
        )
        out.append(Span(span.kind, span.value, span.start, span.end, span.text, span.score, span.name, rivals))
    return out


@dataclass
class Reading:
    """A message as the frames see it: the words as said, tokens, and typed spans."""

    said: str
    folded: str
    tokens: list[Token]
    spans: list[Span] = field(default_factory=list)

    def of(self, kind: str) -> list[Span]:
        return [s for s in self.spans if s.kind == kind]

    def first(self, kind: str) -> Span | None:
        return next(iter(self.of(kind)), None)

    @property
    def lemmas(self) -> set[str]:
        return {t.lemma for t in self.tokens}

    @property
    def words(self) -> set[str]:
        return {t.text.lower() for t in self.tokens}

    def has(self, *words: str) -> bool:
        """Any of ``words`` in the message: a Chinese word as a substring, an English one as a lemma."""
        lemmas = self.lemmas
        for word in words:
            if word.isascii():
                if " " in word:
                    if re.search(rf"\b{re.escape(word)}\b", self.folded):
                        return True
                    # "take my wheat listing down", "turn Beta Balanced off": a phrasal verb split around its object.
                    if (split := SEPARABLE.fullmatch(word)) and re.search(
                        rf"\b{split[1]}\b(?:\s+[\w'’-]+){{1,4}}?\s+{split[2]}\b", self.folded
                    ):
                        return True
                elif word in lemmas or lemma(word) in lemmas or (word.endswith("e") and f"{word}d" in self.words):
                    return True  # ("disable" is in "needs to be disabled", whose lemma is "disabl")
            elif word in self.folded:
                return True
        return False


# Phrasal verbs whose object may stand between verb and particle: "take X down", "turn X off", "look X up".
SEPARABLE = re.compile(r"(take|turn|switch|shut|pull|look)\s+(down|off|on|up)")


def read(said: str, kinds: set[str] | None = None) -> Reading:
    """Tokens and every span of ``said``: numbers, orders, quotes, exact names, then fuzzy names."""
    readings = _readings.get()
    key = (said, frozenset(kinds) if kinds is not None else None)
    if readings is not None and (done := readings.get(key)) is not None:
        return Reading(done.said, done.folded, list(done.tokens), list(done.spans))
    reading = _read(said, kinds)
    if readings is not None:
        readings[key] = Reading(reading.said, reading.folded, list(reading.tokens), list(reading.spans))
    return reading


def _read(said: str, kinds: set[str] | None) -> Reading:
    folded = fold(said)
    found = lexicon()
    names = exact_names(folded, found)
    spans = [*names, *(o for o in order_numbers(said) if not any(o.overlaps(n) for n in names)), *quoted(said)]
    fuzzy_kinds = (kinds or {e.kind for e in found}) - {"order"}
    guessable = found.guessable if isinstance(found, Lexicon) else Lexicon(found).guessable
    spans += fuzzy_names(folded, guessable, spans, fuzzy_kinds)
    # A quoted part of a name ("基金“科技”的详情") is that name: the quotation read whole, never a piece of it.
    for quote in [s for s in spans if s.kind == "quoted"]:
        if not any(s.kind != "quoted" and s.overlaps(quote) for s in spans):
            others = [s for s in spans if s is not quote]
            spans += [f for f in fuzzy_names(folded, guessable, others, fuzzy_kinds) if (f.start, f.end) == (quote.start, quote.end)]
    taken = [s for s in spans if s.kind not in ("quoted",)]
    spans += [n for n in numbers(folded) if not any(n.overlaps(s) for s in taken)]
    return Reading(said, folded, tokens(folded), sorted(spans, key=lambda s: (s.start, -s.end)))


# ---------------------------------------------------------------------------- a new thing's name

NAMING = re.compile(
    r"(?:名字叫做?|名字是|名称为|名称是|名为|名叫|叫做|取名(?:为|叫)?|起名(?:为|叫)?|命名为|叫|\bcalled\b|\bnamed\b|\b(?:name|call)\s+it\b)\s*[:：]?\s*",
    re.IGNORECASE,
)
# "名字就叫稳盈宝吧": a sentence-final particle closing an unquoted name is the sentence's, not the
# name's (a name that really ends in one is typed in quotes).
FINAL_PARTICLE = re.compile(r"(?<=[\u4e00-\u9fffA-Za-z0-9])\s*[吧呢啊呀嘛哈啦]+$")  # "沪港通精选 吧": the name less its 吧


def spoken_language(said: str) -> str:
    """The language a message speaks, its names aside: "rename 科技先锋 to Tech Pioneers" is English whatever the
    fund is called, "科技先锋改名" Chinese. The database's names and quotations in Latin words are set aside; a
    message left with no Latin word is read as written."""
    from .vocabulary import language_of

    if not re.search(r"[A-Za-z]{2,}", said or ""):
        return language_of(said)
    kept = list(said)
    for span in read(said).spans:
        if span.kind != "number":
            kept[span.start : span.end] = " " * (span.end - span.start)
    rest = "".join(kept)
    return language_of(rest if re.search(r"[A-Za-z]{2,}", rest) else said)


def without_particle(name: str) -> str:
    return FINAL_PARTICLE.sub("", name.strip()).strip()


# Where a name ends: a clause boundary, or English words that start another clause.
NAME_END = re.compile(r"\s*(?:[,，。;；!！?？\n]|\s(?:and|with|for|please|thanks)\b|$)", re.IGNORECASE)


def named_phrase(said: str) -> Span | None:
    """The name a message gives a new thing, whole and as typed: a quotation after "called"/"叫",
    or every word up to the clause's end ("called South Hill Quarry" is "South Hill Quarry")."""
    found = NAMING.search(said)
    if found is None:
        return None
    start = found.end()
    quote = QUOTED.match(said, start)
    if quote:
        return Span("text", quote.group(1).strip(), quote.start(1), quote.end(1), quote.group(1))
    end = NAME_END.search(said, start).start()
    name = without_particle(said[start:end])
    if not name:
        return None
    start = said.index(name, start)
    return Span("text", name, start, start + len(name), name)
