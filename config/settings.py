"""Agent Desk settings, read from the environment.

Every variable has an embedded default that works on one machine (SQLite file,
in-memory channel layer, the offline ``rules`` model provider). A malformed value stops
start-up with a message naming the variable.

A git-ignored ``.env`` file beside manage.py (``make run`` writes the secret key there)
is read first; a variable set in the environment wins over the file. python-dotenv only
reads the file: the typed helpers below, which it has no equivalent of, check the values.
``AGENTDESK_ENV_FILE`` names another file, or none when empty (the tests use that).
"""

import ipaddress
import os
from datetime import timedelta
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from dotenv import load_dotenv
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent
ENV_FILE = os.environ.get("AGENTDESK_ENV_FILE", str(BASE_DIR / ".env"))
if ENV_FILE:
    load_dotenv(ENV_FILE, override=False)


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true/false/1/0), got {raw!r}")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {raw!r}") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, got {value}")
    return value


def env_float(name: str, default: float, *, minimum: float = 0.0) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, got {raw!r}") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, got {value}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def database_from_env() -> dict:
    url = env_str("DATABASE_URL")
    if not url:
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": BASE_DIR / "db.sqlite3",
            "OPTIONS": SQLITE_OPTIONS,
            # A file (not :memory:) so threads, child processes and a live Daphne share it;
            # one per process so parallel test runs never share a database.
            "TEST": {"NAME": str(Path(tempfile.gettempdir()) / f"agentdesk-test-{os.getpid()}.sqlite3")},
        }
    try:
        # Health checks: a kept connection that PostgreSQL dropped (restart, pg_terminate_backend)
        # is replaced before a request uses it, instead of failing that request.
        config = dj_database_url.parse(
            url, conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0, minimum=0), conn_health_checks=True
        )
    except (ValueError, KeyError) as exc:
        raise ImproperlyConfigured(f"DATABASE_URL is not a valid database URL: {exc}") from None
    engine = config.get("ENGINE", "")
    if engine == "django.db.backends.sqlite3":
        config["OPTIONS"] = SQLITE_OPTIONS
        config["TEST"] = {"NAME": f"{config['NAME']}.test"}
    elif engine != "django.db.backends.postgresql":
        raise ImproperlyConfigured(f"DATABASE_URL must be a sqlite:// or postgres:// URL, got engine {engine!r}")
    elif pool_size := env_int("DATABASE_POOL_SIZE", 0, minimum=0):
        # A connection pool per process (psycopg_pool): no new PostgreSQL backend per request, and
        # unlike kept connections it is shared by Daphne's threads; with CONN_HEALTH_CHECKS Django
        # has the pool check a connection before handing it out, so a dropped one is replaced.
        if config["CONN_MAX_AGE"]:
            raise ImproperlyConfigured("DATABASE_POOL_SIZE and DATABASE_CONN_MAX_AGE exclude each other: set one")
        config["OPTIONS"] = {"pool": {"min_size": 1, "max_size": pool_size, "timeout": 10}}
    return config


# WAL lets readers run beside the writer; IMMEDIATE takes the write lock when a
# transaction starts, so two writers queue on the busy timeout instead of deadlocking.
SQLITE_OPTIONS = {
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=20000;",
}

DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = env_str("DJANGO_SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("DJANGO_SECRET_KEY is required when DJANGO_DEBUG is off")
    SECRET_KEY = "insecure-development-key-only-for-DJANGO_DEBUG"
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost"])

# Behind HTTPS (off for the local demo): `manage.py check --deploy` is clean with these set.
SECURE_SSL_REDIRECT = env_bool("DJANGO_SSL_REDIRECT", False)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", False)
SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_PRELOAD = env_bool("DJANGO_HSTS_PRELOAD", False)
if env_bool("DJANGO_BEHIND_TLS_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# The proxies in front (addresses or networks): only a request from one of them has its
# X-Forwarded-For read for the client's address (throttles, sign-in lockout). None by default.
TRUSTED_PROXIES = env_list("DJANGO_TRUSTED_PROXIES", [])
for _proxy in TRUSTED_PROXIES:
    try:
        ipaddress.ip_network(_proxy, strict=False)
    except ValueError:
        raise ImproperlyConfigured(f"DJANGO_TRUSTED_PROXIES must list IP addresses or networks, got {_proxy!r}") from None
X_FRAME_OPTIONS = "DENY"
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "core.admin_site.AgentDeskAdminConfig",  # django.contrib.admin with the project's site
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "django_htmx",
    "template_partials",
    "axes",
    "core",
    "agents",
    "city",
    "bounties",
    "funds",
    "orders",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "core.middleware.ApiLanguageMiddleware",
    "core.middleware.UserTimeZoneMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "config.middleware.ContentSecurityPolicyMiddleware",
    "axes.middleware.AxesMiddleware",
    "core.middleware.DatabaseUnavailableMiddleware",
]

# Sign-in throttling (django-axes) for the admin and the pages: after AXES_FAILURE_LIMIT
# wrong passwords for one username from one address, that pair waits AXES_COOLOFF_MINUTES.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("AXES_COOLOFF_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "core.throttling.request_address"  # X-Forwarded-For only from a trusted proxy
AXES_VERBOSE = False

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

DATABASES = {"default": database_from_env()}

REDIS_URL = env_str("REDIS_URL")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            # redis-py 8 defaults: reads time out after 5 s, exactly when channels-redis's
            # blocking 5 s BZPOPMIN answers on an idle channel (that would kill idle
            # consumers), and a pool refuses its 101st connection (200 pages reconnecting).
            "CONFIG": {
                "hosts": [{"address": REDIS_URL, "socket_timeout": 15, "max_connections": 1000}],
                "capacity": 1500,
                "expiry": 30,
            },
        },
        # Stored events to every server process's event hub (core.events.events_layer): pushed by Redis
        # pub/sub. The default layer's receive costs four Redis round trips per message, one message
        # after another, and under load the hubs fell seconds behind the writers (bench.load, 50
        # users: WebSocket delivery p95 13-18 s). Pub/sub keeps nothing for a process that is away;
        # the event log does (a hub reads a missing seq from it).
        # Pub/sub channels ignore the database number, so it goes into their names: deployments
        # (and test runs) kept apart by the database in REDIS_URL stay apart.
        "events": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {
                "hosts": [{"address": REDIS_URL, "socket_timeout": 15, "max_connections": 1000}],
                "prefix": f"asgi.db{urlsplit(REDIS_URL).path.strip('/') or '0'}.",
            },
        },
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer", "CONFIG": {"capacity": 1500}}}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "zh-hans"
LANGUAGES = [("zh-hans", _("简体中文")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env_str("TIME_ZONE", "Asia/Shanghai")
FORMAT_MODULE_PATH = ["config.formats"]  # dates as 2026-03-01 14:05 CST in both languages
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Static files are served by WhiteNoise straight from the app folders (no collectstatic
# step); set STATIC_ROOT only to collect them for a proxy in front.
STATIC_ROOT = env_str("STATIC_ROOT") or None
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
LOGIN_URL = "admin:login"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first, so an anonymous script gets 401 with a WWW-Authenticate header.
        "core.api.authentication.ThrottledTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["core.api.permissions.DeclaredPermissions"],
    # Per user (a script's token) and per address for anonymous calls; wrong tokens are counted
    # per address by core.throttling (API, MCP and the events socket), since DRF throttles only
    # after authenticating.
    "DEFAULT_THROTTLE_CLASSES": [
        "core.api.authentication.AddressUserRateThrottle", "core.api.authentication.AddressAnonRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "user": env_str("API_THROTTLE_USER", "3000/minute"),
        "anon": env_str("API_THROTTLE_ANON", "60/minute"),
        "bad_token": env_str("API_THROTTLE_BAD_TOKEN", "20/minute"),
    },
    "DEFAULT_SCHEMA_CLASS": "core.api.schema.ApiSchema",
    "DEFAULT_PAGINATION_CLASS": "core.api.pagination.StrictPageNumberPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "core.api.errors.exception_handler",
    # JSON only, for every Accept (core.api.negotiation): no browsable HTML API.
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "core.api.negotiation.JSONContentNegotiation",
    "DEFAULT_PARSER_CLASSES": [
        "core.api.parsers.UntrustedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Agent Desk API",
    "DESCRIPTION": "Staff API of Agent Desk: agents, tools, city, bounties, funds, orders.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The schema and its docs are for staff, like the API they describe.
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAdminUser"],
    # A JSON API: the form parsers serve DRF's browsable API and test client, not API clients.
    "PARSER_WHITELIST": ["core.api.parsers.UntrustedJSONParser"],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Models and agents.
OPENAI_API_KEY = env_str("OPENAI_API_KEY")
OPENAI_BASE_URL = env_str("OPENAI_BASE_URL")
AGENT_MODEL = env_str("AGENT_MODEL", "gpt-4o-mini")
# "rules" (offline, deterministic) unless an endpoint is configured.
# "none" is a baseline that never calls a tool (eval_agents --provider none).
AGENT_PROVIDER = env_str("AGENT_PROVIDER", "openai" if (OPENAI_API_KEY or OPENAI_BASE_URL) else "rules")
if AGENT_PROVIDER not in {"rules", "openai", "none"}:
    raise ImproperlyConfigured(f"AGENT_PROVIDER must be 'rules', 'openai' or 'none', got {AGENT_PROVIDER!r}")
AGENT_MODEL_TIMEOUT = env_float("AGENT_MODEL_TIMEOUT", 60.0, minimum=0.1)
# Sampling sent with every request: agents that act want little randomness (eval_agents uses 0);
# the seed goes where the endpoint takes it (one that refuses it is asked without it from then on).
AGENT_TEMPERATURE = env_float("AGENT_TEMPERATURE", 0.2)
AGENT_SEED = env_int("AGENT_SEED", 0, minimum=0)
# How chat sends tools: "auto" (native, then "text" if the endpoint refuses them or "constrained"
# if it ignores them), or one of those, fixed.
# Tools one chat request offers, the most relevant to the message first (0: all of them).
AGENT_TOOLS_PER_REQUEST = env_int("AGENT_TOOLS_PER_REQUEST", 8, minimum=0)
AGENT_TOOL_MODE = env_str("AGENT_TOOL_MODE", "auto")
if AGENT_TOOL_MODE not in {"auto", "native", "constrained", "text"}:
    raise ImproperlyConfigured(f"AGENT_TOOL_MODE must be auto, native, constrained or text, got {AGENT_TOOL_MODE!r}")
AGENT_MAX_TOOL_ROUNDS = env_int("AGENT_MAX_TOOL_ROUNDS", 4, minimum=1)
# Tool calls one model answer may make; the rest are refused together (too_many_tool_calls).
AGENT_MAX_TOOL_CALLS_PER_ANSWER = env_int("AGENT_MAX_TOOL_CALLS_PER_ANSWER", 8, minimum=1)
# Cap of one chat answer, in tokens (the tick sizes its own per batch).
AGENT_MAX_TOKENS = env_int("AGENT_MAX_TOKENS", 512, minimum=16)
# The model's context window in tokens: chat trims old history and the tick sizes batches to fit it.
AGENT_CONTEXT_TOKENS = env_int("AGENT_CONTEXT_TOKENS", 8192, minimum=512)
AGENT_TOOL_CALLS_PER_MINUTE = env_int("AGENT_TOOL_CALLS_PER_MINUTE", 30, minimum=1)
AUTONOMY_TOKEN_BUDGET = env_int("AUTONOMY_TOKEN_BUDGET", 200_000, minimum=0)
AUTONOMY_BATCH_SIZE = env_int("AUTONOMY_BATCH_SIZE", 20, minimum=1)
AUTONOMY_CONCURRENCY = env_int("AUTONOMY_CONCURRENCY", 8, minimum=1)
# A rules tick on Celery workers: residents per batch at most (agents.autonomy.distributed.rules_batch_size).
AUTONOMY_RULES_BATCH_SIZE = env_int("AUTONOMY_RULES_BATCH_SIZE", 100, minimum=1)
# How much every resident's satiety and energy fall at the start of each autonomy tick (0: never).
CITY_SATIETY_DECAY = env_int("CITY_SATIETY_DECAY", 5, minimum=0)
CITY_ENERGY_DECAY = env_int("CITY_ENERGY_DECAY", 3, minimum=0)
PENDING_ACTION_TTL = env_int("PENDING_ACTION_TTL", 30 * 60, minimum=1)  # seconds
EVENT_LOG_RETENTION_DAYS = env_int("EVENT_LOG_RETENTION_DAYS", 7, minimum=1)
SUPPLIER_SIMULATOR = env_bool("SUPPLIER_SIMULATOR", True)
# Open bounties the autonomy tick keeps on the board by posting demo ones; `make run` sets 3.
DEMO_BOUNTIES_OPEN = env_int("DEMO_BOUNTIES_OPEN", 0, minimum=0)

# The autonomy tick on Celery (`celery -A config worker`); unset: the tick runs in-process.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL")
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", CELERY_BROKER_URL) or None
# A batch whose worker died is redelivered once its model call (retried once) could no longer be
# running: after 2 × AGENT_MODEL_TIMEOUT + 30 s, not Celery's default hour.
# Every worker sweeps for such batches every 5 s (kombu's default sweep is ~100 s). A sweep holds a
# Redis mutex for milliseconds; kombu lets it expire after 300 s, so a worker killed while holding
# it stopped every redelivery for five minutes: it expires after 10 s here.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": int(2 * AGENT_MODEL_TIMEOUT + 30), "unacked_restore_interval": 5, "unacked_restore_throttle": 1,
    "unacked_mutex_expire": 10,
}
# A batch the broker lost (kombu's Redis transport pops a message before it records it unacked: a
# worker killed between the two loses it for good) is sent again by the tick's coordinator, when no
# batch has reported for this long and no message is left in the queue: by then a batch held by a
# dead worker was restored by a sweep (visibility timeout + sweep interval + the sweep mutex's
# expiry) and run again (its model call, retried once), so one still unrecorded was lost.
AUTONOMY_RESEND_AFTER = env_float(
    "AUTONOMY_RESEND_AFTER",
    sum(CELERY_BROKER_TRANSPORT_OPTIONS[key] for key in ("visibility_timeout", "unacked_restore_interval", "unacked_mutex_expire"))
    + 2 * AGENT_MODEL_TIMEOUT + 5 + 10,  # the model call, retried once, and executing
    minimum=1.0,
)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1  # a worker holds one batch per process: a dead one strands few
CELERY_TASK_SERIALIZER = CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_EXPIRES = 24 * 3600
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A worker keeps its database connection from batch to batch, replaced every 500 batches (Celery
# counts a task's start and end) or when it fails the check before a batch (config/celery.py):
# Celery's Django fixup otherwise closes it after every task, and a new PostgreSQL backend per
# batch cost more PostgreSQL CPU than the batch's own statements.
CELERY_DB_REUSE_MAX = 1000

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "INFO"}, "axes": {"level": "WARNING"}},
}
