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
from rest_framework.authtoken.models import Token

from .models import UserPreference

TOKEN_KEYWORDS = (b"token", b"bearer")


def save_language(*, user, language: str) -> None:
    """Remember the user's choice; an unknown language is ignored (set_language ignores it too)."""
    if user.is_authenticated and language in dict(settings.LANGUAGES):
        UserPreference.objects.update_or_create(user=user, defaults={"language": language})


def saved_language(*, user_id: int | None) -> str:
    if user_id is None:
        return ""
    return UserPreference.objects.filter(user_id=user_id).values_list("language", flat=True).first() or ""


def _header_language(request: HttpRequest) -> str:
    for accepted, _quality in parse_accept_lang_header(request.META.get("HTTP_ACCEPT_LANGUAGE", "")):
        if accepted == "*":
            break
        try:
            return translation.get_supported_language_variant(accepted)
        except LookupError:
            continue
    return ""


def _caller_id(request: HttpRequest) -> int | None:
    """The user a request comes from: its session, else its token (a wrong token is nobody)."""
    if request.user.is_authenticated:
        return request.user.pk
    parts = get_authorization_header(request).split()
    if len(parts) == 2 and parts[0].lower() in TOKEN_KEYWORDS:
        return Token.objects.filter(key=parts[1].decode(errors="replace")).values_list("user_id", flat=True).first()
    return None


def api_language(request: HttpRequest) -> str:
    return _header_language(request) or saved_language(user_id=_caller_id(request)) or settings.LANGUAGE_CODE
