"""Record a tick's batches, and replay them against another model (``autonomy_tick --record``,
``manage.py replay_tick``).

``RecordingPolicy`` wraps the tick's policy: every batch's system prompt, prompt, the choices its
decoding schema offered, the answer and the decisions read from it go to one JSON file,
``DIR/tick-NNNN/batch-NNN.json``. ``replay`` sends the recorded prompts to another endpoint, reads its answers the same way, and returns
the decisions that differ from the recorded ones.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from asgiref.sync import async_to_sync

from .decisions import DecisionFormatError, parse_decisions, validate_decisions
from .policy import Answer, ModelPolicy, session


def read_decisions(text: str, batch: list[int], actions: Any) -> tuple[list[dict], str]:
    """The decisions an answer holds, as JSON (the tick's own reading), and why none could be read."""
    try:
        decided = validate_decisions(parse_decisions(text), batch, actions)
    except DecisionFormatError as exc:
        return [], str(exc)
    return [d.as_json() for d in decided.decisions.values() if d.agent_id not in decided.omitted], ""


class RecordingPolicy:
    """The tick's policy, each batch's exchange written to ``directory`` as it happens."""

    uses_prompt = True  # the prompts are what a replay needs, even from the rules policy

    def __init__(self, policy: Any, directory: Path, *, system_prompt: str, actions: Any) -> None:
        self.policy, self.directory = policy, Path(directory)
        self.name, self.model = policy.name, policy.model
        self.system_prompt, self.actions = system_prompt, actions
        self.directory.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._count = 0

    def session(self) -> Any:
        return session(self.policy)

    @property
    def announces_requests(self) -> bool:
        return bool(getattr(self.policy, "announces_requests", False))

    async def answer(self, world: Any, batch: list[int], prompt: str) -> Answer:
        offered = getattr(self.policy, "choices", None)
        choices = offered(world, batch) if offered is not None else None
        answer = await self.policy.answer(world, batch, prompt, **({"choices": choices} if choices is not None else {}))
        decisions, error = read_decisions(answer.text, batch, self.actions)
        with self._lock:
            self._count += 1
            path = self.directory / f"batch-{self._count:03d}.json"
        record = {
            "agent_ids": batch, "system": self.system_prompt, "prompt": prompt, "choices": choices, "answer": answer.text,
            "usage": answer.usage, "decisions": decisions, "error": error, "provider": self.name, "model": self.model,
        }
        path.write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")
        return answer


@dataclass
class Difference:
    file: str
    agent_id: int
    recorded: dict | None
    replayed: dict | None


def replay(directory: Path, provider: Any, model: str | None, actions: Any) -> tuple[int, list[Difference], list[str]]:
    """Every recorded batch under ``directory`` sent again through ``provider``: the decisions
    compared, the differences (action or params) and the batches it could not read."""
    compared, differences, unreadable = 0, [], []
    for path in sorted(Path(directory).rglob("batch-*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        batch = [int(i) for i in record["agent_ids"]]
        policy = ModelPolicy(provider, model, system_prompt=record["system"], actions=actions)
        # Under the recorded batch's own schema: the snapshot's ids, not the tools' bare types.
        answer = async_to_sync(policy.answer)(None, batch, record["prompt"], choices=record.get("choices"))
        replayed, error = read_decisions(answer.text, batch, actions)
        if error:
            unreadable.append(f"{path.relative_to(directory)}: {error}")
        before = {d["agent_id"]: d for d in record["decisions"]}
        after = {d["agent_id"]: d for d in replayed}
        for agent_id in batch:
            compared += 1
            old, new = before.get(agent_id), after.get(agent_id)
            same = old is not None and new is not None and (old["action"], old["params"]) == (new["action"], new["params"])
            if not same:
                differences.append(Difference(str(path.relative_to(directory)), agent_id, old, new))
    return compared, differences, unreadable
