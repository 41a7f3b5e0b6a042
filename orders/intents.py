"""Chat phrases of the early-checkout desk for the offline ``rules`` provider.

"客人要提前离店，订单 HT20260301001" walks the whole flow, one real tool call at a time:

    round 1  order_query(order_no)
    round 2  message_send(upstream, asks the supplier, quoting the supplier order number)
    round 3  message_list(upstream, order_no)            reads the supplier's reply
    round 4  refund(order_no)                            proposed: waits for staff
    then     the final reply (the runner's last call, offered no tools)

The agent never tells the guest itself: registering the refund does, once staff confirm the
proposal (on /orders/, by API, or "确认 #N" in the chat), so the guest hears the refund's
real result. A rejected proposal tells the guest nothing (see orders.services).
"""

from __future__ import annotations

import re
from dataclasses import replace

from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.utils.translation import gettext_lazy

from agents.providers.rules import DECLINE, Outcome, Step, Turn, intent, offer

from .services import supplier_question

ORDER_NO = r"(?P<order_no>[A-Za-z]{2}\d{8,})"
# A bare answer passed on: yes, no, agreed.
BARE_ANSWER = re.compile(
    r"(?:yes|yeah|yep|no|nope|ok(?:ay)?|sure|agreed|fine|approved|denied|好的?|可以|行|同意|不同意|不行|没问题|是的?|不是|对|不)",
    re.IGNORECASE,
)
# What the desk reads as the supplier's go-ahead (the simulator answers "已处理完成，可以办理退款").
UPSTREAM = r"(?P<up>上游|供应商|酒店方|supplier|upstream|hotel)"
DOWNSTREAM = r"(?P<down>下游|客人|顾客|客户|guest|customer|downstream)"
SUPPLIER_AGREES = re.compile(r"可以办理退款|同意退款|可以退款|refund (?:is )?(?:ok|approved|possible)", re.IGNORECASE)


def _error(outcome: Outcome) -> str:
    return outcome.result.get("error", {}).get("message", "")


def _sent(turn: Turn, channel: str) -> Outcome | None:
    return next(
        (o for o in reversed(turn.outcomes) if o.name == "message_send" and o.arguments.get("channel") == channel),
        None,
    )


def _next(turn: Turn, step: Step, done: str) -> Step:
    """The runner offers no tools once the rounds are spent: report how far the flow got."""
    if step.calls and not turn.offered:
        note = _("工具调用轮数已用完，剩余步骤请再发一次指令或人工处理。")
        return Step.say(f"{done}\n{note}".strip())
    return step


# "提前一天离店", "leaving a day early", "checking out two days early": how early is said or not.
SOONER = r"(?:(?:a|one|two|three|\d+|a\s+couple\s+of)\s+(?:days?|nights?)\s+)?early"
LEAVES_EARLY = (
    rf"(?:(?:check(?:s|ing)?[ -]?out|leav(?:e|es|ing)|go(?:es|ing)?\s+home|head(?:s|ing)?\s+off)\s+{SOONER}"
    # "check out on the 16th instead of the 18th": an earlier day than the booked one.
    r"|(?:check(?:s|ing)?[ -]?out|leav(?:e|es|ing))\s+on\s+the\s+\d{1,2}(?:st|nd|rd|th)\s+instead\s+of\b)"
)
AHEAD = r"提前(?:一|两|二|三|\d+)?天?(?:离店|退房|走|离开)"

# An early check-out told in the message, and a question whether a refund is possible.
# "3月3号就退房", "剩下两晚能不能退", "refund the remaining two nights": leaving before the booked day, said by its date or
# by the nights left unused.
LEFT_UNUSED = r"(?:\d{1,2}月\d{1,2}[号日]|明天|今天|后天|明早|今晚)就(?:要)?(?:退房|离店|走)|提前到\s*(?:\d{1,2}月)?\d{1,2}[号日]\s*(?:就)?(?:要)?(?:退房|离店|走)|剩(?:下)?的?(?:一|两|二|三|几|\d+)?(?:晚|天|夜)|(?:后面|最后)的?(?:一|两|二|三|几|\d+)(?:晚|夜)|(?:remaining|unused|last)\s+(?:\w+\s+)?nights?"
EARLY = re.compile(rf"{AHEAD}|提前(?:走|离开|离店|退房)|{LEAVES_EARLY}|{LEFT_UNUSED}|early[ -]check[ -]?out|early departure", re.IGNORECASE)
# Words telling the guest the refund is done ("退款已经到账", "your refund has been processed"): the system's to say.
REFUND_DONE = re.compile(
    r"(?:退款|钱|费用|房费)(?:已经?|都)?(?:到账|到了|办好|办理好|办完|办妥|完成|退了|退回|退好|退到)|已(?:经)?(?:退款|退钱|退回)"
    # "his refund's been processed", "the refund went through".
    r"|\brefunds?(?:['’]s|\s+(?:has|have|had|is|was|were))?\s+(?:now\s+|already\s+|just\s+|all\s+)?(?:been\s+)?"
    r"(?:completed|complete|processed|issued|sent|done|paid|approved|through)\b|\b(?:been|was|were)\s+refunded\b"
    r"|\brefunds?\s+(?:went|has\s+gone|have\s+gone)\s+through\b",
    re.IGNORECASE,
)
# The user's own words for the supplier, quoted or after a colon: sent as typed, never swapped for the template.
OWN_WORDS = re.compile(r"[:：「“\"]")
# The supplier's number for an order, as they write it (SUP-88901).
SUPPLIER_NUMBER = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2,4}-\d{4,}(?![0-9])")
REFUND_QUESTION = re.compile(r"(?:能|可以|可不可以|能不能)退|退(?:款|钱)?(?:吗|么|不)|\brefund(?:ed|able)?\b", re.IGNORECASE)


@intent(
    rf"{AHEAD}.*?{ORDER_NO}",
    rf"{ORDER_NO}.*?{AHEAD}",
    rf"{LEAVES_EARLY}.*?{ORDER_NO}",
    rf"early[ -]check[ -]?out.*?{ORDER_NO}",
    rf"{ORDER_NO}.*?(?:{LEAVES_EARLY}|early[ -]check[ -]?out)",
    rf"early departure.*?{ORDER_NO}",
    priority=10,
    verbatim=True,
    tool="order_query",
    example=gettext_lazy("客人要提前离店，订单 HT20260301001"),
)
def early_checkout(turn: Turn, match: re.Match) -> Step | None:
    return checkout_flow(turn, match["order_no"].upper())


