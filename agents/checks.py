import socket
from urllib.parse import urlsplit

from django.conf import settings
from django.core import checks

from .registry import registry

# Long enough for a server on this machine or the LAN, short enough not to slow every command.
CONNECT_TIMEOUT = 1.0


@checks.register()
def check_tool_schemas(app_configs, **kwargs):
    """A tool whose signature cannot become a JSON Schema is an error at start-up."""
    return [
        checks.Error(f"tool {name!r} cannot be registered: {reason}", id="agents.E001")
        for name, reason in sorted(registry.broken.items())
    ]


@checks.register()
def check_tool_permissions(app_configs, **kwargs):
    """A tool that names no permission would run for anyone who may chat: an error at start-up."""
    return [
        checks.Error(
            f"tool {spec.name!r} ({spec.source}) declares no permission",
            hint='name the Django permission a person needs for it: @tool(..., permission="app_label.view_model")',
            id="agents.E002",
        )
        for spec in registry.all()
        if not spec.permission
    ]


@checks.register()
def check_model_endpoint(app_configs, **kwargs):
    """A configured model endpoint that does not accept a connection is a warning, never an error:
    the site starts offline and chats then answer 503 with the reason."""
    url = settings.OPENAI_BASE_URL
    if not url or settings.AGENT_PROVIDER != "openai":
        return []
    parts = urlsplit(url)
    if not parts.hostname:
        return [checks.Warning(f"OPENAI_BASE_URL {url!r} names no host", id="agents.W002")]
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        socket.create_connection((parts.hostname, port), timeout=CONNECT_TIMEOUT).close()
    except OSError as exc:
        return [
            checks.Warning(
                f"the model endpoint OPENAI_BASE_URL={url} is unreachable ({exc.strerror or type(exc).__name__})",
                hint="start the model server, or fix OPENAI_BASE_URL; until then chats answer 503 model_unavailable",
                id="agents.W001",
            )
        ]
    return []
