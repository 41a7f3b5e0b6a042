from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class EventLog(models.Model):
    """Every broadcast event, stored so a reconnecting client can replay what it missed."""

    seq = models.BigAutoField(primary_key=True)
    event = models.CharField(_("事件"), max_length=64, db_index=True)
    data = models.JSONField(_("数据"), default=dict)
    created_at = models.DateTimeField(_("时间"), auto_now_add=True, db_index=True)

    class Meta:
        # The table predates this app (it was agents.EventLog); its data stays where it is.
        db_table = "agents_eventlog"
        ordering = ["seq"]
        verbose_name = _("事件日志")
        verbose_name_plural = pgettext_lazy("plural", "事件日志")

    def __str__(self) -> str:
        return f"{self.seq} {self.event}"


class UserPreference(models.Model):
    """What a staff member chose for themselves: the language the API answers them in when the
    request does not say (no Accept-Language), saved when they switch language on the pages; and
    the time zone the pages show times in (empty: TIME_ZONE). The zone is checked against the
    zoneinfo database in ``core.services.set_time_zone`` (a CHECK constraint cannot list zones)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preference", verbose_name=_("用户")
    )
    language = models.CharField(_("语言"), max_length=10, choices=settings.LANGUAGES, blank=True)
    time_zone = models.CharField(_("时区"), max_length=64, blank=True, default="")

    class Meta:
        verbose_name = _("用户偏好")
        verbose_name_plural = pgettext_lazy("plural", "用户偏好")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(language__in=["", *(code for code, _name in settings.LANGUAGES)]),
                name="userpreference_language_valid",
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.language}"


class EventOutbox(models.Model):
    """PostgreSQL's outbox: an event written inside its change's transaction, not yet in the log.

    ``core.events`` moves committed rows into ``EventLog`` (the relay), which gives them their
    public ``seq``; SQLite writes ``EventLog`` directly and leaves this table empty.
    """

    id = models.BigAutoField(primary_key=True)
    event = models.CharField(_("事件"), max_length=64)
    data = models.JSONField(_("数据"), default=dict)
    created_at = models.DateTimeField(_("时间"), auto_now_add=True)

    class Meta:
        ordering = ["id"]
        verbose_name = _("待发事件")
        verbose_name_plural = pgettext_lazy("plural", "待发事件")

    def __str__(self) -> str:
        return f"{self.id} {self.event}"
