from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CityConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "city"
    verbose_name = _("城市")

    def ready(self):
        from core.events import declare_events

        declare_events(
            resource_transferred="city.view_resourcetransfer",
            checkin="city.view_checkin",
            purchase="city.view_purchase",
            building_constructed="city.view_building",
            market_order_created="city.view_marketorder",
            market_order_filled="city.view_marketorder",
            market_order_cancelled="city.view_marketorder",
            city_chat="city.view_citychatmessage",
            tick_finished="agents.view_autonomyround",
        )
