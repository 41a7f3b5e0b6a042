from django.apps import AppConfig
from django.utils.translation import pgettext_lazy


class OrdersConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "orders"
    verbose_name = pgettext_lazy("plural", "订单")
