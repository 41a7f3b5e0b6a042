from django.views.i18n import set_language as django_set_language

from .language import save_language


def set_language(request):
    """Django's language switch, which also saves a signed-in user's choice for the API (core.language)."""
    # A GET changes nothing (Django's view only redirects), so there is nothing to save either.
    response = django_set_language(request)
    save_language(user=request.user, language=request.POST.get("language", ""))
    return response
