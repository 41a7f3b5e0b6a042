"""What the offline chat must understand: (agent, message, expected tool calls) on the demo data.

Each entry names a demo agent, a message as a user would type it, and the tool calls the
chat must make, in order, with their arguments ("no tool" is an empty list). "@kind:key"
stands for a demo row's id, "{kind:key}" for the same inside a message (see
test_chat_corpus.py). ``refuse`` marks a request that must not act: no tool call at all.
Add an entry for every phrasing a user found that the chat got wrong.
"""

from __future__ import annotations

from dataclasses import dataclass

ANY = object()  # an argument whose value the entry does not pin (a composed message)

RESIDENT, FUNDS, DESK = "Alice", "基金助理", "前台助理"


@dataclass(frozen=True)
class Entry:
    agent: str
    message: str
    calls: tuple = ()
    must_not_act: bool = False


def call(tool: str, **arguments) -> list:
    return [(tool, arguments)]


def give(name: str, resource: str, quantity: int) -> list:
    return [
        ("find_agent", {"name": name}),
        ("transfer_resource", {"to_agent_id": f"@agent:{name}", "resource_type": resource, "quantity": quantity}),
    ]


def proposed(**arguments) -> list:
    # Words to a guest or supplier wait for staff's "yes" as a pending action.
    return [("message_send", arguments)]


def sent(**arguments) -> list:
    # Proposed, then run by the "yes" that follows (the same arguments, now a success).
    return [("message_send", arguments), ("message_send", arguments)]


def buy(item: str, quantity: int = 1) -> list:
    return [("list_shop_items", {}), ("purchase", {"item_id": f"@item:{item}", "quantity": quantity})]


def apply_at(building: str) -> list:
    return [("list_buildings", {}), ("assign_building", {"building_id": f"@building:{building}"})]


def on_fund(name: str, tool: str, typed: str | None = None, **arguments) -> list:
    return [("list_funds", {"fund_name": typed or name}), (tool, {"fund_id": f"@fund:{name}", **arguments})]


def by_id(fund: str, tool: str, **arguments) -> list:
    return [(tool, {"fund_id": f"@fund:{fund}", **arguments})]


def claim_first() -> list:
    # With several bounties open, "claim a bounty" reads the board and asks which, naming them: a write never
    # picks an entity the message does not name (round 11; it used to claim the newest).
    return [("list_bounties", {"status": "open"})]


def checkout(order_no: str) -> list:
    # The supplier answers after commit: within one test transaction the desk waits for it.
    return [
        ("order_query", {"order_no": order_no}),
        ("message_send", {"channel": "upstream", "order_no": order_no, "content": ANY}),
        ("message_list", {"channel": "upstream", "order_no": order_no}),
    ]


def say(agent: str, message: str, calls: list | None = None) -> Entry:
    return Entry(agent, message, tuple(calls or ()))


def refuse(agent: str, message: str) -> Entry:
    return Entry(agent, message, (), must_not_act=True)


R, F, D = RESIDENT, FUNDS, DESK
NO: list = []

CORPUS: list[Entry] = [
    # ---------------------------------------------------------------- the sentences
    say(R, "给Bob转10个木材", give("Bob", "wood", 10)),
    say(R, "请把 2 个面包转给 Bob", give("Bob", "bread", 2)),
    say(R, "给Dave转3个面粉", give("Dave", "flour", 3)),
    say(R, "我有多少资源？", call("get_my_resources")),
    say(R, "What resources do I have?", call("get_my_resources")),
    say(R, "领取一个悬赏", claim_first()),
    say(R, "帮我领取悬赏 #{bounty:修缮城墙}", call("claim_bounty", bounty_id="@bounty:修缮城墙")),
    say(R, "list the open bounties", call("list_bounties", status="open")),
    say(F, "帮我创建一个基金，名称为稳健增长1号，类型为债券型，风险等级R2",
        call("create_fund", fund_name="稳健增长1号", remarks="类型：债券型；风险等级：R2")),
    say(F, "open the new fund form"),
    say(R, "把 1 bread 给 Bob", give("Bob", "bread", 1)),
    say(R, "give 1 flour to Bob", give("Bob", "flour", 1)),
    say(F, "创建基金，名称为晨星价值，备注为长期持有", call("create_fund", fund_name="晨星价值", remarks="长期持有")),
    say(F, "把基金 {fund:绿色能源主题} 的备注改成 新能源车", by_id("绿色能源主题", "update_fund", remarks="新能源车")),
    say(F, "停用科技先锋", on_fund("科技先锋", "disable_fund")),
    say(F, "打开新建基金表单"),
    refuse(R, "Bob 有多少面包？"),
]

