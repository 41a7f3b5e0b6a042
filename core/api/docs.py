"""The API's schema and docs pages for people: a signed-out browser is sent to sign in and back."""

from collections.abc import Callable
from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse


def wants_page(request: HttpRequest) -> bool:
    """A browser asking for a page: no credentials of a script, and HTML preferred over JSON.

    ``*/*`` (curl's default) prefers JSON here, so only a client that names text/html is redirected.
    """
    if "HTTP_AUTHORIZATION" in request.META:
        return False
    return request.get_preferred_type(["application/json", "text/html"]) == "text/html"


def sign_in_first(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Wrap an API view so that a signed-out browser gets the login page (with ``?next=``), not a JSON 401.

    Scripts (a token, or Accept: application/json) and signed-in users go on to the view, which
    answers 401 / 403 in the API's error shape as before.
    """

    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not request.user.is_authenticated and wants_page(request):
            return redirect_to_login(request.get_full_path())
        return view(request, *args, **kwargs)

    return wrapped
