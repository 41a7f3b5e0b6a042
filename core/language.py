"""Which language the API answers in: Accept-Language, then the user's saved language, then LANGUAGE_CODE.

Pages keep Django's order (the language cookie first); a user's saved language is the one they
last chose on the pages (``set_language``), so a script with their token reads ``reason`` in it.
``code`` never changes with the language.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from django.utils import translation
from django.utils.translation.trans_real import parse_accept_lang_header
from rest_framework.authentication import get_authorization_header

from .models import UserPreference

TOKEN_KEYWORDS = (b"token", b"bearer")


def save_language(*, user, language: str) -> None:
    """Remember the user's choice; an unknown language is ignored (set_language ignores it too)."""
    if user.is_authenticated and language in dict(settings.LANGUAGES):
        UserPreference.objects.update_or_create(user=user, defaults={"language": language})


def saved_language(*, user_id: int | None) -> str:
    if user_id is None:
        return ""
    return _first(UserPreference.objects.filter(user_id=user_id))


def _first(preferences) -> str:
    # No ORDER BY to build: a user has at most one preference row (one-to-one).
    return next(iter(preferences.values_list("language", flat=True)[:1]), "")


def _header_language(request: HttpRequest) -> str:
    for accepted, _quality in parse_accept_lang_header(request.META.get("HTTP_ACCEPT_LANGUAGE", "")):
        if accepted == "*":
            break
        try:
            return translation.get_supported_language_variant(accepted)
        except LookupError:
            continue
    return ""


def _caller_language(request: HttpRequest) -> str:
    """The saved language of the user a request comes from: its session, else its token (a wrong
    token is nobody). One query: the token's user and their preference are joined."""
    if request.user.is_authenticated:
        return saved_language(user_id=request.user.pk)
    parts = get_authorization_header(request).split()
    if len(parts) == 2 and parts[0].lower() in TOKEN_KEYWORDS:
        return _first(UserPreference.objects.filter(user__auth_token__key=parts[1].decode(errors="replace")))
    return ""


def api_language(request: HttpRequest) -> str:
    return _header_language(request) or _caller_language(request) or settings.LANGUAGE_CODE
