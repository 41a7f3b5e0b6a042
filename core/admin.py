from django.contrib import admin

from .models import EventLog


class ReadOnlyAdmin(admin.ModelAdmin):
    """Audit trails: visible to staff, never edited or deleted by hand."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(EventLog)
class EventLogAdmin(ReadOnlyAdmin):
    list_display = ["seq", "event", "created_at"]
    list_filter = ["event"]
    search_fields = ["event", "data"]
