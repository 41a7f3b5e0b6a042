import json

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.test.utils import override_settings

from agents.evaluation import ACTION, NO_ACTION, as_json, demo_template, evaluate, scenarios, spread, summary


def describe_model() -> str:
    if settings.AGENT_PROVIDER in ("rules", "none"):
        return settings.AGENT_PROVIDER
    return f"{settings.AGENT_MODEL} at {settings.OPENAI_BASE_URL or 'api.openai.com'}"


class Command(BaseCommand):
    help = (
        "Score the configured model on the product's stories (zh and en), each in a throwaway copy of the demo "
        "database, by the tool calls made (with their arguments) and the database state left; every scenario is "
        "kind action or no_action, and the 'none' baseline (a model that never calls a tool) is scored beside it. "
        "Temperature 0 unless --temperature. Exits non-zero unless all pass."
    )

    def add_arguments(self, parser):
        parser.add_argument("--json", dest="json_file", default=None, help="also write the report to this file")
        parser.add_argument("--only", default="", help="run only the scenarios whose name contains this text")
        parser.add_argument("--provider", choices=("rules", "openai", "none"), default=None,
                            help="score this provider instead of AGENT_PROVIDER ('none' never calls a tool)")
        parser.add_argument("--temperature", type=float, default=0.0, help="AGENT_TEMPERATURE for the run (default 0)")
        parser.add_argument("--repeat", type=int, default=1, help="run every scenario N times and report the spread")
        parser.add_argument("--compare", nargs=2, metavar=("URL_A", "URL_B"), default=None,
                            help="score two OpenAI-compatible endpoints (model AGENT_MODEL) side by side")
        parser.add_argument("--no-baseline", action="store_true", help="skip the 'none' baseline row")

    def handle(self, *args, json_file, only, provider, temperature, repeat, compare, no_baseline, **options):
        chosen = [s for s in scenarios() if only.lower() in s.name.lower()]
        if not chosen:
            raise CommandError(f"no scenario matches {only!r}")
        if repeat < 1:
            raise CommandError("--repeat must be at least 1")
        if temperature < 0:
            raise CommandError("--temperature must not be negative")
        kinds = {s.name: s.kind for s in chosen}
        targets = (
            [{"AGENT_PROVIDER": "openai", "OPENAI_BASE_URL": url} for url in compare] if compare
            else [{"AGENT_PROVIDER": provider or settings.AGENT_PROVIDER}]
        )
        with demo_template() as template:
            results = []
            for target in targets:
                with override_settings(**target, AGENT_TEMPERATURE=temperature):
                    name = describe_model()
                    self.stdout.write(f"provider {settings.AGENT_PROVIDER}: {name}, temperature {temperature:g}")
                    runs = [evaluate(chosen, template=template) for _ in range(repeat)]
                results.append((name, runs))
            baseline = None
            if not no_baseline and not (len(targets) == 1 and targets[0]["AGENT_PROVIDER"] == "none"):
                with override_settings(AGENT_PROVIDER="none"):
                    baseline = evaluate(chosen, template=template)
        if compare:
            self._side_by_side(results, kinds)
        else:
            self._table(results[0][1], kinds)
        rows = [(name, runs[-1]) for name, runs in results] + ([("none (baseline)", baseline)] if baseline else [])
        self._summary(rows)
        for name, runs in results:
            if repeat > 1:
                s = spread(runs)
                self.stdout.write(
                    f"{name}: {s['runs']} runs passed {s['passed']} (min {s['min']}, max {s['max']}, mean {s['mean']}); "
                    f"flipped: {', '.join(s['flipped']) or 'none'}"
                )
        if json_file:
            name, runs = results[0]
            report = {
                "provider": targets[0]["AGENT_PROVIDER"], "model": name, "temperature": temperature, **as_json(runs[-1]),
                "spread": spread(runs) if repeat > 1 else None,
                "compare": [{"model": n, **as_json(r[-1])} for n, r in results] if compare else None,
                "baseline": as_json(baseline) if baseline else None,
            }
            with open(json_file, "w", encoding="utf-8") as file:
                json.dump(report, file, ensure_ascii=False, indent=1)
        failed = [name for name, runs in results if any(summary(run)["passed"] != len(run) for run in runs)]
        line = "; ".join(f"{name}: {summary(runs[-1])['passed']}/{len(runs[-1])} scenarios passed" for name, runs in results)
        if failed:
            raise CommandError(line)
        self.stdout.write(line)

    def _table(self, runs, kinds) -> None:
        last = runs[-1]
        width = max(len(o.scenario) for o in last)
        self.stdout.write(f"{'scenario':<{width}}  {'kind':<9}  result  {'tokens':>6}  {'latency':>8}  tool calls")
        for index, o in enumerate(last):
            result = "pass" if o.passed else "FAIL"
            if len(runs) > 1:
                result = f"{sum(run[index].passed for run in runs)}/{len(runs)}"
            self.stdout.write(
                f"{o.scenario:<{width}}  {o.kind:<9}  {result:<6}  {o.tokens:>6}  {o.latency_s:>7.2f}s  "
                f"{', '.join(o.tool_calls) or '-'}"
            )
            for problem in o.problems:
                self.stdout.write(f"{'':<{width}}    ↳ {problem}")

    def _side_by_side(self, results, kinds) -> None:
        (name_a, runs_a), (name_b, runs_b) = results
        width = max(len(name) for name in kinds)
        self.stdout.write(f"A = {name_a}\nB = {name_b}")
        self.stdout.write(f"{'scenario':<{width}}  {'kind':<9}  {'A':<6}  B")
        for a, b in zip(runs_a[-1], runs_b[-1], strict=True):
            self.stdout.write(f"{a.scenario:<{width}}  {a.kind:<9}  {'pass' if a.passed else 'FAIL':<6}  {'pass' if b.passed else 'FAIL'}")

    def _summary(self, rows) -> None:
        width = max(len(name) for name, _ in rows)
        self.stdout.write(f"{'':<{width}}  {ACTION:>9}  {NO_ACTION:>9}  wrong-argument writes  unrequested writes")
        for name, outcomes in rows:
            s = summary(outcomes)
            action, no_action = s["by_kind"][ACTION], s["by_kind"][NO_ACTION]
            self.stdout.write(
                f"{name:<{width}}  {action['passed']:>4}/{action['total']:<4}  {no_action['passed']:>4}/{no_action['total']:<4}  "
                f"{s['wrong_argument_writes']:>21}  {s['unrequested_writes']:>18}"
            )
