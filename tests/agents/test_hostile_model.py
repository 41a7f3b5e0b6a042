"""A model's output is untrusted input: arguments nested thousands deep, NaN, an oversized
blob. Each is refused as invalid_arguments; the turn still answers 200 with what ran, and the
conversation keeps rendering."""

from __future__ import annotations

import pytest

from agents.executor import execute, parse_arguments
from agents.models import ToolCall
from agents.registry import ToolContext
from core.errors import ApplicationError

pytestmark = pytest.mark.django_db

DEEP = "[" * 5000 + "]" * 5000


@pytest.mark.parametrize(
    "raw",
    [
        '{"to_agent_id": ' + DEEP + "}",
        '{"quantity": NaN, "to_agent_id": 2, "resource_type": "flour"}',
        '{"quantity": Infinity}',
        '{"quantity": 1e309}',
        '{"quantity": ' + "9" * 5000 + "}",
        '{"remarks": "' + "x" * 300_000 + '"}',
    ],
)
def test_hostile_arguments_are_invalid_arguments(raw):
    with pytest.raises(ApplicationError) as refused:
        parse_arguments(raw)
    assert refused.value.code == "invalid_arguments"


def test_a_deep_dict_from_a_caller_is_refused_without_recursion():
    deep: dict = {}
    node = deep
    for _ in range(5000):
        node["x"] = {}
        node = node["x"]
    with pytest.raises(ApplicationError):
        parse_arguments(deep)
    assert parse_arguments({"quantity": 3}) == {"quantity": 3}


def test_the_executor_audits_a_refused_call_without_storing_the_hostile_value(make_agent):
    alice = make_agent("Alice", tools=("transfer_resource",))
    result = execute("transfer_resource", '{"quantity": NaN}', ToolContext(agent=alice))
    assert result["error"]["code"] == "invalid_arguments"
    row = ToolCall.objects.get()
    assert row.status == "error" and row.arguments == {"_raw": '{"quantity": NaN}'}


def test_a_hostile_turn_answers_200_with_the_calls_that_ran_and_the_page_still_renders(
    scripted_openai, settings, make_agent, api_client, client, staff_user
):
    from city.models import AgentResource, ResourceType

    settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY, settings.AGENT_PROVIDER = scripted_openai.base_url, "k", "openai"
    flour = ResourceType.objects.create(slug="flour", name="面粉")
    alice = make_agent("Alice", tools=("transfer_resource", "get_my_status"))
    bob = make_agent("Bob")
    AgentResource.objects.create(agent=alice, resource_type=flour, quantity=10)
    scripted_openai.tool_calls(
        [
            ("transfer_resource", {"to_agent_id": bob.pk, "resource_type": "flour", "quantity": 2}),
            ("transfer_resource", '{"to_agent_id": ' + DEEP + "}"),
            ("transfer_resource", '{"to_agent_id": 2, "resource_type": "flour", "quantity": NaN}'),
        ]
    ).reply("done")
    response = api_client.post(f"/api/agents/{alice.pk}/chat/", {"message": "给 Bob 面粉"}, format="json")
    assert response.status_code == 200, response.content[:500]
    calls = response.json()["tool_calls"]
    assert [c["result"]["status"] for c in calls] == ["success", "error", "error"]
    assert AgentResource.objects.get(agent=bob).quantity == 2  # the one good call ran, once
    client.force_login(staff_user)
    page = client.get(f"/agents/{alice.pk}/chat/?conversation={response.json()['conversation_id']}")
    assert page.status_code == 200 and "invalid_arguments" in page.content.decode()


@pytest.mark.parametrize(("value", "code"), [("x" * 10_001, "invalid_arguments"), ("a\x00b", "invalid_arguments")])
def test_string_arguments_are_capped_and_refuse_nul(make_agent, value, code):
    desk = make_agent("前台", tools=("message_send",))
    result = execute("message_send", {"channel": "upstream", "content": value}, ToolContext(agent=desk))
    assert result["error"]["code"] == code
    assert len(str(ToolCall.objects.get().arguments)) < 3000


def test_a_refused_confirmation_is_audited_though_its_write_rolled_back(make_agent, staff_user):
    from agents.confirmations import confirm_pending_action
    from agents.models import PendingAction
    from funds.models import Fund

    agent = make_agent("基金助理", tools=("create_fund",))
    proposal = execute("create_fund", {"fund_name": "Alpha"}, ToolContext(agent=agent))
    Fund.objects.create(fund_name="Alpha")  # the name is taken meanwhile
    with pytest.raises(ApplicationError) as refused:
        confirm_pending_action(action_id=proposal["pending_action_id"], user=staff_user)
    assert refused.value.code == "fund_name_taken"
    assert PendingAction.objects.get().status == "pending"
    row = ToolCall.objects.get(source="confirmation")
    assert (row.status, row.error_code, row.user) == ("error", "fund_name_taken", staff_user)


