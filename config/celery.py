"""The Celery app of the autonomy tick's workers: ``celery -A config worker`` (``make worker``).

Configured from the Django settings named ``CELERY_*``; the tasks are each app's ``tasks``
module (``agents.tasks``). Without ``CELERY_BROKER_URL`` nothing here is used: the tick runs
in-process.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("agentdesk")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
