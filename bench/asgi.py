"""The project's ASGI application plus ``GET /bench/bare/``: an authenticated DRF view that does
nothing else (token lookup, DRF's request and response, no query of its own). ``bench.load``
serves this, so each endpoint's Daphne CPU per request can be read next to the bare minimum
measured in the same run."""

import django
from django.conf import settings

django.setup()
settings.ROOT_URLCONF = "bench.urls"  # before the first request resolves a URL

from config.asgi import application  # noqa: E402,F401
