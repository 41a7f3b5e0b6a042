from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db.models import Count
from django.template.response import TemplateResponse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from agents.admin import AgentAdmin
from agents.models import Agent
from core.admin import ReadOnlyAdmin, ask_first
from core.errors import ApplicationError
from core.pages import form_errors

from . import services
from .models import (
    AgentResource,
    Building,
    BuildingKind,
    BuildingMaterial,
    CheckIn,
    CityChatMessage,
    CreditEntry,
    Employment,
    MarketOrder,
    Purchase,
    ResourceTransfer,
    ResourceType,
    ShopItem,
    StockAdjustment,
)


class AgentResourceInline(admin.TabularInline):
    """Read-only: stock changes through the services; staff correct it with the "adjust stock" action."""

    model = AgentResource
    fields = ["resource_type", "quantity"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


class EmploymentInline(admin.TabularInline):
    """Read-only: jobs are taken and left through the services, which enforce the slots."""

    model = Employment
    fields = ["building", "started_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


class CorrectionForm(forms.Form):
    """A staff correction's input, checked by the service's own validator (each subclass's
    ``validate``) so the page shows its messages."""

    reason = forms.CharField(label=_("原因"))

    def clean(self):
        cleaned = super().clean()
        if not self.errors:
            with form_errors(self):
                self.validate(cleaned)
        return cleaned


class GrantCreditsForm(CorrectionForm):
    amount = forms.IntegerField(label=_("金额"), help_text=_("正数发放，负数扣除"))
    field_order = ["amount", "reason"]

    def validate(self, data: dict) -> None:
        services.validate_credit_grant(amount=data["amount"], reason=data["reason"])


class AdjustStockForm(CorrectionForm):
    resource_type = forms.ModelChoiceField(ResourceType.objects.all(), label=_("资源"), to_field_name="slug")
    quantity = forms.IntegerField(label=_("数量"), help_text=_("正数增加，负数减少"))
    field_order = ["resource_type", "quantity", "reason"]

    def validate(self, data: dict) -> None:
        services.validate_stock_adjustment(quantity=data["quantity"], reason=data["reason"])


admin.site.unregister(Agent)


@admin.register(Agent)
class CityAgentAdmin(AgentAdmin):
    """The agents app's admin plus the city's parts. Credits, needs and stock are read-only:
    they move through the services, and staff corrections are actions that write the ledgers."""

    readonly_fields = [*AgentAdmin.readonly_fields, "credits", "satiety", "energy"]
    inlines = [*AgentAdmin.inlines, AgentResourceInline, EmploymentInline]
    actions = [*AgentAdmin.actions, "grant_credits", "adjust_stock"]
    action_template = "admin/city/agent_action.html"

    def has_grant_credits_permission(self, request) -> bool:
        return request.user.has_perm(services.CREDIT_CORRECTION_PERMISSION)

    def has_adjust_stock_permission(self, request) -> bool:
        return request.user.has_perm(services.STOCK_CORRECTION_PERMISSION)

    @admin.action(description=_("发放或扣除信用点"), permissions=["grant_credits"])
    def grant_credits(self, request, queryset):
        return self._apply_with_form(
            request,
            queryset,
            GrantCreditsForm,
            lambda agent, data: services.correct_credits(
                agent_id=agent.pk, amount=data["amount"], reason=data["reason"], user=request.user
            ),
        )

    @admin.action(description=_("调整库存"), permissions=["adjust_stock"])
    def adjust_stock(self, request, queryset):
        return self._apply_with_form(
            request,
            queryset,
            AdjustStockForm,
            lambda agent, data: services.correct_stock(
                agent_id=agent.pk,
                resource_type=data["resource_type"].slug,
                quantity=data["quantity"],
                reason=data["reason"],
                user=request.user,
            ),
        )

    def _apply_with_form(self, request, queryset, form_class, apply):
        """Ask for the action's input on a page of its own, then apply it to each selected agent.

        Each agent is one service call (its own transaction): a refusal leaves that agent as it
        was and is reported by name. When every agent is refused the page shows the errors again.
        """
        agents = list(queryset.order_by("pk"))
        form = form_class(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            done, refusals = 0, []
            for agent in agents:
                try:
                    apply(agent, form.cleaned_data)
                    done += 1
                except ApplicationError as exc:
                    refusals.append((agent, exc))
            if done:
                self.message_user(
                    request,
                    ngettext("%(n)d 位居民已调整", "%(n)d 位居民已调整", done) % {"n": done},
                    messages.SUCCESS,
                )
                for agent, exc in refusals:
                    self.message_user(request, f"{agent.name}：{exc.message}", messages.WARNING)
                return None
            for agent, exc in refusals:
                with form_errors(form):
                    raise exc if len(agents) == 1 else ApplicationError(exc.code, f"{agent.name}：{exc.message}", field=exc.field)
        action = request.POST["action"]
        context = {
            **self.admin_site.each_context(request),
            "title": self.get_action(action)[2],
            "opts": self.model._meta,
            "agents": agents,
            "form": form,
            "action": action,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "select_across": request.POST.get("select_across", "0"),
            "media": self.media + form.media,
        }
        return TemplateResponse(request, self.action_template, context)


@admin.register(ResourceType)
class ResourceTypeAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "edible", "satiety_gain"]
    list_filter = ["edible"]
    search_fields = ["slug", "name"]


class BuildingMaterialInline(admin.TabularInline):
    model = BuildingMaterial
    extra = 1


@admin.register(BuildingKind)
class BuildingKindAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "credit_cost", "job_slots", "wage", "produces", "produces_quantity"]
    search_fields = ["slug", "name"]
    inlines = [BuildingMaterialInline]


class WorkerInline(EmploymentInline):
    fields = ["agent", "started_at"]
    readonly_fields = fields


@admin.register(Building)
class BuildingAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "workers", "job_slots", "wage", "produces", "produces_quantity", "owner"]
    list_filter = ["kind"]
    search_fields = ["name"]
    list_select_related = ["kind", "produces", "owner"]
    readonly_fields = ["owner", "construction_cost", "created_at"]
    inlines = [WorkerInline]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(worker_count=Count("employments"))

    @admin.display(description=_("在岗人数"), ordering="worker_count")
    def workers(self, building):
        return building.worker_count