CORPUS += [
    # ---------------------------------------------------------------- transfers, zh
    say(R, "把5个面粉给Bob", give("Bob", "flour", 5)),
    say(R, "把 3 个面包送给 Carol", give("Carol", "bread", 3)),
    say(R, "给Carol转两个面包", give("Carol", "bread", 2)),
    say(R, "给 Eve 送三块面包", give("Eve", "bread", 3)),
    say(R, "转十个面粉给Frank", give("Frank", "flour", 10)),
    say(R, "请给Dave转１２个小麦", give("Dave", "wheat", 12)),
    say(R, "把我的 2 个小麦转给 Bob，谢谢", give("Bob", "wheat", 2)),
    say(R, "麻烦把四个面粉转给Eve吧", give("Eve", "flour", 4)),
    say(R, "帮我给Bob转1个面包", give("Bob", "bread", 1)),
    say(R, "把6份面粉转赠给Frank。", give("Frank", "flour", 6)),
    say(R, "给Bob转 5 个木头", give("Bob", "wood", 5)),
    say(R, "送 2 个馒头给 Eve", give("Eve", "bread", 2)),
    say(R, "把１个苹果给Carol！", give("Carol", "apple", 1)),
    say(R, "将 7 个小麦转给 Dave", give("Dave", "wheat", 7)),
    say(R, "把 2 个石头给 Frank", give("Frank", "stone", 2)),
    say(R, "转 3 个 flour 给 Bob", give("Bob", "flour", 3)),
    say(R, "给Eve转两袋面粉", give("Eve", "flour", 2)),
    say(R, "你好，请把一个面包给Bob", give("Bob", "bread", 1)),
    say(R, "把二十个面粉转给Carol", give("Carol", "flour", 20)),
    say(R, "给Frank送十二个小麦，谢谢！", give("Frank", "wheat", 12)),
    say(R, "把 1 块面包分给 Eve", give("Eve", "bread", 1)),
    say(R, "给 Bob 转 4 个麦子", give("Bob", "wheat", 4)),
    # ---------------------------------------------------------------- transfers, en
    say(R, "give 5 flour to Bob", give("Bob", "flour", 5)),
    say(R, "Give Bob 2 bread", give("Bob", "bread", 2)),
    say(R, "please send 3 wheat to Carol", give("Carol", "wheat", 3)),
    say(R, "transfer 10 wood to Dave", give("Dave", "wood", 10)),
    say(R, "Could you give two breads to Eve?", give("Eve", "bread", 2)),
    say(R, "send Frank 4 flour please", give("Frank", "flour", 4)),
    say(R, "hand 1 apple to Bob", give("Bob", "apple", 1)),
    say(R, "Please transfer 6 units of flour to Carol.", give("Carol", "flour", 6)),
    say(R, "give three loaves of bread to Bob", give("Bob", "bread", 3)),
    say(R, "send ten wheat to Frank, thanks", give("Frank", "wheat", 10)),
    say(R, "I'd like you to give 2 stones to Dave", give("Dave", "stone", 2)),
    say(R, "can you send Bob 5 flour?", give("Bob", "flour", 5)),
    say(R, "give Eve one bread", give("Eve", "bread", 1)),
    say(R, "ＧＩＶＥ ２ bread to Bob", give("Bob", "bread", 2)),
    say(R, "trasnfer 3 flour to Carol", give("Carol", "flour", 3)),
    say(R, "giv 2 bread to Bob", give("Bob", "bread", 2)),
    say(R, "send 8 lumber to Frank", give("Frank", "wood", 8)),
    say(R, "pass 2 apples to Eve", give("Eve", "apple", 2)),
    say(R, "give 1 bread to bob", give("Bob", "bread", 1)),
    say(R, "transfer twelve flour to Dave please", give("Dave", "flour", 12)),
    say(R, "Please give 4 wheat to Carol!", give("Carol", "wheat", 4)),
    say(R, "give 2 flour over to Bob", give("Bob", "flour", 2)),
    # ---------------------------------------------------------------- transfers that ask first
    say(R, "把面粉给Bob"),
    say(R, "give some bread to Bob"),
    say(R, "给我10个木材"),
    # ---------------------------------------------------------------- my resources and status
    say(R, "我的资源", call("get_my_resources")),
    say(R, "我有什么", call("get_my_resources")),
    say(R, "我现在有哪些资源", call("get_my_resources")),
    say(R, "查看我的库存", call("get_my_resources")),
    say(R, "我有多少面包？", call("get_my_resources")),
    say(R, "你有多少面粉", call("get_my_resources")),
    say(R, "show my resources", call("get_my_resources")),
    say(R, "what do I have?", call("get_my_resources")),
    say(R, "How many breads do I have?", call("get_my_resources")),
    say(R, "check my inventory please", call("get_my_resources")),
    say(R, "list my resources", call("get_my_resources")),
    say(R, "my stock", call("get_my_resources")),
    say(R, "我的状态", call("get_my_status")),
    say(R, "我现在怎么样", call("get_my_status")),
    say(R, "我的信用点有多少", call("get_my_status")),
    say(R, "my status", call("get_my_status")),
    say(R, "how am I doing?", call("get_my_status")),
    say(R, "What's my status?", call("get_my_status")),
    say(R, "show my credits", call("get_my_status")),
    say(R, "stauts", call("get_my_status")),
    # ---------------------------------------------------------------- residents
    say(R, "查找居民 Bob", call("find_agent", name="Bob")),
    say(R, "查一下Carol", call("find_agent", name="Carol")),
    say(R, "Dave的ID是多少？", call("find_agent", name="Dave")),
    say(R, "find the resident Eve", call("find_agent", name="Eve")),
    say(R, "who is Frank?", call("find_agent", name="Frank")),
    say(R, "what's Bob's id", call("find_agent", name="Bob")),
    # ---------------------------------------------------------------- work and needs
    say(R, "签到", call("checkin")),
    say(R, "帮我打卡", call("checkin")),
    say(R, "上班打卡", call("checkin")),
    say(R, "check in", call("checkin")),
    say(R, "Clock in please", call("checkin")),
    say(R, "please check-in for me", call("checkin")),
    say(R, "吃饭", call("eat")),
    say(R, "我饿了", call("eat")),
    say(R, "吃一个面包", call("eat", resource_type="bread")),
    say(R, "吃 1 个苹果", call("eat", resource_type="apple")),
    say(R, "eat", call("eat")),
    say(R, "eat a bread", call("eat", resource_type="bread")),
    say(R, "I'm hungry", call("eat")),
    say(R, "eat an apple please", call("eat", resource_type="apple")),
    say(R, "休息", call("rest")),
    say(R, "我想睡觉", call("rest")),
    say(R, "休息一下吧", call("rest")),
    say(R, "take a rest", call("rest")),
    say(R, "I'm tired, get some rest", call("rest")),
    say(R, "rest", call("rest")),
    say(R, "辞职", call("unassign_building")),
    say(R, "我要离职", call("unassign_building")),
    say(R, "quit my job", call("unassign_building")),
    say(R, "I want to quit the job", call("unassign_building")),
    say(R, "有哪些建筑", call("list_buildings")),
    say(R, "哪里有工作？", call("list_buildings")),
    say(R, "list buildings", call("list_buildings")),
    say(R, "what jobs are there?", call("list_buildings")),
    say(R, "应聘 城东农田", apply_at("城东农田")),
    say(R, "应聘西市磨坊", apply_at("西市磨坊")),
    say(R, "apply at 终南伐木场", apply_at("终南伐木场")),
    say(R, "apply for a job at the quarry", apply_at("骊山采石场")),
    say(R, "建造一座磨坊，叫东市磨坊", call("construct_building", kind="mill", name="东市磨坊")),
    say(R, "建造 farm 叫 新农田", call("construct_building", kind="farm", name="新农田")),
    say(R, "build a mill called EastMill", call("construct_building", kind="mill", name="EastMill")),
    say(R, "construct a new bakery named SouthBakery", call("construct_building", kind="bakery", name="SouthBakery")),
    say(R, "建造一座面包坊"),
    say(R, "在城市频道说：今天面包打折", call("chat", content="今天面包打折")),
    say(R, "广播：收购小麦，价格从优", call("chat", content="收购小麦，价格从优")),
    say(R, "say in the city channel: fresh bread at the bakery", call("chat", content="fresh bread at the bakery")),
    say(R, "post: buying wood", call("chat", content="buying wood")),
    # ---------------------------------------------------------------- shop and market
    say(R, "商店", call("list_shop_items")),
    say(R, "商店里有什么？", call("list_shop_items")),
    say(R, "有什么可以买的", call("list_shop_items")),
    say(R, "what can I buy?", call("list_shop_items")),
    say(R, "show me the shop", call("list_shop_items")),
    say(R, "买 2 个 面包", buy("面包", 2)),
    say(R, "买两个面包", buy("面包", 2)),
    say(R, "买一个苹果", buy("苹果", 1)),
    say(R, "购买一捆木材", buy("一捆木材", 1)),
    say(R, "buy 1 bread", buy("面包", 1)),
    say(R, "buy three apples", buy("苹果", 3)),
    say(R, "please buy a bread", buy("面包", 1)),
    # The shop sells flour by the bag of 3: "2 flour" is no number of bags, so it asks (issue 26).
    say(R, "purchase 2 flour", [("list_shop_items", {})]),
    say(R, "看看市场", call("list_market_orders")),
    say(R, "市场上有哪些挂单？", call("list_market_orders")),
    say(R, "show the market orders", call("list_market_orders")),
    say(R, "what's on the market?", call("list_market_orders")),
    say(R, "出售 4 个面粉，总价 20", call("create_market_order", resource_type="flour", quantity=4, price=20)),
    say(R, "卖 2 个面包 10", call("create_market_order", resource_type="bread", quantity=2, price=10)),
    say(R, "挂单卖三个面粉，总价15", call("create_market_order", resource_type="flour", quantity=3, price=15)),
    say(R, "sell 2 flour for 9", call("create_market_order", resource_type="flour", quantity=2, price=9)),
    say(R, "sell 1 bread for 6 credits", call("create_market_order", resource_type="bread", quantity=1, price=6)),
    say(R, "接受挂单 #{market:Dave}", call("accept_market_order", order_id="@market:Dave")),
    say(R, "买下挂单{market:Carol}", call("accept_market_order", order_id="@market:Carol")),
    say(R, "accept order {market:Frank}", call("accept_market_order", order_id="@market:Frank")),
    say(R, "buy market order #{market:Dave}", call("accept_market_order", order_id="@market:Dave")),
    say(R, "取消挂单 #{market:Carol}", call("cancel_market_order", order_id="@market:Carol")),
    say(R, "cancel order {market:Frank}", call("cancel_market_order", order_id="@market:Frank")),
    # ---------------------------------------------------------------- bounties
    say(R, "有哪些悬赏", call("list_bounties", status="open")),
    say(R, "查看悬赏", call("list_bounties", status="open")),
    say(R, "悬赏列表", call("list_bounties", status="open")),
    say(R, "有哪些进行中的悬赏", call("list_bounties", status="claimed")),
    say(R, "看看已完成的悬赏", call("list_bounties", status="completed")),
    say(R, "list bounties", call("list_bounties", status="open")),
    say(R, "show me the bounty board", call("list_bounties", status="open")),
    say(R, "what bounties are there?", call("list_bounties", status="open")),
    say(R, "list completed bounties", call("list_bounties", status="completed")),
    say(R, "any open bounties?", call("list_bounties", status="open")),
    say(R, "list bountys", call("list_bounties", status="open")),
    say(R, "接取悬赏 {bounty:建造磨坊}", call("claim_bounty", bounty_id="@bounty:建造磨坊")),
    say(R, "领取悬赏#{bounty:修缮城墙}", call("claim_bounty", bounty_id="@bounty:修缮城墙")),
    say(R, "我要接悬赏 {bounty:为面包坊送面粉}", call("claim_bounty", bounty_id="@bounty:为面包坊送面粉")),
    say(R, "领取修缮城墙", call("claim_bounty", bounty_id="@bounty:修缮城墙")),
    say(R, "接取悬赏「建造磨坊」", call("claim_bounty", bounty_id="@bounty:建造磨坊")),
    say(R, "帮我接一个悬赏", claim_first()),
    say(R, "claim bounty #{bounty:修缮城墙}", call("claim_bounty", bounty_id="@bounty:修缮城墙")),
    say(R, "Please claim the bounty {bounty:建造磨坊}", call("claim_bounty", bounty_id="@bounty:建造磨坊")),
    say(R, "take bounty {bounty:收集100小麦}", call("claim_bounty", bounty_id="@bounty:收集100小麦")),
    say(R, "claim a bounty", claim_first()),
    say(R, "claim any open bounty", claim_first()),
    say(R, "claim the 修缮城墙 bounty", call("claim_bounty", bounty_id="@bounty:修缮城墙")),
    say(R, "calim bounty {bounty:建造磨坊}", call("claim_bounty", bounty_id="@bounty:建造磨坊")),
    say(R, "完成悬赏 {bounty:修缮城墙}", call("complete_bounty", bounty_id="@bounty:修缮城墙")),
    say(R, "悬赏 #{bounty:建造磨坊} 已经完成了", call("complete_bounty", bounty_id="@bounty:建造磨坊")),
    say(R, "complete bounty #{bounty:修缮城墙}", call("complete_bounty", bounty_id="@bounty:修缮城墙")),
    say(R, "I finished bounty {bounty:建造磨坊}", call("complete_bounty", bounty_id="@bounty:建造磨坊")),
    say(R, "mark bounty {bounty:修缮城墙} as done", call("complete_bounty", bounty_id="@bounty:修缮城墙")),
]

