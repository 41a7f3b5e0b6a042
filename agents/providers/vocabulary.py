"""The words the offline chat reads before its intents do: one normal form for every message.

Generic only (no domain word lives here): full-width characters, Chinese numerals before a
classifier, polite padding, English typos. The domain words (resource types, residents,
funds, bounties …) come from the database through the ``@vocabulary`` sources each app's
``intents.py`` registers: a source maps what people type to what the intents expect
("木头" → "wood"), and the names it maps are also protected from the numeral rewrite
("稳健增长一号" stays a fund name).
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any

from rapidfuzz.distance import OSA

CJK = re.compile(r"[\u4e00-\u9fff]")
CLASSIFIERS = "个份块张袋捆斤只件瓶杯车箱包颗条根堆座栋间"
DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
UNITS = {"十": 10, "百": 100, "千": 1000}
NUMERAL = re.compile(rf"[零〇一二两三四五六七八九十百千]+(?=\s*(?:[{CLASSIFIERS}]|单位))")
# Padding that asks nicely and changes nothing: dropped at the start or the end of a sentence.
LEADING_PADDING = re.compile(
    r"^(?:请你?|麻烦(?:你|您)?|劳驾|帮(?:我|忙)|能不能|能否|可不可以|可以|您好|你好|嗨|那个|嗯|"
    r"please|pls|plz|kindly|hi|hello|hey|ok(?:ay)?|so|now|"
    r"(?:could|can|would|will)\s+you(?:\s+please)?|i\s*(?:would|'d)\s+like\s+(?:you\s+)?to|i\s+want\s+(?:you\s+)?to|"
    r"i\s+need\s+(?:you\s+)?to|go\s+ahead\s+and|help\s+me(?:\s+to)?)[\s,，、:：!！]*",
    re.IGNORECASE,
)
TRAILING_PADDING = re.compile(
    r"[\s,，、]*(?:谢谢(?:你|您)?|多谢|辛苦了|好吗|好不好|可以吗|行吗|行不行|吧|呀|啊|哦|呢|啦|(?<!了)(?<!没)(?<!的)吗|"
    r"(?<![A-Za-z])(?:please|pls|plz|thanks?(?:\s+you)?|thx|ty|for\s+me|now|right\s+now))\s*$",
    re.IGNORECASE,
)
ENGLISH_NUMBERS = {
    word: index
    for index, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
}
ENGLISH_NUMBERS.update({"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90})
# "thirty-five", "twenty one": tens and units, written apart.
ENGLISH_COMPOUND = (
    r"(?:" + "|".join(w for w, n in ENGLISH_NUMBERS.items() if n >= 20) + r")[- ](?:one|two|three|four|five|six|seven|eight|nine)"
)
_ENGLISH_WORDS = "|".join(sorted(ENGLISH_NUMBERS, key=len, reverse=True))
# Lower case only (and any case first in the sentence): "Alpha Two" is a name, not a number.
ENGLISH_NUMERAL = re.compile(
    rf"(?:^(?i:{ENGLISH_COMPOUND}|{_ENGLISH_WORDS})|\b(?:{ENGLISH_COMPOUND}|{_ENGLISH_WORDS}|a\s+couple\s+of|a\s+dozen))\b"
)


def english_number(words: str) -> int:
    """An English numeral's value: "seven", "thirty-five", "twenty one"."""
    return sum(ENGLISH_NUMBERS[part] for part in re.split(r"[- ]+", words.lower().strip()))
# Counts in groups: 半打 and "half a dozen" are six, 一打 twelve, 一双/一对 two.
HALF_DOZEN = re.compile(r"半打|\bhalf\s+a\s+dozen\b", re.IGNORECASE)
GROUPS = {"打": 12, "双": 2, "对": 2}
GROUPED = re.compile(r"([零〇一二两三四五六七八九十百千]+)([打双对])")
SENTENCE_END = re.compile(r"[\s。.!！~～]+$")


def language_of(text: str) -> str:
    """The language a message is written in: any Chinese character makes it Chinese."""
    return "zh-hans" if CJK.search(text or "") else "en"


def chinese_numeral(number: int) -> str:
    """1–99 as written in Chinese, ``chinese_number``'s inverse: 5 → 五, 12 → 十二, 30 → 三十."""
    digits = "零一二三四五六七八九"
    tens, ones = divmod(number, 10)
    return (("" if tens == 1 else digits[tens]) + "十" if tens else "") + (digits[ones] if ones else "")


