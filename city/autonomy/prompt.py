"""What the model is told about the city in an autonomy tick: the 13 actions, the rules, the answer format.

Each action is the tool of the same name; its parameters are read from the tool registry
(``params_hint``), so the prompt cannot drift from what the executor will accept. The
prompt is sent once per batch, so every word costs a model call's context: one compact
list names each action once with its parameters, and the rules say only what
the snapshot does not. It is the model contract and stays Chinese (not a catalogue string).
"""

from __future__ import annotations

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

# Filled in by ``system_prompt`` with the thresholds and the work cost. Every word is paid once
# per batch (issue 27: the demo city paid 313 tokens a resident, the target is 150), so the rules
# say only what a decision needs and the snapshot does not, in the fewest words a small model
# still follows: comparisons as signs, one clause a rule. What a tool refuses anyway (another's
# order, a second bounty) is left to the refusal, which the next snapshot shows as a failure.
RULES = """饱食<{hungry}先eat(没食物就purchase);精力<{tired}先rest;有工作,精力≥{work_energy}就checkin(每天一次);\
钱或资源不够的不做;失败的别原样重做。"""

FORMAT = """只输出JSON,agent_id即ID:{"decisions":[{"agent_id":1,"action":"rest","params":{},"reason":"累了"}]}"""


def system_prompt() -> str:
    actions = " ".join(f"{name}{params_hint(name)}" for name in ACTIONS)
    rules = RULES.format(hungry=HUNGRY, tired=TIRED, work_energy=WORK_ENERGY_COST)
    return f"每人选一个action{{params}}(?可选):\n{actions}\n{rules}\n{FORMAT}"
