"""What the model is told about the city in an autonomy tick: the 13 actions, the rules, the answer format.

Each action is the tool of the same name; its parameters are read from the tool registry
(``params_hint``), so the prompt cannot drift from what the executor will accept. The
prompt is sent once per batch, so every word costs a model call's context: one compact
list names each action once with its label and parameters, and the rules say only what
the snapshot does not. It is the model contract and stays Chinese (not a catalogue string).
"""

from __future__ import annotations

from django.conf import settings

from agents.autonomy.prompt import params_hint
from city.services import WORK_ENERGY_COST

# DESIGN §5, in this order; the Chinese label is how the seed's prompt names each one.
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
RULES = """规则：每个居民只做一件事，合乎人设与状态；rest 总是可以。没写工作即无工作；悬赏没写进行中即开放，奖励是信用点；打卡得产出
- 每轮饱食度下降 {satiety_decay}、精力下降 {energy_decay}；饱食度低于 {hungry} 时优先 eat（没有食物就买），精力低于 {tired} 时优先 rest
- 有工作且精力不低于 {work_energy} 时去 checkin（每天一次）；没工作可 assign_building 有空缺的建筑
- 钱不够不能 purchase、accept_market_order；资源不够不能转赠、挂单、建造；建筑名称不能重复
- 只能转出、卖出自己的资源，只能撤自己的挂单
- 你同时只能接取一个悬赏，已有进行中悬赏时不要再接
- 看“上一轮行为”的失败原因：上一轮失败的行为不要用同样的参数再做一次"""

FORMAT = """只输出 JSON 数组，每个居民一个对象，不要别的文字：
[{"agent_id": 1, "action": "claim_bounty", "params": {"bounty_id": 3}, "reason": "奖励丰厚"}]"""


def system_prompt() -> str:
    actions = "、".join(f"{name}（{label}）{params_hint(name)}" for name, label in ACTIONS.items())
    rules = RULES.format(
        satiety_decay=settings.CITY_SATIETY_DECAY, energy_decay=settings.CITY_ENERGY_DECAY,
        hungry=HUNGRY, tired=TIRED, work_energy=WORK_ENERGY_COST,
    )
    return (
        "你是虚拟城市模拟器，为每个居民决定本轮的一个行为。\n"
        f"行为：{actions}\n（params 里整数不标类型，:str 为字符串，? 为可选）\n{rules}\n{FORMAT}"
    )
