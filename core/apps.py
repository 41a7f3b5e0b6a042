from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CoreConfig(AppConfig):
    """The plumbing every app shares: errors, events, text and request helpers, the page
    helper, the API error handler and the read-only admin. It imports no other app."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "core"
    verbose_name = _("基础")
