"""The city's system prompt tells the model the rules the rules policy acts on."""

import pytest

from city.autonomy.prompt import HUNGRY, TIRED, system_prompt
from city.services import WORK_ENERGY_COST


def test_the_prompt_states_when_to_eat_rest_and_work():
    prompt = system_prompt()
    assert f"饱食<{HUNGRY}先eat(没食物就purchase)" in prompt
    assert f"精力<{TIRED}先rest" in prompt
    assert f"有工作,精力≥{WORK_ENERGY_COST}就checkin(每天一次)" in prompt


def test_the_prompt_forbids_repeating_a_failure_with_the_same_params():
    assert "失败的别原样重做" in system_prompt()


def test_the_prompt_names_what_the_snapshot_calls_the_needs():
    """The rules and the resident lines say 饱食 and 精力 alike, so a threshold reads against its number."""
    prompt = system_prompt()
    assert "饱食<" in prompt and "饱食度" not in prompt


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_the_demo_citys_prompt_costs_at_most_150_estimated_tokens_a_resident(language):
    """Issue 27: 363 by the estimate (313 by Gemma 3's tokenizer) before the fixed part shrank, then 257."""
    from io import StringIO

    from django.core.management import call_command

    from agents.autonomy.tick import run_tick
    from agents.providers.tokens import messages_tokens

    call_command("seed_demo", language=language, stdout=StringIO())
    result = run_tick(dry_run=True, show_prompt=True)
    system, *batches = result.prompts
    sent = sum(messages_tokens([{"role": "system", "content": system}, {"role": "user", "content": b}]) for b in batches)
    assert result.stats["agents"] == 6 and len(batches) == 1
    assert sent / result.stats["agents"] <= 150
