"""Chat phrases the rules provider understands for the bounty tools."""

from agents.providers.rules import Step, Turn, intent

STATUS_WORDS = {
    "进行中": "claimed",
    "已完成": "completed",
    "已取消": "cancelled",
    "claimed": "claimed",
    "completed": "completed",
    "cancelled": "cancelled",
}


@intent(r"接取悬赏\s*#?(?P<id>\d+)", r"\bclaim (?:the )?bounty\s*#?(?P<id>\d+)")
def claim(turn: Turn, match) -> Step | None:
    if turn.last("claim_bounty") is None:
        return Step.call("claim_bounty", bounty_id=int(match["id"]))
    return None


@intent(r"完成悬赏\s*#?(?P<id>\d+)", r"\bcomplete (?:the )?bounty\s*#?(?P<id>\d+)")
def complete(turn: Turn, match) -> Step | None:
    if turn.last("complete_bounty") is None:
        return Step.call("complete_bounty", bounty_id=int(match["id"]))
    return None


@intent(
    r"(?P<status>进行中|已完成|已取消)?的?悬赏(?:列表|任务板|有哪些)|有哪些(?P<status2>进行中|已完成|已取消)?的?悬赏|查看悬赏",
    r"\blist (?:(?P<status3>claimed|completed|cancelled) )?bounties\b|\bwhat bounties\b|\bbounty board\b",
)
def list_board(turn: Turn, match) -> Step | None:
    if turn.last("list_bounties") is None:
        groups = match.groupdict()
        word = groups.get("status") or groups.get("status2") or groups.get("status3")
        return Step.call("list_bounties", status=STATUS_WORDS.get((word or "").lower(), "open"))
    return None
