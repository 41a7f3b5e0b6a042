# The Celery app is created with Django's, so that ``shared_task``s send through it.
from .celery import app as celery_app

__all__ = ("celery_app",)