@admin.register(ShopItem)
class ShopItemAdmin(admin.ModelAdmin):
    list_display = ["name", "price", "resource_type", "quantity", "is_available"]
    list_filter = ["is_available", "resource_type"]
    list_editable = ["is_available"]
    search_fields = ["name"]


def cancel_order_consequence(order: MarketOrder) -> str:
    if order.status != MarketOrder.Status.OPEN:
        return _("挂单 #%(id)s：%(status)s，不会处理") % {"id": order.pk, "status": order.get_status_display()}
    return _("挂单 #%(id)s：取消，%(quantity)s 个%(resource)s退回 %(seller)s") % {
        "id": order.pk, "quantity": order.quantity, "resource": order.resource_type.display_name, "seller": order.seller.name,
    }


@admin.register(MarketOrder)
class MarketOrderAdmin(ReadOnlyAdmin):
    """Orders come from agents (their goods are reserved by the service); staff may cancel them."""

    list_display = ["id", "seller", "resource_type", "quantity", "price", "status", "buyer", "created_at", "closed_at"]
    list_filter = ["status", "resource_type"]
    search_fields = ["seller__name", "buyer__name"]
    list_select_related = ["seller", "buyer", "resource_type"]
    actions = ["cancel_orders"]

    @admin.action(description=_("取消所选挂单（资源退回卖方）"), permissions=["act"])
    def cancel_orders(self, request, queryset):
        if page := ask_first(self, request, queryset.select_related("seller", "resource_type"), cancel_order_consequence):
            return page
        for order in queryset:
            try:
                services.cancel_market_order(agent_id=order.seller_id, order_id=order.pk, user=request.user)
            except ApplicationError as exc:
                self.message_user(request, f"#{order.pk}: {exc.message}", messages.WARNING)
            else:
                self.message_user(request, _("挂单 #%(id)s 已取消") % {"id": order.pk}, messages.SUCCESS)


