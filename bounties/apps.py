from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class BountiesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "bounties"
    verbose_name = _("悬赏")