# "先帮我查下订单", "pull up the booking first", "just check the order": the user wants the look-up
# and nothing more yet, whatever the rest of the message says the guest wants.
LOOK_UP_ONLY = re.compile(
    r"先.{0,6}(?:查|看|调出|找|核对)|只(?:要|需要?|是)?.{0,3}(?:查|看)|"
    # "张三那单帮我查下，他刚打电话说要提前退房": the order looked up; the early check-out is what the guest said.
    r"帮我查(?:一)?下(?!.{0,6}(?:能不能|可不可以|是否))|查(?:一)?下(?:这单|那单|单子|订单)|帮我看看(?:这单|那单|单子|订单)?(?:是)?(?:啥|什么)情况|"
    r"\b(?:first|just|only)\b.{0,30}\b(?:look|pull|check|find|show|get|open|see)\b|"
    r"\b(?:look|pull|check|find|show|get|open|see)\b.{0,50}\bfirst\b|\bfor\s+now\b"
    # "guest Li Si wants to leave early, order ht… — pull it up pls": the look-up is all that is asked.
    r"|\b(?:pull|bring|look)\s+(?:it|that|this|(?:the|that|this)\s+(?:order|booking))\s+up\b(?!.*\b(?:sort|handle|process|deal|take\s+care|refund|contact|ask|message|tell)\b)",
    re.IGNORECASE,
)


def checkout_flow(turn: Turn, order_no: str) -> Step | None:
    """Look the order up, ask the supplier, read the answer, propose the refund: one step per round.

    The question to the supplier is sent without a confirmation: it is the desk's own template,
    every field of it from the order just looked up (no words of the user's pass to the supplier),
    and it commits to nothing; the refund, the one write with consequences, waits for staff. A
    message that asks only to look the order up first gets the look-up alone.
    """
    looked_up = turn.last("order_query")
    if looked_up is None:
        return Step.call("order_query", order_no=order_no)
    if LOOK_UP_ONLY.search(turn.said or turn.plain or turn.text):
        return None  # the default summary shows the order
    if not looked_up.ok:
        return Step.say(_("无法办理提前离店：%(error)s（%(order_no)s）。") % {"error": _error(looked_up), "order_no": order_no})
    order = looked_up.data
    if order.get("refund"):
        return Step.say(_("订单 %(order_no)s 已登记退款，无需重复办理。") % {"order_no": order_no})
    if order.get("pending_refund_id"):
        return Step.say(
            _("订单 %(order_no)s 的退款已在等待员工确认（#%(id)s），无需重复办理。")
            % {"order_no": order_no, "id": order["pending_refund_id"]}
        )

    asked = _sent(turn, "upstream")
    if asked is None and not order.get("supplier_asked_id"):
        content = supplier_question({**order, "order_no": order_no})
        ask = Step(calls=(("message_send", {"channel": "upstream", "order_no": order_no, "content": content}),), composed=("content",))
        return _next(turn, ask, "")
    if asked is not None and not asked.ok:
        return Step.say(_("联系供应商失败：%(error)s") % {"error": _error(asked)})
    # Taken up again ("继续办理"), the flow reads the answer to the question sent before: it is never sent twice.
    asked_id = asked.data["message_id"] if asked is not None else order["supplier_asked_id"]
    contacted = _("已就订单 %(order_no)s 联系供应商（%(supplier_order_no)s）。") % {**order, "order_no": order_no}

    read = turn.last("message_list")
    if read is None:
        return _next(turn, Step.call("message_list", channel="upstream", order_no=order_no), contacted)
    if not read.ok:
        return Step.say(contacted + _("读取供应商回复失败：%(error)s") % {"error": _error(read)})
    replies = [
        m for m in read.data["messages"] if m["sender"] == "supplier" and m["message_id"] > asked_id
    ]
    if not replies:
        return Step.say(contacted + _("供应商尚未回复，收到回复后请再让我继续办理。"))
    answer = replies[-1]["content"]
    if not SUPPLIER_AGREES.search(answer):
        return Step.say(
            contacted + _("供应商回复：「%(answer)s」，未同意退款，请人工跟进。") % {"answer": answer}
        )
    answered = contacted + _("供应商回复：「%(answer)s」。") % {"answer": answer}

    refunded = turn.last("refund")
    if refunded is None:
        return _next(turn, Step.call("refund", order_no=order_no), answered)
    if refunded.result.get("status") == "pending_confirmation":
        return Step.say(
            answered
            + _("已提议为订单 %(order_no)s 退款，等待员工确认（#%(id)s）；确认登记后系统会通知客人。")
            % {"order_no": order_no, "id": refunded.result.get("pending_action_id")}
        )
    if not refunded.ok:
        return Step.say(answered + _("退款登记失败：%(error)s") % {"error": _error(refunded)})
    return Step.say(answered + _("退款已登记，系统已通知客人。"))


# Looking an order up, reading a channel and refunding are read by their frames below (their
# phrases once ran first and took "message the supplier: can we refund HT…?" for a refund).
offer("order_query", gettext_lazy("查询订单 HT20260301001"))
offer("message_list", gettext_lazy("看看供应商的回复"))
offer("refund", gettext_lazy("为订单 HT20260301001 登记退款"))


# ---------------------------------------------------------------------------- frames

from agents.providers.frames import Filled, frame  # noqa: E402
from agents.providers.framing import trailing_text, without_order_reference, without_request_to_agent  # noqa: E402
from agents.providers.restraint import NOT_TO_SAY  # noqa: E402
from agents.providers.understanding import Entity, Span, entities  # noqa: E402

from .models import Order  # noqa: E402

SUPPLIER_WORDS = ("supplier", "upstream", "hotel", "上游", "供应商", "酒店")
# "the guest says …", "客人说…": what a third party said, which is no message to them.
HEARD = re.compile(r"\s*(?:说|讲|反映|抱怨|投诉|想|要|希望|says|said|wants|wanted|complains|complained|asks|asked|is\s+asking)")
# Words that turn to a third party: "告诉客人…", "ask the supplier …".
ADDRESSED = re.compile(
    r"告诉|通知|转告|提醒|跟|和|同|对(?!应|于|比|照)|给|问|回复|答复|联系|回(?:一下|下)"
    r"|\b(?:tell|let|inform|notify|message|msg|dm|ask|write\s+to|send|remind|email|text|reply\s+to|respond\s+to|write\s+back\s+to|ping|contact|check\s+with|confirm\s+with"
    r"|reach\s+out\s+to|get\s+in\s+touch\s+with)\b"
)
# A verb of passing words on: with it, a message that addresses a guest or supplier is words to send.
SAYING_VERB = re.compile(
    r"说|讲|告诉|通知|转告|提醒|问|发(?:个|条|一条)?消息|发(?=\s*[:：“「\"])|留言|回复|答复|确认一下|核实一下"
    r"|\b(?:tell|let\b.*\bknow|inform|notify|message|msg|dm|ask|say|send|remind|email|text|reply|respond|ping|contact|check\s+with|confirm\s+with"
    r"|reach\s+out\s+to|get\s+in\s+touch\s+with)\b"
)
ASKING = re.compile(r"问问|问一下|询问|问|\bask\b")
# "ask the supplier whether …", "…, ask if …": the words after are a yes-or-no question put to them.
ASKED_WHETHER = re.compile(r"\bask\b[^.;!?]*?\b(?:whether|if)\s*$", re.IGNORECASE)
# A verb of asking right after the one asked ("跟供应商确认一下…", "with the supplier whether …").
ASKED_AFTER = re.compile(r"\s*(?:确认一下|确认|核实一下|核实|问一下|问问|问|询问一下|询问|\bwhether\b|\bif\b)\s*", re.IGNORECASE)
# The desk itself is told ("tell me who …", "告诉我…"): no third party is addressed.
TOLD_ME = re.compile(r"\btell\s+me\b|\blet\s+me\s+know\b|\bshow\s+me\b|告诉我|跟我说|给我说|给我看")
GUEST_WORDS = ("guest", "customer", "downstream", "客人", "顾客", "客户", "下游")
ORDER_ASK = gettext_lazy("是哪个订单？请给我订单号，例如 HT20260301001。")


