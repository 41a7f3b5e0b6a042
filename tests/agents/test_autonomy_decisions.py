"""Reading autonomy decisions: output repair, validation, and the system prompt."""

from __future__ import annotations

import pytest

from agents.autonomy.decisions import DecisionFormatError, parse_decisions, validate_decisions
from agents.autonomy.prompt import params_hint
from city.autonomy.prompt import ACTIONS, system_prompt

ONE = [{"agent_id": 1, "action": "claim_bounty", "params": {"bounty_id": 3}, "reason": "奖励丰厚"}]


@pytest.mark.parametrize(
    "text",
    [
        '[{"agent_id": 1, "action": "claim_bounty", "params": {"bounty_id": 3}, "reason": "奖励丰厚"}]',
        '```json\n[{"agent_id": 1, "action": "claim_bounty", "params": {"bounty_id": 3}, "reason": "奖励丰厚"}]\n```',
        '好的，以下是决定：\n[{"agent_id": 1, "action": "claim_bounty", "params": {"bounty_id": 3}, "reason": "奖励丰厚"}]\n希望有帮助！',
        '[{"agent_id": 1, "action": "claim_bounty", "params": {"bounty_id": 3,}, "reason": "奖励丰厚",},]',
        '{"agent_id": 1, "action": "claim_bounty", "params": {"bounty_id": 3}, "reason": "奖励丰厚"}',
        '{"decisions": [{"agent_id": 1, "action": "claim_bounty", "params": {"bounty_id": 3}, "reason": "奖励丰厚"}]}',
        '<think>嗯 [先想想]</think>```\n[{"agent_id": 1, "action": "claim_bounty", "params": {"bounty_id": 3}, "reason": "奖励丰厚"},\n]\n```',
    ],
    ids=["plain", "fence", "prose", "trailing-commas", "single-object", "wrapped", "think-and-fence"],
)
def test_output_repair(text):
    assert parse_decisions(text) == ONE


def test_trailing_comma_inside_a_string_is_kept():
    [item] = parse_decisions('[{"agent_id": 1, "action": "chat", "params": {"content": "a, ]"}, "reason": "x",}]')
    assert item["params"]["content"] == "a, ]"


@pytest.mark.parametrize(
    "text",
    ["", "我决定让大家都休息。", "[1, 2] 和 [3, 4]", '{"a": [1], "b": [2]}', "[{'agent_id': 1}]", "null"],
    ids=["empty", "prose-only", "two-arrays", "ambiguous-object", "python-not-json", "null"],
)
def test_unrepairable_output_is_a_format_error(text):
    with pytest.raises(DecisionFormatError):
        parse_decisions(text)


def test_validate_actions_allows_claim_bounty():
    result = validate_decisions([{"agent_id": 1, "action": "claim_bounty", "params": {"bounty_id": 1}}], [1])
    decision = result.decisions[1]
    assert (decision.action, decision.params, decision.error_code) == ("claim_bounty", {"bounty_id": 1}, "")


def test_validate_actions_rejects_unknown():
    result = validate_decisions([{"agent_id": 1, "action": "fly_to_moon", "params": {}}], [1])
    decision = result.decisions[1]
    assert (decision.action, decision.params) == ("rest", {})
    assert "fly_to_moon" in decision.reason


def test_every_design_action_is_accepted():
    assert list(ACTIONS) == [
        "checkin", "purchase", "chat", "rest", "assign_building", "unassign_building", "eat", "transfer_resource",
        "create_market_order", "accept_market_order", "cancel_market_order", "construct_building", "claim_bounty",
    ]
    items = [{"agent_id": i, "action": name, "params": {}} for i, name in enumerate(ACTIONS, start=1)]
    result = validate_decisions(items, list(range(1, len(ACTIONS) + 1)))
    assert [d.action for d in result.decisions.values()] == list(ACTIONS)


@pytest.mark.parametrize("params", [[], "bounty_id=3", 3])
def test_params_that_are_not_an_object_fail_the_decision(params):
    decision = validate_decisions([{"agent_id": 1, "action": "claim_bounty", "params": params}], [1]).decisions[1]
    assert decision.action == "claim_bounty"
    assert decision.error_code == "invalid_arguments"


def test_missing_params_mean_none():
    decision = validate_decisions([{"agent_id": 1, "action": "rest"}], [1]).decisions[1]
    assert (decision.params, decision.error_code) == ({}, "")


def test_decisions_for_residents_outside_the_batch_are_ignored():
    items = [
        {"agent_id": 7, "action": "rest"},
        {"agent_id": 1, "action": "eat"},
        {"agent_id": 1, "action": "chat"},  # a second decision for the same resident
        "not a decision",
        {"agent_id": True, "action": "rest"},
        {"action": "rest"},
    ]
    result = validate_decisions(items, [1, 2])
    assert list(result.decisions) == [1, 2]
    assert result.decisions[1].action == "eat"
    assert result.ignored == 5


def test_a_forgotten_resident_rests():
    result = validate_decisions([{"agent_id": 1, "action": "eat"}], [1, 2])
    assert (result.decisions[2].action, result.decisions[2].reason) == ("rest", "模型没有给出决定，默认休息")


def test_agent_id_given_as_a_digit_string_is_read():
    assert validate_decisions([{"agent_id": "2", "action": "eat"}], [2]).decisions[2].action == "eat"


def test_long_reasons_are_cut():
    decision = validate_decisions([{"agent_id": 1, "action": "rest", "reason": "x" * 1000}], [1]).decisions[1]
    assert len(decision.reason) == 300


def test_system_prompt_lists_the_13_actions_and_their_params_from_the_registry():
    prompt = system_prompt()
    for name in ACTIONS:
        assert f"{name}{params_hint(name)}" in prompt
    assert "purchase{item_id,quantity?}" in prompt
    assert "claim_bounty{bounty_id}" in prompt
    assert "transfer_resource{to_agent_id,resource_type,quantity}" in prompt
    assert "rest{}" in prompt and "unassign_building{}" in prompt
    assert '{"decisions":[{"agent_id":1,"action":"rest","params":{}' in prompt


def test_params_hint_of_an_unregistered_action_is_empty():
    assert params_hint("no_such_tool") == "{}"
