"""The shared helpers in core/: ids, text, signed-in users."""

import pytest
from django.contrib.auth.models import AnonymousUser

from core.auth import is_active_staff, signed_in
from core.errors import ApplicationError
from core.params import MAX_ID, parse_id
from core.text import clean_text


@pytest.mark.parametrize(("raw", "expected"), [("7", 7), (" 7 ", 7), (7, 7), (str(MAX_ID), MAX_ID)])
def test_parse_id_reads_a_positive_id(raw, expected):
    assert parse_id(raw) == expected


@pytest.mark.parametrize("raw", ["²", "١٢", "-1", "0", "", None, "1.5", "abc", True, str(MAX_ID + 1), 2**63, "７"])
def test_parse_id_refuses_what_is_not_a_storable_id(raw):
    assert parse_id(raw) is None


def test_clean_text_strips_and_returns_the_text():
    assert clean_text("  hi  ", field="content", label="消息", max_length=5) == "hi"


@pytest.mark.parametrize(
    ("value", "code"),
    [("", "content_required"), ("   ", "content_required"), (None, "content_required"), (3, "content_required"),
     ("x" * 6, "content_too_long"), ("a\x00b", "invalid_text")],
)
def test_clean_text_refuses_empty_long_or_nul_text(value, code):
    with pytest.raises(ApplicationError) as caught:
        clean_text(value, field="content", label="消息", max_length=5)
    assert (caught.value.code, caught.value.field) == (code, "content")


def test_clean_text_may_allow_empty():
    assert clean_text("  ", field="remarks", label="备注", max_length=5, required=False) == ""


@pytest.mark.django_db
def test_signed_in_is_the_user_or_none(django_user_model):
    user = django_user_model.objects.create_user("u", is_staff=True)
    assert signed_in(user) is user and signed_in(AnonymousUser()) is None and signed_in(None) is None
    assert is_active_staff(user) and not is_active_staff(AnonymousUser())
    user.is_active = False
    assert not is_active_staff(user)