@entities(reads={Order: ("order_no", "guest_name", "supplier_order_no")})
def order_entities() -> list[Entity]:
    """Orders by number (or its last digits: "001那单"), by the supplier's number for them ("tell supplier SUP-88903 …"), and by their guest's
    name ("张三那个订单", "the booking for 王五"): a guest with two orders is two candidates for the same words,
    and the frame asks which."""
    found = []
    orders = list(Order.objects.values_list("order_no", "guest_name", "supplier_order_no"))
    for no, guest, supplier_no in orders:
        found.append(Entity("order", no, no, no))
        if (digits_only := re.sub(r"^[A-Za-z]+", "", no)) != no and len(digits_only) >= 8:
            found.append(Entity("order", digits_only, no, no))  # "status of 20260301001?": the number without its letters
        # "001那单", "any reply on 001?": the number's last digits as the desk says them, where no other order ends so.
        for digits in (3, 4):
            tail = no[-digits:]
            if tail.isdigit() and tail.startswith("0") and sum(other.endswith(tail) for other, _g, _s in orders) == 1:
                found.append(Entity("order", tail, no, no))
        if supplier_no:
            found.append(Entity("order", supplier_no, no, no))
        if guest and len(guest.strip()) >= 2:
            found.append(Entity("order", guest.strip(), no, no))
    return found


@frame(
    "order_query",
    triggers=(
        "leave early", "check out early", "checking out early", "a day early", "early", "earlier", "sooner", "cut short",
        "shorten", "提前", "早走", "早点走", "早退", "早", "提早", "少住", "缩短",
    ),
    # "tell the supplier: the guest left early" passes words on: the message frame's.
    not_with=("tell", "notify", "inform", "告诉", "通知", "转告", "说：", "说:"),
    slots={"order_no": "order"},
    asks={"order_no": ORDER_ASK},
    priority=5,
)
def checkout_frame(turn: Turn, filled: Filled) -> Step | None:
    if _passes_words_on(filled) or (_addressed(filled) is not None and OWN_WORDS.search(filled.reading.said)):
        # "跟客人说一下，可以提前到12点入住", '给供应商发：“SUP-88903 客人申请提前离店…”': words to pass on, as typed: the
        # message frame's, never swapped for the check-out's own question.
        return DECLINE
    if not filled.reading.has(
        "leave", "check out", "checkout", "checking out", "depart", "go home", "stay", "trip", "离店", "退房", "走", "离开", "住", "回家"
    ):
        return DECLINE
    return this_order_first(turn, filled) or checkout_flow(turn, filled.value("order_no"))


# What "是" to "是这一单吗？" goes on to do.
THEN_ASK_SUPPLIER = gettext_lazy("回复「是」我就联系供应商办理提前离店。")
THEN_PROPOSE_REFUND = gettext_lazy("回复「是」我就提议为它登记退款（员工确认后才登记）。")


def this_order_first(turn: Turn, filled: Filled, then: str = THEN_ASK_SUPPLIER) -> Step | None:
    """An order known only by its guest's name ("张三要提前走，你处理下", "给张三退款"): looked up and shown, and asked
    back before anything is written: a name is no booking's number (guests share names, and a guest books again).
    "是" goes on with it; the number typed does too; "不是" asks for the number. None: go on."""
    orders = filled.reading.of("order")
    if turn.confirmed or not orders or any(re.search(r"\d", span.text) for span in orders):
        return None
    order_no = filled.value("order_no")
    if any(order_no in message.upper() for message in (turn.earlier, *turn.history)):
        return None  # "HT20260301002 什么情况" → "客人李四说今天就要走" → "跟供应商说一下": the order was named by its number
    if turn.declined:
        return Step.say(_("好的，什么也没有做。是哪个订单？请给我订单号。"))
    looked = turn.last("order_query")
    if looked is None:
        return Step.call("order_query", order_no=order_no)
    if not looked.ok:
        return None  # the flow says why
    return Step.say(
        _("客人%(guest_name)s的订单是 %(order_no)s（%(hotel_name)s，%(check_in)s 至 %(check_out)s）。是这一单吗？")
        % {**looked.data, "order_no": order_no} + str(then)
    )


# A question whether an order was refunded (not a request to refund it).
REFUND_ASKED = re.compile(
    r"(?:been|was|were|is|got|get)\s+refunded|refunded\s+(?:yet|already)|\bdid\b.{0,30}\brefund|"
    r"退(?:款|钱|费)?了(?:没有?|吗|么)|有没有退|是否(?:已经)?退|退没退"
    # "张三问他的订单退款到哪一步了…帮我查下", "where's the refund at?": how far the refund has got.
    r"|退(?:款|钱|费)[^，,。.!！?？]{0,4}(?:到哪|进度|状态|怎么样了|办得怎么样|处理得怎么样|什么情况)"
    r"|(?:status|progress)\s+of\s+(?:the\s+|their\s+|his\s+|her\s+)?refund|refund\s+(?:status|progress)|where'?s\s+(?:the|their|his|her)\s+refund",
    re.IGNORECASE,
)


REFUND_WORD = re.compile(r"refund|money\s+back|退款|退钱|退费|钱退|退", re.IGNORECASE)


def left_unsaid(said: str) -> str:
    """``said`` less each clause that says what the words must leave out ("…，别提退款", "…, don't mention the refund")."""
    return re.sub(rf"(?:{NOT_TO_SAY.pattern})[^,，。.;；!！]*", " ", said, flags=re.IGNORECASE)


@frame(
    "refund",
    triggers=(
        "refund", "money back", "退款", "退钱", "退费", "钱退", "退掉", "退单", "退订", "给退", "退了吧", "退一下", "办退款", "退回", "退个款", "退下款", "退吧",
        "单退了", "单子退了",
    ),
    not_with=("tell", "let", "know", "inform", "notify", "message", "reach out", "get in touch", "告诉", "转告", "说一声", "跟客人说", "跟供应商说", "消息"),
    asks={"order_no": ORDER_ASK},
    priority=4,
)
def refund_frame(turn: Turn, filled: Filled) -> Step | None:
    if "通知" in WAITS_FOR_NOTICE.sub(" ", filled.reading.said):
        return DECLINE  # "通知客人退款了": someone is to be told; "客人等系统通知就行" waits for the refund's own notice
    if _passes_words_on(filled) or TOLD_THEM.search(filled.reading.folded):
        # "ask the supplier if they'll refund the last night", "ping them, ask whether the last night can be refunded":
        # a question for them
        return DECLINE
    if not REFUND_WORD.search(left_unsaid(filled.reading.said)):
        return DECLINE  # "回他一句“…”，别提退款": the refund is what the words must leave out
    orders = list(dict.fromkeys(s.value for s in filled.reading.of("order")))
    if len(orders) > 1 and not REFUND_ASKED.search(filled.reading.said):
        # "refund HT…01 and HT…02": one at a time, each confirmed by staff; never one done and the other dropped.
        return Step.say(_("一次登记一个订单的退款：先办哪一个？%(orders)s") % {"orders": "、".join(orders)})
    if REFUND_ASKED.search(filled.reading.said):
        # "has it been refunded already?", "退款了没有": the order's look-up answers, nothing is written.
        if turn.last("order_query") is None:
            return replace(Step.call("order_query", order_no=filled.value("order_no")), toward="order_query")
        return None
    if (ask := this_order_first(turn, filled, THEN_PROPOSE_REFUND)) is not None:
        return ask  # "给张三退款": which booking, asked with it shown, before a refund is proposed on a name
    if turn.last("refund") is None:
        if not Order.objects.filter(order_no=filled.value("order_no")).exists():
            # "refund HT20260301009": no such order; the number is asked again, nothing is proposed.
            return Step.say(_("没有找到订单 %(order_no)s。订单号对吗？") % {"order_no": filled.value("order_no")})
        return Step.call("refund", order_no=filled.value("order_no"))
    return None


