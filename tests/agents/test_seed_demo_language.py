"""`seed_demo --language en|zh`: the demo's data, personas (the agents' system prompts) and texts in
that language; in English mode they used to be Chinese."""

import io
import re

import pytest
from django.core.management import CommandError, call_command

from agents.chat import system_prompt
from agents.models import Agent
from bounties.models import Bounty
from city.models import Building, ResourceType, ShopItem
from funds.models import Fund
from orders.models import Order

pytestmark = pytest.mark.django_db
CJK = re.compile(r"[\u4e00-\u9fff]")


def seed(*args: str) -> str:
    out = io.StringIO()
    call_command("seed_demo", *args, stdout=out)
    return out.getvalue()


def texts() -> list[str]:
    """Every text the demo writes for people or models to read."""
    return [
        *Agent.objects.values_list("name", flat=True),
        *Agent.objects.values_list("persona", flat=True),
        *Building.objects.values_list("name", flat=True),
        *ResourceType.objects.values_list("name", flat=True),
        *ShopItem.objects.values_list("name", flat=True),
        *Bounty.objects.values_list("title", flat=True),
        *Bounty.objects.values_list("description", flat=True),
        *Fund.objects.values_list("fund_name", flat=True),
        *Fund.objects.values_list("remarks", flat=True),
        *Order.objects.values_list("guest_name", flat=True),
        *Order.objects.values_list("hotel_name", flat=True),
        *Order.objects.values_list("room_type", flat=True),
    ]


def test_seed_demo_in_english_writes_no_chinese():
    seed("--language", "en")
    chinese = [text for text in texts() if CJK.search(text)]
    assert chinese == []
    assert Building.objects.filter(name="Chang'an Bakery").exists()
    assert Agent.objects.get(name="Fund assistant").kind == Agent.Kind.ASSISTANT
    assert Agent.objects.get(name="Desk assistant").kind == Agent.Kind.ASSISTANT
    assert Agent.objects.get(name="Alice").persona.startswith("You are Alice")


def test_seed_demo_in_chinese_is_the_demo_as_before():
    seed("--language", "zh")
    assert Building.objects.filter(name="长安面包坊").exists()
    assert Bounty.objects.filter(title="收集100小麦").exists()
    assert Agent.objects.filter(name="基金助理", kind=Agent.Kind.ASSISTANT).exists()


def test_the_default_language_is_language_code(settings):
    settings.LANGUAGE_CODE = "en"
    assert "Language: en" in seed()
    assert Bounty.objects.filter(title="Gather 100 wheat").exists()


def test_an_english_residents_system_prompt_holds_its_english_persona():
    seed("--language", "en")
    from django.utils import translation

    with translation.override("en"):
        prompt = system_prompt(Agent.objects.get(name="Bob"))
    assert "You are Bob" in prompt and not CJK.search(prompt)


def test_a_run_in_the_other_language_adds_nothing_and_translates_nothing():
    seed("--language", "zh")
    before = sorted(texts())
    counts = (Agent.objects.count(), Building.objects.count(), Bounty.objects.count(), Fund.objects.count(), Order.objects.count())
    seed("--language", "en")
    assert sorted(texts()) == before
    after = (Agent.objects.count(), Building.objects.count(), Bounty.objects.count(), Fund.objects.count(), Order.objects.count())
    assert after == counts


def test_an_unknown_language_is_refused():
    with pytest.raises(CommandError, match="--language"):
        seed("--language", "fr")
