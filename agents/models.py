from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from core.auth import is_active_staff, signed_in


class Tool(models.Model):
    """A registered tool function, synced from the registry at migrate time."""

    class Category(models.TextChoices):
        QUERY = "query", _("查询")
        ACTION = "action", _("操作")

    name = models.CharField(_("名称"), max_length=100, unique=True)
    description_zh = models.TextField(_("中文描述"), blank=True)
    description_en = models.TextField(_("英文描述"), blank=True)
    input_schema = models.JSONField(_("参数 JSON Schema"), default=dict)
    category = models.CharField(_("类别"), max_length=10, choices=Category.choices, default=Category.QUERY)
    requires_confirmation = models.BooleanField(_("需要人工确认"), default=False)
    # Set when staff changed requires_confirmation in the admin; the sync then leaves it alone.
    confirmation_set_by_staff = models.BooleanField(_("确认要求由员工设定"), default=False)
    source = models.CharField(_("来源"), max_length=255, help_text=_("module.qualname"))
    is_active = models.BooleanField(_("启用"), default=True)
    synced_at = models.DateTimeField(_("同步时间"), null=True, blank=True)
    created_at = models.DateTimeField(_("创建时间"), auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("工具")
        verbose_name_plural = pgettext_lazy("plural", "工具")

    def __str__(self) -> str:
        return self.name


class AgentKind(models.TextChoices):
    RESIDENT = "resident", pgettext_lazy("agent kind", "居民")
    ASSISTANT = "assistant", pgettext_lazy("agent kind", "助理")


class Agent(models.Model):
    """An LLM agent: a resident of the city (needs, credits, stock) or a desk assistant, with the tools staff granted it."""

    Kind = AgentKind

    name = models.CharField(_("名称"), max_length=100, unique=True)
    # Residents live in the city (pickers, the trade table, bounties, the overview); assistants
    # (the fund assistant, the front desk) only answer staff in their pages' chats.
    kind = models.CharField(_("类别"), max_length=10, choices=Kind.choices, default=Kind.RESIDENT, db_index=True)
    persona = models.TextField(_("人设"), blank=True)
    model = models.CharField(_("模型"), max_length=100, blank=True, help_text=_("留空使用默认模型"))
    credits = models.IntegerField(_("信用点"), default=100)
    satiety = models.IntegerField(_("饱食度"), default=80)
    energy = models.IntegerField(_("精力"), default=80)
    is_active = models.BooleanField(_("启用"), default=True)
    tools = models.ManyToManyField(Tool, blank=True, related_name="agents", verbose_name=_("授权工具"))
    created_at = models.DateTimeField(_("创建时间"), auto_now_add=True)

    class Meta:
        ordering = ["id"]
        verbose_name = _("居民")
        verbose_name_plural = pgettext_lazy("plural", "居民")
        permissions = [("chat_agent", "Can chat with and act as agents")]
        constraints = [
            models.CheckConstraint(condition=Q(credits__gte=0), name="agent_credits_non_negative"),
            models.CheckConstraint(condition=Q(satiety__gte=0, satiety__lte=100), name="agent_satiety_0_100"),
            models.CheckConstraint(condition=Q(energy__gte=0, energy__lte=100), name="agent_energy_0_100"),
            models.CheckConstraint(condition=Q(kind__in=AgentKind.values), name="agent_kind_valid"),
        ]

    def __str__(self) -> str:
        return self.name


class ToolCall(models.Model):
    """Audit row: one per tool execution, whatever its outcome."""

    class Status(models.TextChoices):
        SUCCESS = "success", _("成功")
        ERROR = "error", _("失败")
        PENDING_CONFIRMATION = "pending_confirmation", _("待确认")

    class Source(models.TextChoices):
        CHAT = "chat", _("对话")
        AUTONOMY = "autonomy", _("自主")
        API = "api", _("API")
        MCP = "mcp", _("MCP")
        CONFIRMATION = "confirmation", _("人工确认")

    agent = models.ForeignKey(
        Agent, on_delete=models.PROTECT, null=True, blank=True, related_name="tool_calls", verbose_name=_("居民")
    )
    tool_name = models.CharField(_("工具"), max_length=100, db_index=True)
    arguments = models.JSONField(_("参数"), default=dict, blank=True)
    status = models.CharField(_("状态"), max_length=24, choices=Status.choices)
    error_code = models.CharField(_("错误码"), max_length=64, blank=True, db_index=True)
    result = models.JSONField(_("结果"), default=dict, blank=True)
    source = models.CharField(_("来源"), max_length=16, choices=Source.choices)
    conversation = models.ForeignKey(
        "Conversation", on_delete=models.SET_NULL, null=True, blank=True, related_name="tool_calls", verbose_name=_("对话")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, verbose_name=_("员工")
    )
    duration_ms = models.PositiveIntegerField(_("耗时(毫秒)"), default=0)
    # The autonomy tick the call was made in (source ``autonomy``), kept as long as the round log.
    round = models.ForeignKey(
        "AutonomyRound", on_delete=models.SET_NULL, null=True, blank=True, related_name="tool_calls", verbose_name=_("回合")
    )
    created_at = models.DateTimeField(_("时间"), auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("工具调用")
        verbose_name_plural = pgettext_lazy("plural", "工具调用")
        indexes = [models.Index(fields=["agent", "created_at"], name="toolcall_agent_time")]

    def __str__(self) -> str:
        return f"{self.agent or '—'} · {self.tool_name} · {self.get_status_display()}"


class ConversationQuerySet(models.QuerySet):
    def owned_by(self, user):
        """The conversations ``user`` started: only they may post into them. Without a signed-in
        user (``manage.py chat`` with no ``--user``), those nobody started."""
        user = signed_in(user)
        return self.filter(user=user) if user is not None else self.filter(user__isnull=True)

    def readable_by(self, user):
        """What ``user`` may read: their own conversations; a superuser reads every one."""
        if is_active_staff(user) and user.is_superuser:
            return self.all()
        return self.owned_by(user)


class Conversation(models.Model):
    """A chat between staff (or a script) and one agent. It belongs to the staff member who
    started it (``user``): nobody else may read it or post into it (superusers may read)."""

    objects = ConversationQuerySet.as_manager()

    class Mode(models.TextChoices):
        STANDALONE = "standalone", _("独立确认")
        EMBEDDED = "embedded", _("页面内嵌")

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="conversations", verbose_name=_("居民"))
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, verbose_name=_("员工"))
    mode = models.CharField(_("模式"), max_length=12, choices=Mode.choices, default=Mode.STANDALONE)
    page = models.CharField(_("页面"), max_length=200, blank=True, help_text=_("内嵌模式所在页面"))
    created_at = models.DateTimeField(_("创建时间"), auto_now_add=True)
    updated_at = models.DateTimeField(_("更新时间"), auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        verbose_name = _("对话")
        verbose_name_plural = pgettext_lazy("plural", "对话")

    def __str__(self) -> str:
        return f"{self.agent} #{self.pk}"


class Message(models.Model):
    class Role(models.TextChoices):
        SYSTEM = "system", _("系统")
        USER = "user", _("用户")
        ASSISTANT = "assistant", _("助手")
        TOOL = "tool", _("工具")

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="messages", verbose_name=_("对话"))
    role = models.CharField(_("角色"), max_length=10, choices=Role.choices)
    content = models.TextField(_("内容"), blank=True)
    tool_calls = models.JSONField(_("工具调用"), default=list, blank=True)
    tool_call_id = models.CharField(_("工具调用 ID"), max_length=100, blank=True)
    name = models.CharField(_("工具名"), max_length=100, blank=True)
    usage = models.JSONField(_("用量"), default=dict, blank=True)
    # A reply staff stopped part-way (the Stop button, or a closed page): the text is what came until then.
    stopped = models.BooleanField(_("已停止"), default=False)
    # A reply the model broke off with an error (a dropped stream, an error event): why, in the words
    # staff were shown; the text is what came until then.
    failure = models.CharField(_("中断原因"), max_length=500, blank=True)
    created_at = models.DateTimeField(_("时间"), auto_now_add=True)

    class Meta:
        ordering = ["id"]
        verbose_name = _("消息")
        verbose_name_plural = pgettext_lazy("plural", "消息")

    def __str__(self) -> str:
        return f"{self.get_role_display()}: {self.content[:40]}"


