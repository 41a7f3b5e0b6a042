"""What the model is told about the city in an autonomy tick: the 13 actions, the rules, the answer format.

Each action is the tool of the same name; its parameters are read from the tool registry
(``params_hint``), so the prompt cannot drift from what the executor will accept. The
prompt is sent once per batch, so every word costs a model call's context: one compact
list names each action once with its parameters, and the rules say only what
the snapshot does not. It is the model contract and stays Chinese (not a catalogue string).
"""

from __future__ import annotations

from django.conf import settings

from agents.autonomy.prompt import params_hint
from city.services import WORK_ENERGY_COST

# DESIGN §5, in this order, with a Chinese label for people (the prompt names the actions alone).
ACTIONS: dict[str, str] = {
    "checkin": "打卡",
    "purchase": "购买",
    "chat": "聊天",
    "rest": "休息",
    "assign_building": "应聘建筑",
    "unassign_building": "离职",
    "eat": "吃饭",
    "transfer_resource": "转赠资源",
    "create_market_order": "挂单交易",
    "accept_market_order": "接单交易",
    "cancel_market_order": "撤单",
    "construct_building": "建造建筑",
    "claim_bounty": "接取悬赏",
}

# Thresholds the rules policy acts on and the prompt states, so a model and the policy react alike.
HUNGRY = 40  # satiety below which food comes first
TIRED = 30  # energy below which rest comes first

# Filled in by ``system_prompt`` with the thresholds, the work cost and the configured decay.
# Every word is paid once per batch (issue 27: the demo city paid 313 tokens a resident), so
# the rules say only what the snapshot does not, in the fewest words a small model still follows.
RULES = """规则：每轮饱食度下降 {satiety_decay}、精力下降 {energy_decay}。饱食度低于 {hungry} 时优先 eat（没有食物就 purchase）；\
精力低于 {tired} 时优先 rest；有工作且精力不低于 {work_energy} 时去 checkin（每天一次）；无工作可 assign_building。\
钱或资源不够就不买、不转、不卖、不建；只动自己的资源和挂单；只能有一个进行中的悬赏；\
上一轮失败的行为不要用同样的参数再做一次；rest 总是可以。"""

FORMAT = """只输出 JSON，每个居民一项：{"decisions": [{"agent_id": 1, "action": "rest", "params": {}, "reason": "累了"}]}"""


def system_prompt() -> str:
    actions = " ".join(f"{name}{params_hint(name)}" for name in ACTIONS)
    rules = RULES.format(
        satiety_decay=settings.CITY_SATIETY_DECAY, energy_decay=settings.CITY_ENERGY_DECAY,
        hungry=HUNGRY, tired=TIRED, work_energy=WORK_ENERGY_COST,
    )
    return f"为每个城市居民决定本轮的一个行为 action{{params}}：\n{actions}\n（整数不标类型，:str 字符串，? 可选）\n{rules}\n{FORMAT}"
