from django import forms
from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from core.admin import ask_first
from core.errors import ApplicationError

from . import services
from .models import Fund


class FundAdminForm(forms.ModelForm):
    # The version the staff member read when the form opened: the update is based on it.
    version_read = forms.IntegerField(widget=forms.HiddenInput, required=False)

    class Meta:
        model = Fund
        fields = ["fund_name", "remarks"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["version_read"].initial = self.instance.version

    def clean(self):
        cleaned = super().clean()
        draft_errors = services.validate_fund_draft(
            fund_name=self.data.get("fund_name", ""), remarks=self.data.get("remarks", ""), fund_id=self.instance.pk
        )
        for field, problems in draft_errors.items():
            for problem in problems:
                self.add_error(field if field in self.fields else None, problem)
        if self.instance.pk and not draft_errors:
            try:
                services.check_fund_version(fund_id=self.instance.pk, version=cleaned.get("version_read") or 0)
            except ApplicationError as exc:
                self.add_error(None, exc.message)
        return cleaned

    def _post_clean(self):
        # The service owns the rules (the unique name included): build the instance, skip model validation.
        self.instance = forms.models.construct_instance(self, self.instance, self._meta.fields, self._meta.exclude)


def disable_consequence(fund: Fund) -> str:
    if not fund.is_enabled:
        return _("「%(name)s」（#%(id)s）：已经停用，不变") % {"name": fund.fund_name, "id": fund.pk}
    return _("「%(name)s」（#%(id)s）：停用") % {"name": fund.fund_name, "id": fund.pk}


@admin.register(Fund)
class FundAdmin(admin.ModelAdmin):
    form = FundAdminForm
    list_display = ["id", "fund_name", "active_status", "remarks", "version", "updated_at", "updated_by"]
    list_display_links = ["id", "fund_name"]
    list_filter = ["active_status", "updated_at"]
    search_fields = ["fund_name", "remarks"]
    list_select_related = ["updated_by"]
    actions = ["enable_selected", "disable_selected"]
    state_fields = ["active_status", "version", "created_at", "created_by", "updated_at", "updated_by"]

    def get_fields(self, request, obj=None):
        return ["fund_name", "remarks", "version_read", *(self.state_fields if obj else [])]

    def get_readonly_fields(self, request, obj=None):
        return self.state_fields if obj else []

    def has_delete_permission(self, request, obj=None):
        return False  # disabling is the soft delete

    def save_model(self, request, obj, form, change):
        name, remarks = form.cleaned_data["fund_name"], form.cleaned_data.get("remarks") or ""
        if not change:
            saved = services.create_fund(fund_name=name, remarks=remarks, user=request.user)
        elif form.has_changed():
            try:
                saved = services.update_fund(
                    fund_id=obj.pk, version=form.cleaned_data["version_read"], fund_name=name, remarks=remarks, user=request.user
                )
            except ApplicationError as exc:  # lost a race since the form was checked
                self.message_user(request, exc.message, messages.ERROR)
                return
        else:
            return
        obj.pk, obj.version = saved.pk, saved.version

    @admin.action(description=_("启用所选基金"), permissions=["change"])
    def enable_selected(self, request, queryset):
        self._apply(request, queryset, services.enable_fund)

    @admin.action(description=_("停用所选基金"), permissions=["change"])
    def disable_selected(self, request, queryset):
        if page := ask_first(self, request, queryset, disable_consequence):
            return page
        self._apply(request, queryset, services.disable_fund)

    def _apply(self, request, queryset, operation) -> None:
        done, failures = 0, []
        for fund in queryset.order_by("id"):
            try:
                operation(fund_id=fund.pk, version=fund.version, user=request.user)
                done += 1
            except ApplicationError as exc:
                failures.append(f"{fund.fund_name}: {exc.message}")
        if done:
            self.message_user(request, ngettext("%(n)d 个基金已更新", "%(n)d 个基金已更新", done) % {"n": done}, messages.SUCCESS)
        for failure in failures:
            self.message_user(request, failure, messages.WARNING)
