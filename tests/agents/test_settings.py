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


def test_with_redis_events_reach_the_hubs_by_pub_sub():
    code = ("import django; django.setup(); from django.conf import settings; from core.events import events_layer; "
            "print(settings.CHANNEL_LAYERS['events']['BACKEND'], type(events_layer()).__name__)")
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_", "REDIS_", "AGENT_"))}
    base.update({"DJANGO_SETTINGS_MODULE": "config.settings", "DJANGO_SECRET_KEY": "x" * 40, "REDIS_URL": "redis://127.0.0.1:6379/0"})
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=base, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["channels_redis.pubsub.RedisPubSubChannelLayer", "RedisPubSubChannelLayer"]


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
        ({"DJANGO_TRUSTED_PROXIES": "10.0.0.1,proxy.example"}, "DJANGO_TRUSTED_PROXIES"),
        ({"AGENT_MAX_TOOL_CALLS_PER_ANSWER": "0"}, "AGENT_MAX_TOOL_CALLS_PER_ANSWER"),
    ],
)
def test_bad_value_stops_start_up_naming_the_variable(env, variable):
    result = start(**env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert variable in result.stderr.strip().splitlines()[-1]


def test_secret_key_may_be_omitted_only_in_debug():
    assert start(DJANGO_SECRET_KEY="", DJANGO_DEBUG="true").returncode == 0


def manage(*args: str, **env) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_", "REDIS_", "AGENT_", "AGENTDESK_"))}
    base.update(env)
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=base, capture_output=True, text=True, timeout=120)


def test_a_command_run_by_hand_reads_the_secret_key_from_the_env_file(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text("DJANGO_SECRET_KEY=" + "k" * 50 + "\n")
    result = manage("check", AGENTDESK_ENV_FILE=str(env_file))
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_without_a_secret_key_anywhere_start_up_names_the_variable(tmp_path):
    result = manage("check", AGENTDESK_ENV_FILE=str(tmp_path / "missing.env"))
    assert result.returncode != 0 and "DJANGO_SECRET_KEY" in result.stderr


def test_the_environment_wins_over_the_env_file(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text("DJANGO_SECRET_KEY=from-file\nAGENT_PROVIDER=openai\n")
    result = start(AGENTDESK_ENV_FILE=str(env_file), AGENT_PROVIDER="rules")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[2] == "rules"


def test_make_writes_a_private_secret_key_once(tmp_path):
    (tmp_path / "Makefile").write_text((ROOT / "Makefile").read_text())
    first = subprocess.run(["make", "-s", "secret", f"PYTHON={sys.executable}"], cwd=tmp_path, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    env_file = tmp_path / ".env"
    written = env_file.read_text()
    assert written.startswith("DJANGO_SECRET_KEY=") and len(written.strip()) > 50
    assert env_file.stat().st_mode & 0o777 == 0o600
    subprocess.run(["make", "-s", "secret", f"PYTHON={sys.executable}"], cwd=tmp_path, check=True, capture_output=True)
    assert env_file.read_text() == written


@pytest.mark.django_db
def test_the_demo_login_file_is_private_from_the_start(tmp_path, monkeypatch):
    from io import StringIO

    from agents import demo

    monkeypatch.setattr(demo, "CREDENTIALS_FILE", tmp_path / ".demo-credentials")
    modes = []
    real_open = os.open
    monkeypatch.setattr(os, "open", lambda path, flags, mode=0o777: modes.append(mode) or real_open(path, flags, mode))
    out = StringIO()
    demo.seed(out)
    assert modes == [0o600] and (tmp_path / ".demo-credentials").stat().st_mode & 0o777 == 0o600
    password = (tmp_path / ".demo-credentials").read_text().strip()
    assert f"admin / {password}" in out.getvalue()


def test_the_deployment_settings_make_check_deploy_clean():
    env = {
        "DJANGO_SECRET_KEY": "a-long-random-Key-9f8e7d6c5b4a39281706f5e4d3c2b1a0z", "DJANGO_SSL_REDIRECT": "1", "DJANGO_SECURE_COOKIES": "1",
        "DJANGO_HSTS_SECONDS": "31536000", "DJANGO_HSTS_PRELOAD": "1", "AGENTDESK_ENV_FILE": "",
    }
    result = manage("check", "--deploy", "--fail-level", "WARNING", **env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_the_local_demo_runs_without_https():
    result = start(AGENTDESK_ENV_FILE="")
    assert result.returncode == 0, result.stderr
