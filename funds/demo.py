"""Demo funds and the fund agent 基金助理, granted the fund tools (its writes wait for staff).

Names, remarks and the persona are written in the active language (``seed_demo --language``)."""

from django.utils.translation import gettext_lazy as _

from agents.models import Agent, Tool
from core.text import in_every_language

from .models import Fund
from .services import create_fund

FUND_AGENT_NAME = _("基金助理")
FUND_AGENT_PERSONA = _(
    "你是基金主数据管理员的助理。查询基金可以直接回答；创建、修改、启用、停用基金只能提出建议，"
    "由员工确认后才会执行。按名称操作基金时，先用 list_funds 查到基金 ID。"
)
FUND_TOOLS = ("list_funds", "get_fund_detail", "create_fund", "update_fund", "enable_fund", "disable_fund")
DEMO_FUNDS = (
    (_("稳健增长一号"), _("以债券为主的平衡型产品"), Fund.ActiveStatus.ENABLE),
    (_("科技先锋"), _("聚焦科技成长股"), Fund.ActiveStatus.ENABLE),
    (_("绿色能源主题"), _("新能源产业链"), Fund.ActiveStatus.ENABLE),
    ("Beta Balanced", "Global balanced allocation", Fund.ActiveStatus.ENABLE),
    (_("货币市场旧份额"), _("已清盘，保留历史记录"), Fund.ActiveStatus.DISABLE),
)


def seed(stdout) -> None:
    created = 0
    for name, remarks, status in DEMO_FUNDS:
        if not Fund.objects.filter(fund_name__in=in_every_language(name)).exists():
            create_fund(fund_name=str(name), remarks=str(remarks), active_status=status)
            created += 1
    agent = Agent.objects.filter(name__in=in_every_language(FUND_AGENT_NAME)).first() or Agent.objects.create(
        name=str(FUND_AGENT_NAME), persona=str(FUND_AGENT_PERSONA), kind=Agent.Kind.ASSISTANT
    )
    tools = list(Tool.objects.filter(name__in=FUND_TOOLS))
    agent.tools.add(*tools)
    stdout.write(
        f"Funds: {created} created, {Fund.objects.count()} in all; agent {agent.name} (#{agent.pk}) "
        f"granted {', '.join(t.name for t in tools)}"
    )
