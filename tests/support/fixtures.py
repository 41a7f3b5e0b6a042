"""pytest plugin of the Agent Desk test harness (``pytest_plugins = ["tests.support.fixtures"]``).

Services (PostgreSQL, Redis, Chromium) skip the tests that need them when missing, and
fail them when ``AGENTDESK_REQUIRE_SERVICES=1`` (CI).
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from daphne.testing import DaphneProcess

from tests.support.django_process import DatabaseKind, migrated_database
from tests.support.scripted_openai import ScriptedOpenAI
from tests.support.services import (
    CHROMIUM_ARGS,
    PostgresServer,
    RedisServer,
    chromium_available,
    chromium_executable,
    postgres_available,
    redis_available,
    require_service,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

LIVE_SERVER_HOST = "127.0.0.1"
STAFF_USERNAME = "browser-staff"
STAFF_PASSWORD = "staff-password"


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    require_service("PostgreSQL", *postgres_available())
    with PostgresServer() as server:
        yield server


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    require_service("Redis", *redis_available())
    with RedisServer() as server:
        yield server


@pytest.fixture
def scripted_openai() -> Iterator[ScriptedOpenAI]:
    with ScriptedOpenAI() as server:
        yield server


@pytest.fixture(params=["sqlite", "postgres"])
def database_kind(request: pytest.FixtureRequest) -> DatabaseKind:
    """Parametrizes a test over both databases; use with ``django_child(database_kind)``."""
    return request.param


@pytest.fixture
def django_child(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[DatabaseKind], str]:
    """``django_child(kind)`` -> DATABASE_URL of a fresh migrated database for ``run_django``.

    Asking for "postgres" starts (or skips on) the session's PostgreSQL server.
    """

    def fresh_database(kind: DatabaseKind) -> str:
        postgres_url = request.getfixturevalue("postgres_server").url if kind == "postgres" else None
        return migrated_database(kind, tmp_path, postgres_url)

    return fresh_database


@pytest.fixture(scope="session")
def chromium_path() -> str:
    require_service("Chromium", *chromium_available())
    path = chromium_executable()
    assert path is not None
    return path


@pytest.fixture
def browser(chromium_path: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Browser]:
    """A headless Chromium driven by Playwright's sync API, for one test.

    Function-scoped on purpose: while Playwright's sync API runs, it marks its asyncio
    loop as running in this thread, which breaks ``async_to_sync``/``asyncio.run`` and
    Django's ORM async-safety check in every later test of the session. A launch costs
    about 0.7 s. During the test the ORM is allowed (DJANGO_ALLOW_ASYNC_UNSAFE), but
    ``async_to_sync`` and ``asyncio.run`` in the test body still fail.
    """
    from playwright.sync_api import sync_playwright

    # The "running loop" is Playwright's greenlet trick, not async code: the ORM is safe here.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


class _ForkedDaphneProcess(DaphneProcess):
    # Fork (not spawn/forkserver) so the child inherits the test database settings and the
    # unblocked database access of this test.
    _Popen = staticmethod(multiprocessing.get_context("fork").Process._Popen)


@pytest.fixture
def live_server_url(transactional_db: None) -> Iterator[str]:
    """Base URL (http://127.0.0.1:PORT) of Daphne serving this process's Django and test database.

    Like channels' ``ChannelsLiveServerTestCase``: a forked ``daphne.testing.DaphneProcess``
    runs the ASGI application (HTTP, WebSockets, static files) on the pytest-django test
    database, which is a file (SQLite) or PostgreSQL, with ``transactional_db`` so that
    both processes see committed rows. Events broadcast inside the Daphne process reach
    only its own WebSocket clients (the in-memory channel layer is per process), so a
    browser test must trigger changes it expects to see live through HTTP on this server,
    not through the test client or the ORM in the test process.
    """
    from channels.testing.live import make_application
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
    from django.db import connections
    from django.test.utils import modify_settings

    for connection in connections.all():
        if connection.vendor == "sqlite" and connection.is_in_memory_db():
            pytest.fail("live_server_url needs a file SQLite or PostgreSQL test database, not :memory:")
    # The child must open its own connections, not share this process's sockets.
    connections.close_all()
    with modify_settings(ALLOWED_HOSTS={"append": LIVE_SERVER_HOST}):
        application = partial(make_application, static_wrapper=ASGIStaticFilesHandler)
        process = _ForkedDaphneProcess(LIVE_SERVER_HOST, application)
        process.start()
        try:
            deadline = time.monotonic() + 60
            while not process.ready.wait(timeout=0.2):
                if not process.is_alive() or time.monotonic() > deadline:
                    detail = process.errors.get(timeout=1)[1] if not process.errors.empty() else "no error reported"
                    raise RuntimeError(f"the Daphne live server did not start:\n{detail}")
            yield f"http://{LIVE_SERVER_HOST}:{process.port.value}"
        finally:
            process.terminate()
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
                process.join()


@pytest.fixture
def browser_locale() -> str:
    """Accept-Language of ``staff_page``; override with ``@pytest.mark.parametrize("browser_locale", ["en-US"])``."""
    return "zh-CN"


@pytest.fixture
def staff_page(browser: Browser, live_server_url: str, django_user_model: Any, browser_locale: str) -> Iterator[Page]:
    """A Playwright page logged in as the superuser ``browser-staff`` (password ``staff-password``).

    Its context has ``base_url=live_server_url``, so ``page.goto("/admin/")`` works.
    """
    from django.conf import settings
    from django.test import Client

    user = django_user_model.objects.create_superuser(
        username=STAFF_USERNAME, email="staff@example.com", password=STAFF_PASSWORD
    )
    # force_login stores a real session in the test database, which the live server reads.
    client = Client()
    client.force_login(user)
    session_key = client.cookies[settings.SESSION_COOKIE_NAME].value
    context = browser.new_context(base_url=live_server_url, locale=browser_locale)
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": session_key, "url": live_server_url}])
    try:
        yield context.new_page()
    finally:
        context.close()
