import pytest

from bounties.models import Bounty


@pytest.fixture
def make_bounty(db):
    """An open bounty, or one in another state: ``make_bounty(status="claimed", claimed_by=agent)``."""

    def make(title: str = "收集100小麦", reward: int = 50, **fields) -> Bounty:
        return Bounty.objects.create(title=title, reward=reward, **fields)

    return make


@pytest.fixture
def alice(make_agent):
    return make_agent("Alice", credits=100)


@pytest.fixture
def bob(make_agent):
    return make_agent("Bob", credits=100)
