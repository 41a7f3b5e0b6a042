"""Free text from people, scripts and models: one way to clean it."""

from collections.abc import Iterable

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from .errors import ApplicationError


def clean_text(
    value: object,
    *,
    field: str,
    label: str,
    max_length: int,
    required: bool = True,
    empty_code: str = "",
    too_long_code: str = "",
) -> str:
    """``value`` stripped of surrounding white space; refused when empty (if ``required``),
    longer than ``max_length``, or holding a NUL byte (no database keeps one faithfully).

    A non-string counts as empty. The error names ``field``; its message says ``label``
    (the field's name for people). Codes default to ``<field>_required`` and
    ``<field>_too_long``.
    """
    text = value.strip() if isinstance(value, str) else ""
    if not text:
        if required:
            raise ApplicationError(empty_code or f"{field}_required", _("%(label)s不能为空") % {"label": label}, field=field)
        return ""
    if "\x00" in text:
        raise ApplicationError("invalid_text", _("%(label)s含有不允许的字符") % {"label": label}, field=field)
    if len(text) > max_length:
        raise ApplicationError(
            too_long_code or f"{field}_too_long",
            _("%(label)s最多 %(n)s 个字符") % {"label": label, "n": max_length},
            field=field,
        )
    return text


def join_items(items: Iterable[str], *, comma: bool = False) -> str:
    """An enumeration punctuated for the active language: 面包、木材 (or 面包 1，木材 18 with ``comma``); bread, wood."""
    separator = pgettext("list separator", "，") if comma else pgettext("list separator", "、")
    return separator.join(items)


def in_every_language(text: object) -> list[str]:
    """A translatable text as each of LANGUAGES writes it: a demo row is found whichever language seeded it."""
    written = []
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            written.append(str(text))
    return list(dict.fromkeys(written))
