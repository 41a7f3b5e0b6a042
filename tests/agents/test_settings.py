"""Settings from the environment: bad values stop start-up with a message naming the variable."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow  # every test starts a Python child


def start(**env) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_", "REDIS_", "AGENT_"))}
    base.update({"DJANGO_SETTINGS_MODULE": "config.settings", "DJANGO_SECRET_KEY": "x" * 40, **env})
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); from django.conf import settings; "
         "print(settings.DATABASES['default']['ENGINE'], settings.CHANNEL_LAYERS['default']['BACKEND'], "
         "settings.AGENT_PROVIDER, settings.DEBUG)"],
        cwd=ROOT, env=base, capture_output=True, text=True, timeout=60,
    )


def test_defaults_are_the_embedded_ones():
    result = start()
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "django.db.backends.sqlite3", "channels.layers.InMemoryChannelLayer", "rules", "False",
    ]


def test_endpoint_and_redis_switch_the_backends():
    result = start(OPENAI_BASE_URL="http://127.0.0.1:9/v1", REDIS_URL="redis://127.0.0.1:6379/0",
                   DATABASE_URL="postgres://u:p@127.0.0.1:5432/desk")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[:3] == [
        "django.db.backends.postgresql", "channels_redis.core.RedisChannelLayer", "openai",
    ]


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        ({"DJANGO_SECRET_KEY": ""}, "DJANGO_SECRET_KEY"),
        ({"DJANGO_DEBUG": "maybe"}, "DJANGO_DEBUG"),
        ({"AGENT_MAX_TOOL_ROUNDS": "four"}, "AGENT_MAX_TOOL_ROUNDS"),
        ({"AGENT_MAX_TOOL_ROUNDS": "0"}, "AGENT_MAX_TOOL_ROUNDS"),
        ({"AGENT_MODEL_TIMEOUT": "soon"}, "AGENT_MODEL_TIMEOUT"),
        ({"DATABASE_URL": "mysql://u@h/db"}, "DATABASE_URL"),
        ({"DATABASE_URL": "nonsense"}, "DATABASE_URL"),
        ({"AGENT_PROVIDER": "magic"}, "AGENT_PROVIDER"),
    ],
)
def test_bad_value_stops_start_up_naming_the_variable(env, variable):
    result = start(**env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert variable in result.stderr.strip().splitlines()[-1]


def test_secret_key_may_be_omitted_only_in_debug():
    assert start(DJANGO_SECRET_KEY="", DJANGO_DEBUG="true").returncode == 0
