"""The overview page (`/`): the per-tick city sample, the panels' numbers, filters, parts, query cost."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from agents.autonomy.tick import run_tick
from agents.models import Agent, AgentActionLog, AutonomyRound, PendingAction, ToolCall
from bounties.models import Bounty
from city import services
from city.models import CitySample, Employment, ResourceTransfer
from city.overview import credits_histogram, gini
from core.models import EventLog
from tests.agents.fixtures import city, resident  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db

URL = "/"


@pytest.fixture
def staff_client(staff_user):
    client = Client()
    client.force_login(staff_user)
    return client


@pytest.fixture
def rules(settings):
    settings.AGENT_PROVIDER = "rules"


def finished_round(**stats) -> AutonomyRound:
    return AutonomyRound.objects.create(provider="rules", finished_at=timezone.now(), stats=stats)


def table(html: str, table_id: str) -> list[list[str]]:
    """The body rows of a table, each as its cells' text (the row header first)."""
    body = re.search(rf'<table id="{table_id}">.*?<tbody>(.*?)</tbody>', html, re.S).group(1)
    return [re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S) for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)]


def resident_ids(html: str) -> list[int]:
    return [int(i) for i in re.findall(r'<tr id="resident-(\d+)"', html)]


# --- the sample the tick writes -----------------------------------------------------------


def test_a_tick_records_the_citys_credits_stock_and_residents(rules, resident):
    resident("Alice", credits=30, holdings={"bread": 2, "flour": 5})
    resident("Bob", credits=12, holdings={"flour": 1})
    result = run_tick()
    sample = CitySample.objects.get()
    assert sample.round_id == result.round_id
    assert sample.residents == Agent.objects.filter(is_active=True).count() == 2
    assert sample.total_credits == sum(Agent.objects.values_list("credits", flat=True))
    held = {slug: 0 for slug in ("bread", "flour", "wood")}
    for agent in Agent.objects.all():
        for holding in agent.resources.select_related("resource_type"):
            held[holding.resource_type.slug] += holding.quantity
    assert sample.stock == held


def test_a_sample_counts_the_transfers_since_the_previous_sample(rules, resident):
    alice, bob = resident("Alice", holdings={"flour": 10}, tools=()), resident("Bob", tools=())
    first = services.record_city_sample(round_=finished_round())
    for quantity in (2, 3):
        services.transfer_resource(from_agent_id=alice.pk, to_agent_id=bob.pk, resource_type="flour", quantity=quantity, source="api")
    second = services.record_city_sample(round_=finished_round())
    third = services.record_city_sample(round_=finished_round())
    assert (first.transfers, first.transferred) == (0, 0)
    assert (second.transfers, second.transferred) == (2, 5)
    assert second.last_transfer_id == ResourceTransfer.objects.latest("id").pk
    assert (third.transfers, third.transferred, third.last_transfer_id) == (0, 0, second.last_transfer_id)


def test_a_dry_run_records_no_sample(rules, resident):
    resident("Alice")
    run_tick(dry_run=True)
    assert not CitySample.objects.exists()


def test_samples_are_kept_as_long_as_the_event_log(rules, resident, settings):
    resident("Alice")
    old = services.record_city_sample(round_=finished_round())
    AutonomyRound.objects.filter(pk=old.round_id).update(
        started_at=timezone.now() - timedelta(days=settings.EVENT_LOG_RETENTION_DAYS + 1)
    )
    run_tick()
    assert list(CitySample.objects.values_list("round_id", flat=True)) == [AutonomyRound.objects.get().pk]


def test_a_tick_tells_open_pages_it_finished(rules, resident, django_capture_on_commit_callbacks):
    resident("Alice")
    with django_capture_on_commit_callbacks(execute=True):
        result = run_tick()
    event = EventLog.objects.filter(event="tick_finished").get()
    assert event.data == {"round_id": result.round_id, "sample_id": CitySample.objects.get().pk}


# --- the page ---------------------------------------------------------------------------------


