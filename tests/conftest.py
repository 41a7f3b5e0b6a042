import pytest

pytest_plugins = ["tests.support.fixtures"]

# Fixtures that start another process (Django children, Daphne, PostgreSQL, Redis, Chromium):
# a test asking for one is `slow`, so `make test-fast` (-m "not slow") leaves it out.
SLOW_FIXTURES = frozenset(
    {"django_child", "postgres_server", "redis_server", "live_server_url", "chromium_path", "browser", "staff_page"}
)


def pytest_collection_modifyitems(items):
    for item in items:
        if SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def staff_user(db):
    """A staff member holding every permission, through the permission checks (not a superuser)."""
    from tests.support.staff import create_staff

    return create_staff("staff", password="pw-staff-123")


@pytest.fixture
def api_client(staff_user):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(staff_user)
    return client


@pytest.fixture
def make_agent(db):
    """Create an agent, granted the named tools (synced tools must exist)."""
    from agents.models import Agent, Tool

    def make(name: str = "Alice", *, tools: tuple[str, ...] = (), **fields):
        agent = Agent.objects.create(name=name, **fields)
        if tools:
            agent.tools.set(Tool.objects.filter(name__in=tools))
        return agent

    return make


@pytest.fixture(autouse=True)
def default_language():
    """A request in English leaves English active in the thread; start every test in zh-hans."""
    from django.utils import translation

    translation.activate("zh-hans")
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def fresh_cache():
    """Throttle counters live in the cache: one test's wrong tokens must not throttle the next."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def sent_events(monkeypatch):
    """The data of every event sent to open pages, in order: what clients hear (after the commit)."""
    import json

    sent: list[dict] = []

    def record(group, message):
        sent.extend(json.loads(text)["data"] for _, _, text in message.get("events", ()))

    monkeypatch.setattr("core.events._group_send", record)
    return sent