def test_a_proposal_of_a_deactivated_agent_is_refused(make_agent, staff_user):
    from agents.confirmations import confirm_pending_action
    from funds.models import Fund

    agent = make_agent("基金助理", tools=("create_fund",))
    proposal = execute("create_fund", {"fund_name": "Alpha"}, ToolContext(agent=agent))
    agent.is_active = False
    agent.save(update_fields=["is_active"])
    with pytest.raises(ApplicationError) as refused:
        confirm_pending_action(action_id=proposal["pending_action_id"], user=staff_user)
    assert refused.value.code == "agent_inactive" and not Fund.objects.exists()


def test_a_tool_call_with_quantity_1e309_is_a_tool_error_and_the_chat_answers_json(
    scripted_openai, settings, make_agent, api_client
):
    settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY, settings.AGENT_PROVIDER = scripted_openai.base_url, "k", "openai"
    alice = make_agent("Alice", tools=("transfer_resource",))
    make_agent("Bob")
    scripted_openai.tool_calls([("transfer_resource", '{"to_agent_id": 2, "resource_type": "flour", "quantity": 1e309}')]).reply("done")
    response = api_client.post(f"/api/agents/{alice.pk}/chat/", {"message": "给 Bob 面粉"}, format="json")
    assert response.status_code == 200 and response["Content-Type"] == "application/json", response.content[:300]
    [call] = response.json()["tool_calls"]
    assert call["result"]["error"]["code"] == "invalid_arguments"
    assert ToolCall.objects.get().arguments == {"_raw": '{"to_agent_id": 2, "resource_type": "flour", "quantity": 1e309}'}


def test_calls_past_the_cap_of_one_answer_are_refused_together_not_run(scripted_openai, settings, make_agent, api_client):
    from city.models import AgentResource, ResourceType

    settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY, settings.AGENT_PROVIDER = scripted_openai.base_url, "k", "openai"
    assert settings.AGENT_MAX_TOOL_CALLS_PER_ANSWER == 8
    flour = ResourceType.objects.create(slug="flour", name="面粉")
    alice, bob = make_agent("Alice", tools=("transfer_resource",)), make_agent("Bob")
    AgentResource.objects.create(agent=alice, resource_type=flour, quantity=5000)
    give = ("transfer_resource", {"to_agent_id": bob.pk, "resource_type": "flour", "quantity": 1})
    scripted_openai.tool_calls([give] * 2000).reply("done")
    response = api_client.post(f"/api/agents/{alice.pk}/chat/", {"message": "给 Bob 面粉"}, format="json")
    assert response.status_code == 200, response.content[:300]
    calls = response.json()["tool_calls"]
    assert [c["result"]["status"] for c in calls] == ["success"] * 8 + ["error"]
    assert calls[-1]["result"]["error"]["code"] == "too_many_tool_calls" and calls[-1]["result"]["error"]["refused"] == 1992
    assert AgentResource.objects.get(agent=bob).quantity == 8  # only the first eight ran
    assert ToolCall.objects.count() == 9
    group = ToolCall.objects.get(error_code="too_many_tool_calls")
    assert group.tool_name == "transfer_resource" and group.arguments == {"refused": 1992, "tools": {"transfer_resource": 1992}}
    # The next request to the model carries the eight results and the one refusal, not 2,000.
    followup = scripted_openai.requests[-1]["messages"]
    assert sum(1 for message in followup if message["role"] == "tool") == 9
    [asked] = [message for message in followup if message.get("tool_calls")]
    assert len(asked["tool_calls"]) == 9


def test_an_answer_within_the_cap_runs_every_call(scripted_openai, settings, make_agent, api_client):
    settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY, settings.AGENT_PROVIDER = scripted_openai.base_url, "k", "openai"
    settings.AGENT_MAX_TOOL_CALLS_PER_ANSWER = 3
    alice = make_agent("Alice", tools=("get_my_status",))
    scripted_openai.tool_calls([("get_my_status", {})] * 3).reply("done")
    response = api_client.post(f"/api/agents/{alice.pk}/chat/", {"message": "状态"}, format="json")
    assert [c["result"]["status"] for c in response.json()["tool_calls"]] == ["success"] * 3
    assert not ToolCall.objects.filter(error_code="too_many_tool_calls").exists()
