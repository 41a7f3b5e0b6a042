"""Which language the API answers in: Accept-Language, then the user's saved language, then LANGUAGE_CODE.

Pages keep Django's order (the language cookie first); a user's saved language is the one they
last chose on the pages (``set_language``), so a script with their token reads ``reason`` in it.
``code`` never changes with the language.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.http import HttpRequest
from django.utils import translation
from django.utils.translation.trans_real import parse_accept_lang_header

from .models import UserPreference

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


def api_language(request: HttpRequest) -> str:
    """The language of an API request before DRF authenticates it: Accept-Language, then a
    session user's saved language, then LANGUAGE_CODE. A token's user is known only once DRF
    has read the token; ``follow_token_user`` switches to their saved language then, from the
    row read with the token (no query of its own)."""
    if language := _header_language(request):
        return language
    if request.user.is_authenticated:
        return saved_language(user_id=request.user.pk) or settings.LANGUAGE_CODE
    return settings.LANGUAGE_CODE


def follow_token_user(request: HttpRequest, user) -> None:
    """A token authenticated ``user``: the API answers in their saved language unless the request
    named one (Accept-Language). ``user.preference`` is loaded with the token."""
    if not request.path.startswith("/api/") or _header_language(request):
        return
    try:
        language = user.preference.language
    except ObjectDoesNotExist:
        return
    if language:
        request.LANGUAGE_CODE = language
        translation.activate(language)
