"""Which of an agent's tools one chat request offers: those its words point at (issue 27).

A small model drowns in twenty tool schemas, so a request offers at most
``AGENT_TOOLS_PER_REQUEST`` of them (0: all). Each tool scores the words it shares with the
user's message: the parts of its name and its descriptions (the tool's and its parameters'),
in Chinese and in English; ASCII words, CJK characters and their pairs are the words. The tools
the offline parser's frames match come first, and their own words count half in the others'
scores, so their helpers come along (a transfer needs ``find_agent``). Tools the
current turn already called are always offered (the conversation is in the middle of them).
The offered tools go best first (ties in the registry's order): a small model leans to the
first of a list, and the constrained protocol offers them as its enum in this order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from django.utils import translation

from .registry import registry

LANGUAGES = ("zh-hans", "en")
_ASCII = re.compile(r"[a-z0-9]+")
_CJK = re.compile(r"[\u3400-\u9fff]+")
# Words every description has: they would rank tools by length, not meaning.
STOPWORDS = frozenset(
    "the of to a an and or by for in on at my me is it its with some from your their get this that as be "
    "的 了 个 一 是 我 其 等 和 或 在 为 与 可 以".split()
)


def words(text: str) -> set[str]:
    lowered = text.lower()
    found = {word for word in _ASCII.findall(lowered) if len(word) > 1}
    for run in _CJK.findall(text):
        found.update(run)  # single characters too: 给 is all "把 5 flour 给 Bob" says of giving
        found.update(run[i : i + 2] for i in range(len(run) - 1))
    return found - STOPWORDS


def _described(name: str) -> str:
    spec = registry.get(name)
    if spec is None:
        return name.replace("_", " ")
    parts = [name.replace("_", " ")]
    for language in LANGUAGES:
        with translation.override(language):
            parts.append(str(spec.description))
            parts.extend(str(p.get("description", "")) for p in spec.input_schema.get("properties", {}).values())
    return " ".join(parts)


def parsed_tools(message: str, offered: set[str]) -> list[str]:
    """The tools the offline parser's frames (the rules provider's intents) match in ``message``, best first."""
    from .providers.rules import understand
    from .providers.vocabulary import language_of

    with translation.override(language_of(message)):
        _text, _plain, found = understand(message, offered)
    return list(dict.fromkeys(item.tool for item, _match in found if item.tool in offered))


def relevant_tools(tools: list[dict], message: str, *, keep: Iterable[str] = (), limit: int) -> list[dict]:
    """At most ``limit`` of ``tools`` (OpenAI format; 0: all), best first: the kept ones, those the
    offline parser matches, then the best scored by shared words."""
    if not tools:
        return tools
    said = words(message)
    kept = set(keep)
    names = [tool["function"]["name"] for tool in tools]
    parsed = parsed_tools(message, set(names))
    described = [words(_described(name)) for name in names]
    direct = [len(said & tool) for tool in described]
    # The matched tools' own words count half: a transfer needs find_agent, whose description says so.
    anchors = [names.index(name) for name in parsed] or ([max(range(len(tools)), key=lambda i: (direct[i], -i))] if any(direct) else [])
    near = set().union(*(described[i] for i in anchors)) if anchors else set()
    score = [direct[i] + len(near & described[i]) / 2 for i in range(len(tools))]
    first = {name: rank for rank, name in enumerate(parsed)}
    ranked = sorted(
        range(len(tools)), key=lambda i: (names[i] not in kept, first.get(names[i], len(first)), -score[i], i)
    )
    chosen = set(ranked[:limit] if limit > 0 else ranked) | {i for i, name in enumerate(names) if name in kept}
    return [tools[i] for i in ranked if i in chosen]
