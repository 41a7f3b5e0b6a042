import importlib

from django.apps import apps
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import translation
from django.utils.module_loading import module_has_submodule

LANGUAGE_ALIASES = {"zh": "zh-hans", "cn": "zh-hans"}


class Command(BaseCommand):
    help = (
        "Load the demo data (city 长安, bounties, funds, orders, tool grants, a staff login), its names, "
        "personas (the agents' system prompts) and texts in --language. Idempotent: running it again changes "
        "nothing that exists, in either language: a demo row is found under its name in any language, so a run "
        "in the other language adds only what is missing and translates nothing (seed a fresh database to switch)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--language",
            default=settings.LANGUAGE_CODE,
            help=f"en or zh (zh-hans); default LANGUAGE_CODE ({settings.LANGUAGE_CODE})",
        )

    def handle(self, *args, language, **options):
        language = LANGUAGE_ALIASES.get(language.lower(), language.lower())
        if language not in dict(settings.LANGUAGES):
            raise CommandError(f"--language must be one of en, zh (got {language!r})")
        self.stdout.write(f"Language: {language}")
        # Every app contributes its own demo.py with seed(stdout), in INSTALLED_APPS order.
        with translation.override(language):
            for app_config in apps.get_app_configs():
                if not module_has_submodule(app_config.module, "demo"):
                    continue
                module = importlib.import_module(f"{app_config.name}.demo")
                self.stdout.write(f"Seeding {app_config.label} …")
                with transaction.atomic():
                    module.seed(self.stdout)
        self.stdout.write(self.style.SUCCESS("Demo data ready."))
