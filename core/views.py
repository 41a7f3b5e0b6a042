from django.contrib.auth.decorators import login_required
from django.http import HttpResponseRedirect
from django.shortcuts import render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST
from django.views.i18n import set_language as django_set_language

from .errors import ApplicationError
from .language import save_language
from .services import set_time_zone as save_time_zone


def set_language(request):
    """Django's language switch, which also saves a signed-in user's choice for the API (core.language)."""
    # A GET changes nothing (Django's view only redirects), so there is nothing to save either.
    response = django_set_language(request)
    save_language(user=request.user, language=request.POST.get("language", ""))
    return response


@require_POST
@login_required
def set_time_zone(request):
    """The footer's zone switch: save the zone (core.services) and go back to the page it was on."""
    try:
        save_time_zone(user=request.user, time_zone=request.POST.get("time_zone", ""))
    except ApplicationError as exc:
        return render(request, "400.html", {"code": exc.code, "reason": exc.message}, status=400)
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        target = "/"
    return HttpResponseRedirect(target)
