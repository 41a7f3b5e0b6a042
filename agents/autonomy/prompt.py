"""The parts of an autonomy prompt that are the engine's, whatever the world.

Each action is the tool of the same name; ``params_hint`` reads its parameters from the
tool registry, so a world's prompt cannot drift from what the executor will accept.
The prompt text is the model contract and stays Chinese (it is not a catalogue string).
"""

from __future__ import annotations

from agents.registry import registry

_TYPES = {"number": "num", "string": "str", "boolean": "bool"}


def params_hint(action: str) -> str:
    """``{item_id, quantity?}`` from the tool's schema: integers bare, other types named, ``?`` optional."""
    spec = registry.get(action)
    if spec is None:
        return "{}"
    schema = spec.input_schema
    required = set(schema.get("required", []))
    parts = []
    for name, prop in schema.get("properties", {}).items():
        kind = prop.get("type")
        parts.append(f"{name}{'' if name in required else '?'}{'' if kind == 'integer' else ':' + _TYPES.get(kind, 'any')}")
    return "{" + ", ".join(parts) + "}"


def batch_prompt(snapshot: str, agent_ids: list[int]) -> str:
    """The snapshot holds only this batch's residents: the ask names how many, not their ids again."""
    return f"{snapshot}\n\n为以上 {len(agent_ids)} 个居民各决定一个行为（agent_id 即 ID）。"