def chinese_number(numeral: str) -> int | None:
    """三 → 3, 十二 → 12, 两百零五 → 205; None for what is not a plain numeral."""
    total, current = 0, None
    for char in numeral:
        if char in DIGITS:
            if current is not None and current != 0:
                return None  # two digits in a row ("一二") is not a number
            current = DIGITS[char]
        elif char in UNITS:
            total += (1 if current is None else current) * UNITS[char]
            current = None
        else:
            return None
    return total + (current or 0)


def _numerals_to_digits(text: str) -> str:
    def digits(match: re.Match) -> str:
        value = chinese_number(match.group())
        return str(value) if value is not None else match.group()

    def english(match: re.Match) -> str:
        word = " ".join(match.group().lower().split())
        return {"a couple of": "2", "a dozen": "12"}.get(word) or str(english_number(word))

    def groups(match: re.Match) -> str:  # 一打 → 12, 两双 → 4
        value = chinese_number(match.group(1))
        return str(value * GROUPS[match.group(2)]) if value else match.group()

    text = HALF_DOZEN.sub("6", text)
    text = GROUPED.sub(groups, text)
    return ENGLISH_NUMERAL.sub(english, NUMERAL.sub(digits, text))


def _strip_padding(text: str) -> str:
    previous = None
    while previous != text:
        previous = text
        text = LEADING_PADDING.sub("", text, count=1).strip()
        text = SENTENCE_END.sub("", text)
        text = TRAILING_PADDING.sub("", text).strip()
    return text


Source = Callable[[], dict[str, str]]
_sources: list[Source] = []
# What each source reads ({model: (field, ...)}), None where it did not say: see ``names_version``.
_reads: dict[str, Any] = {}
# The last terms read and the version of the names they were read at.
_cached: tuple[str, dict[str, str]] | None = None


def vocabulary(source: Source | None = None, *, reads: dict | None = None):
    """Register a source of domain words: ``{what people type: what the intents read}``. ``reads`` names
    every column it reads ({model: (field, ...)}): then its words are cached until those change."""

    def register(source: Source) -> Source:
        name = f"{source.__module__}.{source.__qualname__}"
        _sources[:] = [s for s in _sources if f"{s.__module__}.{s.__qualname__}" != name]
        _sources.append(source)
        _reads[name] = reads
        return source

    return register(source) if source is not None else register


def domain_terms() -> dict[str, str]:
    """Every domain word now (never stale: read, or kept while the version of the names is the database's).
    Callers read the dict and never change it."""
    global _cached
    from .names_version import version

    now = version([_reads.get(f"{s.__module__}.{s.__qualname__}") for s in _sources])
    if now is not None and (cached := _cached) is not None and cached[0] == now:
        return cached[1]
    terms: dict[str, str] = {}
    for source in _sources:
        for surface, canonical in source().items():
            if surface and surface.strip():
                terms.setdefault(surface.strip(), canonical)
    if now is not None:
        _cached = (now, terms)
    return terms


def _term_pattern(terms: Iterable[str]) -> re.Pattern | None:
    words = sorted(set(terms), key=len, reverse=True)
    if not words:
        return None
    # An ASCII word only matches whole ("Bob" is not in "Bobby"); Chinese has no spaces to wait for.
    parts = [rf"(?<![A-Za-z0-9]){re.escape(w)}(?![A-Za-z0-9])" if w.isascii() else re.escape(w) for w in words]
    return re.compile("|".join(parts), re.IGNORECASE)


def _rewrite(text: str, terms: dict[str, str]) -> str:
    """Domain words to their canonical form; numerals rewritten only outside them."""
    pattern = _term_pattern(terms)
    if pattern is None:
        return _numerals_to_digits(text)
    lowered = {k.lower(): v for k, v in terms.items()}
    out, last = [], 0
    for found in pattern.finditer(text):
        out.append(_numerals_to_digits(text[last : found.start()]))
        canonical = lowered.get(found.group().lower(), found.group())
        before = text[found.start() - 1] if found.start() else " "
        after = text[found.end()] if found.end() < len(text) else " "
        # Keep ASCII words apart when a Chinese name became one ("转木材给" → "转 wood 给").
        pad_left = " " if canonical.isascii() and not before.isspace() and not found.group().isascii() else ""
        pad_right = " " if canonical.isascii() and not after.isspace() and not found.group().isascii() else ""
        out.append(f"{pad_left}{canonical}{pad_right}")
        last = found.end()
    out.append(_numerals_to_digits(text[last:]))
    return "".join(out)


# "number 3", "No.3", "编号3", "第3": the label of a number, which the normal form writes "#".
NUMBER_LABEL = re.compile(r"(?:\b(?:number|no\.?)|编号|第)\s*#?\s*(?=\d)", re.IGNORECASE)