def _channel_of(filled: Filled) -> tuple[str, int] | None:
    """The channel the message names first and where its word ends, or None."""
    found = [
        (at, channel, at + len(word))
        for channel, words in (("upstream", SUPPLIER_WORDS), ("downstream", GUEST_WORDS))
        for word in words
        if (at := filled.reading.folded.find(word)) >= 0
    ]
    if not found:
        return None
    _at, channel, end = min(found)
    return channel, end


def _addressed(filled: Filled) -> tuple[str, int] | None:
    """The channel the message turns to ("告诉客人", "给…的客人发", "…，帮我通知一下供应商") and where its
    word ends: a word that addresses it comes before its name in the same clause. A guest or supplier
    named as the subject ("客人会收到通知吗", "the guest called asking …", "客人说…") is not addressed."""
    folded = filled.reading.folded
    named = sorted(
        [
            (at, channel, at + len(word))
            for channel, words in (("upstream", SUPPLIER_WORDS), ("downstream", GUEST_WORDS))
            for word in words
            for at in (m.start() for m in re.finditer(re.escape(word), folded))
        ]
        # A guest by name ("let 张三 know …", "告诉王五…"): the guest of the order the name resolves to.
        + [(s.start, "downstream", s.end) for s in filled.reading.of("order") if not ORDER_NUMBER.fullmatch(s.text)]
    )
    quoted = [(q.start, q.end) for q in filled.reading.of("quoted")]
    # "guest wrote: '… tell the hotel I'm leaving'": a party named inside someone's quoted words is not turned to.
    named = [(at, channel, end) for at, channel, end in named if not any(a <= at < b for a, b in quoted)]
    for at, channel, end in named:
        clause = max((m.end() for m in CLAUSE_END.finditer(folded, 0, at)), default=0)
        if (
            (addressing := ADDRESSED.search(folded, clause, at)) and not WORDS_BEGIN.search(folded, addressing.end(), at)
            and not TOLD_A_PRONOUN.match(folded, addressing.end())
        ):
            return channel, end
    # "上游发个消息：…": the recipient as the topic, the message right after it.
    if topic := next(((channel, end) for _at, channel, end in named if MESSAGE_AFTER.match(folded, end)), None):
        return topic
    # "the guest on HT… keeps calling. send him a note saying …", "客人一直打电话问，你先回他一句…": "him" is the guest named
    # before (the supplier is never a "him").
    guest = next((at for at, channel, _end in named if channel == "downstream"), None)
    if guest is not None and (told := TOLD_HIM.search(folded, guest)):
        return "downstream", told.end()
    return None


# Where the words to pass on begin after the verb that turns to someone: a party named after it is talked about
# ("send him a note saying we're still waiting on the hotel").
WORDS_BEGIN = re.compile(r"\b(?:saying|says|say|that)\b|说|[:：「“\"]")
TOLD_HIM = re.compile(
    r"\b(?:tell|send|message|msg|text|email|ping|reply\s+to|write\s+to|write\s+back\s+to|get\s+back\s+to|let|update|inform|notify|remind)"
    r"\s+(?:him|her|them)\b|(?:回|回复|答复|告诉|通知|给|跟|和|提醒)(?:一下)?(?:他|她)(?!们)"
)
# "let them know we're still waiting on the hotel": the verb is told to "them"; the hotel after it is in the words.
TOLD_A_PRONOUN = re.compile(r"\s+(?:them|him|her)\b", re.IGNORECASE)


# The order itself asked for by a verb of looking up ("look up order HT…", "查一下订单…", "pull up the booking").
ORDER_LOOKED_UP = re.compile(
    r"\b(?:look\s+up|pull\s+up|bring\s+up|check|find|open|show(?:\s+me)?)\s+(?:the\s+)?(?:order|booking|reservation)\b"
    r"|(?:查|查一下|查下|查查|调出|找一下|看一下|看看)\s*(?:订单|这单|那单|单子)",
    re.IGNORECASE,
)
# An order pointed at ("那单", "this booking") and a topic named instead of words ("about the early checkout"):
# without an order known, the desk asks which one; a topic alone is never sent as the message.
ORDER_POINTED = re.compile(r"[那这该此]单|[那这该此]个?订单|[那这]笔|\b(?:this|that|the)\s+(?:order|booking|reservation)\b", re.IGNORECASE)
TOPIC_BEFORE = re.compile(r"(?:\babout|\bregarding|关于)\s*$", re.IGNORECASE)
TOPIC_ONLY = re.compile(r"(?:about|regarding|re:?)\s+(?:the|this|that|our|his|her|their)?\s*[\w\s-]{1,30}?[.?!]?|关于.{1,20}?(?:的事(?:情|儿)?)?[。？?]?", re.IGNORECASE)
# An order by a number, ours (HT20260301001) or the supplier's (SUP-88901), not by its guest's name.
ORDER_NUMBER = re.compile(r"[A-Za-z]{2}\d{8,}|[A-Za-z]{2,4}-?\d{4,}")
CLAUSE_END = re.compile(r"[,，;；。!！?？]|\.\s")
# "ping them again", "再催一下他们", "问问对方": the party the last turn wrote to or read, addressed by a pronoun.
TURNED_TO = r"ping|nudge|ask|tell|remind|message|msg|contact|chase|poke|email|text|write\s+to|follow\s+up\s+with|check\s+with|get\s+back\s+to"
THEM = re.compile(
    rf"\b(?:{TURNED_TO})"
    r"\s+(?:them|'em)\b(?:\s+(?:again|once\s+more|one\s+more\s+time))?"
    r"|(?:再|又)?(?:催|问|提醒|告诉|通知|联系|跟|给|和)(?:一下|一声|问|促一下)?(?:他们|她们|对方)",
    re.IGNORECASE,
)
# Words passed on to someone the conversation named before ("ping them, ask whether …", "问问他们…", "ask her if …"): a
# refund they are asked about is no refund asked for.
TOLD_THEM = re.compile(rf"{THEM.pattern}|\b(?:{TURNED_TO}|confirm\s+with)\s+(?:him|her|them)\b", re.IGNORECASE)