def test_the_overview_needs_a_staff_member(client, db):
    response = client.get(URL)
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_residents_show_needs_credits_stock_job_bounty_last_action_and_a_chat_link(staff_client, resident, city):
    alice = resident("Alice", credits=42, satiety=15, energy=70, job=city.mill, holdings={"bread": 2, "flour": 3})
    bounty = Bounty.objects.create(title="修路", reward=10, status="claimed", claimed_by=alice)
    round_ = finished_round()
    AgentActionLog.objects.create(round=round_, agent=alice, action="eat", status="failed", error_code="no_food")
    html = staff_client.get(URL).content.decode()
    row = re.search(rf'<tr id="resident-{alice.pk}".*?</tr>', html, re.S).group(0)
    assert 'class="hungry"' in row and ">Alice<" in row
    assert 'value="15"' in row and 'value="70"' in row and '<td class="credits">42</td>' in row
    assert '<td class="holdings">面包×2，面粉×3</td>' in row  # names and separator of the language, not slugs
    assert "西市磨坊" in row and f"#{bounty.pk} 修路" in row
    assert "eat" in row and "no_food" in row and "outcome-failed" in row
    assert f'href="/agents/{alice.pk}/chat/"' in row


@pytest.mark.parametrize(
    ("show", "expected"),
    [("all", ["Busy", "Failing", "Hungry", "Idle"]), ("hungry", ["Hungry"]), ("idle", ["Hungry", "Idle"]), ("failing", ["Failing"])],
)
def test_residents_can_be_filtered(staff_client, resident, city, show, expected):
    hungry = resident("Hungry", satiety=10)
    resident("Idle", satiety=90)
    busy = resident("Busy", satiety=90, job=city.mill)
    failing = resident("Failing", satiety=90)
    Employment.objects.create(agent=failing, building=city.mill)
    round_ = finished_round()
    AgentActionLog.objects.create(round=round_, agent=failing, action="checkin", status="failed")
    AgentActionLog.objects.create(round=round_, agent=busy, action="checkin", status="success")
    html = staff_client.get(URL, {"show": show, "part": "residents"}, headers={"HX-Request": "true"}).content.decode()
    names = dict(Agent.objects.values_list("pk", "name"))
    assert [names[pk] for pk in resident_ids(html)] == expected
    assert hungry.pk in resident_ids(staff_client.get(URL).content.decode())


def test_residents_can_be_sorted_by_a_need_lowest_first(staff_client, resident):
    for name, satiety in (("A", 50), ("B", 5), ("C", 90)):
        resident(name, satiety=satiety)
    html = staff_client.get(URL, {"sort": "satiety"}).content.decode()
    assert [Agent.objects.get(pk=pk).name for pk in resident_ids(html)] == ["B", "A", "C"]


def test_an_htmx_part_renders_only_that_part(staff_client, resident):
    resident("Alice")
    html = staff_client.get(URL, {"part": "residents"}, headers={"HX-Request": "true"}).content.decode()
    assert html.lstrip().startswith('<section id="residents"') and "<html" not in html
    assert staff_client.get(URL, {"part": "nope"}, headers={"HX-Request": "true"}).status_code == 400


def test_live_parts_refresh_on_the_events_that_change_them(staff_client):
    html = staff_client.get(URL).content.decode()

    def triggers(part: str) -> str:
        return re.search(rf'<section id="{part}"[^<]*?hx-trigger="([^"]*)"', html).group(1)

    assert "desk:resource_transferred from:body" in triggers("residents") and "desk:tick_finished from:body" in triggers("residents")
    for part in ("economy", "agents-work", "ticks"):
        assert "desk:tick_finished from:body" in triggers(part)


def test_the_ticks_table_has_each_ticks_numbers_oldest_first(staff_client):
    rounds = [
        finished_round(duration_s=1.5, decided=10, failed=2, fallback=1, tokens=500),
        finished_round(duration_s=0.25, decided=0, tokens=0),
    ]
    html = staff_client.get(URL).content.decode()
    assert table(html, "ticks-data") == [
        [f"#{rounds[0].pk}", "1.5", "10", "1", "500", "50.0"],
        [f"#{rounds[1].pk}", "0.25", "0", "0", "0", "0.0"],
    ]


