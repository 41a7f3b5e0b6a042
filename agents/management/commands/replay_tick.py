import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from agents.autonomy.recording import replay
from agents.autonomy.sources import world_source
from agents.providers.openai_compatible import OpenAICompatibleProvider


class Command(BaseCommand):
    help = (
        "Send the batch prompts an `autonomy_tick --record DIR` stored to another OpenAI-compatible endpoint and "
        "print the decisions that differ from the recorded ones (nothing is executed)."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory", help="the directory given to autonomy_tick --record")
        parser.add_argument("--endpoint", required=True, help="base URL of the endpoint to replay against")
        parser.add_argument("--model", default=None, help="model name at the endpoint (default AGENT_MODEL)")
        parser.add_argument("--api-key", default=None, help="key for the endpoint (default OPENAI_API_KEY)")

    def handle(self, *args, directory, endpoint, model, api_key, **options):
        root = Path(directory)
        if not any(root.rglob("batch-*.json")):
            raise CommandError(f"no recorded batch under {root}")
        provider = OpenAICompatibleProvider(
            model=model or settings.AGENT_MODEL, api_key=api_key or settings.OPENAI_API_KEY, base_url=endpoint,
            timeout=settings.AGENT_MODEL_TIMEOUT, max_tokens=settings.AGENT_MAX_TOKENS,
            temperature=settings.AGENT_TEMPERATURE, seed=settings.AGENT_SEED,
        )
        compared, differences, unreadable = replay(root, provider, None, world_source().actions)
        for difference in differences:
            self.stdout.write(
                f"{difference.file} #{difference.agent_id}: {self._shown(difference.recorded)} → {self._shown(difference.replayed)}"
            )
        for line in unreadable:
            self.stderr.write(f"unreadable answer: {line}")
        self.stdout.write(f"{len(differences)} of {compared} decisions differ ({endpoint})")

    @staticmethod
    def _shown(decision: dict | None) -> str:
        if decision is None:
            return "(none)"
        return f"{decision['action']} {json.dumps(decision['params'], ensure_ascii=False)}"
