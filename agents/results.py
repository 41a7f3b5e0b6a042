"""Tool calls and results as people read them in the chats (agent chat, fund chat, orders desk).

A result is one line ("转移 2 面包 给 Bob ✓", "3 个基金，2 个启用 ✓", "✗ 库存不足…") with its
details folded behind it as label/value rows, never JSON. The line comes from the tool's own
summary when its domain registered one (``@summarizes("list_funds")`` in the domain's
``tools.py``, read in the language of the page), else from the first line of the result's
message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core.untrusted import UntrustedJSONError, load_json

# tool name -> summary(data, arguments) -> one line
SUMMARIES: dict[str, Callable[[dict, dict], str]] = {}
MAX_DETAIL_ROWS = 40
MAX_VALUE_LENGTH = 300


def summarizes(*names: str) -> Callable:
    """Register the one-line summary of these tools' successful results."""

    def register(summary: Callable[[dict, dict], str]) -> Callable[[dict, dict], str]:
        for name in names:
            SUMMARIES[name] = summary
        return summary

    return register


def parse(raw: Any) -> Any:
    """A stored result or argument string as data (the text itself when it is not JSON)."""
    if isinstance(raw, str):
        try:
            return load_json(raw)  # a model's text: as deep or as long as it liked
        except UntrustedJSONError:
            return raw
    return raw


def arguments_line(arguments: Any) -> str:
    """A call's arguments in one line, ``quantity 2 · resource_type bread``; empty for none."""
    arguments = parse(arguments)
    if isinstance(arguments, dict):
        return " · ".join(f"{key} {_text(value)}" for key, value in arguments.items())
    return _text(arguments) if arguments not in (None, "") else ""


def result_view(name: str, result: Any, arguments: Any = None) -> dict:
    """``{"line", "status", "code", "details": [(label, value)], "message"}`` of one tool result."""
    result = parse(result)
    if not isinstance(result, dict):
        return {"line": "✗ " + _text(result)[:MAX_VALUE_LENGTH], "status": "failed", "code": "", "details": [], "message": ""}
    status = result.get("status", "")
    data = result.get("data") if isinstance(result.get("data"), dict) else {}
    arguments = parse(arguments) if arguments is not None else {}
    message = data.get("message") or result.get("message") or ""
    code = ""
    if status == "success":
        summary = SUMMARIES.get(name)
        line = summary(data, arguments if isinstance(arguments, dict) else {}) if summary else _first_line(message)
        line = f"{line or name} ✓"
    elif status == "pending_confirmation":
        line = _("待确认 #%(id)s：%(message)s") % {"id": result.get("pending_action_id"), "message": _first_line(message)}
    else:
        error = result.get("error") or {}
        code = error.get("code", "")
        line = f"✗ {_first_line(error.get('message', '')) or code}"
    details = _rows({key: value for key, value in data.items() if key != "message"})
    if "\n" in message.strip():
        details = [(_("说明"), message.strip()), *details]
    if code:
        details = [(_("错误码"), code), *details]
    return {"line": line, "status": status, "code": code, "details": details[:MAX_DETAIL_ROWS], "message": message}


def count_line(count: int, singular: str, plural: str) -> str:
    """``3 个基金`` / ``3 funds``: for summaries; ``singular``/``plural`` are ngettext msgids with %(n)d."""
    return ngettext(singular, plural, count) % {"n": count}


def _first_line(text: Any) -> str:
    lines = str(text or "").strip().splitlines()
    if not lines:
        return ""
    more = len(lines) - 1
    return lines[0] + (ngettext("（另 %(n)d 行）", "（另 %(n)d 行）", more) % {"n": more} if more else "")


def _rows(data: Any, prefix: str = "") -> list[tuple[str, str]]:
    if isinstance(data, dict):
        rows = []
        for key, value in data.items():
            label = f"{prefix}{key}"
            if isinstance(value, dict):
                rows += _rows(value, f"{label}.")
            elif isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
                rows += [(f"{label} {index}", _one_line(item)) for index, item in enumerate(value, 1)]
            else:
                rows.append((label, _text(value)))
        return rows
    return [(prefix.rstrip(".") or "-", _text(data))]


def _one_line(item: dict) -> str:
    return " · ".join(_text(value) for value in item.values() if value not in (None, "", [], {}))[:MAX_VALUE_LENGTH]


def _text(value: Any) -> str:
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return _("是") if value else _("否")
    if isinstance(value, list):
        return "、".join(_text(item) for item in value) if (value and not isinstance(value[0], (dict, list))) else str(len(value))
    if isinstance(value, dict):
        return _one_line(value)
    return str(value)[:MAX_VALUE_LENGTH]
