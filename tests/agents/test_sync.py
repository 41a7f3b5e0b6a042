"""Registry → Tool table: created / updated / unchanged / retired, idempotent, staff choice kept."""

import io
from typing import Annotated

import pytest
from django.core.management import call_command
from django.utils.translation import gettext_lazy

from agents.models import Tool
from agents.registry import Param, ToolContext, ToolRegistry, tool
from agents.sync import sync_tools

pytestmark = pytest.mark.django_db


def make_registry(description="第一版", requires_confirmation=False) -> ToolRegistry:
    own = ToolRegistry()

    @tool(description=description, category="action",
          requires_confirmation=requires_confirmation, register_to=own)
    def stamp(ctx: ToolContext, n: int) -> dict:
        return {}

    return own


def test_first_sync_creates_then_reports_unchanged():
    own = make_registry()
    assert sync_tools(registry=own).created == ["stamp"]
    second = sync_tools(registry=own)
    assert second.unchanged == ["stamp"]
    assert (second.created, second.updated) == ([], [])
    row = Tool.objects.get(name="stamp")
    assert row.category == "action"
    assert row.input_schema["required"] == ["n"]
    assert row.source.endswith("make_registry.<locals>.stamp")


def test_changed_description_is_updated():
    sync_tools(registry=make_registry("第一版"))
    report = sync_tools(registry=make_registry("第二版"))
    assert report.updated == ["stamp"]
    assert Tool.objects.get(name="stamp").description_zh == "第二版"


def test_vanished_tool_is_retired_never_deleted():
    sync_tools(registry=make_registry())
    report = sync_tools(registry=ToolRegistry())
    assert "stamp" in report.retired
    assert Tool.objects.get(name="stamp").is_active is False
    assert "stamp" not in sync_tools(registry=ToolRegistry()).retired  # retired once


def test_returning_tool_is_reactivated():
    sync_tools(registry=make_registry())
    sync_tools(registry=ToolRegistry())
    assert sync_tools(registry=make_registry()).updated == ["stamp"]
    assert Tool.objects.get(name="stamp").is_active is True


def test_sync_never_overrides_a_staff_confirmation_choice():
    sync_tools(registry=make_registry(requires_confirmation=False))
    Tool.objects.filter(name="stamp").update(requires_confirmation=True, confirmation_set_by_staff=True)
    assert sync_tools(registry=make_registry(requires_confirmation=False)).unchanged == ["stamp"]
    assert Tool.objects.get(name="stamp").requires_confirmation is True


def test_decorator_default_applies_without_a_staff_choice():
    sync_tools(registry=make_registry(requires_confirmation=False))
    assert sync_tools(registry=make_registry(requires_confirmation=True)).updated == ["stamp"]
    assert Tool.objects.get(name="stamp").requires_confirmation is True


def test_migrate_syncs_and_is_idempotent():
    out = io.StringIO()
    call_command("migrate", verbosity=1, stdout=out)
    call_command("migrate", verbosity=1, stdout=out)
    lines = [line for line in out.getvalue().splitlines() if line.startswith("Syncing tools")]
    assert len(lines) == 2
    assert "created: 0" in lines[1] and "updated: 0" in lines[1] and "retired: 0" in lines[1]
    assert "get_my_status" in lines[1]


def test_sync_tools_command_prints_the_report():
    out = io.StringIO()
    call_command("sync_tools", stdout=out)
    text = out.getvalue()
    for label in ("created:", "updated:", "unchanged:", "retired:"):
        assert label in text
    assert Tool.objects.filter(name="get_my_status", is_active=True).exists()


def test_sync_writes_each_language_the_catalogue_renders():
    own = ToolRegistry()

    @tool(description=gettext_lazy("查看自己的状态：信用点、饱食度、精力"), register_to=own)
    def status(ctx: ToolContext, n: Annotated[int, Param(description=gettext_lazy("数量（正整数）"))]) -> dict:
        return {}

    sync_tools(registry=own)
    row = Tool.objects.get(name="status")
    assert (row.description_zh, row.description_en) == ("查看自己的状态：信用点、饱食度、精力", "Show my own status: credits, satiety and energy")
    assert row.input_schema["properties"]["n"] == {
        "type": "integer", "description": "数量（正整数）", "x-description-en": "quantity (a whole number ≥ 1)",
    }


def test_a_description_without_translation_leaves_the_english_column_empty():
    sync_tools(registry=make_registry("没有译文的描述"))
    row = Tool.objects.get(name="stamp")
    assert (row.description_zh, row.description_en) == ("没有译文的描述", "")
    assert row.input_schema["properties"]["n"] == {"type": "integer"}
