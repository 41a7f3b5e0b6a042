from django.core.management.base import BaseCommand

from agents.sync import sync_tools


class Command(BaseCommand):
    help = "Write the tool registry into the Tool table: create new tools, update changed ones, retire vanished ones."

    def handle(self, *args, **options):
        report = sync_tools()
        for line in report.lines():
            self.stdout.write(line)
