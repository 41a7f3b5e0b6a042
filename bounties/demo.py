"""Demo bounties on the board, and the bounty tools granted to the residents of the demo city."""

from agents.models import Agent, Tool
from city.demo import RESIDENTS

from .models import Bounty
from .services import create_bounty

DEMO_BOUNTIES = [
    ("收集100小麦", "为磨坊收集 100 单位小麦，交给仓库。", 50),
    ("建造磨坊", "在城东空地上建起一座磨坊。", 80),
    ("为面包坊送面粉", "把 20 单位面粉送到长安面包坊。", 30),
    ("修缮城墙", "修补北城墙的缺口。", 120),
]
BOUNTY_TOOLS = ["list_bounties", "claim_bounty", "complete_bounty"]


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
