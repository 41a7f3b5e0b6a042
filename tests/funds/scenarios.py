"""Concurrency scenarios of the funds app, run in a child Django process on a fresh migrated
database (file SQLite or PostgreSQL) by ``tests.support.django_process.run_django``.

Every worker thread has its own database connection; the threads of a round are released
together by a barrier. Results come back as JSON for the test to assert.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable

from django.db import connection

from agents.confirmations import confirm_pending_action
from agents.executor import execute
from agents.models import Agent, Conversation, PendingAction, Tool, ToolCall
from agents.registry import ToolContext
from core.errors import ApplicationError
from funds.models import Fund
from funds.services import create_fund, update_fund
from tests.support.staff import create_staff

FUND_TOOLS = ("list_funds", "get_fund_detail", "create_fund", "update_fund", "enable_fund", "disable_fund")


def _outcome(operation: Callable[[], object]) -> str:
    try:
        result = operation()
    except ApplicationError as exc:
        return getattr(exc, "code", "permission_denied")
    except Exception as exc:  # anything here would be a 500
        return f"unexpected: {exc!r}"
    return getattr(result, "status", "success")


def _race(threads: int, operation: Callable[[int], object]) -> list[str]:
    barrier = threading.Barrier(threads)
    outcomes: list[str] = [""] * threads

    def body(index: int) -> None:
        try:
            barrier.wait()
            outcomes[index] = _outcome(lambda: operation(index))
        finally:
            connection.close()

    workers = [threading.Thread(target=body, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return sorted(outcomes)


def _setup():
    staff = [create_staff(f"staff-{i}") for i in range(8)]
    agent = Agent.objects.create(name="基金助理")
    agent.tools.set(Tool.objects.filter(name__in=FUND_TOOLS))
    conversation = Conversation.objects.create(agent=agent, user=staff[0])
    return staff, agent, conversation


def _propose(agent: Agent, conversation: Conversation, name: str, arguments: dict) -> int:
    result = execute(name, arguments, ToolContext(agent=agent, conversation=conversation))
    assert result["status"] == "pending_confirmation", result
    return result["pending_action_id"]


def concurrent_confirms(*, rounds: int, threads: int) -> dict:
    """Each round, ``threads`` staff members confirm the same proposal at the same instant."""
    staff, agent, conversation = _setup()
    rounds_out = []
    for number in range(rounds):
        if number % 2 == 0:
            action_id = _propose(agent, conversation, "create_fund", {"fund_name": f"Fund {number}"})
        else:
            fund = Fund.objects.get(fund_name=f"Fund {number - 1}")
            action_id = _propose(agent, conversation, "update_fund", {"fund_id": fund.pk, "remarks": f"round {number}"})
        outcomes = _race(threads, lambda i: confirm_pending_action(action_id=action_id, user=staff[i % len(staff)]))
        rounds_out.append(
            {
                "outcomes": dict(Counter(outcomes)),
                "status": PendingAction.objects.get(pk=action_id).status,
                "executions": ToolCall.objects.filter(source="confirmation", result__status="success").count(),
                "outcome_messages": conversation.messages.filter(role="assistant").count(),
            }
        )
    funds = list(Fund.objects.order_by("id").values_list("fund_name", "version", "remarks"))
    return {"rounds": rounds_out, "funds": funds}


def concurrent_updates(*, rounds: int, threads: int) -> dict:
    """Each round, ``threads`` writers update one fund naming the same version they read."""
    rounds_out = []
    for number in range(rounds):
        fund = create_fund(fund_name=f"Fund {number}")
        outcomes = _race(
            threads, lambda i: update_fund(fund_id=fund.pk, version=1, remarks=f"writer {i}")
        )
        fund.refresh_from_db()
        rounds_out.append({"outcomes": dict(Counter(outcomes)), "version": fund.version, "remarks": fund.remarks})
    return {"rounds": rounds_out}