# "did they answer?", "他们回复了吗": the ones the last turn wrote to, as the subject of their reply.
THEY = re.compile(r"\b(?:they|them|'em)\b|他们|她们|对方", re.IGNORECASE)


def _them(turn: Turn, filled: Filled, them: re.Pattern = THEM) -> tuple[tuple[str, int], Filled] | None:
    """The channel (and order) of the last turn's message call, when this message turns to "them": the recipient and
    where its word ends, with the order slot filled from the earlier message's words (it stands for that message)."""
    found = them.search(filled.reading.folded)
    earlier = [args for name, args in turn.earlier_calls if name in ("message_send", "message_list") and args.get("channel")]
    if found is None or not earlier or len({args["channel"] for args in earlier}) != 1:
        return None
    channel, order_no = earlier[-1]["channel"], earlier[-1].get("order_no")
    if "order_no" not in filled.slots and order_no and order_no in turn.earlier.upper():
        at = turn.earlier.upper().index(order_no)
        filled = replace(filled, slots={**filled.slots, "order_no": Span("order", order_no, at, at + len(order_no), order_no)})
        # The order number stands for the earlier message, as a name carried back does: the gate and the provenance
        # read it with this one (the earlier question "did they reply?" asks nothing of this message).
        turn.earlier = turn.continues = order_no
    return (channel, re.compile(r"[\s,，]*").match(filled.reading.folded, found.end()).end()), filled


def _passes_words_on(filled: Filled) -> bool:
    """The message turns to a guest or supplier with a verb of saying: what it mentions (an early
    check-out, a refund) is what they are told or asked, not what the desk is asked to do."""
    return _addressed(filled) is not None and bool(SAYING_VERB.search(filled.reading.folded))


def _head_of(filled: Filled) -> str:
    """The message up to its first colon or quote: after them come the words to pass on."""
    return re.split(r"[:：「“\"]", filled.reading.folded, maxsplit=1)[0]


# A message named right after its recipient, then its words: "给供应商发消息，…", "send the supplier a message, …".
MESSAGE_AFTER = re.compile(r"\s*(?:发|写|留)(?:个|条|一条|一个)?(?:消息|信息|留言)\s*[,，:：]|\s*(?:an?\s+)?(?:message|note|msg)\s*[,:]", re.IGNORECASE)
# What stands between the recipient and the words told: its order, a comma ("of HT…, …", "，…").
RECIPIENT_TAIL = re.compile(r"^\s*(?:(?:of|on|for|about|with)\s+)?(?:(?:the\s+)?order\s*)?(?:#?[A-Za-z]{2}\d{8,})?\s*[,，:：;；]?\s*", re.IGNORECASE)
# What may follow the recipient when the words to pass on came before it.
LAST_CLAUSE_ONLY = re.compile(r"\s*(?:说|讲|讲讲|通知|告诉|联系|反映|确认)?\s*(?:一下|一声|下)?\s*(?:吧|哈|啊)?\s*(?:\bknow\b)?\s*(?:,?\s*(?:please|thanks|thank\s+you))?\s*[.。!！]?\s*", re.IGNORECASE)
# A message has words: two letters or one CJK character that is no particle.
WORDY = re.compile(r"[A-Za-z0-9]{2}|[\u4e00-\u9fff](?<![吗呢吧啊呀哦么])")


def _words_before(said: str, folded: str, after: int) -> Span | None:
    """The sentence before the clause that turns to the recipient, as typed, or None."""
    clause = max((m.end() for m in re.finditer(r"[,，;；.。!！]\s*", said[:after])), default=0)
    words = said[:clause].strip(" ,，;；")
    if not words:
        return None
    return Span("text", words, said.index(words), said.index(words) + len(words), words)


# "发个消息", "send a message": a message to no one yet, with no words.
BARE_SEND = re.compile(
    r"^\s*(?:帮我|请|麻烦)?\s*(?:发|写)(?:个|条|一条|一个)?(?:消息|信息|留言|通知)\s*(?:吧|一下)?\s*[。.!！]?\s*$"
    r"|^\s*(?:please\s+|can\s+you\s+)?(?:send|write)\s+(?:a\s+)?(?:message|note|msg)\s*[.!?]?\s*$",
    re.IGNORECASE,
)


# "send the guest a message", "给客人发一条消息": a noun for a message, no words of the user's own to send.
GENERIC_BODY = re.compile(
    # "问问供应商行不行", "…能不能加", "ask the supplier if that's ok": a bare yes-or-no asks about words said before.
    r"\s*(?:(?:能不能|可不可以|可以不可以)(?:(?!退)[\u4e00-\u9fff])?|行不行|好不好|成不成|行吗|可以吗|能行吗|好吗|ok|okay"
    r"|(?:if\s+|whether\s+)?(?:that'?s|it'?s|that\s+is|it\s+is|this\s+is)\s+(?:ok(?:ay)?|fine|alright|all\s+right|possible|doable)"
    # "ask if they'll accept", "whether they agree": a bare yes-or-no of theirs, about what was said before.
    r"|(?:if\s+|whether\s+)?they(?:'ll|\s+will|\s+would|\s+can|'d)?\s+(?:accept|agree|allow|approve|ok)(?:\s+(?:it|that|this))?"
    # "need to send smth to the supplier, can u do it": the agent asked, no words to send.
    r"|(?:please\s+)?(?:can|could|would|will)\s+(?:you|u|ya)\s+(?:do|handle|send|manage)\s+(?:it|that|this)(?:\s+(?:for\s+me|please|pls))?)\s*[?？。.!！]*\s*|"
    r"\s*(?:(?:a|an|the|some|one|another|quick|short|little|new)\s+)*"
    r"(?:message|msg|note|text|line|word|reply|notification|something|anything|dm)s?(?:\s+(?:to\s+)?(?:them|him|her))?\s*[.!。！]?\s*"
    r"|\s*(?:一|个|条|一条|一个|些|一些|点|一点)?(?:消息|信息|留言|通知|短信|话|东西|内容)\s*(?:吧|一下)?\s*[。.!！]?\s*",
    re.IGNORECASE,
)


# "the guest", "客人", "住客": one of the supplier's many guests, unnamed.
THE_GUEST = re.compile(r"\b(?:the|our|this|that)\s+(?:guest|customer|client)s?\b|客人|住客|顾客|客户", re.IGNORECASE)


