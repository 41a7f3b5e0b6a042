from datetime import timedelta

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from core.events import prune_event_log


class Command(BaseCommand):
    help = (
        "Delete stored live events older than the retention (EVENT_LOG_RETENTION_DAYS, default 7 days). "
        "A client reconnecting with ?since= older than that gets no replay of them and re-syncs its page. "
        "The newest event is always kept: it marks where the stream is."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--days",
            type=int,
            default=None,
            help="keep this many days of events instead of EVENT_LOG_RETENTION_DAYS (0 keeps only the newest event)",
        )

    def handle(self, *args, days: int | None = None, **options):
        if days is None:
            days = settings.EVENT_LOG_RETENTION_DAYS
        if days < 0:
            raise CommandError("--days must not be negative")
        deleted = prune_event_log(older_than=timedelta(days=days))
        self.stdout.write(f"Deleted {deleted} events older than {days} days.")