class AdminTransferForm(forms.ModelForm):
    """The admin's "add" of a ledger row is a real transfer, through the service (source admin)."""

    user = None  # the staff member, set per request by ResourceTransferAdmin.get_form

    class Meta:
        model = ResourceTransfer
        fields = ["from_agent", "to_agent", "resource_type", "quantity"]

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        try:
            # Inside the admin's request transaction: a later failure rolls the transfer back too.
            self.instance = services.transfer_resource(
                from_agent_id=data["from_agent"].pk,
                to_agent_id=data["to_agent"].pk,
                resource_type=data["resource_type"].slug,
                quantity=data["quantity"],
                source=ResourceTransfer.Source.ADMIN,
                user=self.user,
            )
        except ApplicationError as exc:
            field = {"from_agent_id": "from_agent", "to_agent_id": "to_agent"}.get(exc.field, exc.field)
            raise ValidationError({field if field in self.fields else NON_FIELD_ERRORS: exc.message}) from None
        return data


@admin.register(ResourceTransfer)
class ResourceTransferAdmin(ReadOnlyAdmin):
    list_display = ["id", "created_at", "from_agent", "to_agent", "resource_type", "quantity", "source", "user"]
    list_filter = ["source", "resource_type", "from_agent", "to_agent", "created_at"]
    search_fields = ["from_agent__name", "to_agent__name", "resource_type__slug"]
    date_hierarchy = "created_at"
    list_select_related = ["from_agent", "to_agent", "resource_type", "user"]

    def has_add_permission(self, request):
        return admin.ModelAdmin.has_add_permission(self, request)

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is not None:
            return super().get_form(request, obj, change=change, **kwargs)
        return type("AdminTransferFormForRequest", (AdminTransferForm,), {"user": request.user})

    def save_model(self, request, obj, form, change):
        pass  # the service already wrote the row in AdminTransferForm.clean


@admin.register(CreditEntry)
class CreditEntryAdmin(ReadOnlyAdmin):
    list_display = ["id", "created_at", "agent", "amount", "source", "reason", "reference", "user"]
    list_filter = ["source", "created_at"]
    search_fields = ["agent__name", "reason", "reference"]
    date_hierarchy = "created_at"
    list_select_related = ["agent", "user"]


@admin.register(StockAdjustment)
class StockAdjustmentAdmin(ReadOnlyAdmin):
    list_display = ["id", "created_at", "agent", "resource_type", "quantity", "reason", "user"]
    list_filter = ["resource_type", "created_at"]
    search_fields = ["agent__name", "reason", "resource_type__slug"]
    date_hierarchy = "created_at"
    list_select_related = ["agent", "resource_type", "user"]


@admin.register(Purchase)
class PurchaseAdmin(ReadOnlyAdmin):
    list_display = ["id", "created_at", "agent", "item", "count", "total_price", "resource_type", "quantity"]
    list_filter = ["item"]
    list_select_related = ["agent", "item", "resource_type"]


@admin.register(CheckIn)
class CheckInAdmin(ReadOnlyAdmin):
    list_display = ["day", "agent", "building", "wage", "produced_type", "produced_quantity"]
    list_filter = ["day", "building"]
    list_select_related = ["agent", "building", "produced_type"]


@admin.register(CityChatMessage)
class CityChatMessageAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "agent", "content"]
    list_filter = ["agent"]
    search_fields = ["content", "agent__name"]