def test_the_last_ticks_are_listed_newest_first_with_their_workers(staff_client):
    ticks = [finished_round(decided=i) for i in range(7)]
    AutonomyRound.objects.filter(pk=ticks[-1].pk).update(workers=["a@host1", "b@host2"])
    AutonomyRound.objects.filter(pk=ticks[-2].pk).update(workers=["in-process"])
    rows = table(staff_client.get(URL).content.decode(), "tick-workers")
    assert [(row[0], row[2], row[3]) for row in rows] == [
        (f"#{ticks[6].pk}", "6", "a@host1, b@host2"), (f"#{ticks[5].pk}", "5", "in-process"),
        (f"#{ticks[4].pk}", "4", "—"), (f"#{ticks[3].pk}", "3", "—"), (f"#{ticks[2].pk}", "2", "—"),
    ]


def test_only_the_last_100_ticks_are_charted(staff_client):
    AutonomyRound.objects.bulk_create(
        AutonomyRound(provider="rules", finished_at=timezone.now(), stats={"decided": i}) for i in range(105)
    )
    rows = table(staff_client.get(URL).content.decode(), "ticks-data")
    assert len(rows) == 100 and rows[-1][2] == "104"


def test_the_economy_table_has_each_samples_credits_and_stock(staff_client, resident):
    resident("Alice", credits=30, holdings={"bread": 2}, tools=())
    sample = services.record_city_sample(round_=finished_round())
    html = staff_client.get(URL).content.decode()
    assert table(html, "economy-data") == [[f"#{sample.round_id}", "30", "1", "2", "0", "0"]]  # bread flour wood


def test_tool_calls_are_counted_per_tool_and_outcome(staff_client, resident):
    alice = resident("Alice", tools=())
    for tool, status, code in [
        ("eat", "success", ""), ("eat", "error", "no_food"), ("eat", "error", "no_food"),
        ("transfer_resource", "pending_confirmation", ""), ("rest", "success", ""),
    ]:
        ToolCall.objects.create(agent=alice, tool_name=tool, status=status, error_code=code, source="autonomy")
    html = staff_client.get(URL).content.decode()
    assert re.findall(r'data-outcome="([^"]+)"', html) == ["success", "pending", "no_food"]
    assert table(html, "tool-calls-data") == [["eat", "1", "0", "2"], ["rest", "1", "0", "0"], ["transfer_resource", "0", "1", "0"]]


def test_the_error_rate_is_the_listed_failures_over_all_tool_calls(staff_client, resident):
    """One failure vocabulary (issue 30): the rate and the breakdown read the same tool calls and
    codes; the tick's decision counts (stats "failed") no longer feed the rate."""
    alice = resident("Alice", tools=())
    first, second = finished_round(decided=4, failed=0), finished_round(decided=1, failed=1)
    for round_, tool, status, code in [
        (first, "eat", "success", ""), (first, "eat", "error", "no_food"),
        (first, "transfer_resource", "error", "insufficient_resource"), (first, "rest", "pending_confirmation", ""),
        (second, "rest", "success", ""),
    ]:
        ToolCall.objects.create(agent=alice, round=round_, tool_name=tool, status=status, error_code=code, source="autonomy")
    html = staff_client.get(URL).content.decode()
    outcomes = re.findall(r'data-outcome="([^"]+)"', html)
    rows = table(html, "tool-calls-data")
    failures = sum(int(n) for row in rows for outcome, n in zip(outcomes, row[1:]) if outcome not in ("success", "pending"))
    assert (failures, sum(int(n) for row in rows for n in row[1:])) == (2, 5)
    assert "<strong>40.0%</strong>" in html
    assert table(html, "error-rate-data") == [[f"#{first.pk}", "50.0"], [f"#{second.pk}", "0.0"]]
    assert re.search(r'data-chart="line" data-series="1" data-unit="错误率 \(%\)"', html)  # the y axis is labelled


