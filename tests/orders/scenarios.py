"""Concurrency scenarios run in a child Django process on a migrated empty database
(``tests.support.django_process.run_django``). They create their own data and return JSON."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import date


def concurrent_refunds(orders: int, threads: int) -> dict:
    """``threads`` desk-agent ``refund`` tool calls race on each of ``orders`` orders at once."""
    from django.db import connection

    from agents.executor import execute
    from agents.models import Agent, Tool
    from agents.registry import ToolContext
    from orders.models import ChannelMessage, Order, Refund

    order_nos = [f"HT2026{index:07d}" for index in range(orders)]
    for order_no in order_nos:
        Order.objects.create(
            order_no=order_no, supplier_order_no=f"SUP-{order_no[-5:]}", guest_name="客人", hotel_name="酒店",
            check_in=date(2026, 3, 1), check_out=date(2026, 3, 5), room_type="大床房",
        )
    agent = Agent.objects.create(name="前台助理")
    agent.tools.set(Tool.objects.filter(name="refund"))
    # Staff turned the refund's confirmation off in the admin, so every racer really registers.
    Tool.objects.filter(name="refund").update(requires_confirmation=False, confirmation_set_by_staff=True)
    connection.close()

    outcomes: list[tuple[str, str]] = []
    lock = threading.Lock()
    start = threading.Barrier(threads)

    def desk(order_no: str) -> None:
        from django.db import connection as own

        try:
            me = Agent.objects.get(pk=agent.pk)
            start.wait()
            result = execute("refund", {"order_no": order_no}, ToolContext(agent=me, source="api"))
            code = "ok" if result["status"] == "success" else result["error"]["code"]
            with lock:
                outcomes.append((order_no, code))
        finally:
            own.close()

    for order_no in order_nos:
        workers = [threading.Thread(target=desk, args=(order_no,)) for _ in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        start.reset()

    per_order = {no: dict(Counter(code for n, code in outcomes if n == no)) for no in order_nos}
    return {
        "vendor": connection.vendor,
        "per_order": per_order,
        "refund_rows": {no: Refund.objects.filter(order__order_no=no).count() for no in order_nos},
        "guest_notices": {no: ChannelMessage.objects.filter(order__order_no=no, channel="downstream").count() for no in order_nos},
    }
