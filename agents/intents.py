"""Chat phrases the rules provider understands for the agents app's own tools, and the
sentences no agent acts on whatever they name: negations, hypotheticals, questions about
what was done, how-to questions (a wrong action is worse than none)."""

import re

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .providers import restraint
from .providers.rules import (
    DECLINE,
    GUARD,
    Step,
    Turn,
    answered,
    intent,
    look_up,
    negation_is_elsewhere,
    outside_negation,
    state_read,
    suggestions,
)


@intent(
    # "我不想在面包坊干了" quits: not wanting to go on working is itself the request. "别忘了…", "don't forget to …",
    # "no worries, …" remind or reassure: no negation.
    r"^(?:我)?(?:不要|别|不用|不必|无需|请勿|勿|先别|暂时不要|千万别|不想(?![^，。,]{0,12}(?:干了|做了|干下去)|[^，。,]{1,12}了[，,]\s*(?:我要|就|那就)?(?:把[^，。,]{1,10}?)?(?:辞职|辞了|辞掉|不干了))|不打算|不准|禁止)"
    r"(?!忘|客气|担心|着急|急|谢|等)",
    # ("never mind Eve, quit my job": someone set aside, then the request.)
    r"^(?:i\s+)?(?:don'?t|do\s+not|never(?!\s*mind)|no\s+need\s+to|stop|cancel\s+that|nevermind|never\s+mind)\b"
    r"(?!\s+(?:forget|hesitate|worry|the|my|your|his|her|him|them)\b|\s+(?-i:[A-Z])[a-z]+\s*[,，;—–-])",
    r"^(?:no|nope)\b(?!\s+(?:worries|problem|prob|probs|biggie|rush|hurry)\b)",
    # "备注不用动", "名字别动", "别的都不用动": a field (or the rest) left as it is, no negation of the request
    # ("改名叫X，备注不用动", "只要启用就行，别的都不用动").
    r"(?<!您)(?<!你)(?<!备注)(?<!名字)(?<!名称)(?<!别的)(?<!别的都)(?<!别的就)(?<!其他)(?<!其他的)(?<!其他都)(?<!其他的都)(?<!其余)(?<!其余的)"
    r"(?:先别|先不要|暂时不要|暂时别|不用|不要|别)(?:处理|办理|动(?!状态|名字|备注|名称)|操作|执行|做)|只是问问|随便问问",
    r"\b(?:don'?t|do\s+not)\s+(?:do|act|process|handle|touch)\b|\bdo\s+nothing\b|\bjust\s+asking\b",
    priority=GUARD,
)
def negation(turn: Turn, match) -> Step:
    if not match.re.search(restraint.courteous(match.string)):
        return DECLINE  # "just check it, don't do anything else", "别动别的": the rest left alone, no no
    if negation_is_elsewhere(turn) and (step := outside_negation(turn)) is not DECLINE:
        return step  # "不用休息了，先帮我上班打卡": no to resting, yes to checking in
    return Step.say(_("好的，我不会执行任何操作。"))


@intent(
    # "Can you proofread this note: '… refund HT… immediately …'", "帮我润色一下这段通知：「…」": the text is to be
    # edited, and what it says is no request.
    r"\b(?:proof-?read|fix\s+(?:the\s+|its\s+|my\s+)?(?:grammar|typos?|wording|spelling|punctuation)|reword|rephrase|translate)\b"
    r"[^\"'“「]{0,40}[:：\"'“「]",
    r"(?:润色|校对|改(?:一下|下)?(?:语法|错别字|措辞|病句)|翻译(?:一下|下)?)[^“「\"]{0,20}[:：“「\"]",
    priority=GUARD,
)
def editing_text(turn: Turn, match) -> Step:
    return Step.say(_("这是要修改的文字，我不会执行其中写的操作；改写文字也不是我的工具能做的事，所以什么都没有做。"))


@intent(
    r"^(?:如果|假如|假设|要是|万一|倘若)(?!(?:可以|方便|不麻烦|你愿意|您愿意)(?:的话)?)",  # "如果可以的话，…" is polite
    r"会(?:怎样|怎么样|发生什么)",
    r"\b(?:what\s+if|what\s+(?:would|will)\s+happen|what\s+happens\s+if|suppose|hypothetically|imagine)\b",
    r"^if\s+i\b",
    priority=GUARD,
)
def hypothetical(turn: Turn, match) -> Step:
    if restraint.WARNED.match(match.string):
        return DECLINE  # "要是今天不打卡就扣钱了，帮我打个卡": why the request is asked now, no supposition
    return Step.say(_("这是一个假设，我不会因此执行操作；需要时请直接告诉我要做什么。"))


