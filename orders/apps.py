from django.apps import AppConfig
from django.utils.translation import pgettext_lazy


class OrdersConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "orders"
    verbose_name = pgettext_lazy("plural", "订单")

    def ready(self):
        from core.events import declare_events

        declare_events(
            order_message="orders.view_channelmessage",
            order_messages_read="orders.view_channelmessage",
            refund_registered="orders.view_refund",
            refund_completed="orders.view_refund",
        )
