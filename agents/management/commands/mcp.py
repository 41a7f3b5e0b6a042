from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils import translation

from agents.mcp.access import agent_for
from agents.mcp.server import Caller, serve_stdio
from agents.selectors import agents_by_keys
from core.errors import ApplicationError


class Command(BaseCommand):
    help = (
        "Serve an agent's granted tools to a local MCP client over stdin/stdout: "
        "`mcp --agent <id|name> --user <staff username>`. Calls act as that staff member."
    )

    def add_arguments(self, parser):
        parser.add_argument("--agent", required=True, help="agent id or name")
        parser.add_argument("--user", required=True, help="staff username holding agents.chat_agent")
        parser.add_argument(
            "--language", default=settings.LANGUAGE_CODE, choices=[code for code, _name in settings.LANGUAGES],
            help="language of tool descriptions and messages",
        )

    def handle(self, *args, agent: str, user: str, language: str, **options):
        staff = get_user_model().objects.filter(username=user).first()
        if staff is None:
            raise CommandError(f"no user named {user!r}")
        try:
            with translation.override(language):
                [found] = agents_by_keys([agent])
                caller = Caller(agent=agent_for(user=staff, agent_id=found.pk), user=staff, language=language)
        except ApplicationError as exc:
            raise CommandError(f"{exc.code}: {exc.message}") from exc
        serve_stdio(caller)
