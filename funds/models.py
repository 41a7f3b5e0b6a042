from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

FUND_NAME_MAX_LENGTH = 100
REMARKS_MAX_LENGTH = 500


class Fund(models.Model):
    """Fund master data. Never deleted: disabling is the soft delete."""

    class ActiveStatus(models.TextChoices):
        ENABLE = "ENABLE", pgettext_lazy("fund status", "启用")
        DISABLE = "DISABLE", pgettext_lazy("fund status", "停用")

    fund_name = models.CharField(_("基金名称"), max_length=FUND_NAME_MAX_LENGTH)
    active_status = models.CharField(
        _("状态"), max_length=7, choices=ActiveStatus.choices, default=ActiveStatus.ENABLE
    )
    remarks = models.TextField(_("备注"), max_length=REMARKS_MAX_LENGTH, blank=True)
    # Optimistic lock: every write names the version it read and bumps it in the same UPDATE.
    version = models.PositiveIntegerField(_("版本"), default=1)
    created_at = models.DateTimeField(_("创建时间"), auto_now_add=True)
    updated_at = models.DateTimeField(_("更新时间"), auto_now=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("创建人"),
    )
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("修改人"),
    )

    class Meta:
        ordering = ["id"]
        verbose_name = pgettext_lazy("singular", "基金")
        verbose_name_plural = pgettext_lazy("plural", "基金")
        constraints = [
            # "Alpha" and "alpha" are the same fund to a person reading the list.
            models.UniqueConstraint(Lower("fund_name"), name="fund_name_unique_ci"),
            models.CheckConstraint(condition=models.Q(active_status__in=["ENABLE", "DISABLE"]), name="fund_active_status_valid"),
        ]

    def __str__(self) -> str:
        return self.fund_name

    @property
    def is_enabled(self) -> bool:
        return self.active_status == self.ActiveStatus.ENABLE