CORPUS += [
    # ---------------------------------------------------------------- funds: lists and details
    say(F, "有哪些基金？", call("list_funds")),
    say(F, "列出所有基金", call("list_funds")),
    say(F, "基金列表", call("list_funds")),
    say(F, "看看启用的基金", call("list_funds", active_only=True)),
    say(F, "有哪些启用的基金", call("list_funds", active_only=True)),
    say(F, "list funds", call("list_funds")),
    say(F, "What funds are there?", call("list_funds")),
    say(F, "show active funds", call("list_funds", active_only=True)),
    say(F, "show me all the funds", call("list_funds")),
    say(F, "which funds are enabled?", call("list_funds", active_only=True)),
    say(F, "lsit funds", call("list_funds")),
    say(F, "科技先锋基金的详情", on_fund("科技先锋", "get_fund_detail")),
    say(F, "查看基金 绿色能源主题 的详情", on_fund("绿色能源主题", "get_fund_detail")),
    say(F, "基金 {fund:科技先锋} 的详情", by_id("科技先锋", "get_fund_detail")),
    say(F, "查看基金{fund:稳健增长一号}", by_id("稳健增长一号", "get_fund_detail")),
    say(F, "稳健增长一号基金的信息", on_fund("稳健增长一号", "get_fund_detail")),
    say(F, "details of fund Beta Balanced", on_fund("Beta Balanced", "get_fund_detail")),
    say(F, "Beta Balanced fund details", on_fund("Beta Balanced", "get_fund_detail")),
    say(F, "show fund {fund:绿色能源主题}", by_id("绿色能源主题", "get_fund_detail")),
    say(F, "info about fund #{fund:科技先锋}", by_id("科技先锋", "get_fund_detail")),
    say(F, "details for 科技先锋", on_fund("科技先锋", "get_fund_detail")),
    # ---------------------------------------------------------------- funds: create
    say(F, "创建一个叫 晨星成长 的基金", call("create_fund", fund_name="晨星成长")),
    say(F, "帮我创建一个叫「Alpha Two」的基金，备注是测试用", call("create_fund", fund_name="Alpha Two", remarks="测试用")),
    say(F, "新建基金 红利精选", call("create_fund", fund_name="红利精选")),
    say(F, "请新建一个名为蓝筹优选的基金", call("create_fund", fund_name="蓝筹优选")),
    say(F, "创建基金，名称为稳健增长二号，备注为以债券为主", call("create_fund", fund_name="稳健增长二号", remarks="以债券为主")),
    say(F, "新建一个基金：名称是消费升级，风险等级是R3", call("create_fund", fund_name="消费升级", remarks="风险等级：R3")),
    say(F, "添加基金「海外配置」，备注：QDII", call("create_fund", fund_name="海外配置", remarks="QDII")),
    say(F, "创建一只新基金，名字叫医疗健康", call("create_fund", fund_name="医疗健康")),
    say(F, "打开新建基金表单，名称为晨光一号", call("create_fund", fund_name="晨光一号")),
    say(F, "create a fund called Alpha", call("create_fund", fund_name="Alpha")),
    say(F, 'Create a new fund named "Gamma Growth" with remarks for testing',
        call("create_fund", fund_name="Gamma Growth", remarks="for testing")),
    say(F, "create fund with name Delta Income and remarks monthly payout",
        call("create_fund", fund_name="Delta Income", remarks="monthly payout")),
    say(F, "please add a new fund named Omega", call("create_fund", fund_name="Omega")),
    say(F, "create a new fund, name: Sigma Value, type: equity",
        call("create_fund", fund_name="Sigma Value", remarks="type：equity")),
    say(F, "open the new fund form, name: Kappa", call("create_fund", fund_name="Kappa")),
    say(F, "craete a fund called Theta", call("create_fund", fund_name="Theta")),
    say(F, "帮我建一个基金"),
    say(F, "create a new fund"),
    say(F, "show me the new fund form"),
    # ---------------------------------------------------------------- funds: update
    say(F, "把科技先锋基金的备注改成 聚焦人工智能", on_fund("科技先锋", "update_fund", remarks="聚焦人工智能")),
    say(F, "把科技先锋的备注改为AI主题", on_fund("科技先锋", "update_fund", remarks="AI主题")),
    say(F, "将基金 {fund:科技先锋} 的备注修改为 长期持有", by_id("科技先锋", "update_fund", remarks="长期持有")),
    say(F, "基金{fund:绿色能源主题}备注改成光伏", by_id("绿色能源主题", "update_fund", remarks="光伏")),
    say(F, "把绿色能源主题基金改名为绿色未来", on_fund("绿色能源主题", "update_fund", fund_name="绿色未来")),
    say(F, "把基金 {fund:稳健增长一号} 改名为稳健增长A", by_id("稳健增长一号", "update_fund", fund_name="稳健增长A")),
    say(F, "change the remarks of fund Beta Balanced to rebalanced yearly",
        on_fund("Beta Balanced", "update_fund", remarks="rebalanced yearly")),
    say(F, "set the remarks of fund {fund:科技先锋} to AI focus", by_id("科技先锋", "update_fund", remarks="AI focus")),
    say(F, "update fund {fund:绿色能源主题} remarks to solar", by_id("绿色能源主题", "update_fund", remarks="solar")),
    say(F, "rename fund Beta Balanced to Beta Global", on_fund("Beta Balanced", "update_fund", fund_name="Beta Global")),
    say(F, "rename fund {fund:科技先锋} to Tech Pioneer", by_id("科技先锋", "update_fund", fund_name="Tech Pioneer")),
    # ---------------------------------------------------------------- funds: enable and disable
    say(F, "启用货币市场旧份额", on_fund("货币市场旧份额", "enable_fund")),
    say(F, "启用基金 {fund:货币市场旧份额}", by_id("货币市场旧份额", "enable_fund")),
    say(F, "重新启用货币市场旧份额基金", on_fund("货币市场旧份额", "enable_fund")),
    say(F, "enable fund {fund:货币市场旧份额}", by_id("货币市场旧份额", "enable_fund")),
    say(F, "please re-enable the 货币市场旧份额 fund", on_fund("货币市场旧份额", "enable_fund")),
    say(F, "停用基金 {fund:绿色能源主题}", by_id("绿色能源主题", "disable_fund")),
    say(F, "停用科技先锋基金", on_fund("科技先锋", "disable_fund")),
    say(F, "禁用 Beta Balanced", on_fund("Beta Balanced", "disable_fund")),
    say(F, "麻烦停用一下稳健增长一号", on_fund("稳健增长一号", "disable_fund")),
    say(F, "disable the Beta Balanced fund", on_fund("Beta Balanced", "disable_fund")),
    say(F, "disable fund #{fund:科技先锋}", by_id("科技先锋", "disable_fund")),
    say(F, "deactivate fund {fund:绿色能源主题}", by_id("绿色能源主题", "disable_fund")),
    say(F, "dsiable fund {fund:科技先锋}", by_id("科技先锋", "disable_fund")),
    # ---------------------------------------------------------------- the desk
    say(D, "查询订单 HT20260301001", call("order_query", order_no="HT20260301001")),
    say(D, "帮我查一下订单HT20260301002", call("order_query", order_no="HT20260301002")),
    say(D, "订单 HT20260301003 的详情", call("order_query", order_no="HT20260301003")),
    say(D, "看看订单ＨＴ２０２６０３０１００１", call("order_query", order_no="HT20260301001")),
    say(D, "look up order HT20260301001", call("order_query", order_no="HT20260301001")),
    say(D, "Check order #ht20260301003 please", call("order_query", order_no="HT20260301003")),
    say(D, "status of order HT20260301002?", call("order_query", order_no="HT20260301002")),
    say(D, "HT20260301001", call("order_query", order_no="HT20260301001")),
    say(D, "客人要提前离店，订单 HT20260301001", checkout("HT20260301001")),
    say(D, "HT20260301002 的客人想提前退房", checkout("HT20260301002")),
    say(D, "订单HT20260301003，客人提前离店了，帮忙处理一下", checkout("HT20260301003")),
    say(D, "guest wants to check out early, order HT20260301001", checkout("HT20260301001")),
    say(D, "Early check-out for order HT20260301002", checkout("HT20260301002")),
    say(D, "Order HT20260301003: the guest is checking out early", checkout("HT20260301003")),
    # Words to a third party are a proposal quoting them as typed; "yes" sends them (issue 26).
    say(D, "告诉客人：退款已登记，请留意到账", proposed(channel="downstream", content="退款已登记，请留意到账")),
    say(D, "告诉客人：退款已登记，请留意到账 || 是", sent(channel="downstream", content="退款已登记，请留意到账")),
    say(D, "给供应商发消息：订单 HT20260301001 能否退款？ || yes",
        sent(channel="upstream", content="订单 HT20260301001 能否退款？", order_no="HT20260301001")),
    say(D, "tell the guest: your refund is registered || ok", sent(channel="downstream", content="your refund is registered")),
    say(D, "send the supplier a message: please confirm HT20260301002 || yes",
        sent(channel="upstream", content="please confirm HT20260301002", order_no="HT20260301002")),
    say(D, "看看供应商的回复", call("message_list", channel="upstream")),
    say(D, "查看客人的消息", call("message_list", channel="downstream")),
    say(D, "查看供应商未读消息", call("message_list", channel="upstream", unread_only=True)),
    say(D, "read the supplier messages", call("message_list", channel="upstream")),
    say(D, "show unread guest messages", call("message_list", channel="downstream", unread_only=True)),
    say(D, "what did the supplier say about HT20260301001?", call("message_list", channel="upstream", order_no="HT20260301001")),
    say(D, "为订单 HT20260301001 登记退款", call("refund", order_no="HT20260301001")),
    say(D, "给HT20260301002办理退款", call("refund", order_no="HT20260301002")),
    say(D, "refund order HT20260301003", call("refund", order_no="HT20260301003")),
    say(D, "register a refund for HT20260301001", call("refund", order_no="HT20260301001")),
    say(D, "客人要提前离店"),
]

