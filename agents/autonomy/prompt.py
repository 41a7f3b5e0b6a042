"""The parts of an autonomy prompt that are the engine's, whatever the world.

Each action is the tool of the same name; ``params_hint`` reads its parameters from the
tool registry, so a world's prompt cannot drift from what the executor will accept.
The prompt text is the model contract and stays Chinese (it is not a catalogue string).
"""

from __future__ import annotations

from agents.registry import registry

_PLACEHOLDER = {"integer": "<int>", "number": "<number>", "string": '"<str>"', "boolean": "<bool>"}


def params_hint(action: str) -> str:
    """``{"item_id": <int>, "quantity"?: <int>}`` from the tool's schema (``?`` = optional)."""
    spec = registry.get(action)
    if spec is None:
        return "{}"
    schema = spec.input_schema
    required = set(schema.get("required", []))
    parts = []
    for name, prop in schema.get("properties", {}).items():
        optional = "" if name in required else "?"
        parts.append(f'"{name}"{optional}: {_PLACEHOLDER.get(prop.get("type"), "<value>")}')
    return "{" + ", ".join(parts) + "}"


def batch_prompt(snapshot: str, agent_ids: list[int]) -> str:
    ids = ", ".join(str(i) for i in agent_ids)
    return f"{snapshot}\n\n请为以上每个居民（ID: {ids}）各决定一个行为，只输出 JSON 数组。"
