from django.apps import AppConfig


class BountiesConfig(AppConfig):
    default_auto_field = 'django.db.models.BigAutoField'
    name = 'bounties'