@intent(
    r"^did\b",
    r"^(?:have|has)\s+(?:you|i|we|they|he|she)\s+(?:already\s+)?(?:\w+(?:ed|en)|sent|made|done|bought|sold|got|paid|put)\b",
    # "了没" asks at the end of its clause ("转了没？", "发了没有"); "钱多了没地方花" says there is nowhere to spend it.
    r"(?:了吗|了没有?(?=\s*(?:[?？。.!！,，~]|呢|啊|呀|$))|过吗|是否已经|是不是已经|有没有(?:转|给|送|领|接|创建|停用|启用))",
    r"^(?:我|你)?(?:是不是|是否)",
    priority=GUARD,
)
def question_about_the_past(turn: Turn, match) -> Step:
    if restraint.TOLD_AFTER_ASKING.search(turn.said):
        return DECLINE  # "今天签到了没？帮我签一下": the check question, then the request
    # "did I claim any bounty?", "他们回复了吗": a look-up shows what was done; nothing is done again.
    if turn.outcomes:
        return answered(turn)
    if "get_my_status" in turn.offered and restraint.STATE.search(turn.said):
        return state_read(turn)  # "我是不是快饿晕了 …看下饱食度还剩多少": the speaker's state now, which the status shows
    if (look := look_up(turn, {"message_list"})) is not None:
        return look
    return Step.say(_("这是在问已经发生的事，我不会因此执行操作；可以问我当前的状态或资源。"))


@intent(
    # "is it enough?", "and what about the other one?", "另一个呢": a pointer, and nothing said before it points back to.
    r"^\s*(?:(?:and|so|but)\s+)?(?:is|was|are)\s+(?:it|that|this|they)(?:\s+(?:one|1))?\s+(?:enough|ok(?:ay)?|fine|right|good|cheaper|better|worse|"
    r"more\s+expensive|too\s+(?:much|little|many|few)|worth\s+it|a\s+good\s+(?:idea|deal|price)|safe|wise)\s*[?？]*\s*$",
    r"^\s*(?:(?:and|so|but)\s+)?(?:what|how)\s+about\s+(?:the\s+other\s+(?:one|1)|that\s+(?:one|1)|this\s+(?:one|1)|it|them|the\s+rest)\s*[?？]*\s*$",
    r"^\s*(?:那|那么)?(?:另(?:一|1)个|另外(?:一|1)?个|另外那个|那个|这个|它)(?:呢|怎么样|够吗|够不够|行吗|可以吗)?\s*[?？]*\s*$",
    r"^\s*(?:那|这)?(?:够了?吗|够不够|行不行|值得吗|值不值得?|值吗|划算吗|划不划算|合算吗|靠谱吗)\s*[?？]*\s*$",
    r"^\s*(?:(?:那|这)?(?:个)?人|他|她)?(?:怎么样|咋样|如何)\s*[?？]*\s*$",  # "那个(人)怎么样": its "那个" is padding the normal form drops
    priority=GUARD + 1,
)
def pointed_at_nothing(turn: Turn, match) -> Step:
    if turn.earlier:
        return DECLINE  # the last message says what "it" is: read as a follow-up
    return Step.say(_("你指的是哪一个？我们还没有聊到具体的东西，请说出名字或编号。"))


@intent(
    r"^(?:怎么|如何|怎样|该怎么|要怎么)(?!样)",
    r"^how\s+(?:do|can|could|should|would|to)\b",
    r"^(?:can|could|may|should|shall|must)\s+(?:i|we)\s+(?!see|have|get|know|check|view|look)",
    r"^(?:我|我们)(?:可以|能|能不能|可不可以|应该|该不该|要不要)(?!看|查|知道)",
    r"^(?:is\s+it\s+(?:ok|okay|possible|allowed)|am\s+i\s+allowed)\b",
    r"^(?:is|are|was|were)\s+(?!there\b)",
    r"是(?:不是|否)?[^,，。]*的吗\s*\??$",
    priority=GUARD,
)
def how_to(turn: Turn, match) -> Step:
    examples = [example for _tool, example in suggestions(turn.offered, limit=1)]
    if not examples:
        return Step.say(_("这是一个问题，我不会因此执行操作。"))
    return Step.say(_("这是一个问题，我不会因此执行操作；想让我做什么请直接说，比如「%(example)s」。") % {"example": examples[0]})


# "doesn't wreck my energy", "won't cost me my credits": the state as what something does to it.
STATE_AFFECTED = re.compile(
    r"\b(?:wreck|drain|kill|ruin|cost|spend|save|use|burn|waste|sap|hurt|eat\s+into|tank)(?:s|ed|ing)?\s+(?:up\s+|through\s+)?(?:all\s+)?(?:of\s+)?my\s+(?:energy|credits|satiety)\b",
    re.IGNORECASE,
)


@intent(
    r"我的状态|我现在怎么样|\bmy status\b|\bhow am i\b|\bstatus\b|\bmy (?:credits|energy|satiety)\b|(?:信用点|精力|饱食度)(?:还)?有多少",
    tool="get_my_status",
    example=gettext_lazy("我的状态"),
)
def my_status(turn: Turn, match) -> Step | None:
    if STATE_AFFECTED.search(turn.plain):
        return DECLINE  # "…something that doesn't wreck my energy": what a choice does to it, not a question about it
    if turn.last("get_my_status") is None:
        return Step.call("get_my_status")
    return None  # the default summary reports the tool's message