CORPUS += [
    # ---------------------------------------------------------------- not understood: text only
    say(R, "今天天气怎么样"),
    say(R, "tell me a joke"),
    say(R, "讲个笑话"),
    say(R, "去农田工作", call("assign_building", building_id="@building:城东农田")),
    say(F, "你好"),
    say(F, "hello there"),
    say(D, "今天忙吗"),
    say(D, "what's the weather like"),
    say(R, "<script>alert(1)</script>"),
    say(F, "基金的收益率怎么样"),
    # ---------------------------------------------------------------- must not act
    refuse(R, "Bob 有多少面包？"),
    refuse(R, "Bob有多少木材"),
    refuse(R, "How much flour does Bob have?"),
    refuse(R, "what does Carol have?"),
    refuse(R, "show me Dave's inventory"),
    refuse(R, "Eve 的资源有哪些"),
    refuse(R, "把 Bob 的 flour 给我"),
    refuse(R, "把Bob的5个面粉转给Carol"),
    refuse(R, "让 Bob 给我 5 个面粉"),
    refuse(R, "从 Bob 那里拿 5 个面包"),
    refuse(R, "give me Bob's flour"),
    refuse(R, "transfer 5 of Bob’s flour to me"),
    refuse(R, "take 5 flour from Bob"),
    refuse(R, "make Bob give me his flour"),
    refuse(R, "不要给Bob转面包"),
    refuse(R, "别把面粉给 Carol"),
    refuse(R, "don't give Bob any bread"),
    refuse(R, "Do not transfer 5 flour to Dave"),
    refuse(R, "如果我给Bob 5个面包会怎样？"),
    refuse(R, "what happens if I give 5 bread to Bob?"),
    refuse(R, "what if I sell 2 flour for 9"),
    refuse(R, "我给Bob转了面包吗？"),
    refuse(R, "did I give Bob 5 bread?"),
    refuse(R, "Have you transferred the flour to Carol?"),
    refuse(R, "怎么给Bob转面包？"),
    refuse(R, "how do I give bread to Bob?"),
    refuse(R, "how can I claim a bounty?"),
    refuse(R, "我应该给Bob转面包吗"),
    refuse(R, "should I give Bob 5 flour?"),
    refuse(R, "can I give Bob 2 bread?"),
    refuse(R, "不要领取悬赏 {bounty:修缮城墙}"),
    refuse(R, "领取悬赏了吗"),
    refuse(R, "假如我辞职会怎么样"),
    refuse(R, "never send wood to Frank"),
    refuse(F, "不要停用科技先锋"),
    refuse(F, "don't disable the Beta Balanced fund"),
    refuse(F, "如果停用科技先锋会怎样"),
    # A question about what was done is answered by the look-up that shows it; nothing is written (round 26).
    say(F, "科技先锋停用了吗？", call("list_funds", fund_name="科技先锋")),
    refuse(F, "did you create the fund Alpha?"),
    refuse(F, "how do I create a fund?"),
    refuse(F, "怎么新建基金"),
    refuse(D, "不要给订单 HT20260301001 退款"),
    # A question about a refund is answered by the order's look-up, which shows it; nothing is written
    # (was a refusal with no call at all; parser4 made the past question about an order a look-up).
    say(D, "HT20260301001 退款了吗", call("order_query", order_no="HT20260301001")),
    refuse(D, "what if we refund order HT20260301002?"),
    refuse(D, "don't refund HT20260301003"),
    refuse(D, "how do I register a refund?"),
]

CORPUS += [
    # ---------------------------------------------------------------- found while probing: other word orders
    say(R, "给Bob五个面包", give("Bob", "bread", 5)),
    say(R, "送Carol 2个苹果", give("Carol", "apple", 2)),
    say(R, "转给Bob 3个小麦", give("Bob", "wheat", 3)),
    say(R, "我想给Bob 5个面包", give("Bob", "bread", 5)),
    say(R, "I want to give Bob 3 bread", give("Bob", "bread", 3)),
    say(R, "我手里有啥", call("get_my_resources")),
    say(R, "show me what I have", call("get_my_resources")),
    say(R, "do I have any flour?", call("get_my_resources")),
    say(R, "领个悬赏", claim_first()),
    say(R, "I'd like to claim bounty number {bounty:建造磨坊}", call("claim_bounty", bounty_id="@bounty:建造磨坊")),
    say(R, "把悬赏{bounty:修缮城墙}领了", call("claim_bounty", bounty_id="@bounty:修缮城墙")),
    say(R, "have a rest", call("rest")),
    say(R, "I'd like to buy two breads", buy("面包", 2)),
    refuse(R, "Bob手里有多少小麦"),
    refuse(R, "steal Bob's bread"),
    refuse(R, "先别给Bob转面包"),
    refuse(R, "is it ok to give Bob bread?"),
    say(F, "现在有几个基金", call("list_funds")),
    say(F, "科技先锋怎么样", on_fund("科技先锋", "get_fund_detail")),
    say(F, "tell me about the Beta Balanced fund", on_fund("Beta Balanced", "get_fund_detail")),
    say(F, "创建基金：名称 量化对冲，备注 试运行", call("create_fund", fund_name="量化对冲", remarks="试运行")),
    say(F, "add fund Quant Hedge", call("create_fund", fund_name="Quant Hedge")),
    say(F, "new fund named Quant Hedge with type equity and risk level R4",
        call("create_fund", fund_name="Quant Hedge", remarks="type：equity；risk level：R4")),
    say(F, "科技先锋的备注改为AI", on_fund("科技先锋", "update_fund", remarks="AI")),
    say(F, "修改科技先锋的备注为AI", on_fund("科技先锋", "update_fund", remarks="AI")),
    say(F, "change fund {fund:科技先锋}'s name to Tech", by_id("科技先锋", "update_fund", fund_name="Tech")),
    say(F, "把科技先锋停用", on_fund("科技先锋", "disable_fund")),
    say(F, "turn off fund {fund:科技先锋}", by_id("科技先锋", "disable_fund")),
    say(F, "please disable fund number {fund:绿色能源主题}", by_id("绿色能源主题", "disable_fund")),
    say(F, "删除科技先锋", on_fund("科技先锋", "disable_fund")),
    say(F, "open the fund form"),
    say(D, "订单HT20260301002什么情况", call("order_query", order_no="HT20260301002")),
    say(D, "what about order HT20260301003", call("order_query", order_no="HT20260301003")),
    say(D, "给客人发消息说退款已经登记了 || 好", sent(channel="downstream", content="退款已经登记了")),
    say(D, "查看上游频道", call("message_list", channel="upstream")),
    say(D, "退款 HT20260301003", call("refund", order_no="HT20260301003")),
]

CORPUS += [
    # ---------------------------------------------------------------- found while probing: must not act
    refuse(R, "Carol的面包有多少"),
    refuse(R, "does Bob have any bread?"),
    refuse(R, "Is Bob holding any flour?"),
    refuse(R, "帮我从Dave那拿10个木材"),
    refuse(R, "move 5 bread from Bob to me"),
    refuse(R, "我是不是已经签到了"),
    refuse(R, "我之前给Bob转过面包吗"),
    refuse(R, "Bob给了我5个面包"),
    refuse(R, "Bob gave me 5 bread"),
    refuse(R, "Have I eaten today?"),
    refuse(R, "How do I check in?"),
    refuse(R, "请不要转账"),
    refuse(R, "suppose I give Eve 3 apples"),
    # A yes-or-no question is answered by the look-up and writes nothing (was: no call at all).
    say(F, "科技先锋是启用的吗", on_fund("科技先锋", "get_fund_detail")),
    say(F, "is 科技先锋 enabled?", on_fund("科技先锋", "get_fund_detail")),
    refuse(F, "should I disable fund 2?"),
    refuse(F, "Please do not disable 科技先锋"),
    refuse(D, "客人问能不能提前离店，订单HT20260301001，先别处理"),
    refuse(D, "don't message the supplier"),
]

