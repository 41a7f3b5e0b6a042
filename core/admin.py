from collections.abc import Callable

from axes import admin as axes_admin
from axes.models import AccessAttempt
from django.contrib import admin
from django.contrib.admin import helpers
from django.contrib.auth import get_permission_codename
from django.db.models import Model, QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse

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


def ask_first(
    model_admin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet, consequence: Callable[[Model], str]
) -> TemplateResponse | None:
    """Django's delete pattern for an action that changes things for good (pay, cancel, disable).

    The first post answers a page that says what will happen to each selected object, in its
    words and amounts (``consequence``); only that page's "Yes" (``post=yes``) lets the action
    run, which is when this returns None.
    """
    if request.POST.get("post") == "yes":
        return None
    action = request.POST["action"]
    objects = list(queryset.order_by("pk"))
    context = {
        **model_admin.admin_site.each_context(request),
        "title": model_admin.get_action(action)[2],
        "opts": model_admin.model._meta,
        "rows": [(obj, consequence(obj)) for obj in objects],
        "objects": objects,
        "action": action,
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        "select_across": request.POST.get("select_across", "0"),
    }
    return TemplateResponse(request, "admin/confirm_action.html", context)


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
