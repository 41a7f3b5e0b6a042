"""Settings for the test run: production settings plus a throwaway secret key."""

import os

os.environ.setdefault("DJANGO_SECRET_KEY", "tests-only-secret-key")
# A developer's .env (model endpoint, database) must not leak into the tests.
os.environ.setdefault("AGENTDESK_ENV_FILE", "")

from .settings import *  # noqa: E402,F401,F403

# Hashing a password at full strength costs ~0.5 s per user created; tests need no strength.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