CORPUS += [
    # ---------------------------------------------------------------- issue 26: people the parser never met
    # The shop sells some goods by the bundle: "5 wood" is one bundle, asked about, never 5 bundles.
    say(R, "5 wood from the shop", [("list_shop_items", {})]),
    say(R, "buy 5 wood from the shop", [("list_shop_items", {})]),
    say(R, "从商店买两个面包", buy("面包", 2)),
    say(R, "去商店买个苹果", buy("苹果", 1)),
    say(R, "buy bread at the store", buy("面包", 1)),
    # A price "each" is multiplied into the total the market takes, and the reply says so.
    say(R, "sell 2 flour at 9 each", call("create_market_order", resource_type="flour", quantity=2, price=18)),
    say(R, "卖3个面粉，每个5块", call("create_market_order", resource_type="flour", quantity=3, price=15)),
    say(R, "把2个面包挂到市场上卖，一共10", call("create_market_order", resource_type="bread", quantity=2, price=10)),
    # Someone else is hungry: ask who, never eat it yourself.
    say(R, "give another resident a bread, she's hungry"),
    say(R, "帮我把仨面包给Bob", give("Bob", "bread", 3)),
    say(R, "bob needs 2 bread, send them over", give("Bob", "bread", 2)),
    say(R, "send carol a couple of apples", give("Carol", "apple", 2)),
    # 鲍勃 is how Chinese writes Bob: the resident called Bob (a held-out writer's 戴夫 was Dave).
    say(R, "给鲍勃两个面包", give("Bob", "bread", 2)),
    say(R, "给Bob转两个面包 || 再转两个", give("Bob", "bread", 2) + give("Bob", "bread", 2)),
    say(R, "give 2 bread to Bob || same to Carol", give("Bob", "bread", 2) + give("Carol", "bread", 2)),
    say(R, "give bread to Bob || three", give("Bob", "bread", 3)),
    say(R, "给Bob面包 || 两个", give("Bob", "bread", 2)),
    say(R, "give 2 bread to Bob || no, three", give("Bob", "bread", 2) + give("Bob", "bread", 3)),
    say(R, "接第二个悬赏", [("list_bounties", {"status": "open"}), ("claim_bounty", {"bounty_id": "@bounty:为面包坊送面粉"})]),
    # A bounty named by what its title describes, in either language: claimed (it asked which, before round 6).
    say(R, "I'll take the wall repair bounty", [("list_bounties", {"status": "open"}), ("claim_bounty", {"bounty_id": "@bounty:修缮城墙"})]),
    say(R, "领取城墙那个悬赏", call("claim_bounty", bounty_id="@bounty:修缮城墙")),
    say(R, "我来接建造磨坊这个任务", call("claim_bounty", bounty_id="@bounty:建造磨坊")),
    say(R, "claim the first bounty", [("list_bounties", {"status": "open"}), ("claim_bounty", {"bounty_id": "@bounty:修缮城墙"})]),
    say(R, "cancel my market order", [("list_market_orders", {})]),
    say(R, "撤掉我在市场上的挂单", [("list_market_orders", {})]),
    say(R, "check me in", call("checkin")),
    say(R, "我要签个到", call("checkin")),
    say(R, "I want to eat an apple", call("eat", resource_type="apple")),
    say(R, "来个苹果吃", call("eat", resource_type="apple")),
    say(R, "去睡一会", call("rest")),
    say(R, "I'd like to work at the mill", call("assign_building", building_id="@building:西市磨坊")),
    say(R, "我想去西市磨坊上班", call("assign_building", building_id="@building:西市磨坊")),
    say(R, "how many credits have I got", call("get_my_status")),
    say(R, "精力还剩多少", call("get_my_status")),
    refuse(R, "Bob给了我5个面包"),
    refuse(R, "Carol gave me 2 apples yesterday"),
    say(F, "how many funds are there", call("list_funds")),
    say(F, "基金一共有多少个", call("list_funds")),
    say(F, "the active ones", call("list_funds", active_only=True)),
    say(F, "show me the active ones", call("list_funds", active_only=True)),
    say(F, "enable 货币市场", on_fund("货币市场旧份额", "enable_fund", typed="货币市场")),
    say(F, "what's up with 稳健增长", on_fund("稳健增长一号", "get_fund_detail")),
    say(F, "稳健增长的情况", on_fund("稳健增长一号", "get_fund_detail")),
    # The first word of one fund's name is that fund: a proposal naming it whole, for staff to confirm (round 26; five
    # held-out writers expected it, none a question back).
    say(F, "turn the Beta fund off", on_fund("Beta Balanced", "disable_fund")),
    say(F, "look up the green energy fund"),
    # The dangerous case of the issue: the name whole, type and risk kept in the remarks and said so.
    say(F, "create a fund called Harbor Income, bond type, low risk",
        call("create_fund", fund_name="Harbor Income", remarks="bond type；low risk")),
    say(F, "新建基金叫海港收益，债券型，低风险", call("create_fund", fund_name="海港收益", remarks="债券型；低风险")),
    say(F, 'make a new fund "Harbor Income"', call("create_fund", fund_name="Harbor Income")),
    say(F, "科技先锋备注改一下：关注芯片", on_fund("科技先锋", "update_fund", remarks="关注芯片")),
    say(D, "the guest wants to leave a day early, sort it out"),
    say(D, "the guest wants to leave a day early, sort it out || HT20260301001", checkout("HT20260301001")),
    say(D, "客人想提前一天走，订单HT20260301001，处理一下", checkout("HT20260301001")),
    say(D, "the guest in HT20260301002 wants to leave a day early, sort it out", checkout("HT20260301002")),
    say(D, "process a refund for HT20260301003", call("refund", order_no="HT20260301003")),
    say(D, "办个退款 HT20260301001", call("refund", order_no="HT20260301001")),
    say(D, "HT20260301002 refund please", call("refund", order_no="HT20260301002")),
    # The other dangerous case: a message to the guest is a proposal quoting it whole; nothing is sent.
    say(D, "跟客人说一声，退款正在处理中，请耐心等待", proposed(channel="downstream", content="退款正在处理中，请耐心等待")),
    say(D, "跟客人说一声，退款正在处理中，请耐心等待 || 好的",
        sent(channel="downstream", content="退款正在处理中，请耐心等待")),
    say(D, "跟客人说一声，退款正在处理中，请耐心等待 || 不", proposed(channel="downstream", content="退款正在处理中，请耐心等待")),
    say(D, "let the guest know the refund is being processed", proposed(channel="downstream", content="the refund is being processed")),
    say(D, "let the guest know the refund is being processed || yes",
        sent(channel="downstream", content="the refund is being processed")),
    say(D, "what did the supplier reply", call("message_list", channel="upstream")),
    say(D, "供应商回了没", call("message_list", channel="upstream")),
    say(D, "供应商怎么说的", call("message_list", channel="upstream")),
    say(D, "read the hotel's reply for HT20260301001", call("message_list", channel="upstream", order_no="HT20260301001")),
    say(D, "HT20260301001 的客人有没有发消息", call("message_list", channel="downstream", order_no="HT20260301001")),
]

CORPUS += [
    # ---------------------------------------------------------------- issue 26, second round of new people
    say(R, "hey can u send dave 3 wood", give("Dave", "wood", 3)),
    say(R, "give eve 1 apple pls", give("Eve", "apple", 1)),
    say(R, "Bob要两个面包，给他吧", give("Bob", "bread", 2)),
    say(R, "帮忙送Carol三袋面粉", give("Carol", "flour", 3)),
    say(R, "把面包给Frank两个", give("Frank", "bread", 2)),
    say(R, "transfer 4 flour → Dave", give("Dave", "flour", 4)),
    say(R, "gimme my inventory", call("get_my_resources")),
    say(R, "what's in my bag", call("get_my_resources")),
    say(R, "我口袋里有啥", call("get_my_resources")),
    say(R, "how much bread have i got left", call("get_my_resources")),
    say(R, "i need a nap", call("rest")),
    say(R, "累死了，歇会儿", call("rest")),
    say(R, "feed me", call("eat")),
    say(R, "吃个面包垫垫", call("eat", resource_type="bread")),
    say(R, "apply for the bakery job", call("assign_building", building_id="@building:长安面包坊")),
    say(R, "我想去伐木场干活", call("assign_building", building_id="@building:终南伐木场")),
    say(R, "quit", call("unassign_building")),
    say(R, "不干了，辞职", call("unassign_building")),
    say(R, "what's for sale at the shop", call("list_shop_items")),
    say(R, "商店卖些啥", call("list_shop_items")),
    say(R, "buy 2 apples from the shop", buy("苹果", 2)),
    say(R, "买一袋面粉", buy("一袋面粉", 1)),
    say(R, "买3个苹果", buy("苹果", 3)),
    say(R, "grab a loaf from the store", buy("面包", 1)),
    say(R, "put 3 wheat on the market for 12", call("create_market_order", resource_type="wheat", quantity=3, price=12)),
    say(R, "sell my 2 bread for 10 total", call("create_market_order", resource_type="bread", quantity=2, price=10)),
    say(R, "list 5 flour on the market at 3 each", call("create_market_order", resource_type="flour", quantity=5, price=15)),
    say(R, "出售两个面包，单价6", call("create_market_order", resource_type="bread", quantity=2, price=12)),
    say(R, "sell 2 flour"),
    say(R, "sell 2 flour || 10", call("create_market_order", resource_type="flour", quantity=2, price=10)),
    say(R, "卖两个面粉 || 12", call("create_market_order", resource_type="flour", quantity=2, price=12)),
    say(R, "sell flour for 10"),
    say(R, "what's on the market today", call("list_market_orders")),
    say(R, "市场上都有啥", call("list_market_orders")),
    say(R, "buy Carol's wheat", [("list_market_orders", {}), ("accept_market_order", {"order_id": "@market:Carol"})]),
    say(R, "I want the wood Dave is selling", [("list_market_orders", {}), ("accept_market_order", {"order_id": "@market:Dave"})]),
    say(R, "取消我的挂单", [("list_market_orders", {})]),
    say(R, "any bounties?", call("list_bounties", status="open")),
    say(R, "接修缮城墙", call("claim_bounty", bounty_id="@bounty:修缮城墙")),
    say(R, "claim the mill bounty", [("list_bounties", {"status": "open"}), ("claim_bounty", {"bounty_id": "@bounty:建造磨坊"})]),
    say(R, "领第一个悬赏", claim_first()),
    say(R, "城墙修好了，交任务", call("complete_bounty", bounty_id="@bounty:修缮城墙")),
    say(R, "post in city chat: anyone selling stone?", call("chat", content="anyone selling stone?")),
    say(R, "在频道里喊一声：收木头", call("chat", content="收木头")),
    say(R, "who's Bob", call("find_agent", name="Bob")),
    say(R, "Bob的编号", call("find_agent", name="Bob")),
    say(R, "what's my energy", call("get_my_status")),
    say(R, "我还有多少钱", call("get_my_status")),
    refuse(R, "how do I sell flour?"),
    refuse(R, "别卖面包"),
    say(F, "list all funds please", call("list_funds")),
    say(F, "what funds do we have", call("list_funds")),
    say(F, "有几只基金", call("list_funds")),
    say(F, "启用中的基金有哪些", call("list_funds", active_only=True)),
    say(F, "tell me about 科技先锋", on_fund("科技先锋", "get_fund_detail")),
    say(F, "科技先锋现在什么状态", on_fund("科技先锋", "get_fund_detail")),
    say(F, "Beta Balanced details", on_fund("Beta Balanced", "get_fund_detail")),
    say(F, "绿色能源那个基金怎么样", on_fund("绿色能源主题", "get_fund_detail")),
    say(F, "reactivate the money market one"),
    say(F, "switch on 货币市场旧份额", on_fund("货币市场旧份额", "enable_fund")),
    say(F, "把货币市场旧份额重新启用", on_fund("货币市场旧份额", "enable_fund")),
    say(F, "turn off 绿色能源", on_fund("绿色能源主题", "disable_fund")),
    say(F, "禁用Beta", on_fund("Beta Balanced", "disable_fund", typed="Beta")),
    say(F, "停用稳健增长", on_fund("稳健增长一号", "disable_fund", typed="稳健增长")),
    say(F, "new fund: Silver Line", call("create_fund", fund_name="Silver Line")),
    say(F, 'create fund "Silver Line" remarks: conservative', call("create_fund", fund_name="Silver Line", remarks="conservative")),
    say(F, "建一个新基金，叫白银一号，备注稳健", call("create_fund", fund_name="白银一号", remarks="稳健")),
    say(F, "add a fund named Polaris, equity, high risk", call("create_fund", fund_name="Polaris", remarks="equity；high risk")),
    say(F, "set 科技先锋 remarks to AI and chips", on_fund("科技先锋", "update_fund", remarks="AI and chips")),
    say(F, "把绿色能源主题的备注改成：光伏+储能", on_fund("绿色能源主题", "update_fund", remarks="光伏+储能")),
    say(F, "rename 科技先锋 to 科技先锋二期", on_fund("科技先锋", "update_fund", fund_name="科技先锋二期")),
    refuse(F, "don't touch 科技先锋"),
    refuse(F, "what would happen if I disabled Beta Balanced?"),
    say(D, "look up HT20260301002", call("order_query", order_no="HT20260301002")),
    say(D, "HT20260301003是什么情况", call("order_query", order_no="HT20260301003")),
    say(D, "pull up order ht20260301001", call("order_query", order_no="HT20260301001")),
    say(D, "guest of HT20260301003 is leaving early", checkout("HT20260301003")),
    say(D, "HT20260301001 客人明天就走，比原计划早", checkout("HT20260301001")),
    say(D, "客人要早走，单号HT20260301002", checkout("HT20260301002")),
    say(D, "refund HT20260301001", call("refund", order_no="HT20260301001")),
    say(D, "把HT20260301002的钱退给客人", call("refund", order_no="HT20260301002")),
    say(D, "tell the supplier: the guest left early, please confirm the refund", proposed(channel="upstream", content="the guest left early, please confirm the refund")),
    say(D, "跟供应商说：客人已提前离店，请确认退款 || 发吧",
        sent(channel="upstream", content="客人已提前离店，请确认退款")),
    say(D, "notify the guest that the refund is approved || yes",
        sent(channel="downstream", content="the refund is approved")),
    say(D, "any new messages from the guest?", call("message_list", channel="downstream", unread_only=True)),
    say(D, "客人发了什么消息", call("message_list", channel="downstream")),
    say(D, "check the supplier channel", call("message_list", channel="upstream")),
    say(D, "did the supplier reply to HT20260301001?", call("message_list", channel="upstream", order_no="HT20260301001")),
    refuse(D, "don't refund HT20260301001 yet"),
    refuse(D, "如果退款HT20260301002会怎样"),
    refuse(D, "别告诉客人"),
    say(D, "what's the weather"),
]

CORPUS += [
    # ---------------------------------------------------------------- issue 26, round 3: the one gate
    # Negations and "not now" in front of an action (restraint.py), whichever reader saw the action.
    refuse(R, "今天先不要签到"),
    refuse(R, "暂时不去农田上班"),
    refuse(R, "不用帮我签到了"),
    refuse(R, "hold off on eating for now"),
    refuse(R, "not yet, don't check me in"),
    refuse(R, "wait on the bounty, I'll claim it later"),
    refuse(D, "先别给HT20260301001退款"),
    refuse(D, "not today, no refund for HT20260301002"),
    refuse(D, "HT20260301003的退款暂时不办"),
    refuse(F, "先不要停用科技先锋"),
    refuse(F, "hold off on disabling Beta Balanced"),
    # Questions and musings about an action: answered or declined, never acted on.
    refuse(R, "我要是去农田工作能挣多少？"),
    refuse(R, "how much would I earn if I worked at the farm?"),
    refuse(R, "I was thinking about quitting my job, what do you think?"),
    refuse(R, "我在考虑要不要辞职，你觉得呢"),
    refuse(R, "should I sell my wood?"),
    refuse(D, "要不要给HT20260301001退款？"),
    say(R, "how am I doing? hungry?", call("get_my_status")),
    say(R, "我现在饿不饿？要吃东西吗", call("get_my_status")),
    # Someone else's things: the speaker acts on their own goods only.
    refuse(R, "cancel Dave's listing"),
    refuse(R, "取消Dave的挂单"),
    refuse(R, "withdraw Carol's wheat listing"),
    # A new thing's name is the whole phrase after "called"/"叫", up to the clause's end.
    say(R, "build a quarry called South Hill Quarry", call("construct_building", kind="quarry", name="South Hill Quarry")),
    say(R, "construct a farm named West Farm, please", call("construct_building", kind="farm", name="West Farm")),
    say(R, "建造 mill 叫 东门老磨坊", call("construct_building", kind="mill", name="东门老磨坊")),
    # The user's words to a guest or supplier are the proposal, verbatim, less the order reference.
    say(D, "告诉客人：您的退款已在处理中，请耐心等待。订单号HT20260301001 || 是",
        sent(channel="downstream", content="您的退款已在处理中，请耐心等待。", order_no="HT20260301001")),
    say(D, "let the guest know: your refund is on its way! (order HT20260301003) || yes",
        sent(channel="downstream", content="your refund is on its way!", order_no="HT20260301003")),
    say(D, "跟供应商说：客人今晚就退房，麻烦尽快回复！HT20260301002 || 发吧",
        sent(channel="upstream", content="客人今晚就退房，麻烦尽快回复！", order_no="HT20260301002")),
]

CORPUS += [
    # ---------------------------------------------------------------- issue 26, round 3: more of each class
    refuse(R, "今天就不签到了"),
    refuse(R, "let's not sell the wheat"),
    refuse(R, "no checking in today"),
    refuse(R, "先不吃了，等会儿再说"),
    refuse(R, "晚点再去伐木场上班"),
    refuse(D, "HT20260301002先不用退款"),
    refuse(F, "暂时别启用货币市场旧份额"),
    # A question about one order is answered by reading it (round 14); nothing is written.
    say(D, "HT20260301001可以退款吗？", call("order_query", order_no="HT20260301001")),
    refuse(R, "去伐木场干活一天能挣多少？"),
    refuse(R, "do you think I should claim the wall bounty?"),
    say(R, "am I hungry? should I eat?", call("get_my_status")),
    say(D, "可以帮我给HT20260301001退款吗", call("refund", order_no="HT20260301001")),
    say(R, "能不能给Bob转10个木材？", give("Bob", "wood", 10)),
    say(R, "build a farm called Green Valley Farm", call("construct_building", kind="farm", name="Green Valley Farm")),
    say(R, "应聘城东农田的工作", apply_at("城东农田")),
    say(R, "去伐木场找份活干", call("assign_building", building_id="@building:终南伐木场")),
    say(R, "卖4个面包，每个5块", call("create_market_order", resource_type="bread", quantity=4, price=20)),
    say(R, "10个面粉挂单卖，一共40信用点", call("create_market_order", resource_type="flour", quantity=10, price=40)),
]

CORPUS += [
    # The words after "tell …:" are the message, not a request of their own ("can we refund …?").
    say(D, "发消息给供应商：请确认HT20260301001是否可以退款，谢谢！ || 好的",
        sent(channel="upstream", content="请确认HT20260301001是否可以退款，谢谢！", order_no="HT20260301001")),
    say(D, "message the supplier: can we refund HT20260301001? the guest left early. || yes",
        sent(channel="upstream", content="can we refund HT20260301001? the guest left early.", order_no="HT20260301001")),
    say(D, "跟客人说一声，房间已经准备好了。订单HT20260301003 || 发吧",
        sent(channel="downstream", content="房间已经准备好了。", order_no="HT20260301003")),
    say(D, "check the supplier channel: any replies?", call("message_list", channel="upstream")),
    refuse(R, "Bob的面包吃一个"),
    refuse(R, "delete Frank's flour order"),
]

CORPUS += [
    # A kind in either language outside the new name, and the name whole.
    say(R, "建个农田，名字叫西郊农田", call("construct_building", kind="farm", name="西郊农田")),
    say(R, "盖一座磨坊，取名为河畔磨坊", call("construct_building", kind="mill", name="河畔磨坊")),
    say(R, "build a new farm, call it Sunny Acres", call("construct_building", kind="farm", name="Sunny Acres")),
    refuse(R, "先别建农田，叫西郊农田的那个以后再说"),
]

CORPUS += [
    # Buying a listing by its seller: the seller's possessive is what is bought, not a refusal.
    say(R, "市场上Frank的面粉我要了", [("list_market_orders", {}), ("accept_market_order", {"order_id": "@market:Frank"})]),
    say(R, "Carol挂的小麦我买了", [("list_market_orders", {}), ("accept_market_order", {"order_id": "@market:Carol"})]),
]

CORPUS += [
    # "The" bounty: the only claimed one.
    say(R, "接修缮城墙 || 任务完成了，交了吧",
        [("claim_bounty", {"bounty_id": "@bounty:修缮城墙"}), ("list_bounties", {"status": "claimed", "mine": True}),
         ("complete_bounty", {"bounty_id": "@bounty:修缮城墙"})]),
    say(R, "claim 修缮城墙 || I finished the bounty, hand it in",
        [("claim_bounty", {"bounty_id": "@bounty:修缮城墙"}), ("list_bounties", {"status": "claimed", "mine": True}),
         ("complete_bounty", {"bounty_id": "@bounty:修缮城墙"})]),
    refuse(R, "悬赏还没做完，先别交"),
]

CORPUS += [
    # "The second one" after a list: this message's verb on the row the last turn showed (since round 6
    # picked from that list as shown, not from a second listing).
    say(R, "有哪些悬赏 || 接第二个",
        [("list_bounties", {"status": "open"}), ("claim_bounty", {"bounty_id": "@bounty:为面包坊送面粉"})]),
    say(R, "any bounties? || claim the first one",
        [("list_bounties", {"status": "open"}), ("claim_bounty", {"bounty_id": "@bounty:修缮城墙"})]),
    say(R, "有哪些悬赏 || 第二个先不接", [("list_bounties", {"status": "open"})]),
]

CORPUS += [
    # Round 3 (issue 26), invented by the parser's authors: classes of phrasing, not held-out phrases.
    # A price per unit wherever its clause says so; a total said outright is never multiplied.
    say(R, "put 2 bread on the market for 5 credits apiece", call("create_market_order", resource_type="bread", quantity=2, price=10)),
    say(R, "sell 3 flour, 4 credits per unit", call("create_market_order", resource_type="flour", quantity=3, price=12)),
    say(R, "挂3个面粉到市场，单价4信用点", call("create_market_order", resource_type="flour", quantity=3, price=12)),
    say(R, "卖3个面粉，每个4块，总共12", call("create_market_order", resource_type="flour", quantity=3, price=12)),
    # A count of the shop's lots ("three bundles", "两捆") buys that many lots; an item named with words after it.
    say(R, "order three bundles of wood from the shop", buy("一捆木材", 3)),
    say(R, "帮我在商店买两捆木材", buy("一捆木材", 2)),
    say(R, "商店里买一袋面粉给我", buy("一袋面粉", 1)),
    # Buying another resident's goods is buying their listing; taking them is not.
    say(R, "去市场把Carol的小麦买下来", [("list_market_orders", {}), ("accept_market_order", {"order_id": "@market:Carol"})]),
    refuse(R, "把Carol的小麦偷过来"),
    # A kind of building where one works is a job there, not a check-in; a kind's other name builds it.
    say(R, "我想去磨坊上班", call("assign_building", building_id="@building:西市磨坊")),
    say(R, "建一个农场叫北坡农场", call("construct_building", kind="farm", name="北坡农场")),
    # Questions the shop's or the market's list answers: never a sale, never a resident look-up.
    say(R, "面包多少钱一个", call("list_shop_items")),
    say(R, "who is selling wheat?", call("list_market_orders")),
    say(R, "有人在卖面粉吗", call("list_market_orders")),
    say(R, "which bounties are already taken?", call("list_bounties", status="claimed")),
    # Picking from the board the last turn showed, in other words than "claim".
    say(R, "有什么悬赏 || 我要第二个",
        [("list_bounties", {"status": "open"}), ("claim_bounty", {"bounty_id": "@bounty:为面包坊送面粉"})]),
    say(R, "what bounties are there || I'll go with the third one",
        [("list_bounties", {"status": "open"}), ("claim_bounty", {"bounty_id": "@bounty:建造磨坊"})]),
    # Funds: which are running, switching one off or on in other words, a look-up by part of a name.
    say(F, "哪些基金在运行", call("list_funds", active_only=True)),
    say(F, "which funds are running right now?", call("list_funds", active_only=True)),
    say(F, "停用的基金有哪些", call("list_funds")),
    say(F, "what's the status of the funds", call("list_funds")),
    say(F, "停掉科技先锋", on_fund("科技先锋", "disable_fund")),
    say(F, "货币市场旧份额再开起来", on_fund("货币市场旧份额", "enable_fund")),
    say(F, "turn the Beta Balanced fund back on", on_fund("Beta Balanced", "enable_fund")),
    say(F, "查一下Beta", on_fund("Beta Balanced", "get_fund_detail")),
    # A fund no one has: nothing is called, the reply names the miss (test_understanding.py checks it).
    say(F, "帮我看看晨星那个基金"),
    say(F, "please disable the Unicorn fund"),
]

CORPUS += [
    # The desk: leaving sooner in other words is the early check-out; a desk message with "早" in it never crashes.
    say(D, "the guest in HT20260301002 needs to go home one day sooner, can you handle it", checkout("HT20260301002")),
    # What a guest said is no message to them: the order is looked up, nothing is proposed.
    say(D, "HT20260301002的客人说房间太吵了，想换房", call("order_query", order_no="HT20260301002")),
    # A resident's name after a particle ("hand over 4 flour to Bob") and a count after the resource.
    say(R, "please hand over 4 flour to Bob, thanks!", give("Bob", "flour", 4)),
    say(R, "I want to sell my wheat, 2 of them for 10 credits", call("create_market_order", resource_type="wheat", quantity=2, price=10)),
    say(R, "面粉卖掉吧，3个，一共12", call("create_market_order", resource_type="flour", quantity=3, price=12)),
    refuse(R, "sell wheat for 10"),
    # "where" is no typo of "were": a question the buildings' list answers.
    say(R, "where can I work?", call("list_buildings")),
    say(R, "哪里还招人", call("list_buildings")),
]

CORPUS += [
    # A number word is a count, never a typo of a resource ("four" is not "flour").
    say(R, "sell five flour at four each", call("create_market_order", resource_type="flour", quantity=5, price=20)),
    # "一个卖4块" / "4块一个": a price for one, whichever side it stands.
    say(R, "帮我卖掉5个面粉，一个卖4块", call("create_market_order", resource_type="flour", quantity=5, price=20)),
    say(R, "卖5个面粉，4块一个", call("create_market_order", resource_type="flour", quantity=5, price=20)),
    # A polite request in the middle of a sentence is a request, not a question.
    say(R, "hey, when you get a chance could you give Bob three flour? he ran out", give("Bob", "flour", 3)),
    say(R, "clock me in please", call("checkin")),
    # Not wanting to go on working is quitting; not wanting to check in is a no.
    say(R, "我不想在面包坊干了", call("unassign_building")),
    refuse(R, "我不想签到"),
    say(R, "我还有多少精力", call("get_my_status")),
    say(F, "科技先锋改名叫科技先锋二期", on_fund("科技先锋", "update_fund", fund_name="科技先锋二期")),
    say(F, "change the name of Beta Balanced to Beta Global", on_fund("Beta Balanced", "update_fund", fund_name="Beta Global")),
    # A yes-or-no question a look-up answers is answered by it, and nothing is written.
    say(F, "is Beta Balanced active?", on_fund("Beta Balanced", "get_fund_detail")),
    say(R, "are there any bounties left?", call("list_bounties", status="open")),
]

CORPUS += [
    # A fund by its id in any word order (the frames, now that the any-order phrases are retired).
    say(F, "turn off fund 2", by_id("科技先锋", "disable_fund")),
    say(F, "把基金3停用", by_id("绿色能源主题", "disable_fund")),
    say(F, "switch fund 5 on", by_id("货币市场旧份额", "enable_fund")),
]

CORPUS += [
    # Someone else hungry, the reason first: a gift, never the speaker eating.
    say(R, "Eve饿了，给她一个面包", give("Eve", "bread", 1)),
    say(R, "Bob's hungry, give him a bread", give("Bob", "bread", 1)),
    say(R, "给我吃个面包", call("eat", resource_type="bread")),
    say(R, "Dave is out of bread, can you pass him two?", give("Dave", "bread", 2)),
    # One's own listing, in other words: never another resident's goods.
    say(R, "把我在市场的挂单撤了", call("list_market_orders")),
    say(R, "get rid of my market order", call("list_market_orders")),
]

