from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FundsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "funds"
    verbose_name = _("基金")
