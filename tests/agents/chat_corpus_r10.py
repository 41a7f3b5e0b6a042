"""Round 10 of issue 26: a tuning batch written like the held-out scenario writers write, not like a prober.

Round 9's lesson was that a helper's lists of negation forms are another distribution from what the
writers of the frozen files write: j's misses were reason clauses, past reports told with a time of
day, and a no inside a free-text slot. This batch was written first (parser11), before round 10
changed the parser, as messages residents, fund managers, front desk staff and city operators would
send, zh and en half each, about 40 % of them must-not-act of the kinds people really write: past
reports, feelings, plans, what others said, advice and how-to questions, conditions still to come,
retractions, quoted text, a no with its reason, another resident's goods. None is taken from a
held-out file.

The cases use the held-out format (``tests/agents/heldout/README.md``) and are scored by the same
runner (``test_chat_corpus_r10.py``).
"""

from __future__ import annotations

R_ZH, R_EN = "resident", "resident"


def _agent(name):
    return {"agent": name}


def call(tool: str, **args) -> dict:
    return {"kind": "call", "tool": tool, "args": args}


NONE = {"kind": "none"}
ASK = {"kind": "ask"}


def give(to: str, resource: str, quantity: int) -> dict:
    return call("transfer_resource", to_agent_id=_agent(to), resource_type=resource, quantity=quantity)


def buy(item: str, quantity: int = 1) -> dict:
    return call("purchase", item_id={"shop_item": item}, quantity=quantity)


def fund(tool: str, name: str, **args) -> dict:
    return call(tool, fund_id={"fund": name}, **args)


def text(value: str) -> dict:
    return {"text": value}


def contains(value: str) -> dict:
    return {"contains": value}


