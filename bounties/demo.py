"""Demo bounties on the board, and the bounty tools granted to the residents of the demo city."""

from django.conf import settings

from agents.models import Agent, Tool
from city.demo import RESIDENTS

from .models import Bounty
from .services import create_bounty, post_bounties_to_keep_open

DEMO_BOUNTIES = [
    ("收集100小麦", "为磨坊收集 100 单位小麦，交给仓库。", 50),
    ("建造磨坊", "在城东空地上建起一座磨坊。", 80),
    ("为面包坊送面粉", "把 20 单位面粉送到长安面包坊。", 30),
    ("修缮城墙", "修补北城墙的缺口。", 120),
]
# More of the same kind, which the autonomy tick posts when the board runs low (DEMO_BOUNTIES_OPEN).
LATER_BOUNTIES = [
    ("清理西市水渠", "把西市堵塞的水渠清理干净。", 40),
    ("给农田送木材", "送 10 单位木材到城东农田修篱笆。", 35),
    ("采集骊山石料", "从骊山采石场运回 15 单位石料。", 60),
    ("整理城门账本", "帮城门官誊写本月的出入账目。", 25),
]
BOUNTY_TOOLS = ["list_bounties", "claim_bounty", "complete_bounty"]


def keep_board_alive() -> list[Bounty]:
    """Post demo bounties until DEMO_BOUNTIES_OPEN are open (0, the default outside `make run`, posts none)."""
    return post_bounties_to_keep_open(minimum=settings.DEMO_BOUNTIES_OPEN, drafts=[*DEMO_BOUNTIES, *LATER_BOUNTIES])


def seed(stdout) -> None:
    created = 0
    for title, description, reward in DEMO_BOUNTIES:
        if not Bounty.objects.filter(title=title).exists():
            create_bounty(title=title, description=description, reward=reward)
            created += 1
    tools = list(Tool.objects.filter(name__in=BOUNTY_TOOLS))
    agents = list(Agent.objects.filter(name__in=RESIDENTS))
    for agent in agents:
        agent.tools.add(*tools)
    stdout.write(
        f"Bounties: {created} created, {Bounty.objects.filter(status=Bounty.Status.OPEN).count()} open; "
        f"{', '.join(t.name for t in tools)} granted to {len(agents)} residents"
    )
