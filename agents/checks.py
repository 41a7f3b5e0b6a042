from django.core import checks

from .registry import registry


@checks.register()
def check_tool_schemas(app_configs, **kwargs):
    """A tool whose signature cannot become a JSON Schema is an error at start-up."""
    return [
        checks.Error(f"tool {name!r} cannot be registered: {reason}", id="agents.E001")
        for name, reason in sorted(registry.broken.items())
    ]