# (lang, persona, agent, message, expect[, turns])
_ROWS: list[tuple] = [
    # ------------------------------------------------------------------ residents asking, zh
    ("zh", "resident", "Bob", "Eve刚搬来什么都没有，给她送三个苹果过去吧", give("Eve", "apple", 3)),
    ("zh", "resident", "Alice", "面粉我用不完，分五个给Bob，他那边缺", give("Bob", "flour", 5)),
    ("zh", "resident", "Frank", "帮我给Carol转4块石料，她说要修院墙", give("Carol", "stone", 4)),
    ("zh", "resident", "Dave", "我今天还没吃东西，饿得慌，吃个面包", call("eat", resource_type="bread")),
    ("zh", "resident", "Eve", "去商店帮我买两个苹果，我晚饭要用", buy("苹果", 2)),
    ("zh", "resident", "Carol", "把我挂的那单小麦撤下来吧，价格定低了", call("cancel_market_order", order_id={"market_order": "Carol"})),
    ("zh", "resident", "Alice", "Dave挂的那些木材我都要了", call("accept_market_order", order_id={"market_order": "Dave"})),
    ("zh", "resident", "Carol", "我想把6个木材挂到市场上卖，总共30信用点", call("create_market_order", resource_type="wood", quantity=6, price=30)),
    ("zh", "resident", "Eve", "我想去城东农田干活，帮我报个名", call("assign_building", building_id={"building": "城东农田"})),
    ("zh", "resident", "Bob", "今天的卡帮我打一下", call("checkin")),
    ("zh", "resident", "Dave", "搬了一上午木头，让我歇一会儿", call("rest")),
    ("zh", "resident", "Frank", "修缮城墙那个悬赏我来接", call("claim_bounty", bounty_id={"bounty": "修缮城墙"})),
    ("zh", "resident", "Carol", "在城市频道说一声：收木材，价格好商量", call("chat", content=text("收木材，价格好商量"))),
    ("zh", "resident", "Frank", "磨坊的活我不想干了，帮我辞掉", call("unassign_building")),
    ("zh", "resident", "Eve", "商店里的苹果给我来一个", buy("苹果", 1)),
    ("zh", "resident", "Carol", "建个采石场，就叫南山采石场", call("construct_building", kind="quarry", name=text("南山采石场"))),
    ("zh", "resident", "Bob", "Alice那边小麦不够磨了，给她送十个小麦过去", give("Alice", "wheat", 10)),
    ("zh", "resident", "Alice", "给Eve两个面包吧，她说找了一整天工作还没吃饭", give("Eve", "bread", 2)),
    ("zh", "resident", "Frank", "为面包坊送面粉这个任务我接了", call("claim_bounty", bounty_id={"bounty": "为面包坊送面粉"})),
    ("zh", "resident", "Alice", "能不能麻烦你帮我在商店买一袋面粉呀，谢谢", buy("一袋面粉", 1)),
    ("zh", "resident", "Bob", "把两个苹果给Eve吧，我不爱吃苹果", give("Eve", "apple", 2)),
    ("zh", "resident", "Dave", "帮我买两个面包，我自己还要吃的", buy("面包", 2)),
    ("zh", "resident", "Frank", "早上好，先帮我打个卡，一会儿还要去磨坊", call("checkin")),
    ("zh", "resident", "Eve", "我身上就两个苹果，先吃一个垫垫肚子", call("eat", resource_type="apple")),
    ("zh", "resident", "Carol", "市场上Frank那单面粉我买了，刚好做面包用", call("accept_market_order", order_id={"market_order": "Frank"})),
    # ------------------------------------------------------------------ residents asking, en
    ("en", "resident", "Bob", "Eve looks really hungry, could you give her 2 apples from me?", give("Eve", "apple", 2)),
    ("en", "resident", "Alice", "please send Bob 3 flour, he's been asking all week", give("Bob", "flour", 3)),
    ("en", "resident", "Frank", "move 5 stone over to Carol, she's fixing her roof", give("Carol", "stone", 5)),
    ("en", "resident", "Dave", "I'm starving, eat my bread", call("eat", resource_type="bread")),
    ("en", "resident", "Eve", "could you buy me two apples at the shop? thanks", buy("苹果", 2)),
    ("en", "resident", "Carol", "take my wheat listing down, nobody is buying it", call("cancel_market_order", order_id={"market_order": "Carol"})),
    ("en", "resident", "Alice", "I'll buy Frank's flour on the market", call("accept_market_order", order_id={"market_order": "Frank"})),
    ("en", "resident", "Dave", "put 4 wood up for sale at 5 credits each", call("create_market_order", resource_type="wood", quantity=4, price=20)),
    ("en", "resident", "Eve", "I need a job, sign me up at the lumberyard", call("assign_building", building_id={"building": "终南伐木场"})),
    ("en", "resident", "Bob", "check me in for today's shift", call("checkin")),
    ("en", "resident", "Frank", "I've been at the mill since dawn, let me rest a bit", call("rest")),
    ("en", "resident", "Carol", "I'd like to take the wall repair bounty", call("claim_bounty", bounty_id={"bounty": "修缮城墙"})),
    ("en", "resident", "Alice", "post in the city channel: fresh bread at noon", call("chat", content=text("fresh bread at noon"))),
    ("en", "resident", "Dave", "I'm done with the lumberyard, quit it for me", call("unassign_building")),
    ("en", "resident", "Eve", "grab a bag of flour from the shop for me", buy("一袋面粉", 1)),
    ("en", "resident", "Carol", "build a farm called Riverside Farm", call("construct_building", kind="farm", name=text("Riverside Farm"))),
    ("en", "resident", "Bob", "Dave says he's out of food, send him one apple please", give("Dave", "apple", 1)),
    ("en", "resident", "Alice", "give Eve a loaf of bread, she just got here and has nothing", give("Eve", "bread", 1)),
    ("en", "resident", "Frank", "would you mind sending Carol 2 stone? she asked nicely", give("Carol", "stone", 2)),
    ("en", "resident", "Eve", "I was wondering if you could claim the mill bounty for me", call("claim_bounty", bounty_id={"bounty": "建造磨坊"})),
    ("en", "resident", "Dave", "sell 3 wood for 12 in total, I need the credits for food", call("create_market_order", resource_type="wood", quantity=3, price=12)),
    ("en", "resident", "Bob", "give Eve 2 apples, I don't really like them anyway", give("Eve", "apple", 2)),
    ("en", "resident", "Alice", "buy 2 bread, I'll need them for the trip tomorrow", buy("面包", 2)),
    ("en", "resident", "Frank", "it's been a long week, I'm quitting the mill today", call("unassign_building")),
    # ------------------------------------------------------------------ residents' questions
    ("zh", "resident", "Bob", "我现在还有多少小麦？", call("get_my_resources")),
    ("zh", "resident", "Eve", "我现在还剩多少信用点啊", call("get_my_status")),
    ("zh", "resident", "Alice", "最近有哪些悬赏能接", call("list_bounties")),
    ("zh", "resident", "Dave", "哪个地方工资最高", call("list_buildings")),
    ("zh", "resident", "Carol", "市场上有人卖面粉吗", call("list_market_orders")),
    ("zh", "resident", "Frank", "商店里一车石料多少钱", call("list_shop_items")),
    ("en", "resident", "Bob", "how many apples do I have left?", call("get_my_resources")),
    ("en", "resident", "Carol", "what's my balance right now?", call("get_my_status")),
    ("en", "resident", "Frank", "which bounties are still open?", call("list_bounties")),
    ("en", "resident", "Eve", "where are they hiring right now?", call("list_buildings")),
    ("en", "resident", "Alice", "is anyone selling wood at the moment?", call("list_market_orders")),
    ("en", "resident", "Dave", "what's Carol's id?", call("find_agent", name={"fragment_of": "Carol"})),
    # ------------------------------------------------------------------ operators talking to a resident
    ("zh", "operator", "Eve", "Eve，去商店买一个面包吃吧", buy("面包", 1)),
    ("zh", "operator", "Bob", "Bob你精力不多了，先休息一下", call("rest")),
    ("en", "operator", "Dave", "Dave, your shift starts now, clock in", call("checkin")),
    ("en", "operator", "Frank", "Frank, go ahead and give Eve 2 flour, she's new in town", give("Eve", "flour", 2)),
    # ------------------------------------------------------------------ fund manager
    ("zh", "fund manager", "基金助理", "麻烦把科技先锋停用一下，本季度不再申购", fund("disable_fund", "科技先锋")),
    ("zh", "fund manager", "基金助理", "货币市场旧份额需要重新启用，清算要用", fund("enable_fund", "货币市场旧份额")),
    ("zh", "fund manager", "基金助理", "把绿色能源主题的备注改成：光伏与储能为主", fund("update_fund", "绿色能源主题", remarks=text("光伏与储能为主"))),
    ("zh", "fund manager", "基金助理", "新建一个基金，名称叫稳健收益二号，备注：纯债", call("create_fund", fund_name=text("稳健收益二号"), remarks=text("纯债"))),
    ("zh", "fund manager", "基金助理", "帮我看看Beta Balanced现在的情况", fund("get_fund_detail", "Beta Balanced")),
    ("zh", "fund manager", "基金助理", "现在启用着的基金有几只", call("list_funds", active_only=True)),
    ("zh", "fund manager", "基金助理", "稳健增长一号改名叫稳健增长优选", fund("update_fund", "稳健增长一号", fund_name=text("稳健增长优选"))),
    ("zh", "fund manager", "基金助理", "把所有基金列出来我看一下", call("list_funds")),
    ("zh", "fund manager", "基金助理", "科技先锋的备注写的什么", fund("get_fund_detail", "科技先锋")),
    ("zh", "fund manager", "基金助理", "客户都赎回了，绿色能源主题停掉吧", fund("disable_fund", "绿色能源主题")),
    ("en", "fund manager", "基金助理", "please disable Beta Balanced, the client pulled out", fund("disable_fund", "Beta Balanced")),
    ("en", "fund manager", "基金助理", "switch 货币市场旧份额 back on for the audit", fund("enable_fund", "货币市场旧份额")),
    ("en", "fund manager", "基金助理", "change the remarks on 科技先锋 to: semiconductors and AI", fund("update_fund", "科技先锋", remarks=text("semiconductors and AI"))),
    ("en", "fund manager", "基金助理", "create a fund named Harbor Growth, remarks: small caps", call("create_fund", fund_name=text("Harbor Growth"), remarks=text("small caps"))),
    ("en", "fund manager", "基金助理", "how is 绿色能源主题 set up right now?", fund("get_fund_detail", "绿色能源主题")),
    ("en", "fund manager", "基金助理", "list the funds that are active", call("list_funds", active_only=True)),
    ("en", "fund manager", "基金助理", "rename 稳健增长一号 to Steady Growth One", fund("update_fund", "稳健增长一号", fund_name=text("Steady Growth One"))),
    ("en", "fund manager", "基金助理", "show me all our funds", call("list_funds")),
    ("en", "fund manager", "基金助理", "we're winding down 科技先锋, please disable it", fund("disable_fund", "科技先锋")),
    # ------------------------------------------------------------------ front desk
    ("zh", "front desk", "前台助理", "查一下HT20260301002，看看几号退房", call("order_query", order_no="HT20260301002")),
    ("zh", "front desk", "前台助理", "HT20260301001 的客人航班取消了来不了，帮他退款", call("refund", order_no="HT20260301001")),
    ("zh", "front desk", "前台助理", "跟供应商说一声，HT20260301003的客人要加一张床",
     call("message_send", channel="upstream", order_no="HT20260301003", content=contains("加一张床"))),
    ("zh", "front desk", "前台助理", "告诉HT20260301002的客人：早餐在二楼，七点开始",
     call("message_send", channel="downstream", order_no="HT20260301002", content=text("早餐在二楼，七点开始"))),
    ("zh", "front desk", "前台助理", "供应商那边回消息了吗", call("message_list", channel="upstream")),
    ("zh", "front desk", "前台助理", "看看HT20260301001跟客人的聊天记录", call("message_list", channel="downstream", order_no="HT20260301001")),
    ("zh", "front desk", "前台助理", "客人那边有没有没读的消息", call("message_list", channel="downstream", unread_only=True)),
    ("en", "front desk", "前台助理", "pull up HT20260301003 for me", call("order_query", order_no="HT20260301003")),
    ("en", "front desk", "前台助理", "the guest on HT20260301002 has a family emergency, please refund the booking", call("refund", order_no="HT20260301002")),
    ("en", "front desk", "前台助理", "let the supplier know the guest on HT20260301001 will arrive around 11pm",
     call("message_send", channel="upstream", order_no="HT20260301001", content=contains("11pm"))),
    ("en", "front desk", "前台助理", "message the guest on HT20260301003: your room is ready for early check-in",
     call("message_send", channel="downstream", order_no="HT20260301003", content=text("your room is ready for early check-in"))),
    ("en", "front desk", "前台助理", "did the supplier reply about HT20260301002?", call("message_list", channel="upstream", order_no="HT20260301002")),
    ("en", "front desk", "前台助理", "any unread messages from guests?", call("message_list", channel="downstream", unread_only=True)),
    ("en", "front desk", "前台助理", "who is the guest on HT20260301001?", call("order_query", order_no="HT20260301001")),
    # ------------------------------------------------------------------ asked back: a name, a count or a what is missing
    ("zh", "resident", "Dave", "给Carol送点木头", ASK),
    ("zh", "resident", "Bob", "帮我转3个小麦", ASK),
    ("zh", "fund manager", "基金助理", "帮我停用一只基金", ASK),
    ("zh", "front desk", "前台助理", "给客人发个消息", ASK),
    ("zh", "resident", "Carol", "帮我建个房子", ASK),
    ("en", "resident", "Bob", "sell some of my wheat", ASK),
    ("en", "fund manager", "基金助理", "rename the fund to Alpha Plus", ASK),
    ("en", "front desk", "前台助理", "refund the booking please", ASK),
    ("en", "resident", "Frank", "send some stone to Eve", ASK),
    ("en", "front desk", "前台助理", "tell the supplier", ASK),
    # ------------------------------------------------------------------ must not act: past reports
    ("zh", "resident", "Frank", "昨天下午给Carol送了三块石料，她挺高兴的", NONE),
    ("zh", "resident", "Eve", "今早在商店买了两个苹果，挺甜的", NONE),
    ("zh", "resident", "Bob", "上午已经打过卡了", NONE),
    ("zh", "resident", "Dave", "刚才吃了个面包，现在不饿了", NONE),
    ("zh", "front desk", "前台助理", "HT20260301002 上午已经给客人发过早餐通知了", NONE),
    ("zh", "fund manager", "基金助理", "科技先锋的备注上周五已经改过了", NONE),
    ("zh", "resident", "Alice", "中午把五个面粉卖给了Frank，一共二十", NONE),
    ("en", "resident", "Bob", "gave Eve two apples this morning, she was so happy", NONE),
    ("en", "resident", "Alice", "I bought a bag of flour yesterday afternoon", NONE),
    ("en", "resident", "Bob", "checked in at the farm around 7, all good", NONE),
    ("en", "front desk", "前台助理", "we refunded HT20260301001 on Monday already", NONE),
    ("en", "fund manager", "基金助理", "I renamed Beta Balanced last week, fyi", NONE),
    ("en", "resident", "Dave", "had a bread for lunch, feeling much better now", NONE),
    # ------------------------------------------------------------------ feelings, small talk
    ("zh", "resident", "Dave", "Carol今天心情不太好，好像是木材卖不出去", NONE),
    ("zh", "resident", "Alice", "唉，面包又涨价了", NONE),
    ("zh", "resident", "Eve", "饿是有点饿，不过还能撑到晚饭", NONE),
    ("zh", "resident", "Bob", "这个月小麦收成不错，开心", NONE),
    ("en", "resident", "Frank", "ugh, the mill was so noisy today", NONE),
    ("en", "resident", "Eve", "I'm a bit hungry but dinner's soon, I'll wait", NONE),
    ("en", "resident", "Carol", "Frank seems upset about the flour prices", NONE),
    ("en", "front desk", "前台助理", "busy night at the desk, thanks for the help so far", NONE),
    # ------------------------------------------------------------------ plans
    ("zh", "resident", "Alice", "下午我打算去商店买点面粉，到时候再说", NONE),
    ("zh", "resident", "Frank", "等工钱攒够了我再考虑建个磨坊", NONE),
    ("zh", "resident", "Dave", "周末想把多余的木材挂出去卖", NONE),
    ("zh", "resident", "Bob", "过两天可能会给Eve送点苹果", NONE),
    ("en", "resident", "Carol", "planning to sell some wheat on the weekend", NONE),
    ("en", "resident", "Frank", "I'll probably quit the mill after the harvest", NONE),
    ("en", "resident", "Alice", "next month I want to build a bakery, just thinking ahead", NONE),
    ("en", "resident", "Frank", "thinking of giving Carol some stone once the wall is done", NONE),
    # ------------------------------------------------------------------ what others said
    ("zh", "resident", "Bob", "Carol说她明天要来买我的小麦", NONE),
    ("zh", "front desk", "前台助理", "HT20260301001 的客人说房间有点冷", NONE),
    ("zh", "front desk", "前台助理", "供应商说HT20260301003那间房明天才能确认", NONE),
    ("zh", "fund manager", "基金助理", "合规那边说科技先锋可能过阵子要停用", NONE),
    ("en", "resident", "Eve", "Bob told me he'd send me some wheat later", NONE),
    ("en", "front desk", "前台助理", "the guest on HT20260301002 said the wifi is slow", NONE),
    ("en", "fund manager", "基金助理", "compliance said they might ask us to disable 科技先锋 at some point", NONE),
    ("en", "resident", "Carol", "Eve mentioned she wants a job at the quarry", NONE),
    # ------------------------------------------------------------------ advice questions
    ("zh", "resident", "Carol", "你觉得我该把小麦卖了还是留着？", NONE),
    ("zh", "resident", "Frank", "现在建个面包坊划算吗", NONE),
    ("zh", "resident", "Bob", "要不要给Eve送点吃的呢，你怎么看", NONE),
    ("zh", "fund manager", "基金助理", "Beta Balanced 该不该停用？你给点建议", NONE),
    ("en", "resident", "Dave", "should I sell my wood now or wait for better prices?", NONE),
    ("en", "resident", "Carol", "is it worth building a farm with my credits?", NONE),
    ("en", "resident", "Frank", "do you think I should quit the mill?", NONE),
    ("en", "fund manager", "基金助理", "would you disable Beta Balanced if you were me?", NONE),
    # ------------------------------------------------------------------ how-to questions
    ("zh", "resident", "Eve", "挂单的时候价格是总价还是单价？", NONE),
    ("zh", "resident", "Eve", "怎么给别人转资源？", NONE),
    ("zh", "front desk", "前台助理", "退款要走什么流程", NONE),
    ("zh", "fund manager", "基金助理", "基金改名要审批吗", NONE),
    ("en", "resident", "Eve", "how does checking in work here?", NONE),
    ("en", "resident", "Alice", "what happens when I claim a bounty?", NONE),
    ("en", "front desk", "前台助理", "how do I message a guest from here?", NONE),
    ("en", "fund manager", "基金助理", "can a disabled fund be renamed?", NONE),
    # ------------------------------------------------------------------ conditions still to come
    ("zh", "resident", "Alice", "要是Dave的木头降到20，就帮我买下来", NONE),
    ("zh", "front desk", "前台助理", "如果客人明天还没到，就给HT20260301003退款", NONE),
    ("zh", "resident", "Dave", "万一面包吃完了，再从商店买一个", NONE),
    ("zh", "resident", "Bob", "等Eve找到工作了再把苹果给她", NONE),
    ("en", "resident", "Alice", "if the price of wood drops, buy Dave's listing", NONE),
    ("en", "front desk", "前台助理", "if the guest doesn't show up by 6pm, refund HT20260301001", NONE),
    ("en", "resident", "Dave", "in case I run out of bread, buy one more later", NONE),
    ("en", "fund manager", "基金助理", "once the review is done, disable Beta Balanced", NONE),
    # ------------------------------------------------------------------ retractions
    ("zh", "resident", "Bob", "给Carol转5个小麦……哦不对，她已经有了，不用了", NONE),
    ("zh", "resident", "Eve", "帮我买个苹果，算了，我还有", NONE),
    ("zh", "fund manager", "基金助理", "停用科技先锋。等一下，先别，我再确认下", NONE),
    ("zh", "resident", "Carol", "把我那单小麦撤了——不，还是留着吧", NONE),
    ("en", "resident", "Bob", "send Eve 3 apples - wait, no, she already got some", NONE),
    ("en", "resident", "Alice", "buy a bag of flour. hmm, actually I still have plenty, skip it", NONE),
    ("en", "fund manager", "基金助理", "disable Beta Balanced... on second thought leave it", NONE),
    ("en", "front desk", "前台助理", "refund HT20260301002. oh wait, the guest changed plans, forget that", NONE),
    # ------------------------------------------------------------------ quoted text
    ("zh", "resident", "Bob", "频道里有人发“谁给我10个面包我就帮他盖房”，靠谱吗", NONE),
    ("zh", "front desk", "前台助理", "HT20260301001 的客人留言写着“请尽快退款”，我先记下来", NONE),
    ("zh", "resident", "Eve", "Carol门口挂着“木材大甩卖，五个只要二十”，哈哈", NONE),
    ("en", "resident", "Dave", "someone in the chat wrote 'send 5 wheat to Frank and get 10 back', sounds like a scam", NONE),
    ("en", "front desk", "前台助理", "the guest's note on HT20260301003 says 'refund me or else', I'll handle it myself", NONE),
    ("en", "resident", "Alice", "Frank's sign says 'free flour for the first 3 customers', is that real?", NONE),
    # ------------------------------------------------------------------ a no with its reason
    ("zh", "resident", "Dave", "别把木材卖了，我要留着盖房子", NONE),
    ("zh", "resident", "Alice", "面包先别吃，留着明天干活的时候吃", NONE),
    ("zh", "front desk", "前台助理", "先别退HT20260301001，客人还在考虑", NONE),
    ("zh", "fund manager", "基金助理", "先不要停用绿色能源主题，下周还有申购", NONE),
    ("zh", "resident", "Bob", "苹果不给Eve了，她刚吃过", NONE),
    ("en", "resident", "Bob", "don't give away my apples, I'm saving them for Eve's birthday", NONE),
    ("en", "resident", "Carol", "hold off on selling my wheat, prices are too low right now", NONE),
    ("en", "front desk", "前台助理", "please don't refund HT20260301003 yet, the guest might still come", NONE),
    ("en", "fund manager", "基金助理", "leave 科技先锋 enabled, we still have subscriptions coming in", NONE),
    ("en", "resident", "Frank", "no need to send Carol stone, she bought some herself", NONE),
    # ------------------------------------------------------------------ others' goods, things no tool does
    ("zh", "resident", "Eve", "把Carol的木材给我拿两个", NONE),
    ("zh", "resident", "Bob", "帮我把Dave挂的木材撤掉，太贵了", NONE),
    ("zh", "front desk", "前台助理", "帮张三把入住改到后天", NONE),
    ("en", "resident", "Eve", "sell Frank's flour for me", NONE),
    ("en", "resident", "Carol", "make Bob give me his apples", NONE),
    ("en", "front desk", "前台助理", "upgrade the guest on HT20260301002 to a suite", NONE),
    # ------------------------------------------------------------------ follow-ups to the last turn
    ("zh", "fund manager", "基金助理", "算了，先不动它", NONE, ["科技先锋现在什么情况"]),
    ("en", "resident", "Alice", "ok buy Dave's wood then", call("accept_market_order", order_id={"market_order": "Dave"}), ["what's on the market?"]),
    ("zh", "front desk", "前台助理", "先别退，等客人回电话再说", NONE, ["查一下HT20260301003"]),
    ("en", "fund manager", "基金助理", "ok, set its remarks to: under review", fund("update_fund", "Beta Balanced", remarks=text("under review")), ["show me Beta Balanced"]),
    ("zh", "resident", "Eve", "那买两个苹果吧", buy("苹果", 2), ["商店卖什么"]),
    ("en", "front desk", "前台助理", "the guest said they might cancel, keep an eye on it", NONE, ["look up HT20260301002"]),
]


# A second batch, written after the first batch's fixes and before any fix of its own: the same classes in
# other words (a past deed told without "already", someone's words, a plan, a would-but, a rhetorical no),
# to see whether the classes generalise, and requests that carry the same words yet ask now.
_ROWS_2: list[tuple] = [
    ("zh", "resident", "Dave", "昨晚把剩下的面包都吃了，今天得省着点", NONE),
    ("zh", "resident", "Alice", "前两天Frank给我转了五个面粉", NONE),
    ("zh", "resident", "Bob", "一小时前刚打过卡", NONE),
    ("zh", "resident", "Bob", "Eve说她不要苹果了", NONE),
    ("zh", "front desk", "前台助理", "HT20260301001的客人说他想退款，我先问问经理", NONE),
    ("zh", "front desk", "前台助理", "供应商表示HT20260301002可以免费升级房型", NONE),
    ("zh", "resident", "Dave", "听Carol说市场上的木材要涨价了", NONE),
    ("zh", "resident", "Dave", "要不要把木材卖掉呢，我再想想", NONE),
    ("zh", "resident", "Bob", "如果Eve明天还没找到工作，我就送她两个苹果", NONE),
    ("zh", "resident", "Alice", "面包我留着当晚饭，现在不吃", NONE),
    ("zh", "fund manager", "基金助理", "绿色能源主题的备注昨天下午就改好了", NONE),
    ("zh", "resident", "Bob", "这几个苹果是留给Eve的，别动", NONE),
    ("zh", "resident", "Carol", "帮我建个磨坊吧……钱好像不够，先算了", NONE),
    ("zh", "resident", "Eve", "Carol的小麦我也想买，但是太贵了", NONE),
    ("zh", "resident", "Frank", "你说我要不要辞掉磨坊的工作", NONE),
    ("zh", "resident", "Dave", "我自己的木头还不够用呢，哪有多的给Carol", NONE),
    ("zh", "resident", "Bob", "给Carol转小麦？她自己有十个呢", NONE),
    ("zh", "resident", "Bob", "昨天答应Eve的两个苹果，现在给她吧", give("Eve", "apple", 2)),
    ("zh", "resident", "Bob", "早上忘了打卡，现在补打一下", call("checkin")),
    ("zh", "resident", "Frank", "Carol说她缺石料，给她送3块过去吧", give("Carol", "stone", 3)),
    ("zh", "front desk", "前台助理", "客人说航班延误了，帮忙告诉供应商HT20260301002的客人会晚到",
     call("message_send", channel="upstream", order_no="HT20260301002", content=contains("晚到"))),
    ("zh", "resident", "Alice", "面粉用不完，挂3个到市场上，一共12", call("create_market_order", resource_type="flour", quantity=3, price=12)),
    ("en", "resident", "Dave", "sold 3 wood to Carol yesterday, she paid well", NONE),
    ("en", "resident", "Eve", "Bob gave me 2 apples earlier, so sweet of him", NONE),
    ("en", "front desk", "前台助理", "refunded HT20260301003 an hour ago, the guest confirmed", NONE),
    ("en", "fund manager", "基金助理", "disabled 科技先锋 on Monday per the committee", NONE),
    ("en", "resident", "Bob", "Frank says the mill needs more wheat", NONE),
    ("en", "front desk", "前台助理", "the supplier mentioned they could upgrade HT20260301001 for free", NONE),
    ("en", "resident", "Dave", "Carol reckons I should sell my wood now", NONE),
    ("en", "resident", "Alice", "I'll likely buy more bread after payday", NONE),
    ("en", "resident", "Bob", "if Eve still has no job next week, I'll send her some food", NONE),
    ("en", "resident", "Carol", "maybe cancel my wheat listing? not sure yet", NONE),
    ("en", "resident", "Frank", "I'm keeping my stone for the wall, don't list it", NONE),
    ("en", "resident", "Carol", "would you sell my wheat now if you were me?", NONE),
    ("en", "fund manager", "基金助理", "you think Beta Balanced should be turned off?", NONE),
    ("en", "front desk", "前台助理", "the guest on HT20260301002 wants a refund but I need to check with my manager first", NONE),
    ("en", "resident", "Bob", "no need to check me in, I'm off today", NONE),
    ("en", "resident", "Dave", "thanks but I'm not hungry, save the bread", NONE),
    ("en", "resident", "Dave", "I'd give Eve some bread but I only have one left", NONE),
    ("en", "resident", "Eve", "I was going to buy apples but the shop is too pricey", NONE),
    ("en", "resident", "Bob", "I promised Eve 2 apples yesterday, send them now", give("Eve", "apple", 2)),
    ("en", "resident", "Frank", "forgot to clock in this morning, do it now please", call("checkin")),
    ("en", "resident", "Frank", "Carol says she's short on stone, send her 3", give("Carol", "stone", 3)),
    ("en", "front desk", "前台助理", "the guest on HT20260301001 can't come anymore, process the refund", call("refund", order_no="HT20260301001")),
    ("en", "resident", "Alice", "I don't need the flour anymore, sell 3 of them for 12 total", call("create_market_order", resource_type="flour", quantity=3, price=12)),
]


# A third batch, written after batch 2's fixes and before any of its own: the desk's and the fund managers'
# must-not-act in the writers' manner (a guest's or supplier's words, a colleague's deed, a decision not
# yet taken, a draft not to save), beside requests with the same nouns that ask now.
_ROWS_3: list[tuple] = [
    ("zh", "front desk", "前台助理", "HT20260301003的客人投诉说房间有异味，想换房", NONE),
    ("zh", "front desk", "前台助理", "张三昨天已经退房了，订单没问题吧", NONE),
    ("zh", "front desk", "前台助理", "供应商回复说HT20260301001可以退，但要扣一晚房费", NONE),
    ("zh", "front desk", "前台助理", "HT20260301002的客人想知道能不能免费取消", NONE),
    ("zh", "front desk", "前台助理", "HT20260301002先不要发消息给客人，等供应商确认了再说", NONE),
    ("zh", "front desk", "前台助理", "昨晚值班的同事已经跟供应商沟通过HT20260301003了", NONE),
    ("zh", "front desk", "前台助理", "如果供应商今天不回复，明天再催一下", NONE),
    ("zh", "front desk", "前台助理", "这个退款一般要多久到账，客人在催", NONE),
    ("zh", "front desk", "前台助理", "王五说要投诉我们，怎么办", NONE),
    ("zh", "front desk", "前台助理", "HT20260301003的客人不来了，麻烦办一下退款", call("refund", order_no="HT20260301003")),
    ("zh", "front desk", "前台助理", "问一下供应商HT20260301001能不能延迟退房到下午两点",
     call("message_send", channel="upstream", order_no="HT20260301001", content=contains("延迟退房"))),
    ("en", "front desk", "前台助理", "the guest on HT20260301001 is asking whether breakfast is included", NONE),
    ("en", "front desk", "前台助理", "supplier says HT20260301002 can't be refunded, what now?", NONE),
    ("en", "front desk", "前台助理", "night shift already messaged the guest on HT20260301003 about parking", NONE),
    ("en", "front desk", "前台助理", "I think we should refund HT20260301001, but the manager hasn't approved it yet", NONE),
    ("en", "front desk", "前台助理", "if the hotel confirms, we'll tell the guest on HT20260301002 tomorrow", NONE),
    ("en", "front desk", "前台助理", "don't message the guest on HT20260301002 tonight, it's too late", NONE),
    ("en", "front desk", "前台助理", "Zhang San wants to cancel HT20260301001, but I'm waiting for his call back", NONE),
    ("en", "front desk", "前台助理", "the guest on HT20260301002 is stuck abroad and can't make it, go ahead and refund", call("refund", order_no="HT20260301002")),
    ("en", "front desk", "前台助理", "ask the supplier if HT20260301003 can add a crib",
     call("message_send", channel="upstream", order_no="HT20260301003", content=contains("crib"))),
    ("zh", "fund manager", "基金助理", "科技先锋这个月回撤有点大，先观察一下", NONE),
    ("zh", "fund manager", "基金助理", "领导说绿色能源主题下个月可能要下线", NONE),
    ("zh", "fund manager", "基金助理", "稳健增长一号的备注之前是我改的", NONE),
    ("zh", "fund manager", "基金助理", "要是Beta Balanced规模再缩水，就停用它", NONE),
    ("zh", "fund manager", "基金助理", "新基金的名字我还没想好，先别建", NONE),
    ("zh", "fund manager", "基金助理", "停用和删除有什么区别", NONE),
    ("zh", "fund manager", "基金助理", "绿色能源主题规模太小了，停用吧", fund("disable_fund", "绿色能源主题")),
    ("zh", "fund manager", "基金助理", "稳健增长一号的备注改为：稳健配置，季度再平衡", fund("update_fund", "稳健增长一号", remarks=text("稳健配置，季度再平衡"))),
    ("en", "fund manager", "基金助理", "the committee is debating whether to close 科技先锋, no decision yet", NONE),
    ("en", "fund manager", "基金助理", "someone asked me to rename Beta Balanced, but that's not my call", NONE),
    ("en", "fund manager", "基金助理", "we might reopen 货币市场旧份额 next quarter", NONE),
    ("en", "fund manager", "基金助理", "draft some remarks for 科技先锋 but don't save them", NONE),
    ("en", "fund manager", "基金助理", "not sure yet whether to disable 绿色能源主题", NONE),
    ("en", "fund manager", "基金助理", "Beta Balanced's mandate ended, please switch it off", fund("disable_fund", "Beta Balanced")),
    ("en", "fund manager", "基金助理", "set the remarks on 绿色能源主题 to: closed to new money", fund("update_fund", "绿色能源主题", remarks=text("closed to new money"))),
    ("zh", "resident", "Bob", "Eve刚才说她饿了", NONE),
    ("zh", "resident", "Frank", "我跟Carol换了点木头，她给了我两块石料", NONE),
    ("zh", "resident", "Alice", "面包坊今天没开，明天再去买面包", NONE),
    ("zh", "resident", "Dave", "这周已经吃了好多面包了", NONE),
    ("en", "resident", "Bob", "Eve's been hungry all day, poor thing", NONE),
    ("en", "resident", "Frank", "Carol and I swapped wood for stone earlier", NONE),
    ("en", "resident", "Bob", "Eve's been hungry all day, send her an apple", give("Eve", "apple", 1)),
]


