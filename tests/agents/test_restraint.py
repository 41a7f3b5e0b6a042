"""The one gate before any write of the offline chat (agents/providers/restraint.py)."""

import pytest

from agents.providers import restraint
from agents.providers.framing import without_order_reference
from agents.providers.understanding import Span, named_phrase


@pytest.mark.parametrize(
    "text",
    ["今天先不要签到", "暂时不去农田上班", "hold off on eating for now", "not yet, don't check me in", "no need to eat",
     "HT20260301003的退款暂时不办", "wait on the bounty, I'll claim it later"],
)
def test_a_negation_or_deferral_holds_the_write_back(text):
    assert restraint.deferred(text, {"checkin"})


@pytest.mark.parametrize("text", ["给Bob转10个木材", "eat a bread", "签到", "refund HT20260301001"])
def test_a_plain_request_passes(text):
    assert not restraint.deferred(text, {"checkin"}) and not restraint.asked(text)


def test_a_write_that_undoes_something_is_asked_for_with_a_negation():
    assert not restraint.deferred("我不想在农田干了", {"unassign_building"})
    assert restraint.deferred("先别辞职", {"unassign_building"})


@pytest.mark.parametrize(
    "text",
    ["我要是去农田工作能挣多少？", "how much would I earn if I worked at the farm?", "should I sell my wood?",
     "I was thinking about quitting my job, what do you think?", "我在考虑要不要辞职，你觉得呢"],
)
def test_a_question_or_musing_is_no_request(text):
    assert restraint.asked(text)


@pytest.mark.parametrize("text", ["能帮我给Bob转10个木材吗？", "could you give Bob 5 wood?", "请帮我签到，好吗"])
def test_a_polite_request_is_a_request(text):
    assert not restraint.asked(text)


def test_the_free_text_of_a_write_is_not_read_for_negations():
    said = "把科技先锋的备注改成：不要追高"
    assert restraint.deferred(said, {"update_fund"})
    assert not restraint.deferred(restraint.without(said, ["不要追高"]), {"update_fund"})


def test_another_residents_goods_are_not_the_speakers():
    said = "cancel Dave's listing"
    assert restraint.others(said, "cancel_market_order", "Alice", [(7, 11, "Dave", 4)], set())
    assert not restraint.others(said, "accept_market_order", "Alice", [(7, 11, "Dave", 4)], set())
    assert not restraint.others("give Bob's share to Bob", "transfer_resource", "Alice", [(5, 8, "Bob", 2)], {2})


@pytest.mark.parametrize(
    ("said", "name"),
    [("build a quarry called South Hill Quarry", "South Hill Quarry"),
     ("construct a farm named West Farm, please", "West Farm"),
     ("建个农田，名字叫西郊农田", "西郊农田"),
     ("建造 mill 叫「东门 老磨坊」", "东门 老磨坊")],
)
def test_a_new_name_is_the_whole_phrase(said, name):
    span = named_phrase(said)
    assert span.value == name and said[span.start : span.end] == name


@pytest.mark.parametrize(
    ("text", "kept"),
    [("您的退款已在处理中，请耐心等待。订单号HT20260301001", "您的退款已在处理中，请耐心等待。"),
     ("your refund is on its way! (order HT20260301003)", "your refund is on its way!"),
     ("HT20260301001，退款已提交。", "退款已提交。")],
)
def test_the_order_reference_is_no_part_of_the_message(text, kept):
    assert without_order_reference(Span("text", text, 0, len(text), text)).value == kept


@pytest.mark.parametrize(
    "text", ["订单 HT20260301001 能否退款？", "please confirm HT20260301002", "HT20260301001 的客人明天走"]
)
def test_an_order_number_inside_the_sentence_stays(text):
    assert without_order_reference(Span("text", text, 0, len(text), text)).value == text


@pytest.mark.parametrize("text", ["今天就不签到了", "let's not sell the wheat", "no checking in today"])
def test_a_plain_no_before_the_verb_holds_it_back(text):
    assert restraint.deferred(text, {"checkin"})


def test_is_it_possible_is_a_question():
    assert restraint.asked("HT20260301001可以退款吗？")
    assert restraint.deferred("我不辞职了", {"unassign_building"})
