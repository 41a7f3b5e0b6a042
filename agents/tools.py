from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .registry import ToolContext, tool
from .selectors import agent_status


@tool(
    description=gettext_lazy("查看自己的状态：信用点、饱食度、精力"),
    permission="agents.view_agent",
)
def get_my_status(ctx: ToolContext) -> dict:
    status = agent_status(agent_id=ctx.agent.pk)
    status["message"] = _("%(name)s：信用点 %(credits)s，饱食度 %(satiety)s，精力 %(energy)s") % status
    return status
