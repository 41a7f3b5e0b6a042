"""Demo bounties on the board, and the bounty tools granted to the residents of the demo city.

Titles and descriptions are written in the active language (``seed_demo --language``); the
bounties the tick posts later follow the language the demo board was seeded in.
"""

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from agents.models import Agent, Tool
from city.demo import RESIDENTS
from core.text import in_every_language

from .models import Bounty
from .services import create_bounty, post_bounties_to_keep_open

DEMO_BOUNTIES = [
    (_("收集100小麦"), _("为磨坊收集 100 单位小麦，交给仓库。"), 50),
    (_("建造磨坊"), _("在城东空地上建起一座磨坊。"), 80),
    (_("为面包坊送面粉"), _("把 20 单位面粉送到长安面包坊。"), 30),
    (_("修缮城墙"), _("修补北城墙的缺口。"), 120),
]
# More of the same kind, which the autonomy tick posts when the board runs low (DEMO_BOUNTIES_OPEN).
LATER_BOUNTIES = [
    (_("清理西市水渠"), _("把西市堵塞的水渠清理干净。"), 40),
    (_("给农田送木材"), _("送 10 单位木材到城东农田修篱笆。"), 35),
    (_("采集骊山石料"), _("从骊山采石场运回 15 单位石料。"), 60),
    (_("整理城门账本"), _("帮城门官誊写本月的出入账目。"), 25),
]
BOUNTY_TOOLS = ["list_bounties", "claim_bounty", "complete_bounty"]


def keep_board_alive() -> list[Bounty]:
    """Post demo bounties until DEMO_BOUNTIES_OPEN are open (0, the default outside `make run`, posts none)."""
    if settings.DEMO_BOUNTIES_OPEN <= 0:
        return []
    with translation.override(_board_language()):
        drafts = [(str(title), str(description), reward) for title, description, reward in [*DEMO_BOUNTIES, *LATER_BOUNTIES]]
    return post_bounties_to_keep_open(minimum=settings.DEMO_BOUNTIES_OPEN, drafts=drafts)


def _board_language() -> str:
    """The language the demo board was seeded in, else LANGUAGE_CODE."""
    first_title = DEMO_BOUNTIES[0][0]
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            if Bounty.objects.filter(title=str(first_title)).exists():
                return code
    return settings.LANGUAGE_CODE


def seed(stdout) -> None:
    created = 0
    for title, description, reward in DEMO_BOUNTIES:
        if not Bounty.objects.filter(title__in=in_every_language(title)).exists():
            create_bounty(title=str(title), description=str(description), reward=reward)
            created += 1
    tools = list(Tool.objects.filter(name__in=BOUNTY_TOOLS))
    agents = list(Agent.objects.filter(name__in=RESIDENTS))
    for agent in agents:
        agent.tools.add(*tools)
    stdout.write(
        f"Bounties: {created} created, {Bounty.objects.filter(status=Bounty.Status.OPEN).count()} open; "
        f"{', '.join(t.name for t in tools)} granted to {len(agents)} residents"
    )
