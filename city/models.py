"""The city economy: resources and their ledger, buildings and jobs, the shop, the market.

Only ``city.services`` changes these rows; the database constraints are the last line of
defence (no negative stock, one job per agent, one check-in per agent per day).
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from agents.models import Agent


class ResourceType(models.Model):
    """A kind of goods (flour, wheat, wood …), managed by staff in the admin."""

    slug = models.SlugField(_("标识"), max_length=50, unique=True, help_text=_("英文小写，如 flour"))
    name = models.CharField(_("名称"), max_length=100)
    edible = models.BooleanField(_("可食用"), default=False)
    satiety_gain = models.PositiveSmallIntegerField(_("饱食度增加"), default=0, help_text=_("吃一份增加的饱食度"))

    class Meta:
        ordering = ["slug"]
        verbose_name = _("资源类型")
        verbose_name_plural = pgettext_lazy("plural", "资源类型")
        constraints = [
            models.CheckConstraint(condition=Q(satiety_gain__lte=100), name="resourcetype_satiety_gain_le_100"),
        ]

    def __str__(self) -> str:
        return self.display_name

    @property
    def display_name(self) -> str:
        """How people read the type in the active language: 面包 in Chinese, bread (its slug) in English."""
        return self.slug if (get_language() or "").startswith("en") else self.name


class AgentResource(models.Model):
    """How much of one resource type an agent holds."""

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="resources", verbose_name=_("居民"))
    resource_type = models.ForeignKey(
        ResourceType, on_delete=models.PROTECT, related_name="holdings", verbose_name=_("资源")
    )
    quantity = models.PositiveIntegerField(_("数量"), default=0)

    class Meta:
        ordering = ["agent_id", "resource_type__slug"]
        verbose_name = _("居民资源")
        verbose_name_plural = pgettext_lazy("plural", "居民资源")
        constraints = [
            models.UniqueConstraint(fields=["agent", "resource_type"], name="agentresource_unique_pair"),
            models.CheckConstraint(condition=Q(quantity__gte=0), name="agentresource_quantity_non_negative"),
        ]
        permissions = [("care_for_residents", "Can make residents eat and rest")]

    def __str__(self) -> str:
        return f"{self.agent}: {self.quantity} {self.resource_type}"


# Moving goods between residents by hand (page, API) or confirming an agent's proposed transfer.
TRANSFER_PERMISSION = "city.transfer_resources"
# Making a resident eat or rest: its needs and the food it eats, no ledger of their own.
CARE_PERMISSION = "city.care_for_residents"


class ResourceTransfer(models.Model):
    """The ledger: one row per resource transfer between two agents, never edited."""

    class Source(models.TextChoices):
        API = "api", _("API")
        TOOL = "tool", _("工具（对话）")
        AUTONOMY = "autonomy", _("自主行为")
        ADMIN = "admin", _("管理后台")
        PAGE = "page", _("交易页面")

    from_agent = models.ForeignKey(
        Agent, on_delete=models.PROTECT, related_name="transfers_out", verbose_name=_("转出方")
    )
    to_agent = models.ForeignKey(Agent, on_delete=models.PROTECT, related_name="transfers_in", verbose_name=_("接收方"))
    resource_type = models.ForeignKey(
        ResourceType, on_delete=models.PROTECT, related_name="transfers", verbose_name=_("资源")
    )
    quantity = models.PositiveIntegerField(_("数量"))
    source = models.CharField(_("来源"), max_length=10, choices=Source.choices)
    # The staff member who made (or was behind) the transfer; empty for an agent on its own.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, verbose_name=_("员工")
    )
    created_at = models.DateTimeField(_("时间"), auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-id"]
        verbose_name = _("资源转赠记录")
        verbose_name_plural = pgettext_lazy("plural", "资源转赠记录")
        permissions = [("transfer_resources", "Can transfer resources between residents")]
        constraints = [
            models.CheckConstraint(condition=Q(quantity__gte=1), name="resourcetransfer_quantity_positive"),
            models.CheckConstraint(
                condition=~Q(from_agent=models.F("to_agent")), name="resourcetransfer_distinct_agents"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.from_agent} → {self.to_agent}: {self.quantity} {self.resource_type}"


REASON_MAX_LENGTH = 200


class CreditEntry(models.Model):
    """The credits ledger: one row per payment into or out of an agent's credits that no trade
    record explains (bounty rewards, staff corrections), never edited.

    Wages, purchases, market fills and construction are recorded by ``CheckIn``, ``Purchase``,
    ``MarketOrder`` and ``Building``; with these rows they account for every balance.
    """

    class Source(models.TextChoices):
        BOUNTY = "bounty", _("悬赏奖励")
        ADMIN = "admin", _("管理后台")

    agent = models.ForeignKey(Agent, on_delete=models.PROTECT, related_name="credit_entries", verbose_name=_("居民"))
    amount = models.IntegerField(_("金额"), help_text=_("正数入账，负数扣除"))
    source = models.CharField(_("来源"), max_length=10, choices=Source.choices)
    reason = models.CharField(_("原因"), max_length=REASON_MAX_LENGTH)
    # What was paid for, e.g. "bounty:12"; the same thing is never paid twice.
    reference = models.CharField(_("关联"), max_length=50, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, verbose_name=_("员工")
    )
    created_at = models.DateTimeField(_("时间"), auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-id"]
        verbose_name = _("信用点记录")
        verbose_name_plural = pgettext_lazy("plural", "信用点记录")
        constraints = [
            models.CheckConstraint(condition=~Q(amount=0), name="creditentry_amount_non_zero"),
            models.CheckConstraint(condition=Q(source__in=["bounty", "admin"]), name="creditentry_source_known"),
            models.CheckConstraint(condition=~Q(reason=""), name="creditentry_reason_given"),
            models.UniqueConstraint(
                fields=["source", "reference"], condition=~Q(reference=""), name="creditentry_paid_once"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.agent}: {self.amount:+d} ({self.get_source_display()})"


class StockAdjustment(models.Model):
    """The ledger of staff corrections to an agent's stock (source admin): goods that enter or
    leave the city outside any trade, never edited."""

    agent = models.ForeignKey(
        Agent, on_delete=models.PROTECT, related_name="stock_adjustments", verbose_name=_("居民")
    )
    resource_type = models.ForeignKey(ResourceType, on_delete=models.PROTECT, related_name="+", verbose_name=_("资源"))
    quantity = models.IntegerField(_("数量"), help_text=_("正数增加，负数减少"))
    reason = models.CharField(_("原因"), max_length=REASON_MAX_LENGTH)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, verbose_name=_("员工")
    )
    created_at = models.DateTimeField(_("时间"), auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-id"]
        verbose_name = _("库存调整记录")
        verbose_name_plural = pgettext_lazy("plural", "库存调整记录")
        constraints = [
            models.CheckConstraint(condition=~Q(quantity=0), name="stockadjustment_quantity_non_zero"),
            models.CheckConstraint(condition=~Q(reason=""), name="stockadjustment_reason_given"),
        ]

    def __str__(self) -> str:
        return f"{self.agent}: {self.quantity:+d} {self.resource_type}"


class BuildingKind(models.Model):
    """A blueprint staff manage: what a building of this kind costs and what it offers."""

    slug = models.SlugField(_("标识"), max_length=50, unique=True)
    name = models.CharField(_("名称"), max_length=100)
    credit_cost = models.PositiveIntegerField(_("建造信用点"), default=0)
    job_slots = models.PositiveSmallIntegerField(_("岗位数"), default=1)
    wage = models.PositiveIntegerField(_("日薪"), default=10)
    produces = models.ForeignKey(
        ResourceType,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("产出资源"),
    )
    produces_quantity = models.PositiveIntegerField(_("每次打卡产出"), default=0)

    class Meta:
        ordering = ["slug"]
        verbose_name = _("建筑类型")
        verbose_name_plural = pgettext_lazy("plural", "建筑类型")

    def __str__(self) -> str:
        return f"{self.name} ({self.slug})"


class BuildingMaterial(models.Model):
    """One line of a blueprint's bill of materials."""

    kind = models.ForeignKey(BuildingKind, on_delete=models.CASCADE, related_name="materials")
    resource_type = models.ForeignKey(ResourceType, on_delete=models.PROTECT, related_name="+", verbose_name=_("资源"))
    quantity = models.PositiveIntegerField(_("数量"))

    class Meta:
        ordering = ["resource_type__slug"]
        verbose_name = _("建筑材料")
        verbose_name_plural = pgettext_lazy("plural", "建筑材料")
        constraints = [
            models.UniqueConstraint(fields=["kind", "resource_type"], name="buildingmaterial_unique_line"),
            models.CheckConstraint(condition=Q(quantity__gte=1), name="buildingmaterial_quantity_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.quantity} {self.resource_type}"


class Building(models.Model):
    """A workplace in the city: job slots, a wage per check-in and what a shift produces."""

    name = models.CharField(_("名称"), max_length=100, unique=True)
    kind = models.ForeignKey(BuildingKind, on_delete=models.PROTECT, related_name="buildings", verbose_name=_("类型"))
    job_slots = models.PositiveSmallIntegerField(_("岗位数"), default=1)
    wage = models.PositiveIntegerField(_("日薪"), default=10)
    produces = models.ForeignKey(
        ResourceType,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("产出资源"),
    )
    produces_quantity = models.PositiveIntegerField(_("每次打卡产出"), default=0)
    owner = models.ForeignKey(
        Agent, on_delete=models.SET_NULL, null=True, blank=True, related_name="buildings", verbose_name=_("建造者")
    )
    # What the builder paid, as it was then: {"credits": n, "materials": {slug: qty}}.
    construction_cost = models.JSONField(_("建造花费"), default=dict, blank=True)
    created_at = models.DateTimeField(_("创建时间"), auto_now_add=True)

    class Meta:
        ordering = ["id"]
        verbose_name = _("建筑")
        verbose_name_plural = pgettext_lazy("plural", "建筑")

    def __str__(self) -> str:
        return self.name


class Employment(models.Model):
    """An agent's job: at most one per agent (the database enforces it)."""

    agent = models.OneToOneField(Agent, on_delete=models.CASCADE, related_name="employment", verbose_name=_("居民"))
    building = models.ForeignKey(Building, on_delete=models.PROTECT, related_name="employments", verbose_name=_("建筑"))
    started_at = models.DateTimeField(_("入职时间"), auto_now_add=True)

    class Meta:
        ordering = ["building_id", "agent_id"]
        verbose_name = _("雇佣")
        verbose_name_plural = pgettext_lazy("plural", "雇佣")

    def __str__(self) -> str:
        return f"{self.agent} @ {self.building}"


class CheckIn(models.Model):
    """A day's work: one per agent per day, with what it paid and produced."""

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="checkins", verbose_name=_("居民"))
    day = models.DateField(_("日期"))
    building = models.ForeignKey(
        Building, on_delete=models.SET_NULL, null=True, related_name="checkins", verbose_name=_("建筑")
    )
    wage = models.PositiveIntegerField(_("工资"))
    produced_type = models.ForeignKey(
        ResourceType, on_delete=models.PROTECT, null=True, blank=True, related_name="+", verbose_name=_("产出资源")
    )
    produced_quantity = models.PositiveIntegerField(_("产出数量"), default=0)
    created_at = models.DateTimeField(_("时间"), auto_now_add=True)

    class Meta:
        ordering = ["-day", "-id"]
        verbose_name = _("打卡")
        verbose_name_plural = pgettext_lazy("plural", "打卡")
        constraints = [models.UniqueConstraint(fields=["agent", "day"], name="checkin_once_per_day")]

    def __str__(self) -> str:
        return f"{self.agent} {self.day:%Y-%m-%d}"


class ShopItem(models.Model):
    """Something the city shop sells for credits: a bundle of one resource type."""

    name = models.CharField(_("名称"), max_length=100, unique=True)
    price = models.PositiveIntegerField(_("价格"))
    resource_type = models.ForeignKey(ResourceType, on_delete=models.PROTECT, related_name="+", verbose_name=_("资源"))
    quantity = models.PositiveIntegerField(_("每份数量"), default=1)
    is_available = models.BooleanField(_("在售"), default=True)

    class Meta:
        ordering = ["id"]
        verbose_name = _("商店商品")
        verbose_name_plural = pgettext_lazy("plural", "商店商品")
        constraints = [
            models.CheckConstraint(condition=Q(price__gte=1), name="shopitem_price_positive"),
            models.CheckConstraint(condition=Q(quantity__gte=1), name="shopitem_quantity_positive"),
        ]

    def __str__(self) -> str:
        return self.name


class Purchase(models.Model):
    """A shop sale: credits out of the city, goods into the buyer's stock."""

    agent = models.ForeignKey(Agent, on_delete=models.PROTECT, related_name="purchases", verbose_name=_("居民"))
    item = models.ForeignKey(ShopItem, on_delete=models.PROTECT, related_name="purchases", verbose_name=_("商品"))
    count = models.PositiveIntegerField(_("份数"))
    total_price = models.PositiveIntegerField(_("总价"))
    resource_type = models.ForeignKey(ResourceType, on_delete=models.PROTECT, related_name="+", verbose_name=_("资源"))
    quantity = models.PositiveIntegerField(_("获得数量"))
    created_at = models.DateTimeField(_("时间"), auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        verbose_name = _("购买记录")
        verbose_name_plural = pgettext_lazy("plural", "购买记录")

    def __str__(self) -> str:
        return f"{self.agent}: {self.item} × {self.count}"


class MarketOrder(models.Model):
    """A sell offer: the seller's goods are reserved (held by the order) until it is filled or cancelled."""

    class Status(models.TextChoices):
        OPEN = "open", _("挂单中")
        FILLED = "filled", _("已成交")
        CANCELLED = "cancelled", _("已取消")

    seller = models.ForeignKey(Agent, on_delete=models.PROTECT, related_name="sell_orders", verbose_name=_("卖方"))
    resource_type = models.ForeignKey(ResourceType, on_delete=models.PROTECT, related_name="+", verbose_name=_("资源"))
    quantity = models.PositiveIntegerField(_("数量"))
    price = models.PositiveIntegerField(_("总价"), help_text=_("整批的信用点价格"))
    status = models.CharField(_("状态"), max_length=10, choices=Status.choices, default=Status.OPEN)
    buyer = models.ForeignKey(
        Agent, on_delete=models.PROTECT, null=True, blank=True, related_name="buy_orders", verbose_name=_("买方")
    )
    # The staff member who accepted or cancelled it on an agent's behalf, if any.
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, verbose_name=_("处理员工")
    )
    created_at = models.DateTimeField(_("创建时间"), auto_now_add=True)
    closed_at = models.DateTimeField(_("关闭时间"), null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        verbose_name = _("市场挂单")
        verbose_name_plural = pgettext_lazy("plural", "市场挂单")
        constraints = [
            models.CheckConstraint(condition=Q(quantity__gte=1), name="marketorder_quantity_positive"),
            models.CheckConstraint(condition=Q(price__gte=1), name="marketorder_price_positive"),
            models.CheckConstraint(
                condition=Q(status="filled", buyer__isnull=False) | ~Q(status="filled"),
                name="marketorder_filled_has_buyer",
            ),
            models.CheckConstraint(condition=~Q(buyer=models.F("seller")), name="marketorder_buyer_not_seller"),
        ]
        indexes = [models.Index(fields=["status", "id"], name="marketorder_status")]

    def __str__(self) -> str:
        return _("%(seller)s 出售 %(quantity)s %(resource)s，总价 %(price)s（%(status)s）") % {
            "seller": self.seller, "quantity": self.quantity, "resource": self.resource_type, "price": self.price,
            "status": self.get_status_display(),
        }


class CityChatMessage(models.Model):
    """A line an agent said in the city channel."""

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="city_messages", verbose_name=_("居民"))
    content = models.CharField(_("内容"), max_length=500)
    created_at = models.DateTimeField(_("时间"), auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-id"]
        verbose_name = _("城市频道消息")
        verbose_name_plural = pgettext_lazy("plural", "城市频道消息")

    def __str__(self) -> str:
        return f"{self.agent}: {self.content[:40]}"


class CitySample(models.Model):
    """The city's economy after one autonomy tick: what the overview charts read, never the ledger.

    Written by the tick (``record_city_sample``); deleted with its round, so it is kept as long
    as round logs and the event log (``EVENT_LOG_RETENTION_DAYS``).
    """

    round = models.OneToOneField(
        "agents.AutonomyRound", on_delete=models.CASCADE, related_name="city_sample", verbose_name=_("回合")
    )
    created_at = models.DateTimeField(_("时间"), auto_now_add=True, db_index=True)
    residents = models.PositiveIntegerField(_("居民数"), default=0)
    total_credits = models.BigIntegerField(_("信用点总量"), default=0)
    # {slug: quantity held by all agents together}
    stock = models.JSONField(_("资源存量"), default=dict, blank=True)
    transfers = models.PositiveIntegerField(_("转赠笔数"), default=0, help_text=_("自上一个样本以来"))
    transferred = models.PositiveBigIntegerField(_("转赠数量"), default=0, help_text=_("自上一个样本以来"))
    # The newest ledger row counted: the next sample counts the transfers after it.
    last_transfer_id = models.PositiveBigIntegerField(default=0)

    class Meta:
        ordering = ["-id"]
        verbose_name = _("城市样本")
        verbose_name_plural = pgettext_lazy("plural", "城市样本")

    def __str__(self) -> str:
        return f"#{self.pk} {self.created_at:%Y-%m-%d %H:%M:%S}"