# "客人等系统通知就行", "the guest will get the system's notice": a notice waited for, not a message to send.
WAITS_FOR_NOTICE = re.compile(
    r"等(?:着)?(?:系统|我们|我们的)?(?:的)?(?:通知|消息)|(?:系统|会)(?:会)?(?:自动)?通知"
    r"|\b(?:wait(?:s|ing)?\s+for|will\s+get|gets?)\s+(?:the\s+)?(?:system'?s?|automatic|auto)\s+(?:notice|notification|message)",
    re.IGNORECASE,
)
TELLING = re.compile(r"发消息|发条|发个|告诉|转告|回复|\b(?:tell|message|notify|inform|reply|write\s+to|let\s+\w+\s+know)\b", re.IGNORECASE)
# "供应商订单号是多少", "what's the supplier's number for HT…": the order's own record is asked for.
THEIR_NUMBER_ASKED = re.compile(
    r"供应商(?:的)?(?:订单号|单号|编号|订单编号)(?:是)?(?:多少|什么|啥|几)"
    r"|\bwhat(?:'s|\s+is|\s+was)\s+the\s+supplier(?:'s)?\s+(?:order\s+)?(?:number|no\.?|ref(?:erence)?)\b",
    re.IGNORECASE,
)
# "能不能提前退", "if they'll agree to an early checkout": only the early check-out's own question, asked of the supplier.
EARLY_ASKED = re.compile(
    # ("同不同意让客人提前退房": the guest between; a day or a count of the user's own, "3号", "提前一天", keeps their words.)
    r"^\s*(?:(?:问(?:问|一下|下)?)?(?:他们|对方)?\s*(?:能不能|可不可以|可以|能否|同不同意|同意不同意|肯不肯|愿不愿意)\s*(?:让)?(?:客人)?(?:提前)?\s*(?:退(?:房|款|钱)?|离店|走)(?:吗|么|呢|不)?"
    # "ask if they'll release the last night": the unused night given back.
    r"|(?:(?:if|whether)\s+)?they(?:'ll|\s+will|\s+can|\s+would)?\s+(?:release|refund|waive|free\s+up|give\s+back)\s+the\s+(?:last|remaining|final|unused)\s+(?:\w+\s+)?nights?"
    r"|(?:if|whether)\s+(?:they(?:'ll|\s+will|\s+can|\s+would)?|it'?s)\s+(?:ok|okay|fine|agree|allow|approve)\w*(?:\s+(?:with|to))?"
    r"\s+(?:an?\s+|the\s+)?early\s+check[ -]?out)\s*[?？。.!！]*\s*$",
    re.IGNORECASE,
)


# "客人想3月3号退房", "leaving on the 11th": a date of the user's own the template (the booked stay) would lose.
DATED = re.compile(
    r"\d{1,2}\s*月\s*\d{1,2}|\d{1,2}\s*[号日]|\d{4}-\d{1,2}-\d{1,2}|\b\d{1,2}(?:st|nd|rd|th)\b"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b",
    re.IGNORECASE,
)


# "…wants to check out a day early, message the supplier about it": the early check-out pointed at, no words of its own.
ABOUT_IT = re.compile(r"\s*(?:(?:about|regarding|re)\s+)?(?:it|this|that)\s*[.!。！?？]?\s*", re.IGNORECASE)


def _early_in_talk(turn: Turn, said: str) -> bool:
    """An early check-out is what this message, or the conversation's last few, are about."""
    return any(EARLY.search(message) for message in (said, turn.earlier, *turn.history) if message)


# The speaker will contact them: "我去问问供应商", "我自己跟客人说", "I'll ask the supplier myself", "let me call the guest".
OWN_CONTACT = re.compile(
    r"^\W*(?:那|好|ok|行)?[，,]?\s*我(?:先|自己|亲自|这就|马上|待会儿?|一会儿?)*(?:去|来)(?:问问|问一下|问下|问|联系一下|联系|打个?电话给|打给|跟|和|给)"
    r"(?:一下)?(?:这个|那个|那边的?|他们的?)?(?:供应商|上游|酒店|客人|顾客|客户)"
    r"|^\W*(?:ok|okay|fine|alright)?[,.]?\s*(?:i'?ll|i\s+will|i'?m\s+going\s+to|i'?m\s+gonna|let\s+me)\s+(?:go\s+)?"
    r"(?:ask|call|check\s+with|contact|talk\s+to|reach\s+out\s+to|ring)\s+(?:the\s+)?(?:supplier|hotel|guest|customer)s?\b",
    re.IGNORECASE,
)


