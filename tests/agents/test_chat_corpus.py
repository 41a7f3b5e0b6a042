"""The offline chat against its corpus (tests/agents/chat_corpus.py), on the demo data.

Every entry goes through the real chat runner and executor, in a savepoint rolled back
afterwards, so each starts from the same demo city. Accuracy is printed per tool (the last
tool an entry expects, or "no tool") and overall; the targets are the issue's: at least
95 % overall and every must-not-act request without a single tool call.
"""

from __future__ import annotations

import re
from collections import Counter
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import transaction

from agents.chat import run_chat
from agents.models import Agent
from bounties.models import Bounty
from city.models import Building, MarketOrder, ShopItem
from funds.models import Fund

from agents.providers.frames import wrong_arguments

from .chat_corpus import ANY, CORPUS

pytestmark = pytest.mark.django_db

OVERALL_TARGET = 0.95


@pytest.fixture
def demo(tmp_path, monkeypatch, settings):
    """The demo city, seeded for each test that asks for it (other modules import this fixture)."""
    import agents.demo

    monkeypatch.setattr(agents.demo, "CREDENTIALS_FILE", tmp_path / "demo-credentials")
    settings.AGENT_PROVIDER = "rules"
    settings.AGENT_TOOL_CALLS_PER_MINUTE = 10_000
    call_command("seed_demo", stdout=StringIO())


LOOKUPS = {
    "agent": lambda key: Agent.objects.get(name=key).pk,
    "fund": lambda key: Fund.objects.get(fund_name=key).pk,
    "bounty": lambda key: Bounty.objects.get(title=key).pk,
    "item": lambda key: ShopItem.objects.get(name=key).pk,
    "building": lambda key: Building.objects.get(name=key).pk,
    "market": lambda key: MarketOrder.objects.filter(seller__name=key).order_by("id").first().pk,
}


def resolve(value):
    """"@fund:科技先锋" → that fund's id; "{bounty:修缮城墙}" inside a message → its id."""
    if isinstance(value, str) and value.startswith("@"):
        kind, key = value[1:].split(":", 1)
        return LOOKUPS[kind](key)
    if isinstance(value, str):
        return re.sub(r"\{(\w+):([^}]+)\}", lambda m: str(LOOKUPS[m[1]](m[2])), value)
    if isinstance(value, dict):
        return {k: resolve(v) for k, v in value.items()}
    return value


def same(expected, made) -> bool:
    if expected is ANY:
        return True
    if isinstance(expected, dict):
        return isinstance(made, dict) and expected.keys() == made.keys() and all(same(v, made[k]) for k, v in expected.items())
    return expected == made


def run_entry(entry, user) -> list[tuple[str, dict]]:
    """The calls the entry's message makes; "A || B" is a conversation, B a follow-up of A."""
    return [(call["name"], call["arguments"]) for call in run_conversation(entry, user)]


def wrong_arguments_of(entry, made: list[dict]) -> list[str]:
    said = resolve(entry.message).replace(" || ", "\n")
    return wrong_arguments(said, [(call["name"], call["arguments"], call["result"]) for call in made])


def run_conversation(entry, user) -> list[dict]:
    agent = Agent.objects.get(name=entry.agent)
    made, conversation = [], None
    with transaction.atomic():
        for message in resolve(entry.message).split(" || "):
            result = run_chat(agent=agent, message=message, user=user, conversation_id=conversation)
            conversation = result.conversation.pk
            made += result.tool_calls
        transaction.set_rollback(True)
    return made


def passes(entry, made) -> bool:
    expected = [(name, resolve(arguments)) for name, arguments in entry.calls]
    return len(expected) == len(made) and all(e[0] == m[0] and same(e[1], m[1]) for e, m in zip(expected, made))


def test_the_corpus_is_large_and_bilingual():
    chinese = sum(bool(re.search(r"[\u4e00-\u9fff]", entry.message)) for entry in CORPUS)
    assert len(CORPUS) >= 300
    assert 0.4 <= chinese / len(CORPUS) <= 0.6
    assert sum(entry.must_not_act for entry in CORPUS) >= 30


def test_the_offline_chat_understands_its_corpus(demo, staff_user, capsys):
    total, right = Counter(), Counter()
    misses, wrong = [], []
    for entry in CORPUS:
        full = run_conversation(entry, staff_user)
        made = [(call["name"], call["arguments"]) for call in full]
        wrong += [f"  {entry.message!r}: {problem}" for problem in wrong_arguments_of(entry, full)]
        label = "must not act" if entry.must_not_act else (entry.calls[-1][0] if entry.calls else "no tool")
        ok = not made if entry.must_not_act else passes(entry, made)
        total[label] += 1
        right[label] += ok
        if not ok:
            misses.append(f"  {entry.agent}: {entry.message!r}\n    expected {entry.calls}\n    made     {made}")
    overall = sum(right.values()) / sum(total.values())
    with capsys.disabled():
        print("\nOffline chat corpus: accuracy per tool")
        for label in sorted(total):
            print(f"  {label:22} {right[label]:3}/{total[label]:<3} {right[label] / total[label]:6.1%}")
        print(f"  {'overall':22} {sum(right.values()):3}/{sum(total.values()):<3} {overall:6.1%}")
        print(f"  wrong-argument writes: {len(wrong)}")
        if misses:
            print("Misses:\n" + "\n".join(misses))
        if wrong:
            print("Wrong-argument writes:\n" + "\n".join(wrong))
    # Never act on a misreading: every write argument is a span of the user's words (issue 26).
    assert not wrong
    assert right["must not act"] == total["must not act"]
    assert overall >= OVERALL_TARGET


# The first entries of the corpus are the sentences the issue quotes.
ISSUE_SENTENCES = CORPUS[:17]


@pytest.mark.parametrize("entry", ISSUE_SENTENCES, ids=[entry.message for entry in ISSUE_SENTENCES])
def test_the_issues_sentences_work_through_the_chat_api(demo, api_client, entry):
    agent = Agent.objects.get(name=entry.agent)
    response = api_client.post(f"/api/agents/{agent.pk}/chat/", {"message": resolve(entry.message)}, format="json")
    assert response.status_code == 200
    body = response.json()
    made = [(call["name"], call["arguments"]) for call in body["tool_calls"]]
    assert (not made) if entry.must_not_act else passes(entry, made)
    assert body["reply"]


@pytest.mark.parametrize(
    ("message", "reply"),
    [
        ("give 1 flour to Bob", "Transferred 1 flour"),
        ("把 1 个面粉给 Bob", "转移 1 面粉 成功"),
        ("What resources do I have?", "My resources: bread 4, flour 10, wheat 2"),  # English punctuation (was ，)
    ],
)
def test_the_reply_speaks_the_messages_language(demo, api_client, message, reply):
    from django.utils import translation

    alice = Agent.objects.get(name="Alice")
    with translation.override("zh-hans"):
        body = api_client.post(f"/api/agents/{alice.pk}/chat/", {"message": message}, format="json").json()
    assert body["reply"] == reply
