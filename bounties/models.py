from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from agents.models import Agent

# Rewards are paid into Agent.credits (a 32-bit integer on PostgreSQL): keep them far from overflow.
MAX_REWARD = 1_000_000


class BountyStatus(models.TextChoices):
    OPEN = "open", _("开放")
    CLAIMED = "claimed", _("进行中")
    COMPLETED = "completed", _("已完成")
    CANCELLED = "cancelled", _("已取消")


class Bounty(models.Model):
    """A task on the board: open → claimed (by one agent) → completed, or cancelled while open."""

    Status = BountyStatus

    title = models.CharField(_("标题"), max_length=200)
    description = models.TextField(_("描述"), blank=True)
    reward = models.IntegerField(_("奖励"), help_text=_("完成后支付给接取者的信用点"))
    status = models.CharField(_("状态"), max_length=10, choices=Status.choices, default=Status.OPEN, db_index=True)
    claimed_by = models.ForeignKey(
        Agent,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="bounties",
        verbose_name=_("接取者"),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("发布人"),
    )
    created_at = models.DateTimeField(_("发布时间"), auto_now_add=True)
    claimed_at = models.DateTimeField(_("接取时间"), null=True, blank=True)
    completed_at = models.DateTimeField(_("完成时间"), null=True, blank=True)
    cancelled_at = models.DateTimeField(_("取消时间"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = pgettext_lazy("singular", "悬赏")
        verbose_name_plural = pgettext_lazy("plural", "悬赏")
        constraints = [
            models.CheckConstraint(
                condition=Q(reward__gt=0, reward__lte=MAX_REWARD), name="bounty_reward_in_range"
            ),
            models.CheckConstraint(condition=Q(status__in=BountyStatus.values), name="bounty_status_valid"),
            # A claimed or completed bounty has a claimer; an open or cancelled one has none.
            models.CheckConstraint(
                condition=(
                    Q(status__in=[BountyStatus.CLAIMED, BountyStatus.COMPLETED], claimed_by__isnull=False)
                    | Q(status__in=[BountyStatus.OPEN, BountyStatus.CANCELLED], claimed_by__isnull=True)
                ),
                name="bounty_claimer_matches_status",
            ),
            # At most one bounty in progress per agent, whatever the concurrency.
            models.UniqueConstraint(
                fields=["claimed_by"], condition=Q(status=BountyStatus.CLAIMED), name="bounty_one_claimed_per_agent"
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.title}"
