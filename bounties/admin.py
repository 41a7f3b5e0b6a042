from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from core.admin import ask_first
from core.errors import ApplicationError

from . import services
from .models import Bounty


class BountyAdminForm(admin.ModelAdmin.form):
    def clean(self):
        cleaned = super().clean()
        if self.instance.pk is None:
            try:
                services.validate_bounty_draft(
                    title=cleaned.get("title"), reward=cleaned.get("reward"), description=cleaned.get("description")
                )
            except ApplicationError as exc:
                self.add_error(exc.field, exc.message)
        return cleaned


def complete_consequence(bounty: Bounty) -> str:
    if bounty.status != Bounty.Status.CLAIMED:
        return _("#%(id)s「%(title)s」：不是进行中的悬赏，不会处理") % {"id": bounty.pk, "title": bounty.title}
    return _("#%(id)s「%(title)s」：完成，向 %(name)s 支付 %(reward)s 信用点") % {
        "id": bounty.pk, "title": bounty.title, "name": bounty.claimed_by.name, "reward": bounty.reward,
    }


def cancel_consequence(bounty: Bounty) -> str:
    if bounty.status != Bounty.Status.OPEN:
        return _("#%(id)s「%(title)s」：不是开放的悬赏，不会处理") % {"id": bounty.pk, "title": bounty.title}
    return _("#%(id)s「%(title)s」：取消（奖励 %(reward)s 信用点），之后不能再被接取") % {
        "id": bounty.pk, "title": bounty.title, "reward": bounty.reward,
    }


@admin.register(Bounty)
class BountyAdmin(admin.ModelAdmin):
    form = BountyAdminForm
    list_display = ["id", "title", "reward", "status", "claimed_by", "created_at", "claimed_at", "completed_at"]
    list_display_links = ["id", "title"]
    list_filter = ["status", "created_at"]
    search_fields = ["title", "description", "claimed_by__name"]
    list_select_related = ["claimed_by"]
    date_hierarchy = "created_at"
    actions = ["cancel_selected", "complete_selected"]
    state_fields = ["status", "claimed_by", "created_by", "created_at", "claimed_at", "completed_at", "cancelled_at"]

    def get_fields(self, request, obj=None):
        return ["title", "description", "reward"] + (self.state_fields if obj else [])

    def get_readonly_fields(self, request, obj=None):
        # State changes go through the services (actions below); only the wording stays editable.
        return ["reward", *self.state_fields] if obj else []

    def has_delete_permission(self, request, obj=None):
        return False  # cancel instead: claimed and completed bounties are the agents' history

    def save_model(self, request, obj, form, change):
        if change:
            super().save_model(request, obj, form, change)
            return
        created = services.create_bounty(
            title=obj.title, description=obj.description, reward=obj.reward, created_by=request.user
        )
        obj.pk, obj.created_at = created.pk, created.created_at

    @admin.action(description=_("取消所选的开放悬赏"), permissions=["change"])
    def cancel_selected(self, request, queryset):
        if page := ask_first(self, request, queryset, cancel_consequence):
            return page
        self._apply(request, queryset, lambda bounty: services.cancel_bounty(bounty_id=bounty.pk))

    @admin.action(description=_("完成所选的进行中悬赏（向接取者支付奖励）"), permissions=["change"])
    def complete_selected(self, request, queryset):
        if page := ask_first(self, request, queryset.select_related("claimed_by"), complete_consequence):
            return page
        self._apply(
            request,
            queryset,
            lambda bounty: services.complete_bounty(agent_id=bounty.claimed_by_id, bounty_id=bounty.pk),
        )

    def _apply(self, request, queryset, operation) -> None:
        done, failures = 0, []
        for bounty in queryset.order_by("id"):
            try:
                operation(bounty)  # its own transaction: a refusal undoes only this bounty
                done += 1
            except ApplicationError as exc:
                failures.append(f"#{bounty.pk}: {exc.message}")
        if done:
            self.message_user(
                request, ngettext("%(n)d 个悬赏已处理", "%(n)d 个悬赏已处理", done) % {"n": done}, messages.SUCCESS
            )
        if failures:
            self.message_user(request, "; ".join(failures), messages.WARNING)
