"""One page shape for every staff page (DESIGN §12).

A page is one function view and one template; the parts HTMX swaps are ``{% partialdef %}``
blocks of that template. ``render_page`` renders the page or the part an HTMX request swaps;
``form_errors`` puts a service's refusal on the Django form that asked for it.
"""

from collections.abc import Collection, Iterator
from contextlib import contextmanager
from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render

from .errors import ApplicationError


def render_page(
    request: HttpRequest, template: str, context: dict[str, Any], *, parts: Collection[str], part: str | None = None
) -> HttpResponse:
    """The whole ``template``, or for an HTMX request its ``part`` (``"app/page.html#part"``).

    The view names the part, the same way on every page: a GET passes the page's ``?part=``
    (what its ``hx-get`` URLs ask for), a POST the part its form swaps. Only names in ``parts``
    render; any other is a 400, which HTMX does not swap, never the whole page, which would land
    inside a part of itself. A request without HTMX always gets the whole page.
    """
    if part is None or not request.htmx:
        return render(request, template, context)
    if part not in parts:
        return HttpResponseBadRequest("unknown part", content_type="text/plain")
    return render(request, f"{template}#{part}", context)


@contextmanager
def form_errors(form: forms.Form) -> Iterator[forms.Form]:
    """Put an ``ApplicationError`` raised in the block on ``form`` instead of raising it.

    The error goes next to the field it names when the form shows that field; otherwise (no
    field, one the form lacks, a hidden one staff cannot fix) it is the form's own error. An
    error listing several problems (``extra["errors"]``: field → messages) puts each in its
    place. The block stops at the error: afterwards, ``form.errors`` tells what happened.
    """
    try:
        yield form
    except ApplicationError as exc:
        problems = exc.extra.get("errors")
        if not isinstance(problems, dict) or not problems:
            problems = {exc.field: [exc.message]}
        for field, messages in problems.items():
            for message in messages:
                form.add_error(_shown_field(form, field), str(message))


def _shown_field(form: forms.Form, field: str | None) -> str | None:
    if field in form.fields and not form.fields[field].widget.is_hidden:
        return field
    return None
