from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FundsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "funds"
    verbose_name = _("基金")

    def ready(self):
        from core.events import declare_events

        declare_events(fund_changed="funds.view_fund")
