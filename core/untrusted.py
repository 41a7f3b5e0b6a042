"""JSON from outside (a model's tool arguments, a request body), read with limits.

Python's ``json`` accepts NaN and Infinity, reads ``1e309`` as infinity (no database column
or JSON response stores them), raises a bare ValueError for an integer of 4,300 digits, and
recurses once per nesting level (5,000 ``[`` raise RecursionError). Here each of these, and an
oversized text, is an ``UntrustedJSONError`` the caller turns into its own error code; a number
is an ``InvalidNumberError``, so the API can answer ``invalid_number``.
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_DEPTH = 32
MAX_CHARS = 256 * 1024


class UntrustedJSONError(ValueError):
    """The text is not JSON this application accepts; the message says why, for people."""


class InvalidNumberError(UntrustedJSONError):
    """A number no column or JSON answer can hold: NaN, ±Infinity, ``1e309``, thousands of digits."""


def _refuse_constant(name: str) -> Any:
    raise InvalidNumberError(f"{name} is not a number JSON allows")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise InvalidNumberError(f"{text[:40]} is out of range")
    return value


def _bounded_int(text: str) -> int:
    try:
        return int(text)
    except ValueError:  # past sys.get_int_max_str_digits()
        raise InvalidNumberError(f"an integer of {len(text)} digits is out of range") from None


def load_json(text: str | bytes, *, max_chars: int = MAX_CHARS, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` that refuses non-finite numbers, texts over ``max_chars`` and nesting past ``max_depth``."""
    if len(text) > max_chars:
        raise UntrustedJSONError(f"longer than {max_chars} characters")
    if _nesting(text) > max_depth:
        raise UntrustedJSONError(f"nested deeper than {max_depth} levels")
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float, parse_int=_bounded_int)
    except json.JSONDecodeError as exc:
        raise UntrustedJSONError(exc.msg) from None


def check_value(value: Any, *, max_depth: int = MAX_DEPTH) -> Any:
    """A decoded value (already a dict or list) held to the same limits, without recursion."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, float) and not math.isfinite(node):
            raise InvalidNumberError("NaN and Infinity are not numbers JSON allows")
        if isinstance(node, (dict, list)):
            if depth > max_depth:
                raise UntrustedJSONError(f"nested deeper than {max_depth} levels")
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children)
    return value


def _nesting(text: str | bytes) -> int:
    """The deepest bracket nesting of a JSON text (brackets inside strings aside), in one pass."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest
