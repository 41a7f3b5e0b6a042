"""The parts of an autonomy prompt that are the engine's, whatever the world.

Each action is the tool of the same name; ``params_hint`` reads its parameters from the
tool registry, so a world's prompt cannot drift from what the executor will accept.
The prompt text is the model contract and stays Chinese (it is not a catalogue string).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.utils import translation

from agents.registry import localized_schema, registry

def params_hint(action: str) -> str:
    """``{item_id,quantity?}`` from the tool's schema: the parameter names, ``?`` after an optional one.

    Names only: their types are in the decoding schema where the endpoint takes one, and a
    name says its kind well enough to a model that writes free JSON (``quantity``, ``name``).
    """
    spec = registry.get(action)
    if spec is None:
        return "{}"
    schema = spec.input_schema
    required = set(schema.get("required", []))
    return "{" + ",".join(f"{name}{'' if name in required else '?'}" for name in schema.get("properties", {})) + "}"


def batch_prompt(snapshot: str, agent_ids: list[int]) -> str:
    """The snapshot holds only this batch's residents: the ask names how many, not their ids again."""
    return f"{snapshot}\n给这 {len(agent_ids)} 人各选一个行为。"


# Words a grammar does not need: left out of the schema (OpenAI puts it into the prompt).
_NOT_FOR_DECODING = ("description", "default", "title")


def _bare(node: Any) -> Any:
    if isinstance(node, dict):
        return {key: _bare(value) for key, value in node.items() if key not in _NOT_FOR_DECODING}
    if isinstance(node, list):
        return [_bare(value) for value in node]
    return node


# (action, language) → (the tool's spec, its parameters as decoding needs them): read once, not for
# every batch's call (each of a tick's 50 calls walked all 13 tools' schemas on the event loop).
_decoding: dict[tuple[str, str], tuple[Any, dict]] = {}


def _decoding_params(action: str) -> dict:
    """The action's parameters as its tool declares them, without the words a grammar does not need.
    Never changed by its callers (``_narrowed`` copies); rebuilt when the tool is registered anew."""
    spec = registry.get(action)
    if spec is None:
        return {"type": "object"}
    key = (action, translation.get_language() or "")
    known = _decoding.get(key)
    if known is None or known[0] is not spec:
        known = _decoding[key] = (spec, _bare(localized_schema(spec.input_schema)))
    return known[1]


def _narrowed(params: dict, choices: Mapping[str, Sequence]) -> dict | None:
    """``params`` with each chosen property limited to its values; None when a required one has none."""
    properties = dict(params.get("properties", {}))
    required = set(params.get("required", []))
    for name, values in choices.items():
        if name not in properties:
            continue
        if values:
            properties[name] = {**properties[name], "enum": list(values)}
        elif name in required:
            return None
        else:
            del properties[name]
    return {**params, "properties": properties}


def decisions_schema(
    actions: Iterable[str], batch: list[int], choices: Mapping[str, Mapping[str, Sequence]] | None = None,
) -> dict:
    """The JSON schema of a batch's answer, for constrained decoding (``response_format``).

    An object holding the array (OpenAI's structured outputs want an object at the top), one
    item per resident: ``agent_id`` one of the batch's ids, then one shape per action with
    that action's parameters as its tool declares them, so the decoder cannot produce an
    unknown action, a stranger's id, or params the executor would refuse by their form.
    ``choices`` (the world's, action → parameter → values) limits a parameter to what the
    snapshot names, and leaves out an action with nothing to act on: a grammar bounds no
    integer (llama-cpp-python ignores ``maximum``), an enum it keeps.
    """
    shapes = []
    for action in actions:
        params = _narrowed(_decoding_params(action), (choices or {}).get(action, {}))
        if params is None:
            continue
        shapes.append({
            "type": "object",
            "properties": {
                "agent_id": {"type": "integer", "enum": list(batch)},
                "action": {"type": "string", "enum": [action]},
                "params": params,
                "reason": {"type": "string", "maxLength": 60},
            },
            "required": ["agent_id", "action", "params", "reason"],
            "additionalProperties": False,
        })
    return {
        "type": "object",
        "properties": {
            "decisions": {"type": "array", "items": {"anyOf": shapes}, "minItems": len(batch), "maxItems": len(batch)},
        },
        "required": ["decisions"],
        "additionalProperties": False,
    }
