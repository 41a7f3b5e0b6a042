"""Demo funds and the fund agent 基金助理, granted the fund tools (its writes wait for staff)."""

from agents.models import Agent, Tool

from .models import Fund
from .services import create_fund

FUND_AGENT_NAME = "基金助理"
FUND_AGENT_PERSONA = (
    "你是基金主数据管理员的助理。查询基金可以直接回答；创建、修改、启用、停用基金只能提出建议，"
    "由员工确认后才会执行。按名称操作基金时，先用 list_funds 查到基金 ID。"
)
FUND_TOOLS = ("list_funds", "get_fund_detail", "create_fund", "update_fund", "enable_fund", "disable_fund")
DEMO_FUNDS = (
    ("稳健增长一号", "以债券为主的平衡型产品", Fund.ActiveStatus.ENABLE),
    ("科技先锋", "聚焦科技成长股", Fund.ActiveStatus.ENABLE),
    ("绿色能源主题", "新能源产业链", Fund.ActiveStatus.ENABLE),
    ("Beta Balanced", "Global balanced allocation", Fund.ActiveStatus.ENABLE),
    ("货币市场旧份额", "已清盘，保留历史记录", Fund.ActiveStatus.DISABLE),
)


def seed(stdout) -> None:
    created = 0
    for name, remarks, status in DEMO_FUNDS:
        if not Fund.objects.filter(fund_name__iexact=name).exists():
            create_fund(fund_name=name, remarks=remarks, active_status=status)
            created += 1
    agent, _ = Agent.objects.get_or_create(
        name=FUND_AGENT_NAME, defaults={"persona": FUND_AGENT_PERSONA, "kind": Agent.Kind.ASSISTANT}
    )
    tools = list(Tool.objects.filter(name__in=FUND_TOOLS))
    agent.tools.add(*tools)
    stdout.write(
        f"Funds: {created} created, {Fund.objects.count()} in all; agent {agent.name} (#{agent.pk}) "
        f"granted {', '.join(t.name for t in tools)}"
    )