# Round 11 (parser12): new sentences of the classes the frozen file k missed, written for this batch (none is a
# k message): a claim naming no bounty while several are open asks which; another person's habit, told, is no
# request; an ask-back reads as a question.
_ROWS_4: list[tuple] = [
    ("zh", "resident", "Dave", "随便给我接一个悬赏吧", ASK),
    ("en", "resident", "Carol", "can you claim a bounty for me", ASK),
    ("en", "resident", "Alice", "Carol keeps posting 'cheap stone' in the city channel, so annoying", NONE),
    ("zh", "resident", "Eve", "Frank老是在频道里喊「卖小麦」，烦死了", NONE),
    ("en", "resident", "Dave", "Eve is always shouting 'apples here' on the channel lol", NONE),
    ("zh", "resident", "Bob", "送两个面包给她", ASK),
    ("en", "resident", "Frank", "hand him 4 stone", ASK),
    # A fund by its id in words ("ID是…的基金", "for id …"), or by an English description with its name in brackets.
    ("zh", "fund manager", "基金助理", "帮我查一下编号是2的基金", fund("get_fund_detail", "科技先锋")),
    ("en", "fund manager", "基金助理", "show me the fund with id 3", fund("get_fund_detail", "绿色能源主题")),
    ("en", "fund manager", "基金助理", "please switch off the green energy fund (绿色能源主题)", fund("disable_fund", "绿色能源主题")),
    ("zh", "fund manager", "基金助理", "ID是1的那个基金现在什么情况", fund("get_fund_detail", "稳健增长一号")),
    # A request naming no target asks which, with a question; a greeting before "can you" keeps it a request.
    ("en", "resident", "Bob", "find me a job", ASK),
    ("zh", "resident", "Carol", "帮我找个工作", ASK),
    ("zh", "resident", "Eve", "帮我找人", ASK),
    ("en", "resident", "Frank", "look her up for me", ASK),
    ("zh", "front desk", "前台助理", "给客人退个款吧", ASK),
    ("en", "resident", "Carol", "hey could you quit my job for me? I got a better offer", call("unassign_building")),
    ("en", "resident", "Bob", "I quit my job at the mill last week", NONE),
    ("zh", "resident", "Dave", "我昨天已经找到工作了", NONE),
    ("zh", "front desk", "前台助理", "上周已经给客人退过款了", NONE),
    # "给我来N个…" at the shop is buying.
    ("zh", "resident", "Frank", "店家，给我来五个苹果", buy("苹果", 5)),
    ("zh", "resident", "Eve", "上午商店给我来了两个苹果，挺新鲜", NONE),
    # "群里喊一句 …": what follows is said in the city channel, a question there included.
    ("zh", "resident", "Bob", "在群里喊一句 谁有多余的石料", call("chat", content=contains("谁有多余的石料"))),
    ("zh", "resident", "Carol", "昨天在群里喊了一句要木头，没人理", NONE),
]


def _family(persona: str, expect: dict) -> str:
    if expect["kind"] == "none":
        return "must not act"
    if expect["kind"] == "ask":
        return "asked back"
    return {"resident": "resident", "operator": "resident", "fund manager": "fund assistant", "front desk": "front desk"}[persona]


CASES: list[dict] = [
    {
        "id": f"{prefix}-{lang}-{number:03d}",
        "lang": lang,
        "persona": persona,
        "family": _family(persona, expect),
        "agent": agent,
        "message": message,
        "expect": expect,
        **({"turns": list(turns[0])} if turns else {}),
    }
    for prefix, rows in (("r10", _ROWS), ("r10b", _ROWS_2), ("r10c", _ROWS_3), ("r11", _ROWS_4))
    for number, (lang, persona, agent, message, expect, *turns) in enumerate(rows, 1)
]
