"""The Celery app of the autonomy tick's workers: ``celery -A config worker`` (``make worker``).

Configured from the Django settings named ``CELERY_*``; the tasks are each app's ``tasks``
module (``agents.tasks``). Without ``CELERY_BROKER_URL`` nothing here is used: the tick runs
in-process.
"""

import os

from celery import Celery
from celery.signals import task_prerun, worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("agentdesk")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def prepare_event_sending(**kwargs) -> None:
    """Each worker process sets up the events layer before its first batch commits, as the tick
    command does (``core.events.prepare_sending``): else that batch's events wait for it."""
    from core.events import prepare_sending  # Django is set up by now, not when this module loads

    prepare_sending()


@task_prerun.connect
def replace_broken_connections(**kwargs) -> None:
    """A kept connection (``CELERY_DB_REUSE_MAX``) that died since the last batch (PostgreSQL
    restarted, the backend was terminated) is closed before the batch, which then opens a new one."""
    from django.db import connections

    for connection in connections.all(initialized_only=True):
        if connection.connection is not None and not connection.is_usable():
            connection.close()
