"""Token estimates that err high, so what is sent fits a model's context without its tokenizer.

Tokenizers differ (a CJK character is 0.7 to 1.5 tokens, English about 4 characters a token),
so a CJK character counts as 1.5 tokens, any other three characters as one, and each message
adds a fixed overhead for its role and separators.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MESSAGE_OVERHEAD = 8
# Answer tokens per resident of an autonomy batch: one decision object with a short reason.
DECISION_TOKENS = 60


# CJK radicals onwards (U+2E80 and up): ideographs, kana, hangul, full-width forms.
WIDE = re.compile("[^\u0000-\u2e7f]")


def estimate_tokens(text: str) -> int:
    wide = len(WIDE.findall(text))  # counted in C: a character at a time in Python was a tenth of a chat turn
    return math.ceil(wide * 1.5 + (len(text) - wide) / 3)


def message_tokens(message: dict[str, Any]) -> int:
    calls = message.get("tool_calls")
    extra = json.dumps(calls, ensure_ascii=False) if calls else ""
    return MESSAGE_OVERHEAD + estimate_tokens(str(message.get("content") or "")) + estimate_tokens(extra)


def messages_tokens(messages: list[dict[str, Any]]) -> int:
    return sum(message_tokens(message) for message in messages)


def tools_tokens(tools: list[dict[str, Any]]) -> int:
    return estimate_tokens(json.dumps(tools, ensure_ascii=False)) if tools else 0


def decisions_tokens(residents: int) -> int:
    """The answer cap of an autonomy batch: room for one decision per resident, and the brackets."""
    return DECISION_TOKENS * residents + 32
