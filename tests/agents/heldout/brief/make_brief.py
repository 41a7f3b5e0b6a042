"""Write the folder a blind writer of a held-out file reads, and nothing else: the tools, the demo data, the case
format and a validator (never parser code, never another case file).

    .venv/bin/python tests/agents/heldout/brief/make_brief.py /work/brief41 zt

The demo data is seeded into a throw-away SQLite file, as ``seed_demo`` creates it; ``zt`` is the new file's id prefix.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
SKIPPED = {"toolcall", "conversation", "message", "pendingaction", "event", "outbox"}


def main(out: Path, prefix: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    database = Path(tempfile.mkdtemp()) / "brief.sqlite3"
    os.environ["DATABASE_URL"] = f"sqlite:///{database}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("seed_demo", verbosity=0)
    (out / "tools.md").write_text(tools_md())
    (out / "demo_data.md").write_text(demo_md())
    for name in ("format.md", "validate.py"):
        (out / name).write_text((HERE / name).read_text().replace("{{PREFIX}}", prefix))
    print(f"Wrote {out}: tools.md, demo_data.md, format.md, validate.py (ids {prefix}-…)")


def tools_md() -> str:
    from agents.registry import registry

    lines = [
        "# The tools\n",
        "Each tool: name, category (query = reads, action = writes), whether a staff member must confirm it, "
        "its description in zh and en, and its parameters (JSON Schema).\n",
    ]
    for spec in sorted(registry.all(), key=lambda s: s.name):
        lines += [
            f"## {spec.name}\n",
            f"- category: {spec.category}; requires staff confirmation: {spec.requires_confirmation}",
            f"- zh: {spec.describe('zh-hans')}",
            f"- en: {spec.describe('en')}",
        ]
        for language in ("zh-hans", "en"):
            schema = spec.openai_schema(language)["function"]["parameters"]
            lines.append(f"- parameters ({language}):\n\n```json\n{json.dumps(schema, ensure_ascii=False, indent=1, default=str)}\n```\n")
    return "\n".join(lines)


def demo_md() -> str:
    from django.apps import apps

    from agents.models import Agent

    lines = ["# The demo data, as `manage.py seed_demo` creates it\n", "## Agents and the tools granted to each\n"]
    for agent in Agent.objects.order_by("id"):
        tools = ", ".join(sorted(agent.tools.values_list("name", flat=True)))
        lines.append(
            f"- id {agent.id} **{agent.name}** (kind {agent.kind}; credits {agent.credits}, satiety {agent.satiety}, "
            f"energy {agent.energy}): {tools}"
        )
        if agent.persona:
            lines.append(f"  - persona: {agent.persona}")
    for label in ("city", "bounties", "funds", "orders"):
        for model in apps.get_app_config(label).get_models():
            rows = list(model.objects.all().values()[:60])
            if not rows or model._meta.model_name in SKIPPED:
                continue
            lines.append(f"\n## {label}.{model.__name__} ({model.objects.count()} rows)\n")
            for row in rows:
                row = {k: v for k, v in row.items() if k not in ("created_at", "updated_at") and v not in ("", None)}
                lines.append("- " + json.dumps(row, ensure_ascii=False, default=str))
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(Path(sys.argv[1]).resolve(), sys.argv[2])