def test_waiting_proposals_are_counted_by_age(staff_client, resident):
    alice = resident("Alice", tools=())
    now = timezone.now()
    for age in (timedelta(minutes=1), timedelta(minutes=30), timedelta(hours=3), timedelta(days=2)):
        action = PendingAction.objects.create(tool_name="rest", agent=alice, mode="standalone", expires_at=now + timedelta(days=3))
        PendingAction.objects.filter(pk=action.pk).update(created_at=now - age)
    PendingAction.objects.create(tool_name="rest", agent=alice, mode="standalone", expires_at=now - timedelta(seconds=1))
    html = staff_client.get(URL).content.decode()
    assert [row[1] for row in table(html, "pending-data")] == ["1", "1", "1", "1"]
    assert re.search(r'id="pending-waiting"><strong>4</strong>', html)


def test_transfer_volume_is_summed_per_hour_from_the_samples(staff_client, resident):
    alice, bob = resident("Alice", holdings={"flour": 10}, tools=()), resident("Bob", tools=())
    services.record_city_sample(round_=finished_round())
    services.transfer_resource(from_agent_id=alice.pk, to_agent_id=bob.pk, resource_type="flour", quantity=4, source="api")
    services.record_city_sample(round_=finished_round())
    rows = table(staff_client.get(URL).content.decode(), "transfers-data")
    assert [row[1:] for row in rows] == [["1", "4"]]


def test_the_stock_columns_are_named_in_the_pages_language(staff_client, resident):
    resident("Alice", holdings={"bread": 2}, tools=())
    services.record_city_sample(round_=finished_round())
    html = staff_client.get(URL).content.decode()
    header = re.search(r'<table id="economy-data">.*?<thead>(.*?)</thead>', html, re.S).group(1)
    assert "<th scope=\"col\">面包</th>" in header and ">bread<" not in header


def test_transfers_per_hour_count_page_transfers_before_any_tick(staff_client, resident):
    alice, bob = resident("Alice", holdings={"flour": 10}, tools=()), resident("Bob", tools=())
    services.transfer_resource(from_agent_id=alice.pk, to_agent_id=bob.pk, resource_type="flour", quantity=3, source="page")
    rows = table(staff_client.get(URL).content.decode(), "transfers-data")
    assert [row[1:] for row in rows] == [["1", "3"]]


def test_the_credits_histogram_covers_everyone_and_gini_measures_inequality():
    assert credits_histogram([0, 5, 9, 10, 19], bins=2) == [("0–9", 3), ("10–19", 2)]
    assert credits_histogram([]) == []
    assert gini([10, 10, 10]) == 0.0
    assert gini([0, 0, 0, 100]) == 0.75


def test_the_overview_speaks_english(staff_client, resident):
    resident("Alice")
    html = staff_client.get(URL, headers={"Accept-Language": "en"}).content.decode()
    for label in ("Overview", "Satiety", "Total credits", "Tool calls", "Tokens per decision", "Hungry", "Ticks"):
        assert label in html, label
    assert "信用点总量" not in html


# --- cost -----------------------------------------------------------------------------------------


def populate(residents: int, *, start: int) -> None:
    agents = Agent.objects.bulk_create(Agent(name=f"R{start + i}", credits=i % 97, satiety=i % 100) for i in range(residents))
    round_ = finished_round(decided=residents, tokens=residents * 10)
    AgentActionLog.objects.bulk_create(AgentActionLog(round=round_, agent=a, action="rest", status="success") for a in agents)
    Bounty.objects.bulk_create(Bounty(title="任务", reward=5, status="claimed", claimed_by=a) for a in agents[:3])
    ToolCall.objects.bulk_create(ToolCall(agent=a, tool_name="rest", status="success", source="autonomy") for a in agents)
    services.record_city_sample(round_=round_)


def page_queries(client) -> tuple[int, int]:
    with CaptureQueriesContext(connection) as captured:
        html = client.get(URL).content.decode()
    return len(captured.captured_queries), len(resident_ids(html))


def test_the_page_costs_the_same_number_of_queries_for_10_and_1000_residents(staff_client, city):
    populate(10, start=0)
    small, shown = page_queries(staff_client)
    assert shown == 10
    populate(990, start=10)
    large, shown = page_queries(staff_client)
    assert shown == 1000
    assert small == large
