from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _

from .models import Agent, Conversation, EventLog, Message, PendingAction, Tool, ToolCall
from .sync import sync_tools


class ReadOnlyAdmin(admin.ModelAdmin):
    """Audit trails: visible to staff, never edited or deleted by hand."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Agent)
class AgentAdmin(admin.ModelAdmin):
    list_display = ["name", "credits", "satiety", "energy", "is_active", "model"]
    list_filter = ["is_active"]
    search_fields = ["name", "persona"]
    filter_horizontal = ["tools"]


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

    @admin.action(description=_("立即同步工具"))
    def sync_now(self, request, queryset):
        report = sync_tools()
        self.message_user(request, "; ".join(report.lines()), messages.SUCCESS)


@admin.register(ToolCall)
class ToolCallAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "agent", "tool_name", "status", "error_code", "source", "duration_ms"]
    list_filter = ["status", "source", "tool_name", "agent"]
    search_fields = ["tool_name", "arguments", "error_code"]
    date_hierarchy = "created_at"
    list_select_related = ["agent"]


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


@admin.register(EventLog)
class EventLogAdmin(ReadOnlyAdmin):
    list_display = ["seq", "event", "created_at"]
    list_filter = ["event"]
    search_fields = ["event", "data"]


@admin.register(PendingAction)
class PendingActionAdmin(ReadOnlyAdmin):
    list_display = ["id", "tool_name", "agent", "status", "mode", "requested_by", "decided_by", "created_at", "expires_at"]
    list_filter = ["status", "mode", "tool_name"]
    search_fields = ["tool_name", "summary", "arguments"]
