import importlib

from django.apps import apps
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils.module_loading import module_has_submodule


class Command(BaseCommand):
    help = (
        "Load the demo data (city 长安, bounties, funds, orders, tool grants, a staff login). "
        "Idempotent: running it again changes nothing that exists."
    )

    def handle(self, *args, **options):
        # Every app contributes its own demo.py with seed(stdout), in INSTALLED_APPS order.
        for app_config in apps.get_app_configs():
            if not module_has_submodule(app_config.module, "demo"):
                continue
            module = importlib.import_module(f"{app_config.name}.demo")
            self.stdout.write(f"Seeding {app_config.label} …")
            with transaction.atomic():
                module.seed(self.stdout)
        self.stdout.write(self.style.SUCCESS("Demo data ready."))
