"""Read the JSON a model meant to send, when it wrapped it in prose or fences.

Models asked for "JSON only" still answer ``Sure! ```json [...] ``` `` or leave a trailing
comma. ``find_json`` repairs what is unambiguous and refuses the rest, so a caller can
treat the answer as untrusted input and fall back safely.

Measured against PyPI's ``json-repair`` 0.64.4 on the tests (issue 27): it guesses where this
refuses (two arrays, Python literals) and misses a fenced answer after a <think> block, failing
3 of 75 tests that this passes; so this stays.
"""

from __future__ import annotations

import json
import re
from typing import Any

FENCE = re.compile(r"```[a-zA-Z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_decoder = json.JSONDecoder()


class NoJSON(ValueError):
    """The text holds no JSON value, or more than one candidate and no way to choose."""


def drop_trailing_commas(text: str) -> str:
    """Remove commas directly before ``]`` or ``}``, leaving string literals untouched."""
    out: list[str] = []
    in_string = escaped = False
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if in_string:
            out.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
            out.append(char)
        elif char == ",":
            j = i + 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j >= n or text[j] not in "]}":
                out.append(char)
        else:
            out.append(char)
        i += 1
    return "".join(out)


def _candidates(text: str) -> list[Any]:
    """Every top-level JSON array or object found in ``text``, in order."""
    found: list[Any] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] in "[{":
            try:
                value, end = _decoder.raw_decode(text, i)
            except json.JSONDecodeError:
                i += 1
                continue
            found.append(value)
            i = end
        else:
            i += 1
    return found


def find_json(text: str) -> Any:
    """The one JSON array or object in ``text`` (fences, prose and trailing commas tolerated).

    Raises ``NoJSON`` when there is none, or when several arrays (or, without an array,
    several objects) compete and choosing one would be a guess.
    """
    if not isinstance(text, str) or not text.strip():
        raise NoJSON("empty answer")
    fenced = FENCE.findall(text)
    sources = fenced if fenced else [text]
    values: list[Any] = []
    for source in sources:
        cleaned = drop_trailing_commas(source.strip())
        try:
            values.append(json.loads(cleaned))
            continue
        except json.JSONDecodeError:
            pass
        values.extend(_candidates(cleaned))
    values = [v for v in values if isinstance(v, (list, dict))]
    arrays = [v for v in values if isinstance(v, list)]
    if len(arrays) == 1:
        return arrays[0]
    if len(arrays) > 1:
        raise NoJSON(f"{len(arrays)} JSON arrays in the answer; cannot tell which one is meant")
    if len(values) == 1:
        return values[0]
    if not values:
        raise NoJSON("no JSON array or object in the answer")
    raise NoJSON(f"{len(values)} JSON objects in the answer; cannot tell which one is meant")