class PendingActionQuerySet(models.QuerySet):
    def open(self, *, now=None):
        """Proposals staff can still decide: pending and not past their expiry."""
        return self.filter(status=PendingAction.Status.PENDING, expires_at__gt=now or timezone.now())

    def overdue(self, *, now=None):
        """Proposals still marked pending whose time ran out: the loop's expiry step closes them."""
        return self.filter(status=PendingAction.Status.PENDING, expires_at__lte=now or timezone.now())

    def shown_as(self, status: str):
        """Rows readers show with ``status`` (see ``effective_status``): overdue ones are expired, not pending."""
        if status == PendingAction.Status.PENDING:
            return self.open()
        if status == PendingAction.Status.EXPIRED:
            return self.filter(status=status) | self.overdue()
        return self.filter(status=status)


class PendingAction(models.Model):
    """An agent's proposed write, waiting for a staff member's decision."""

    objects = PendingActionQuerySet.as_manager()

    class Status(models.TextChoices):
        PENDING = "pending", _("待确认")
        CONFIRMED = "confirmed", _("已确认")
        REJECTED = "rejected", _("已拒绝")
        EXPIRED = "expired", _("已过期")
        FAILED = "failed", _("执行失败")

    tool_name = models.CharField(_("工具"), max_length=100)
    agent = models.ForeignKey(Agent, on_delete=models.PROTECT, related_name="pending_actions", verbose_name=_("居民"))
    conversation = models.ForeignKey(
        Conversation, on_delete=models.SET_NULL, null=True, blank=True, related_name="pending_actions", verbose_name=_("对话")
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="requested_actions",
        verbose_name=_("发起员工"),
    )
    arguments = models.JSONField(_("提议参数"), default=dict)
    version_read = models.PositiveIntegerField(_("读取时版本"), null=True, blank=True)
    mode = models.CharField(_("模式"), max_length=12, choices=Conversation.Mode.choices)
    summary = models.TextField(_("说明"), blank=True)
    status = models.CharField(_("状态"), max_length=10, choices=Status.choices, default=Status.PENDING)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="decided_actions",
        verbose_name=_("决定人"),
    )
    decided_at = models.DateTimeField(_("决定时间"), null=True, blank=True)
    result = models.JSONField(_("结果"), default=dict, blank=True)
    expires_at = models.DateTimeField(_("过期时间"))
    created_at = models.DateTimeField(_("创建时间"), auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("待确认操作")
        verbose_name_plural = pgettext_lazy("plural", "待确认操作")
        permissions = [("confirm_pendingaction", "Can confirm or reject agents' proposals")]
        indexes = [models.Index(fields=["status", "expires_at"], name="pending_status_expiry")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.agent} · {self.tool_name} · {self.effective_status.label}"

    @property
    def effective_status(self) -> "PendingAction.Status":
        """The status readers show: an overdue row is expired even before the loop's expiry step closes it."""
        if self.status == self.Status.PENDING and self.expires_at <= timezone.now():
            return self.Status.EXPIRED
        return self.Status(self.status)


class AutonomyRound(models.Model):
    """One autonomy tick: when it ran, with what, and its stats (decided / success / failed / by action)."""

    started_at = models.DateTimeField(_("开始时间"), auto_now_add=True, db_index=True)
    finished_at = models.DateTimeField(_("结束时间"), null=True, blank=True)
    provider = models.CharField(_("决策方"), max_length=20)
    model = models.CharField(_("模型"), max_length=100, blank=True)
    agent_count = models.PositiveIntegerField(_("居民数"), default=0)
    stats = models.JSONField(_("统计"), default=dict, blank=True)
    # Batches that failed (model down, timeout, unreadable answer): their residents rested.
    errors = models.JSONField(_("批次错误"), default=list, blank=True)
    # The processes that executed its batches: ``["in-process"]``, or the Celery workers' names.
    workers = models.JSONField(_("执行者"), default=list, blank=True)

    class Meta:
        ordering = ["-started_at", "-id"]
        verbose_name = _("自主回合")
        permissions = [("run_autonomy", "Can run an autonomy tick")]
        verbose_name_plural = pgettext_lazy("plural", "自主回合")

    def __str__(self) -> str:
        return f"#{self.pk} {self.started_at:%Y-%m-%d %H:%M:%S}"


class AgentActionLog(models.Model):
    """What one resident decided in one tick and how it went; the next snapshot shows it.

    One row per ``(round, agent)``, enforced by the database and written in the transaction of
    the decision's effects: a batch executed twice (a Celery task redelivered after its worker
    died) finds its residents already recorded and applies nothing twice.
    """

    class Status(models.TextChoices):
        SUCCESS = "success", _("成功")
        FAILED = "failed", _("失败")
        PENDING_CONFIRMATION = "pending_confirmation", _("待确认")

    round = models.ForeignKey(AutonomyRound, on_delete=models.CASCADE, related_name="actions", verbose_name=_("回合"))
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="action_logs", verbose_name=_("居民"))
    action = models.CharField(_("行为"), max_length=40)
    params = models.JSONField(_("参数"), default=dict, blank=True)
    reason = models.CharField(_("理由"), max_length=300, blank=True)
    status = models.CharField(_("结果"), max_length=24, choices=Status.choices)
    message = models.TextField(_("说明"), blank=True)
    error_code = models.CharField(_("错误码"), max_length=64, blank=True)
    # The tick's rest for a resident whose batch failed or was not asked, not a decision.
    fallback = models.BooleanField(_("兜底休息"), default=False)
    batch = models.PositiveIntegerField(_("批次"), default=0)
    worker = models.CharField(_("执行者"), max_length=200, blank=True)
    created_at = models.DateTimeField(_("时间"), auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        verbose_name = _("自主行为记录")
        verbose_name_plural = pgettext_lazy("plural", "自主行为记录")
        indexes = [models.Index(fields=["agent", "-id"], name="actionlog_agent_latest")]
        constraints = [models.UniqueConstraint(fields=["round", "agent"], name="actionlog_one_decision_per_tick")]

    def __str__(self) -> str:
        return f"{self.agent}: {self.action} · {self.get_status_display()}"
