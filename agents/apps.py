from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.module_loading import autodiscover_modules
from django.utils.translation import gettext_lazy as _


def sync_tools_after_migrate(sender, app_config=None, verbosity=1, using="default", apps=None, stdout=None, **kwargs):
    from .sync import sync_tools

    if apps is None:  # `flush` (after a transactional test) sends post_migrate without the apps registry
        from django.apps import apps
    try:
        tool_model = apps.get_model("agents", "Tool")
    except LookupError:
        return  # migrating backwards, before the Tool table exists
    report = sync_tools(tool_model, using=using)
    if verbosity >= 1:
        import sys

        out = stdout or sys.stdout
        out.write("Syncing tools: " + "; ".join(report.lines()) + "\n")


class AgentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "agents"
    verbose_name = _("智能体")

    def ready(self):
        from core.events import declare_events

        from . import checks  # noqa: F401  (registers the system check)
        from . import grants
        from .registry import registry

        autodiscover_modules("tools", register_to=registry)
        autodiscover_modules("intents")
        autodiscover_modules("autonomy")  # the tick's world (agents.autonomy.sources.register_world)
        declare_events(
            agent_action="agents.view_agentactionlog",
            pending_action="agents.view_pendingaction",
            agent_tools_changed="agents.view_agent",
        )
        grants.connect()
        post_migrate.connect(sync_tools_after_migrate, sender=self, dispatch_uid="agents.sync_tools")
