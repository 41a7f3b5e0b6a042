import json

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from agents.chat import run_chat
from agents.selectors import agents_by_keys
from core.errors import ApplicationError


class Command(BaseCommand):
    help = 'Chat with an agent: `chat AGENT "message" [--conversation N] [--user STAFF]`. Prints the tool calls and the reply.'

    def add_arguments(self, parser):
        parser.add_argument("agent", help="agent id or name")
        parser.add_argument("message")
        parser.add_argument("--conversation", type=int, default=None, help="continue this conversation")
        parser.add_argument(
            "--user", default=None, help="staff username to act as (needed to answer 确认/取消 to a proposal)"
        )

    def handle(self, *args, agent: str, message: str, conversation: int | None, user: str | None = None, **options):
        staff = None
        if user:
            staff = get_user_model().objects.filter(username=user, is_staff=True, is_active=True).first()
            if staff is None:
                raise CommandError(f"no active staff user named {user!r}")
        try:
            [found] = agents_by_keys([agent])
            result = run_chat(agent=found, message=message, conversation_id=conversation, user=staff)
        except ApplicationError as exc:  # a model failure too: the message stays in the conversation named
            kept = exc.extra.get("conversation_id")
            raise CommandError(f"{exc.code}: {exc.message}" + (f" [conversation {kept}]" if kept else "")) from exc
        for call in result.tool_calls:
            arguments = json.dumps(call["arguments"], ensure_ascii=False)
            outcome = json.dumps(call["result"], ensure_ascii=False)
            self.stdout.write(f"→ {call['name']}({arguments})\n  ← {outcome}")
        self.stdout.write(result.reply)
        self.stdout.write(self.style.HTTP_INFO(f"[conversation {result.conversation.pk}]"))
