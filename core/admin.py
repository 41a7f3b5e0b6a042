from axes import admin as axes_admin
from axes.models import AccessAttempt
from django.contrib import admin
from django.contrib.auth import get_permission_codename

from .models import EventLog


class ReadOnlyAdmin(admin.ModelAdmin):
    """Audit trails: visible to staff, never edited or deleted by hand."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_act_permission(self, request) -> bool:
        """Actions that go through a service (cancel an order, mark read) need the model's change permission."""
        return request.user.has_perm(f"{self.opts.app_label}.{get_permission_codename('change', self.opts)}")


@admin.register(EventLog)
class EventLogAdmin(ReadOnlyAdmin):
    list_display = ["seq", "event", "created_at"]
    list_filter = ["event"]
    search_fields = ["event", "data"]


if admin.site.is_registered(AccessAttempt):  # django-axes registers it before core (INSTALLED_APPS order)
    admin.site.unregister(AccessAttempt)

    @admin.register(AccessAttempt)
    class AccessAttemptAdmin(axes_admin.AccessAttemptAdmin):
        """django-axes' own action declares no permission: clearing sign-in attempts needs their delete permission."""

        @admin.action(description=axes_admin.AccessAttemptAdmin.cleanup_expired_attempts.short_description, permissions=["delete"])
        def cleanup_expired_attempts(self, request, queryset):
            return super().cleanup_expired_attempts(request, queryset)
