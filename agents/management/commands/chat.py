import json

from django.core.management.base import BaseCommand, CommandError

from agents.chat import run_chat
from agents.errors import ApplicationError
from agents.selectors import agents_by_keys


class Command(BaseCommand):
    help = 'Chat with an agent: `chat AGENT "message" [--conversation N]`. Prints the tool calls and the reply.'

    def add_arguments(self, parser):
        parser.add_argument("agent", help="agent id or name")
        parser.add_argument("message")
        parser.add_argument("--conversation", type=int, default=None, help="continue this conversation")

    def handle(self, *args, agent: str, message: str, conversation: int | None, **options):
        try:
            [found] = agents_by_keys([agent])
            result = run_chat(agent=found, message=message, conversation_id=conversation)
        except ApplicationError as exc:
            raise CommandError(f"{exc.code}: {exc.message}") from exc
        for call in result.tool_calls:
            arguments = json.dumps(call["arguments"], ensure_ascii=False)
            outcome = json.dumps(call["result"], ensure_ascii=False)
            self.stdout.write(f"→ {call['name']}({arguments})\n  ← {outcome}")
        self.stdout.write(result.reply)
        self.stdout.write(self.style.HTTP_INFO(f"[conversation {result.conversation.pk}]"))
