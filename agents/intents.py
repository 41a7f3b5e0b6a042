"""Chat phrases the rules provider understands for the agents app's own tools."""

from .providers.rules import Step, Turn, intent


@intent(r"我的状态|我现在怎么样|\bmy status\b|\bhow am i\b|\bstatus\b")
def my_status(turn: Turn, match) -> Step | None:
    if turn.last("get_my_status") is None:
        return Step.call("get_my_status")
    return None  # the default summary reports the tool's message
