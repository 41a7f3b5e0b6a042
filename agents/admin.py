from django.contrib import admin, messages
from django.shortcuts import redirect
from django.urls import path
from django.utils.decorators import method_decorator
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from core.admin import ReadOnlyAdmin
from core.errors import ApplicationError

from .autonomy.tick import RUN_AUTONOMY_PERMISSION, run_tick
from .confirmations import (
    DECIDE_PERMISSION,
    confirm_pending_action,
    may_decide,
    outcome_message,
    readable_tool_names,
    reject_pending_action,
    visible_pending_actions,
)
from .models import (
    Agent,
    AgentActionLog,
    AutonomyRound,
    Conversation,
    Message,
    PendingAction,
    Tool,
    ToolCall,
)
from .selectors import pending_action_review
from .sync import sync_tools


@admin.register(Agent)
class AgentAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "credits", "satiety", "energy", "is_active", "model"]
    list_filter = ["kind", "is_active"]
    search_fields = ["name", "persona"]
    filter_horizontal = ["tools"]
    actions = ["run_autonomy_tick"]

    def has_run_autonomy_permission(self, request) -> bool:
        return request.user.has_perm(RUN_AUTONOMY_PERMISSION)

    @admin.action(description=_("为所选居民运行一次自主回合"), permissions=["run_autonomy"])
    def run_autonomy_tick(self, request, queryset):
        result = run_tick(agent_ids=list(queryset.values_list("pk", flat=True)))
        if not result.stats["agents"]:
            self.message_user(request, _("所选居民都没有被授予自主行为（或已停用），未运行。"), messages.WARNING)
            return
        level = messages.WARNING if result.stats["failed_batches"] else messages.SUCCESS
        self.message_user(request, result.line(), level)


@admin.register(Tool)
class ToolAdmin(admin.ModelAdmin):
    list_display = ["name", "category", "requires_confirmation", "is_active", "source", "synced_at"]
    list_filter = ["is_active", "category", "requires_confirmation"]
    search_fields = ["name", "description_zh", "description_en", "source"]
    readonly_fields = [
        "name", "description_zh", "description_en", "input_schema", "category", "source",
        "is_active", "synced_at", "created_at", "confirmation_set_by_staff",
    ]
    fields = [*readonly_fields[:3], "requires_confirmation", *readonly_fields[3:]]
    actions = ["sync_now"]

    def has_add_permission(self, request):
        return False  # tools come from code, through the sync

    def has_delete_permission(self, request, obj=None):
        return False  # audit rows point at tools; a vanished tool is retired instead

    def save_model(self, request, obj, form, change):
        if "requires_confirmation" in form.changed_data:
            obj.confirmation_set_by_staff = True
        super().save_model(request, obj, form, change)

    @admin.action(description=_("立即同步工具"), permissions=["change"])
    def sync_now(self, request, queryset):
        report = sync_tools()
        self.message_user(request, "; ".join(report.lines()), messages.SUCCESS)


@admin.register(ToolCall)
class ToolCallAdmin(ReadOnlyAdmin):
    """Every call is listed; its arguments and result only to who may read its tool's domain
    (``confirmations.readable_tool_names``, the rule of ``GET /api/tool-calls/``)."""

    list_display = ["created_at", "agent", "tool_name", "status", "error_code", "source", "duration_ms"]
    list_filter = ["status", "source", "tool_name", "agent"]
    search_fields = ["tool_name", "error_code"]
    readonly_fields = ["withheld"]
    date_hierarchy = "created_at"
    list_select_related = ["agent"]
    CONTENTS = ("arguments", "result")

    def get_search_fields(self, request):
        # Searching the arguments would tell which calls hold a word, whatever their domain.
        if readable_tool_names(request.user) is None:
            return [*self.search_fields, "arguments"]
        return self.search_fields

    def get_fields(self, request, obj=None):
        fields = [name for name in super().get_fields(request, obj) if name != "withheld"]
        readable = readable_tool_names(request.user)
        if obj is not None and readable is not None and obj.tool_name not in readable:
            return [*(name for name in fields if name not in self.CONTENTS), "withheld"]
        return fields

    @admin.display(description=_("参数与结果"))
    def withheld(self, obj):
        return _("仅对能查看该领域的人显示")


class MessageInline(admin.TabularInline):
    model = Message
    fields = ["created_at", "role", "content", "tool_calls", "name", "tool_call_id"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Conversation)
class ConversationAdmin(ReadOnlyAdmin):
    list_display = ["id", "agent", "user", "mode", "created_at", "updated_at"]
    list_filter = ["mode", "agent"]
    search_fields = ["messages__content", "agent__name"]
    inlines = [MessageInline]

    def get_queryset(self, request):
        """A conversation is its starter's: others find no such object (superusers read every one)."""
        return super().get_queryset(request).readable_by(request.user)


class ShownStatusFilter(admin.SimpleListFilter):
    """Filters by the status the list shows, so an overdue proposal is found under expired."""

    title = _("状态")
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return PendingAction.Status.choices

    def queryset(self, request, queryset):
        return queryset.shown_as(self.value()) if self.value() else queryset


