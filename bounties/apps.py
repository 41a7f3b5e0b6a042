from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class BountiesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "bounties"
    verbose_name = _("悬赏")

    def ready(self):
        from core.events import declare_events

        declare_events(
            bounty_created="bounties.view_bounty",
            bounty_claimed="bounties.view_bounty",
            bounty_completed="bounties.view_bounty",
            bounty_cancelled="bounties.view_bounty",
        )
