"""Chat phrases of the early-checkout desk for the offline ``rules`` provider.

"客人要提前离店，订单 HT20260301001" walks the whole flow, one real tool call at a time:

    round 1  order_query(order_no)
    round 2  message_send(upstream, asks the supplier, quoting the supplier order number)
    round 3  message_list(upstream, order_no)            reads the supplier's reply
    round 4  refund(order_no) + message_send(downstream)  tells the guest
    then     the final reply (the runner's last call, offered no tools)

The chat runner allows AGENT_MAX_TOOL_ROUNDS (default 4) tool rounds before its final call,
so the refund and the guest's message share round 4, the refund first. Writing to the guest
before the refund's result is back is safe enough: round 1 already ended the flow if the
order had a refund, the one way ``refund`` fails here; if another desk refunds the order in
between, the final reply says the guest's message needs correcting.
"""

from __future__ import annotations

import re

from agents.providers.rules import Outcome, Step, Turn, intent

ORDER_NO = r"(?P<order_no>[A-Za-z]{2}\d{8,})"
# What the desk reads as the supplier's go-ahead (the simulator answers "已处理完成，可以办理退款").
SUPPLIER_AGREES = re.compile(r"可以办理退款|同意退款|可以退款|refund (?:is )?(?:ok|approved|possible)", re.IGNORECASE)


def _error(outcome: Outcome) -> str:
    return outcome.result.get("error", {}).get("message", "")


def _sent(turn: Turn, channel: str) -> Outcome | None:
    return next(
        (o for o in reversed(turn.outcomes) if o.name == "message_send" and o.arguments.get("channel") == channel),
        None,
    )


def _next(turn: Turn, step: Step, done: str) -> Step:
    """The runner offers no tools once the rounds are spent: report how far the flow got."""
    if step.calls and not turn.offered:
        note = turn.say("工具调用轮数已用完，剩余步骤请再发一次指令或人工处理。", "Out of tool rounds; ask again or finish by hand.")
        return Step.say(f"{done}\n{note}".strip())
    return step


@intent(
    rf"提前(?:离店|退房).*?{ORDER_NO}",
    rf"{ORDER_NO}.*?提前(?:离店|退房)",
    rf"check(?:s|ing)?[ -]?out early.*?{ORDER_NO}",
    rf"early[ -]check[ -]?out.*?{ORDER_NO}",
    rf"{ORDER_NO}.*?(?:check(?:s|ing)?[ -]?out early|early[ -]check[ -]?out)",
    priority=10,
)
def early_checkout(turn: Turn, match: re.Match) -> Step | None:
    order_no = match["order_no"].upper()
    looked_up = turn.last("order_query")
    if looked_up is None:
        return Step.call("order_query", order_no=order_no)
    if not looked_up.ok:
        return Step.say(turn.say(f"无法办理提前离店：{_error(looked_up)}（{order_no}）。", f"Cannot handle the early checkout: {_error(looked_up)} ({order_no})."))
    order = looked_up.data
    if order.get("refund"):
        return Step.say(turn.say(f"订单 {order_no} 已登记退款，无需重复办理。", f"Order {order_no} already has a refund; nothing to do twice."))

    asked = _sent(turn, "upstream")
    if asked is None:
        content = turn.say(
            f"您好，订单 {order['supplier_order_no']}（我方订单 {order_no}）的客人 {order['guest_name']} "
            f"申请提前离店（{order['hotel_name']}，{order['check_in']} 至 {order['check_out']}，{order['room_type']}），"
            "请确认是否可以办理退款。",
            f"Hello, the guest {order['guest_name']} of order {order['supplier_order_no']} (our order {order_no}) "
            f"wants to check out early ({order['hotel_name']}, {order['check_in']} to {order['check_out']}, "
            f"{order['room_type']}). Can the refund be processed?",
        )
        return _next(turn, Step.call("message_send", channel="upstream", order_no=order_no, content=content), "")
    if not asked.ok:
        return Step.say(turn.say(f"联系供应商失败：{_error(asked)}", f"Could not message the supplier: {_error(asked)}"))
    contacted = turn.say(
        f"已就订单 {order_no} 联系供应商（{order['supplier_order_no']}）。", f"Contacted the supplier about order {order_no} ({order['supplier_order_no']})."
    )

    read = turn.last("message_list")
    if read is None:
        return _next(turn, Step.call("message_list", channel="upstream", order_no=order_no), contacted)
    if not read.ok:
        return Step.say(contacted + turn.say(f"读取供应商回复失败：{_error(read)}", f" Could not read the supplier's reply: {_error(read)}"))
    replies = [
        m for m in read.data["messages"] if m["sender"] == "supplier" and m["message_id"] > asked.data["message_id"]
    ]
    if not replies:
        return Step.say(contacted + turn.say("供应商尚未回复，收到回复后请再让我继续办理。", " The supplier has not answered yet; ask me again once they have."))
    answer = replies[-1]["content"]
    if not SUPPLIER_AGREES.search(answer):
        return Step.say(
            contacted + turn.say(f"供应商回复：「{answer}」，未同意退款，请人工跟进。", f" The supplier answered “{answer}” without agreeing to a refund; please follow up.")
        )

    refunded = turn.last("refund")
    if refunded is None:
        guest_note = turn.say(
            f"{order['guest_name']}您好，您的订单 {order_no}（{order['hotel_name']}）提前离店已办理，供应商已确认，退款已登记，请留意退款到账。",
            f"Dear {order['guest_name']}, the early checkout of your order {order_no} ({order['hotel_name']}) is done: "
            "the supplier confirmed and your refund is registered.",
        )
        step = Step(calls=(("refund", {"order_no": order_no}), ("message_send", {"channel": "downstream", "order_no": order_no, "content": guest_note})))
        return _next(turn, step, contacted + turn.say(f"供应商回复：「{answer}」。", f" The supplier answered “{answer}”."))
    told = _sent(turn, "downstream")
    if not refunded.ok:
        failed = contacted + turn.say(f"退款登记失败：{_error(refunded)}", f" The refund failed: {_error(refunded)}")
        if told is not None and told.ok:
            failed += turn.say("。已发给客人的通知需要人工更正。", ". The guest was already told; please correct that by hand.")
        return Step.say(failed)
    guest = (
        turn.say("已通知客人。", " The guest has been told.")
        if told is not None and told.ok
        else turn.say(f"通知客人失败：{_error(told) if told else ''}", f" Could not tell the guest: {_error(told) if told else ''}")
    )
    return Step.say(
        turn.say(
            f"订单 {order_no} 的提前离店已办理：供应商（{order['supplier_order_no']}）回复「{answer}」，退款已登记，",
            f"The early checkout of order {order_no} is done: the supplier ({order['supplier_order_no']}) answered “{answer}”, the refund is registered.",
        )
        + guest
    )


@intent(
    rf"(?:查询|查一下|查看|查)\s*订单\s*#?{ORDER_NO}",
    rf"(?:look up|check|query|find|show)\s+(?:the\s+)?order\s*#?{ORDER_NO}",
    priority=5,
)
def look_up_order(turn: Turn, match: re.Match) -> Step | None:
    if turn.last("order_query") is None:
        return Step.call("order_query", order_no=match["order_no"].upper())
    return None  # the default summary shows the order, or 订单不存在