@frame(
    "message_send",
    triggers=(
        "tell", "let", "know", "inform", "notify", "message", "msg", "email", "e-mail", "write to", "ask", "send", "remind",
        "reply to", "respond to", "write back", "ping", "contact", "check with", "confirm with", "reach out to", "get in touch with",
        "告诉", "通知", "转告", "提醒", "跟", "对", "给", "说", "问", "回复", "答复", "联系", "发消息", "发条消息", "发个消息", "发一条消息",
        "回他", "回她", "回一句", "回句话", "回一下", "回下", "回个话",
    ),
    required=(),
    # "did the supplier reply?", "供应商回复了吗": the channel's messages, not words to send ("reply to the guest: …" sends).
    not_with=(
        "replied", "reply yet", "any reply", "a reply", "the reply", "their reply", "回复了", "有回复", "的回复", "回复吗", "回复没",
        "回了", "怎么说", "说了什么", "说了啥", "说啥了", "说什么了", "讲了啥", "怎么回", "read", "读", "看看", "查看",
    ),
    priority=3,
)
def send_frame(turn: Turn, filled: Filled) -> Step | None:
    waits = WAITS_FOR_NOTICE.search(filled.reading.said)
    if waits and not TELLING.search(WAITS_FOR_NOTICE.sub(" ", filled.reading.said)):
        return DECLINE  # "…登记退款吧，客人那边等系统通知就行": the guest waits for the system's notice, nobody is told now
    if TOLD_ME.search(_head_of(filled)) or THEIR_NUMBER_ASKED.search(filled.reading.said):
        # "can you tell me who the guest of HT… is", "HT…的供应商订单号是多少？我要去跟供应商对一下": the desk is asked,
        # nobody is told
        return DECLINE
    if OWN_CONTACT.search(filled.reading.folded):
        return Step.say(_("好的，那由你来联系。"))  # "我去问问供应商", "I'll ask the guest myself": nothing for the desk to send
    found = _addressed(filled)
    if found is None and (them := _them(turn, filled)) is not None:
        found, filled = them
    if found is None and BARE_SEND.match(filled.reading.folded):
        return Step.say(_("要发给谁（客人还是供应商）？要说什么？"))  # "发个消息": whom and what are asked
    if found is None:
        return DECLINE  # "HT…的客人说房间太吵", "客人会收到通知吗": no words to send them
    channel, after = found
    said = filled.reading.said
    text = trailing_text(said, after)
    if text is not None and not WORDY.search(text.value):
        text = None  # "吗？", ".": no message
    if text is None and ASKING.search(filled.reading.folded, 0, after):
        # "问问供应商HT…能不能加一张床": the question follows the one it is put to.
        rest = said[after:].lstrip(" ,，:：")
        text = Span("text", rest.strip(), after, len(said), rest.strip()) if rest.strip() else None
    if text is None and (asked := ASKED_AFTER.match(filled.reading.folded, after)):
        # "跟供应商确认一下HT…的套房是否含早餐": the question follows the verb after the one it is put to.
        rest = said[asked.end() :].strip(" ,，:：")
        text = Span("text", rest, said.index(rest, asked.end()), said.index(rest, asked.end()) + len(rest), rest) if WORDY.search(rest) else None
    if text is None and (verb := MESSAGE_AFTER.match(filled.reading.folded, after)):
        # "给供应商发消息，订单HT…，客人想3月3号退房…", "send the guest a message, …": the words follow the message.
        rest = said[verb.end() :].strip(" ,，:：")
        text = Span("text", rest, said.index(rest, verb.end()), said.index(rest, verb.end()) + len(rest), rest) if WORDY.search(rest) else None
    if text is None and SAYING_VERB.search(filled.reading.folded, 0, after) and not HEARD.match(filled.reading.folded, after):
        # "告诉HT…的客人，可以提前入住": after the one told, the words told.
        rest = RECIPIENT_TAIL.sub("", said[after:])
        if WORDY.search(rest):
            start = len(said) - len(rest)
            text = Span("text", rest.strip(), start, start + len(rest.strip()), rest.strip())
    if text is None and LAST_CLAUSE_ONLY.fullmatch(said[after:]):
        # "客人想提前一天退房，帮我通知一下供应商", "…, please let the supplier know": the words come first.
        text = _words_before(said, filled.reading.folded, after)
    if text is not None and (not WORDY.search(text.value) or GENERIC_BODY.fullmatch(text.value)):
        text = None  # "send the guest a message": the words to send are asked, never made up
    who = pgettext("recipient", "供应商") if channel == "upstream" else pgettext("recipient", "客人")
    early_asked = (
        channel == "upstream" and (text is None or EARLY_ASKED.match(text.value) or ABOUT_IT.fullmatch(text.value)) and _early_in_talk(turn, said)
    )
    if early_asked and (order := filled.slots.get("order_no")):
        # "先联系供应商吧" after "李四那单要提前离店", "…问问能不能提前退": the early check-out's own question, the desk's
        # template (no words of the user's are made into a message).
        return this_order_first(turn, filled) or checkout_flow(turn, order.value)
    if early_asked or (channel == "upstream" and EARLY.search(said) and "order_no" not in filled.slots):
        # The early check-out's question, or the early check-out told ("guest wants to check out early, ping the
        # supplier"), for an order not named yet: the supplier knows its guests by their bookings.
        return Step.say(str(ORDER_ASK))
    if text is None:
        return Step.say(_("要对%(who)s说什么？请把要发的话写在冒号后面。") % {"who": who})
    text = without_request_to_agent(without_order_reference(text))
    if (
        (order := filled.slots.get("order_no")) and channel == "upstream" and REFUND_QUESTION.search(text.value) and EARLY.search(said)
        and not OWN_WORDS.search(said) and not DATED.search(text.value)
    ):
        # "HT… 客人要提前走，帮我问下供应商剩下两晚能不能退": the early check-out's own question to the supplier,
        # the desk's template from the order looked up (its supplier number, stay and room).
        return this_order_first(turn, filled) or checkout_flow(turn, order.value)
    if channel == "downstream" and REFUND_DONE.search(text.value):
        # The desk's rule: the guest hears of a refund from the system once staff registered it, never from the desk.
        return Step.say(_("退款登记后系统会通知客人；在那之前我不能告诉客人退款已办理，所以没有发送。"))
    topic = bool(TOPIC_ONLY.fullmatch(text.value) or TOPIC_BEFORE.search(said, 0, text.start))
    # Dictated after a colon or in quotes, the words go as typed; told about, "the guest" needs the booking.
    dictated = re.search(r"[:：「“\"']\s*$", said[: text.start])
    about_a_guest = channel == "upstream" and not dictated and THE_GUEST.search(text.value) and not SUPPLIER_NUMBER.search(said)
    # "tell the supplier yes", "跟供应商说同意": an answer means nothing without the booking it answers about.
    bare_answer = bool(BARE_ANSWER.fullmatch(text.value.strip(" .!。！")))
    if "order_no" not in filled.slots and (ORDER_POINTED.search(filled.reading.folded) or topic or about_a_guest or bare_answer):
        # "问问供应商那单能不能退", "message the supplier about the early checkout", "tell the supplier the guest is
        # leaving early": which order? (the supplier has many guests)
        return Step.say(str(ORDER_ASK))
    if topic:
        return Step.say(_("要对%(who)s说什么？请把要发的话写在冒号后面。") % {"who": who})  # a topic is no message
    if channel == "downstream" and "order_no" not in filled.slots and not dictated and THE_GUEST.search(filled.reading.folded, 0, after):
        # "tell the guest we're sorry for the wait", "跟客人说一声房间好了": every booking has its guest; which one? (Dictated
        # after a colon or in quotes, the words go to the guests' channel as typed.)
        return Step.say(str(ORDER_ASK))
    content = text.value
    asked_whether = bool(ASKED_WHETHER.search(said, 0, text.start))
    if asked_whether:
        # "ask the supplier whether the suite has a balcony": the question is sent (the user's words after the desk's
        # "Could you confirm whether"), not "the suite has a balcony".
        content = f"Could you confirm whether {content}{'?' if content[-1:].isalnum() else ''}"
    order = filled.slots.get("order_no")
    if order and channel == "upstream" and EARLY.search(said) and (DATED.search(content) or EARLY.search(content) and order.value in content.upper()) and not SUPPLIER_NUMBER.search(said):
        # "…客人想3月3号退房，问问后面两晚能不能退", "…whether early checkout on the 16th is refundable", "the guest on HT… is
        # leaving a day early, contact the supplier" (our number, which the supplier doesn't know): the user's own words,
        # with the booking as the supplier knows it (looked up) leading them.
        if (looked := turn.last("order_query")) is None:
            return Step.call("order_query", order_no=order.value)
        if looked.ok and (number := looked.data.get("supplier_order_no")) and number not in content:
            content = f"{number}: {content}"
    if channel == "upstream" and (theirs := SUPPLIER_NUMBER.search(said)) and theirs.group() not in content:
        # "tell supplier SUP-88903 that …", "message the supplier about SUP-88903: …": the booking as they know it, as
        # typed, leads the words (which follow unchanged).
        content = f"{theirs.group()}: {content}"
    arguments = {"channel": channel, "content": content}
    if order:
        arguments["order_no"] = order.value
    done = turn.last("message_send")
    if done is not None:
        if done.result.get("status") == "pending_confirmation":
            return Step.say(
                _("我将发给%(who)s：「%(text)s」\n回复「是」发送，回复「不」取消。") % {"who": who, "text": content}
            )
        if not done.ok:
            return Step.say(_error(done))
        return Step.say(_("已发给%(who)s：「%(text)s」") % {"who": who, "text": content})
    # Never sent on the chat's word alone: a pending action quoting the text, run on staff's "yes".
    return Step(proposed=(("message_send", arguments),), composed=("content",) if asked_whether else ())


send_frame.asks_itself = True