@admin.register(PendingAction)
class PendingActionAdmin(ReadOnlyAdmin):
    """Proposals are decided here (actions), never edited: confirming runs the tool as the admin user."""

    list_display = [
        "id", "tool_name", "agent", "shown_status", "mode", "summary", "requested_by", "decided_by", "created_at", "expires_at"
    ]
    list_filter = [ShownStatusFilter, "mode", "tool_name"]
    search_fields = ["tool_name", "summary", "arguments"]
    list_select_related = ["agent", "requested_by", "decided_by"]
    readonly_fields = ["proposal_review"]
    actions = ["confirm_selected", "reject_selected"]
    change_form_template = "admin/agents/pendingaction/change_form.html"

    def get_urls(self):
        decide = self.admin_site.admin_view(self.decide_view)
        return [path("<path:object_id>/decide/", decide, name="agents_pendingaction_decide"), *super().get_urls()]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        action = self.get_object(request, object_id)
        decidable = (
            action is not None and action.effective_status == PendingAction.Status.PENDING and may_decide(request.user, action)
        )
        return super().change_view(request, object_id, form_url, {**(extra_context or {}), "decidable": decidable})

    def get_queryset(self, request):
        """Only the proposals the user may decide or whose domain they may view (changelist and pages)."""
        return visible_pending_actions(request.user, super().get_queryset(request))

    def has_decide_permission(self, request) -> bool:
        return request.user.has_perm(DECIDE_PERMISSION)

    @method_decorator(require_POST)
    def decide_view(self, request, object_id):
        """The Confirm / Reject buttons of one proposal's page."""
        action = self.get_object(request, object_id)
        if action is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        decide = confirm_pending_action if request.POST.get("decide") == "confirm" else reject_pending_action
        self._decide(request, [action], lambda one: decide(action_id=one.pk, user=request.user))
        return redirect("admin:agents_pendingaction_change", action.pk)

    @admin.display(description=_("状态"), ordering="status")
    def shown_status(self, obj: PendingAction) -> str:
        return obj.effective_status.label

    @admin.display(description=_("提议值与当前值"))
    def proposal_review(self, obj: PendingAction):
        review = pending_action_review(obj)
        rows = format_html_join(
            "",
            "<tr><th>{}</th><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (row["label"], row["proposed_display"], row["current_display"], "≠" if row["changed"] else "")
                for row in review["rows"]
            ),
        )
        table = format_html(
            "<table><thead><tr><th>{}</th><th>{}</th><th>{}</th><th></th></tr></thead><tbody>{}</tbody></table>",
            _("字段"), _("提议"), _("当前"), rows,
        )
        notes = []
        if review["version_read"] is not None:
            notes.append(
                _("读取时版本 %(read)s，当前版本 %(now)s")
                % {"read": review["version_read"], "now": review["current_version"] if review["current_version"] is not None else "—"}
            )
        if review["stale"]:
            notes.append(_("数据已被修改：确认将以版本冲突失败，不会覆盖"))
        if review["problem"]:
            notes.append(review["problem"])
        return format_html("{}{}", table, format_html_join("", "<p>{}</p>", ((note,) for note in notes)))

    @admin.action(description=_("确认并执行所选的待确认操作"), permissions=["decide"])
    def confirm_selected(self, request, queryset):
        self._decide(request, queryset.order_by("id"), lambda action: confirm_pending_action(action_id=action.pk, user=request.user))

    @admin.action(description=_("拒绝所选的待确认操作"), permissions=["decide"])
    def reject_selected(self, request, queryset):
        self._decide(request, queryset.order_by("id"), lambda action: reject_pending_action(action_id=action.pk, user=request.user))

    def _decide(self, request, actions, decide) -> None:
        for action in actions:
            try:
                decided = decide(action)
            except ApplicationError as exc:
                self.message_user(request, f"#{action.pk}: {getattr(exc, 'message', exc)}", messages.WARNING)
                continue
            level = messages.ERROR if decided.status == PendingAction.Status.FAILED else messages.SUCCESS
            self.message_user(request, f"#{action.pk}: {outcome_message(decided)}", level)


class AgentActionLogInline(admin.TabularInline):
    model = AgentActionLog
    fields = ["agent", "action", "params", "reason", "status", "message", "error_code"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(AutonomyRound)
class AutonomyRoundAdmin(ReadOnlyAdmin):
    list_display = ["id", "started_at", "finished_at", "provider", "model", "agent_count", "summary"]
    list_filter = ["provider"]
    date_hierarchy = "started_at"
    inlines = [AgentActionLogInline]

    @admin.display(description=_("结果"))
    def summary(self, round_):
        stats = round_.stats or {}
        return _("成功 %(success)s / 失败 %(failed)s / 待确认 %(pending)s") % {
            "success": stats.get("success", 0), "failed": stats.get("failed", 0), "pending": stats.get("pending", 0),
        }


@admin.register(AgentActionLog)
class AgentActionLogAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "round", "agent", "action", "status", "error_code", "reason"]
    list_filter = ["status", "action", "error_code"]
    search_fields = ["agent__name", "reason", "message"]
    list_select_related = ["agent", "round"]
