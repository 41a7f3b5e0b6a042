"""The page helper: a page or its HTMX part, and a service's refusal on a Django form."""

import pytest
from django import forms
from django.test import RequestFactory, override_settings
from django_htmx.middleware import HtmxDetails

from core.errors import ApplicationError, Conflict
from core.pages import form_errors, render_page

PAGE = """{% load partials %}<html>{% partialdef greeting inline %}<p id="greeting">hello {{ name }}</p>{% endpartialdef %}
{% partialdef secret %}<p>secret</p>{% endpartialdef %}</html>"""
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "OPTIONS": {
            "loaders": [("template_partials.loader.Loader", [("django.template.loaders.locmem.Loader", {"page.html": PAGE})])],
        },
    }
]
PARTS = ("greeting",)


def request(*, htmx: bool):
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    made = RequestFactory().get("/page/", **headers)
    made.htmx = HtmxDetails(made)
    return made


@override_settings(TEMPLATES=TEMPLATES)
def test_an_htmx_request_gets_only_the_part_it_names():
    response = render_page(request(htmx=True), "page.html", {"name": "Ada"}, parts=PARTS, part="greeting")
    assert response.content.decode() == '<p id="greeting">hello Ada</p>'


@override_settings(TEMPLATES=TEMPLATES)
def test_a_request_without_htmx_gets_the_whole_page_whatever_part_it_names():
    response = render_page(request(htmx=False), "page.html", {"name": "Ada"}, parts=PARTS, part="greeting")
    assert response.content.decode().startswith("<html>") and "hello Ada" in response.content.decode()


@override_settings(TEMPLATES=TEMPLATES)
def test_an_htmx_request_naming_no_part_gets_the_whole_page():
    response = render_page(request(htmx=True), "page.html", {"name": "Ada"}, parts=PARTS)
    assert response.content.decode().startswith("<html>")


@override_settings(TEMPLATES=TEMPLATES)
def test_a_part_outside_the_whitelist_is_a_400_even_when_the_template_has_it():
    response = render_page(request(htmx=True), "page.html", {}, parts=PARTS, part="secret")
    assert response.status_code == 400 and b"secret" not in response.content


class NoteForm(forms.Form):
    title = forms.CharField(required=False)
    body = forms.CharField(required=False)
    note_id = forms.IntegerField(required=False, widget=forms.HiddenInput)


def valid_form() -> NoteForm:
    form = NoteForm({"title": "t", "body": "b"})
    assert form.is_valid()
    return form


def test_an_error_naming_a_shown_field_lands_next_to_it():
    with form_errors(form := valid_form()):
        raise ApplicationError("title_taken", "标题已存在", field="title")
    assert form.errors == {"title": ["标题已存在"]}


def test_an_error_naming_no_field_is_the_forms_own():
    with form_errors(form := valid_form()):
        raise Conflict("stale", "已被他人修改")
    assert form.non_field_errors() == ["已被他人修改"]


@pytest.mark.parametrize("field", ["note_id", "unknown"])
def test_an_error_naming_a_hidden_or_unknown_field_is_the_forms_own(field):
    with form_errors(form := valid_form()):
        raise ApplicationError("bad", "不行", field=field)
    assert form.non_field_errors() == ["不行"] and list(form.errors) == ["__all__"]


def test_an_error_listing_several_problems_puts_each_in_its_place():
    problems = {"title": ["标题已存在"], "body": ["正文太长"], "note_id": ["没有这条"]}
    with form_errors(form := valid_form()):
        raise ApplicationError("title_taken", "标题已存在", field="title", extra={"errors": problems})
    assert form.errors == {"title": ["标题已存在"], "body": ["正文太长"], "__all__": ["没有这条"]}


def refuse():
    raise ApplicationError("bad", "不行")


def test_the_block_stops_at_the_error():
    steps = []
    with form_errors(valid_form()):
        steps.append("before")
        refuse()
        steps.append("after")
    assert steps == ["before"]


def test_an_exception_that_is_no_refusal_passes_through():
    with pytest.raises(ValueError), form_errors(valid_form()):
        raise ValueError("a bug")


def test_a_block_without_error_leaves_the_form_valid():
    with form_errors(form := valid_form()):
        pass
    assert form.is_valid() and not form.errors