def normalize(text: str, terms: dict[str, str] | None = None) -> str:
    """One normal form: half-width characters, digits, canonical domain words, no padding."""
    text = unicodedata.normalize("NFKC", text or "").replace("。", ".").replace("、", ",")
    text = re.sub(r"\s+", " ", text).strip()
    text = _strip_padding(text)
    text = NUMBER_LABEL.sub("#", text)
    return re.sub(r" {2,}", " ", _rewrite(text, terms or {})).strip()


# Common English words that are never a typo of another ("where" is not "were").
COMMON_WORDS = frozenset(
    "where when which what who whom whose why how there their they then than here have having with work works "
    "would could should shall will want wants need needs like some any many much more most also again into onto "
    "from about after before over under please thanks thank just only still even really very does done doing "
    "this that these those your yours ours mine hers his them were was are been being make made take took "
    "give gave send sent sell sold buy bought "
    # Words a letter away from a good's name: "apply her to the farm" names no apple, "the store" no stone.
    "apply applied applies floor floors store stores break breaks breed wool wheel "
    # Words that are no slip of a keyword: "restore it for reporting" is neither "store" nor "four".
    "for restore restored restoring report reports reporting record records".split()
)


# Chinese slips of the pinyin keyboard for the domain's words: the same sound, another character ("玄赏" for 悬赏).
# (The goods' own slips and pinyin, "平果", "mianfen", are synonyms beside the goods: city.intents.SYNONYMS.)
CHINESE_SLIPS = {"玄赏": "悬赏", "旋赏": "悬赏", "悬尝": "悬赏", "签倒": "签到"}
_SLIP = re.compile("|".join(map(re.escape, CHINESE_SLIPS)))


def without_slips(text: str) -> str:
    """``text`` with the request words typed as another character of the same sound put right."""
    return _SLIP.sub(lambda found: CHINESE_SLIPS[found.group()], text)


# "给爱丽丝10个小卖，哦打错了是小麦，…", "send 5 whaet, sorry typo: wheat": a word typed wrong and put right.
RETYPED = re.compile(
    r"[，,;；]?\s*(?:哦|啊|呃|噢|额|sorry|oops)?[，,\s]*(?:打错了|打错字了|写错了|typo)[，,:：\s]*(?:是|应该是|is|should\s+be|i\s+meant?)?\s*"
    r"(?P<right>[\u4e00-\u9fff]{1,4}|[A-Za-z]{2,12})(?=[，,。.;；!！\s]|$)",
    re.IGNORECASE,
)


def retyped(text: str) -> str:
    """``text`` with a word its writer says was mistyped put right, and the correction itself left out; as typed when
    no earlier word is near enough the right one (half its letters in place) to be the slip."""
    found = RETYPED.search(text)
    if found is None:
        return text
    right, before = found["right"], text[: found.start()]
    near = [
        at for at in range(len(before) - len(right), -1, -1)
        if sum(a == b for a, b in zip(before[at : at + len(right)].lower(), right.lower())) * 2 >= len(right)
        and before[at : at + len(right)].lower() != right.lower()
    ]
    if not near:
        return text
    at = near[0]
    return before[:at] + right + before[at + len(right) :] + text[found.end() :]


def correct_typos(text: str, known: Iterable[str]) -> str:
    """English words close to a known word ("trasnfer" → "transfer", "Bbo" → "Bob"); others as typed."""
    by_lower: dict[str, str] = {}
    for word in known:
        by_lower.setdefault(word.lower(), word)
    choices = [w for w in by_lower if len(w) >= 3]

    def fix(match: re.Match) -> str:
        word = match.group()
        lower = word.lower()
        if lower in by_lower or len(lower) < 3 or lower in COMMON_WORDS:
            return word
        # A slip of a key or two, never another word: "called" is no typo of "cancelled", nor "marine" of "imagine".
        most = 1 if len(lower) < 7 else 2

        def slips_of(typed: str) -> list[str]:
            return [w for w in difflib.get_close_matches(typed, choices, n=3, cutoff=0.75) if OSA.distance(typed, w) <= most]

        close = slips_of(lower)
        if not close and lower.endswith("s") and len(lower) >= 5:
            # "frnaks flour": a slip in a possessive written without its apostrophe ("Franks"), the s kept.
            stem = slips_of(lower[:-1])
            if stem and stem[0][0] == lower[0]:
                return by_lower[stem[0]] + word[-1]
        if not close or close[0][0] != lower[0] and len(lower) < 5:
            return word
        return by_lower[close[0]]

    return re.sub(r"[A-Za-z]+", fix, text)
