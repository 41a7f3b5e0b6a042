"""Write the tool registry into the ``Tool`` table (at migrate time and on demand)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils import timezone

from .registry import ToolRegistry, ToolSpec, localized_schema
from .registry import registry as default_registry


@dataclass
class SyncReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        return [
            f"{label}: {len(names)}" + (f" ({', '.join(names)})" if names else "")
            for label, names in (
                ("created", self.created),
                ("updated", self.updated),
                ("unchanged", self.unchanged),
                ("retired", self.retired),
            )
        ]


def stored_schema(spec: ToolSpec) -> dict:
    """The schema as the table and the API have always shown it: descriptions in Chinese, each
    with its English rendering beside it as ``x-description-en`` when the catalogue has one."""
    chinese = localized_schema(spec.input_schema, "zh-hans")
    english = localized_schema(spec.input_schema, "en")

    def merge(node, other):
        if isinstance(node, dict):
            out = {key: merge(value, other.get(key)) for key, value in node.items()}
            if isinstance(node.get("description"), str) and other.get("description") != node["description"]:
                out["x-description-en"] = other["description"]
            return out
        if isinstance(node, list):
            return [merge(value, theirs) for value, theirs in zip(node, other, strict=True)]
        return node

    return merge(chinese, english)


def sync_tools(tool_model=None, registry: ToolRegistry = default_registry, using: str = "default") -> SyncReport:
    """Idempotent: create new tools, update changed ones, retire (never delete) vanished ones.

    A ``requires_confirmation`` that staff set in the admin is never overridden.
    """
    if tool_model is None:
        from .models import Tool as tool_model
    report = SyncReport()
    now = timezone.now()
    existing = {row.name: row for row in tool_model.objects.using(using).all()}
    for spec in registry.all():
        chinese, english = spec.describe("zh-hans"), spec.describe("en")
        wanted = {
            "description_zh": chinese,
            "description_en": english if english != chinese else "",
            "input_schema": stored_schema(spec),
            "category": spec.category,
            "source": spec.source,
            "is_active": True,
        }
        row = existing.get(spec.name)
        if row is None:
            tool_model.objects.using(using).create(
                name=spec.name, requires_confirmation=spec.requires_confirmation, synced_at=now, **wanted
            )
            report.created.append(spec.name)
            continue
        if not row.confirmation_set_by_staff:
            wanted["requires_confirmation"] = spec.requires_confirmation
        changed = {key: value for key, value in wanted.items() if getattr(row, key) != value}
        if changed:
            for key, value in changed.items():
                setattr(row, key, value)
            row.synced_at = now
            row.save(using=using, update_fields=[*changed, "synced_at"])
            report.updated.append(spec.name)
        else:
            report.unchanged.append(spec.name)
    for name, row in sorted(existing.items()):
        if registry.get(name) is None and row.is_active:
            row.is_active = False
            row.synced_at = now
            row.save(using=using, update_fields=["is_active", "synced_at"])
            report.retired.append(name)
    return report
