import json

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from agents.evaluation import as_json, evaluate, scenarios


class Command(BaseCommand):
    help = (
        "Score the configured model on the product's stories (zh and en), each in a throwaway copy of the demo "
        "database, by the tool calls made and the database state left. Exits non-zero unless all pass."
    )

    def add_arguments(self, parser):
        parser.add_argument("--json", dest="json_file", default=None, help="also write the report to this file")
        parser.add_argument("--only", default="", help="run only the scenarios whose name contains this text")

    def handle(self, *args, json_file, only, **options):
        chosen = [s for s in scenarios() if only.lower() in s.name.lower()]
        if not chosen:
            raise CommandError(f"no scenario matches {only!r}")
        model = "rules" if settings.AGENT_PROVIDER == "rules" else f"{settings.AGENT_MODEL} at {settings.OPENAI_BASE_URL or 'api.openai.com'}"
        self.stdout.write(f"provider {settings.AGENT_PROVIDER}: {model}")
        outcomes = evaluate(chosen)
        width = max(len(o.scenario) for o in outcomes)
        self.stdout.write(f"{'scenario':<{width}}  result  {'tokens':>6}  {'latency':>8}  tool calls")
        for o in outcomes:
            self.stdout.write(
                f"{o.scenario:<{width}}  {'pass' if o.passed else 'FAIL':<6}  {o.tokens:>6}  {o.latency_s:>7.2f}s  "
                f"{', '.join(o.tool_calls) or '-'}"
            )
            for problem in o.problems:
                self.stdout.write(f"{'':<{width}}    ↳ {problem}")
            for problem in o.wrong_arguments:
                self.stdout.write(f"{'':<{width}}    ↳ wrong argument: {problem}")
        report = as_json(outcomes)
        if json_file:
            with open(json_file, "w", encoding="utf-8") as file:
                json.dump({"provider": settings.AGENT_PROVIDER, "model": model, **report}, file, ensure_ascii=False, indent=1)
        summary = f"{report['passed']}/{report['total']} scenarios passed"
        self.stdout.write(f"{report['wrong_argument_writes']} wrong-argument writes")
        if report["passed"] != report["total"]:
            raise CommandError(summary)
        self.stdout.write(summary)