# The supplier's answer, told by staff ("供应商回了说同意", "supplier says yes", "the hotel agreed").
SUPPLIER_SAID_YES = re.compile(
    r"(?:供应商|上游|酒店)[^，,。.;；]{0,8}?(?:同意|答应|批了|点头|说可以|说行|说没问题|ok了|可以了|松口)"
    r"|\b(?:supplier|hotel|upstream)\b[^,.;!?]{0,12}?\b(?:says?|said)\s+(?:yes|ok|okay|fine|it'?s\s+(?:ok|okay|fine))\b"
    r"|\b(?:supplier|hotel|upstream)\b[^,.;!?]{0,12}?\b(?:agreed|approved|accepted|ok'?d|signed\s+off)\b"
    # "they said yes on the phone just now, go ahead with the refund": them, after the supplier was asked.
    r"|\bthey\s+(?:said|say)\s+(?:yes|ok|okay|fine)\b|\bthey\s+(?:agreed|approved|accepted|ok'?d)\b",
    re.IGNORECASE,
)
# The refund asked for, not asked about: "那就走退款吧", "refund it", "给他退吧", "go ahead with the refund".
REFUND_TOLD = re.compile(
    r"走退款|办退款|退款吧|(?<![房])退吧|给(?:他|她|客人)退|办理退款|登记退款|退了吧|(?<!已经)(?<!已)单子?退了(?![吗么没])"
    r"|\brefund\s+(?:it|him|her|them|the\s+guest|that|(?:the|this|that|(?:[a-z]+\s+){0,2}?[a-z]+['’]s)\s+(?:order|booking|reservation))\b|\b(?:process|do|issue|go\s+ahead\s+with)\s+(?:the\s+)?refund\b",
    re.IGNORECASE,
)


@frame(
    "message_list",
    triggers=(
        "reply", "replied", "answer", "say", "said", "respond", "messages", "msg", "conversation", "chat", "thread", "unread", "未读",
        "get back to", "got back to", "gotten back", "heard back", "hear back", "word back", "any word", "heard anything",
        # "has the guest written anything to us?": what they wrote, read.
        "written", "wrote us", "wrote to us", "sent us", "messaged us", "heard from", "write back", "wrote back", "written back", "回话", "回音",
        # "what did the guest write on HT…", "客人写了什么": what they wrote, read.
        "did the guest write", "did the supplier write", "did they write", "写了什么", "写了啥", "写的什么", "写的啥",
        "the guest wrote", "the supplier wrote", "what they wrote", "followed up in writing",
        "channel", "回复", "回了", "怎么说", "说了什么", "说了啥", "说啥了", "说什么了", "讲了啥", "回信", "消息", "留言", "聊天记录", "对话", "沟通记录", "频道",
        "anything new", "any news", "新消息", "有啥新", "怎么回", "回的什么", "回的啥",
        # "看看客人那边有啥没读的": what is still unread.
        "没读", "没看的",
    ),
    # ("给客人回个消息": a reply to write, whose words are asked; not the channel read.)
    not_with=("send", "tell", "let", "msg guest", "回个消息", "回条消息", "回一条消息", "回个信息", "msg the", "msg supplier", "告诉", "说：", "说:", "发消息：", "发消息:", "发个消息：", "发个消息:", "发条消息：", "发条消息:", "发消息给", "发个消息给", "发条消息给", "message the", "发消息说", "发条消息", "发一条", "a message:"),
    required=(),
    priority=4,
)
def read_frame(turn: Turn, filled: Filled) -> Step | None:
    found = _channel_of(filled)
    order_no = filled.slots["order_no"].value if "order_no" in filled.slots else None
    if found is None and (theirs := _them(turn, filled, THEY)) is not None:
        found = theirs[0]  # "did they answer?" after a message to the supplier: that channel
    if found is None and filled.reading.has(*UNREAD):
        # "有没有未读消息", "only unread ones for HT…": no channel named, so both are read.
        return _read_both(turn, filled)
    if found is None:
        return DECLINE
    # "what did the supplier say?" after asking them about HT…: that message's order.
    order_no = order_no or next(
        (args.get("order_no") for name, args in reversed(turn.earlier_calls) if args.get("channel") == found[0] and args.get("order_no")), None
    )
    if _addressed(filled) is not None and SAYING_VERB.search(_head_of(filled)):
        return DECLINE  # "给…的客人发个消息：…": words to send, not the channel to read
    if ORDER_LOOKED_UP.search(filled.reading.folded):
        return DECLINE  # "look up order HT…, the guest says …": the order is asked for; what the guest says is why
    if "order_no" in filled.slots and CHECK_IT.search(filled.reading.said):
        return DECLINE  # "order 2026… — guest says they got the wrong bed?? check it": the order to look up
    if EARLY.search(filled.reading.said) and HANDLING_ASKED.search(filled.reading.said):
        return DECLINE  # "a guest called saying they want to leave early, can you sort it out?": the case to handle
    if SUPPLIER_SAID_YES.search(filled.reading.folded) and REFUND_TOLD.search(filled.reading.folded):
        return DECLINE  # "供应商回了说同意，那就走退款吧", "supplier says yes. refund it": their answer told, the refund asked
    if turn.last("message_list") is not None:
        return None
    arguments = {"channel": found[0]}
    if order_no:
        arguments["order_no"] = order_no
    if filled.reading.has("unread", "new", "未读", "新", "没读", "没看"):
        arguments["unread_only"] = True
    return Step.call("message_list", **arguments)


# The order asked to be looked into: "check it", "look into it", "核实一下".
CHECK_IT = re.compile(r"\b(?:check|look\s+into|look\s+at|verify)\s+(?:it|this|that)\b|核实一下|核对一下", re.IGNORECASE)
# The desk asked to take a case on: "can you sort it out?", "handle it", "帮忙处理一下".
HANDLING_ASKED = re.compile(r"\bsort\s+(?:it|this|that)\s+out\b|\bhandle\b|\bdeal\s+with\b|\btake\s+care\s+of\b|处理|搞定|跟进|办一下", re.IGNORECASE)
# Messages asked for as unread or new, whichever channel: "any unread messages?", "有新消息吗".
UNREAD = ("unread", "未读", "没读", "新消息", "new message", "new messages", "new replies", "new reply")


def _read_both(turn: Turn, filled: Filled) -> Step | None:
    if turn.last("message_list") is not None:
        return None
    order_no = filled.slots["order_no"].value if "order_no" in filled.slots else None
    extra = {"order_no": order_no} if order_no else {}
    return Step(calls=tuple(("message_list", {"channel": channel, **extra, "unread_only": True}) for channel in ("downstream", "upstream")))


read_frame.answers_past = True
read_frame.asks_itself = True
# "…everything the suppliers sent today": what they sent, read; no message of ours to send.
read_frame.unsaid = re.compile(
    r"\b(?:the\s+)?(?:suppliers?|guests?|hotels?|they|he|she)\s+(?:have\s+|has\s+|had\s+)?(?:sent|send)\b(?!\s+(?:a|an|the|them|him|her)\b)", re.IGNORECASE
)


@frame("order_query", triggers=("order", "booking", "reservation", "订单", "@order"), asks={"order_no": ORDER_ASK})
def order_frame(turn: Turn, filled: Filled) -> Step | None:
    if turn.last("order_query") is None:
        return Step.call("order_query", order_no=filled.value("order_no"))
    return None


# "订单HT…退款了没有", "has HT… been refunded?": the order's look-up shows its refund.
order_frame.answers_past = True
