"""What the model is told about the city in an autonomy tick: the 13 actions, the rules, the answer format.

Each action is the tool of the same name; its parameters are read from the tool registry
(``params_hint``), so the prompt cannot drift from what the executor will accept.
The prompt is the model contract and stays Chinese (it is not a catalogue string).
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
RULES = """规则：
1. 每个居民本轮只做一件事；行为要符合其人设与当前状态
2. 每轮开始时所有居民的饱食度下降 {satiety_decay}、精力下降 {energy_decay}（最低为 0），什么都不做也会饿、会累
3. 饱食度低于 {hungry} 时优先 eat（需持有食物）；没有食物就 purchase 或 accept_market_order 买食物；精力低于 {tired} 时优先 rest
4. 有工作且精力不低于 {work_energy} 时去 checkin 上班领工资（每天只能打卡一次）；余额不足不能购买或接单；资源不足不能转赠、挂单或建造
5. 无工作时考虑 assign_building（选有空缺岗位的建筑）；unassign_building 无需参数
6. transfer_resource：自己资源充裕且有居民匮乏时可考虑转赠（只能转出自己的资源）
7. create_market_order 出售自己多余的资源；accept_market_order 买下别人的挂单；cancel_market_order 只能撤销自己的挂单
8. construct_building 需要足够的信用点和材料，建筑名称不能与已有建筑重名
9. rest 是合理选择，不必所有人都行动
10. claim_bounty：浏览悬赏任务板，选择感兴趣且有能力完成的悬赏接取。你同时只能接取一个悬赏，接取前考虑自身能力和竞争概率。已有进行中悬赏时不要再接新的
11. “上一轮行为”给出了每个居民上一轮的结果和失败原因，请据此调整：上一轮失败的行为不要用同样的参数再做一次"""

FORMAT = """直接输出纯 JSON 数组，不要解释，不要 markdown，不要思考过程。每个居民一个对象，agent_id 为居民 ID。示例：
[{"agent_id": 1, "action": "claim_bounty", "params": {"bounty_id": 3}, "reason": "这个悬赏奖励丰厚，我有能力完成"}]"""


def system_prompt() -> str:
    actions = "、".join(f"{name}（{label}）" for name, label in ACTIONS.items())
    params = ", ".join(f"{name}={params_hint(name)}" for name in ACTIONS)
    rules = RULES.format(
        satiety_decay=settings.CITY_SATIETY_DECAY, energy_decay=settings.CITY_ENERGY_DECAY,
        hungry=HUNGRY, tired=TIRED, work_energy=WORK_ENERGY_COST,
    )
    return (
        "你是虚拟城市模拟器。根据世界状态为每个居民决定本轮的一个行为。\n\n"
        f"行为：{actions}\n\n{rules}\n\n{FORMAT}\n\nparams: {params}"
    )

