"""The executor: validation, grants, errors, transactions and the audit row."""

from typing import Annotated, Literal

import pytest
from django.db import IntegrityError

from agents.executor import execute, openai_tools, validate_arguments
from agents.models import Agent, Tool, ToolCall
from agents.registry import Param, ToolContext, registry, tool
from agents.sync import sync_tools
from core.errors import ApplicationError

pytestmark = pytest.mark.django_db


@tool(description="加法", category="query", permission="agents.view_agent", register_to=None)
def add_numbers(ctx: ToolContext, a: Annotated[int, Param(ge=1)], b: int = 0, mode: Literal["x", "y"] = "x") -> dict:
    return {"sum": a + b, "agent": ctx.agent.name}


@tool(description="改名后失败", category="action", permission="agents.change_agent", register_to=None)
def rename_then_fail(ctx: ToolContext, name: str) -> dict:
    Agent.objects.filter(pk=ctx.agent.pk).update(name=name)
    raise RuntimeError("boom after a write")


@tool(description="改名后报业务错误", category="action", permission="agents.change_agent", register_to=None)
def rename_then_refuse(ctx: ToolContext, name: str) -> dict:
    Agent.objects.filter(pk=ctx.agent.pk).update(name=name)
    raise ApplicationError("refused", "不行")


@pytest.fixture
def tools():
    with registry.register_temporarily(add_numbers, rename_then_fail, rename_then_refuse):
        sync_tools()
        yield


@pytest.fixture
def agent(tools, make_agent):
    return make_agent("Alice", tools=("add_numbers", "rename_then_fail", "rename_then_refuse", "get_my_status"))


def run(agent, name, arguments, source="chat", batch=None):
    return execute(name, arguments, ToolContext(agent=agent, source=source), batch=batch)


def test_success_returns_data_and_audits(agent):
    result = run(agent, "add_numbers", {"a": 2, "b": 3})
    assert result == {"status": "success", "data": {"sum": 5, "agent": "Alice"}}
    call = ToolCall.objects.get()
    assert (call.agent, call.tool_name, call.status, call.source) == (agent, "add_numbers", "success", "chat")
    assert call.arguments == {"a": 2, "b": 3}
    assert call.result == result


def test_arguments_may_come_as_a_json_string(agent):
    assert run(agent, "add_numbers", '{"a": 4}')["data"]["sum"] == 4


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"a": "2"}, "a"),          # wrong type
        ({"a": True}, "a"),         # a bool is not an integer
        ({"a": 1.5}, "a"),          # not a whole number
        ({}, "a"),                  # missing
        ({"a": 1, "c": 2}, "c"),    # extra
        ({"a": 0}, "a"),            # below the minimum
        ({"a": 1, "mode": "z"}, "mode"),  # not in the enum
    ],
)
def test_bad_arguments_are_refused_with_the_field(agent, arguments, field):
    result = run(agent, "add_numbers", arguments)
    assert result["status"] == "error"
    assert result["error"]["code"] == "invalid_arguments"
    assert result["error"]["field"] == field
    assert ToolCall.objects.get().error_code == "invalid_arguments"


def test_malformed_json_arguments_are_invalid(agent):
    result = run(agent, "add_numbers", '{"a": 1,')
    assert result["error"]["code"] == "invalid_arguments"
    assert ToolCall.objects.get().arguments == {"_raw": '{"a": 1,'}


def test_whole_float_is_accepted_as_integer():
    assert validate_arguments({"properties": {"n": {"type": "integer"}}}, {"n": 3.0}) == {"n": 3}


def test_unknown_tool_is_refused(agent):
    result = run(agent, "launch_rockets", {})
    assert result["error"]["code"] == "unknown_tool"
    assert ToolCall.objects.get().tool_name == "launch_rockets"


def test_tool_not_granted_is_refused_even_if_the_model_asks(tools, make_agent):
    bob = make_agent("Bob", tools=("get_my_status",))
    assert [t["function"]["name"] for t in openai_tools(bob)] == ["get_my_status"]
    result = run(bob, "add_numbers", {"a": 1})
    assert result["error"]["code"] == "tool_not_allowed"
    assert ToolCall.objects.get().status == "error"


def test_inactive_tool_is_refused(agent):
    Tool.objects.filter(name="add_numbers").update(is_active=False)
    assert run(agent, "add_numbers", {"a": 1})["error"]["code"] == "tool_inactive"
    assert "add_numbers" not in [t["function"]["name"] for t in openai_tools(agent)]


def test_exception_in_tool_rolls_back_its_writes(agent):
    result = run(agent, "rename_then_fail", {"name": "Mallory"})
    assert result["error"]["code"] == "tool_failed"
    agent.refresh_from_db()
    assert agent.name == "Alice"
    assert ToolCall.objects.get().error_code == "tool_failed"


def test_business_error_rolls_back_and_keeps_its_code(agent):
    result = run(agent, "rename_then_refuse", {"name": "Mallory"})
    assert result == {"status": "error", "error": {"code": "refused", "message": "不行"}}
    agent.refresh_from_db()
    assert agent.name == "Alice"


def test_rate_limit_per_agent(agent, settings):
    settings.AGENT_TOOL_CALLS_PER_MINUTE = 2
    assert run(agent, "add_numbers", {"a": 1})["status"] == "success"
    assert run(agent, "add_numbers", {"a": 1})["status"] == "success"
    result = run(agent, "add_numbers", {"a": 1})
    assert result["error"]["code"] == "rate_limited"
    assert ToolCall.objects.count() == 3