CORPUS += [
    # Counts in groups are read whole; a count left open is asked for, never read as one (parser4).
    say(R, "一打小麦转给Carol", give("Carol", "wheat", 12)),
    say(R, "pass Carol two dozen wheat", give("Carol", "wheat", 24)),
    say(R, "半打苹果送给Bob", give("Bob", "apple", 6)),
    say(R, "give Bob half a dozen wheat", give("Bob", "wheat", 6)),
    say(R, "给Bob转几个苹果"),
    say(R, "pass Dave a few loaves"),
    # The board in the state asked for: taken by someone, finished, or the speaker's own claims.
    say(R, "有哪几个悬赏被别人领走了", call("list_bounties", status="claimed")),
    say(R, "做完的悬赏都有哪些", call("list_bounties", status="completed")),
    say(R, "which bounties did I take?", call("list_bounties", status="claimed", mine=True)),
    say(R, "list the bounties someone has taken", call("list_bounties", status="claimed")),
    say(R, "any finished bounties?", call("list_bounties", status="completed")),
]

CORPUS += [
    # "him", "她": the resident the same sentence named earlier, the reason first (parser4).
    say(R, "Carol说她木头用完了，拿三个木材给她", give("Carol", "wood", 3)),
    say(R, "Dave hasn't eaten since morning, send him one apple", give("Dave", "apple", 1)),
]

CORPUS += [
    # What a building costs is the buildings' list; a resident's stock and balance in other words (parser4).
    say(R, "建一个农田大概要花多少", call("list_buildings")),
    say(R, "how expensive is it to build a farm?", call("list_buildings")),
    say(R, "我手头还剩多少小麦", call("get_my_resources")),
    say(R, "how much wheat have I got left?", call("get_my_resources")),
    say(R, "check my wallet", call("get_my_status")),
    say(R, "我的余额是多少", call("get_my_status")),
    say(R, "商店里能买到什么", call("list_shop_items")),
    say(R, "what could I get at the store?", call("list_shop_items")),
    # "have" as an order to eat, first in its clause; "I have" only tells.
    say(R, "go on, have a loaf of bread", call("eat", resource_type="bread")),
    refuse(R, "I have an apple and two loaves"),
    say(R, "you're worn out, take a break", call("rest")),
    say(R, "去躺一会儿吧", call("rest")),
]

CORPUS += [
    # A fund's whole name inside extra words, or its numeral typed as digits, is that fund (parser4).
    say(F, "把科技先锋那只停掉", on_fund("科技先锋", "disable_fund")),
    say(F, "re-enable the tech fund (科技先锋)", on_fund("科技先锋", "enable_fund")),
    say(F, "停用科技先锋 please", on_fund("科技先锋", "disable_fund")),
]

CORPUS += [
    # What happened to an order is its look-up; the conversation with one side is its channel (parser4).
    say(D, "HT20260301002这单退了没有", call("order_query", order_no="HT20260301002")),
    say(D, "was HT20260301002 refunded yet?", call("order_query", order_no="HT20260301002")),
    say(D, "我想看和供应商的沟通记录", call("message_list", channel="upstream")),
    say(D, "open the chat history with the guest", call("message_list", channel="downstream")),
    say(D, "HT20260301002 这单帮客人退掉", call("refund", order_no="HT20260301002")),
]

CORPUS += [
    # A question about a fund's remarks is its detail; new remarks in quotes are taken whole (parser4).
    say(F, "科技先锋的备注写的是啥", on_fund("科技先锋", "get_fund_detail")),
    say(F, "show me the note on 科技先锋", on_fund("科技先锋", "get_fund_detail")),
    say(F, "科技先锋备注改一下，就写「关注半导体」", on_fund("科技先锋", "update_fund", remarks="关注半导体")),
]

CORPUS += [
    # Whether an order was refunded is asked of its look-up, never a refund (parser4).
    say(D, "did HT20260301002 get refunded or not?", call("order_query", order_no="HT20260301002")),
    say(D, "HT20260301002 退没退", call("order_query", order_no="HT20260301002")),
]

CORPUS += [
    # "it", "它", "这单", "him": this message's verb on what the last message named (parser4).
    # The calls are the whole conversation's: the earlier message's look-up first.
    say(F, "绿色能源主题怎么样 || 把它停用", on_fund("绿色能源主题", "get_fund_detail") + on_fund("绿色能源主题", "disable_fund")),
    say(F, "tell me about 科技先锋 || turn it off", on_fund("科技先锋", "get_fund_detail") + on_fund("科技先锋", "disable_fund")),
    say(D, "查一下 HT20260301002 || 这单退款吧", call("order_query", order_no="HT20260301002") + call("refund", order_no="HT20260301002")),
    say(D, "look up HT20260301003 || refund it", call("order_query", order_no="HT20260301003") + call("refund", order_no="HT20260301003")),
    say(R, "Bob怎么样 || 给他两个面包", give("Bob", "bread", 2)),
    say(F, "有哪些基金 || 停用它", call("list_funds")),
]

CORPUS += [
    # Round 5. Words to a guest or supplier wait for staff as a pending action; who is addressed is
    # the one a verb turns to, never a guest or supplier named as the subject.
    say(D, "HT20260301002的客人想延住一晚，帮忙告诉供应商",
        proposed(channel="upstream", content="HT20260301002的客人想延住一晚", order_no="HT20260301002")),
    say(D, "the guest of HT20260301003 will arrive after midnight. please let the hotel know",
        proposed(channel="upstream", content="the guest of HT20260301003 will arrive after midnight.", order_no="HT20260301003")),
    say(D, "告诉HT20260301001的客人，可以提前到上午十点入住",
        proposed(channel="downstream", content="可以提前到上午十点入住", order_no="HT20260301001")),
    say(D, "remind the guest of HT20260301002 that breakfast ends at 10",
        proposed(channel="downstream", content="breakfast ends at 10", order_no="HT20260301002")),
    say(D, "给客人发个消息：前台24小时有人", proposed(channel="downstream", content="前台24小时有人")),
    say(D, "把跟供应商的聊天记录拿出来看看", call("message_list", channel="upstream")),
    # The order the last message named fills the one a message to its guest leaves open.
    say(D, "看看订单HT20260301003 || 跟这个订单的客人说：接机车已安排",
        call("order_query", order_no="HT20260301003")
        + proposed(channel="downstream", content="接机车已安排", order_no="HT20260301003")),
    # What the speaker already did is told, not asked for.
    refuse(R, "我前天已经送过Carol两个苹果了"),
    refuse(R, "I already sent Bob 2 wood this morning"),
    # After a verb of saying and its colon, the words are said, whatever they mention.
    say(R, "在城市频道说一句：明早集市开张", call("chat", content="明早集市开张")),
    say(R, "post on the city channel: eat well, rest well", call("chat", content="eat well, rest well")),
    # A new fund's name ends at its sentence; remarks after 备注写 are the words without their label.
    say(F, "开一个新基金，名字叫沪深精选，备注写指数增强", call("create_fund", fund_name="沪深精选", remarks="指数增强")),
    say(F, "create a fund named Nordic Value. bonds, medium risk",
        call("create_fund", fund_name="Nordic Value", remarks="bonds；medium risk")),
]

CORPUS += [
    # Round 5. After the one told, the words told; the fund's id as people label it.
    say(D, "通知HT20260301003的客人，明早六点叫醒", proposed(channel="downstream", content="明早六点叫醒", order_no="HT20260301003")),
    say(D, "tell the guest of HT20260301001, the pool opens at 8",
        proposed(channel="downstream", content="the pool opens at 8", order_no="HT20260301001")),
    say(F, "4号基金的详情", call("get_fund_detail", fund_id="@fund:Beta Balanced")),
    say(F, "turn off fund id 3", call("disable_fund", fund_id="@fund:绿色能源主题")),
    # The active funds, asked for by leaving the disabled ones out or by counting.
    say(F, "只看启用的基金，停用的不要", call("list_funds", active_only=True)),
    say(F, "how many enabled funds do we have, ignore the disabled ones", call("list_funds", active_only=True)),
    # The funds whose name holds some words; then "it" is the one fund that list showed.
    say(F, "名称里含“先锋”的基金", call("list_funds", fund_name="先锋")),
    say(F, "any funds with Balanced in the name?", call("list_funds", fund_name="Balanced")),
    say(F, "名称里含“先锋”的基金 || 停用它",
        call("list_funds", fund_name="先锋") + on_fund("科技先锋", "disable_fund")),
    # The answer to what the last turn asked back: the two messages read as one.
    say(F, "帮我开个新基金 || 就叫“远航成长”", call("create_fund", fund_name="远航成长")),
    say(F, "I want to start a new fund || call it Harbor Light", call("create_fund", fund_name="Harbor Light")),
    # A message that asks for the order the last message named takes it.
    say(D, "HT20260301001 的客人不来了 || 那给他退款吧",
        call("order_query", order_no="HT20260301001") + call("refund", order_no="HT20260301001")),
]

CORPUS += [
    # Round 5. What a listing for sale on the market is: the residents' orders, not the shop.
    say(R, "anything for sale on the market today?", call("list_market_orders")),
    # The item named after the shop was shown for a purchase is that purchase.
    say(R, "我想去商店买些吃的 || 面包吧，要三个", call("list_shop_items") + buy("面包", 3)),
]