def test_staff_required_confirmation_turns_a_call_into_a_proposal(agent):
    Tool.objects.filter(name="add_numbers").update(requires_confirmation=True)
    result = run(agent, "add_numbers", {"a": 1})
    assert result["status"] == "pending_confirmation"
    action = agent.pending_actions.get()
    assert (action.tool_name, action.arguments, action.status) == ("add_numbers", {"a": 1}, "pending")
    assert result["pending_action_id"] == action.pk
    assert ToolCall.objects.get().status == "pending_confirmation"


def test_get_my_status_reports_the_calling_agent(agent):
    result = run(agent, "get_my_status", {})
    assert result["data"]["name"] == "Alice"
    assert result["data"]["credits"] == agent.credits


def test_agent_constraints_are_enforced_by_the_database(db):
    with pytest.raises(IntegrityError):
        Agent.objects.create(name="Broke", credits=-1)


@pytest.mark.parametrize("field", ["satiety", "energy"])
def test_needs_stay_between_0_and_100(db, field):
    with pytest.raises(IntegrityError):
        Agent.objects.create(name="Over", **{field: 101})


def test_a_batch_writes_the_audit_rows_in_one_insert_when_it_closes(agent):
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    from agents.executor import ExecutionBatch

    with transaction.atomic():
        batch = ExecutionBatch([agent.pk])
        with CaptureQueriesContext(connection) as queries:
            for n in range(1, 6):
                assert run(agent, "add_numbers", {"a": n}, source="autonomy", batch=batch)["status"] == "success"
            assert ToolCall.objects.count() == 0  # still collected
            batch.close()
    inserts = [q["sql"] for q in queries if q["sql"].startswith('INSERT INTO "agents_toolcall"')]
    assert len(inserts) == 1
    assert list(ToolCall.objects.order_by("id").values_list("arguments__a", flat=True)) == [1, 2, 3, 4, 5]


def test_a_batchs_audit_rows_roll_back_with_their_transaction(agent):
    from django.db import transaction

    from agents.executor import ExecutionBatch

    with pytest.raises(RuntimeError), transaction.atomic():
        batch = ExecutionBatch([agent.pk])
        run(agent, "add_numbers", {"a": 1}, source="autonomy", batch=batch)
        batch.close()
        raise RuntimeError("the batch failed")
    assert ToolCall.objects.count() == 0


def test_a_batch_reads_the_grants_once_for_every_call(agent, tools, make_agent):
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    from agents.executor import ExecutionBatch

    bob = make_agent("Bob", tools=("get_my_status",))
    Tool.objects.filter(name="rename_then_refuse").update(is_active=False)
    with CaptureQueriesContext(connection) as queries, transaction.atomic():
        batch = ExecutionBatch([agent.pk, bob.pk])
        assert run(agent, "add_numbers", {"a": 1}, batch=batch)["status"] == "success"
        assert run(agent, "add_numbers", {"a": 2}, batch=batch)["status"] == "success"
        assert run(bob, "add_numbers", {"a": 1}, batch=batch)["error"]["code"] == "tool_not_allowed"
        assert run(agent, "rename_then_refuse", {"name": "x"}, batch=batch)["error"]["code"] == "tool_inactive"
        assert run(bob, "get_my_status", {}, batch=batch)["status"] == "success"
        batch.close()
    grant_reads = [q["sql"] for q in queries if '"agents_agent_tools"' in q["sql"]]
    assert len(grant_reads) == 1


def test_a_batch_told_each_agents_call_reads_only_those_grants(agent, tools, make_agent):
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    from agents.executor import ExecutionBatch

    bob = make_agent("Bob", tools=("get_my_status",))
    with transaction.atomic():
        batch = ExecutionBatch([agent.pk, bob.pk], calls={agent.pk: "add_numbers", bob.pk: "add_numbers"})
        assert batch.grants == {agent.pk: {"add_numbers": (True, False)}, bob.pk: {}}
        with CaptureQueriesContext(connection) as queries:
            assert run(agent, "add_numbers", {"a": 1}, batch=batch)["status"] == "success"
            assert run(bob, "add_numbers", {"a": 1}, batch=batch)["error"]["code"] == "tool_not_allowed"
        assert not [q for q in queries if '"agents_agent_tools"' in q["sql"]]  # both answered from the batch
        with CaptureQueriesContext(connection) as queries:
            assert run(bob, "get_my_status", {}, batch=batch)["status"] == "success"  # not its call: looked up
        assert [q for q in queries if '"agents_agent_tools"' in q["sql"]]
        batch.close()


def test_an_agent_outside_the_batch_is_looked_up_as_usual(agent, tools, make_agent):
    from django.db import transaction

    from agents.executor import ExecutionBatch

    bob = make_agent("Bob", tools=("get_my_status",))
    with transaction.atomic():
        batch = ExecutionBatch([bob.pk])
        assert run(agent, "add_numbers", {"a": 1}, batch=batch)["status"] == "success"
        assert run(bob, "add_numbers", {"a": 1}, batch=batch)["error"]["code"] == "tool_not_allowed"
        batch.close()
    Agent.tools.through.objects.filter(agent=agent).delete()
    assert run(agent, "add_numbers", {"a": 1})["error"]["code"] == "tool_not_allowed"  # without the batch


def test_without_a_batch_each_call_writes_its_own_audit_row(agent):
    run(agent, "add_numbers", {"a": 1}, source="autonomy")
    assert ToolCall.objects.filter(tool_name="add_numbers").count() == 1
