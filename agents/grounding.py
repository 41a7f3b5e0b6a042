"""Tool arguments a small model can only fill from the user's words (issue 27).

Gemma 3 270M picks the right tool for most requests but fills its arguments wrongly: its own
resident id for the receiver, "bread" for flour, a fund id it made up, a remark of a thousand
zeros. Under the constrained tool protocol (``AGENT_TOOL_MODE=constrained``, or ``auto`` once it
switched) the arguments are decoded under a schema, so the schema can say what the message
allows. ``grounded`` gives each offered tool (OpenAI format) such a schema, under the key
``GROUNDED``, beside its own:

- an id of an entity (a resident, fund, bounty, building, shop item, order, resource slug,
  building kind; the kind a parameter holds is ``frames.SLOT_KINDS``): an enum of the entities
  the message's words resolve to (the offline reader's spans, ties included). A message that
  names none: for a look-up, every entity of that kind while they are few (``ALL_UP_TO``), else
  free;
- a count or price: an enum of the numbers the message writes;
- free text (a name, remarks, a message): an enum of the phrases the message gives as a value,
  a quotation, what follows "called"/"叫", "to"/"改成" and the like;
- booleans and parameters with their own enum (or a choice word such as ``channel``) as they are.

A write (``category == "action"``) gets no free argument: an optional one the message has no
value for is left out, and a write whose required argument has none is marked ``False``: the
request's words cannot fill it, so the constrained protocol does not offer it (the model would
invent the argument; a look-up or a question is what such a request needs).

A write is offered only where the request asks for it: the message gives one of its required
arguments, or names what it does. Named are the tools of the offline reader's phrases and frames
whose trigger words the message says ("eat", "饿", "tell", "通知"), the call the offline reader
would make next in this turn (the desk's early-checkout flow: look the order up, ask the supplier,
read the reply, propose the refund), and a call a tool's own template composes (``ToolSpec.compose``:
"refund HT… and tell the supplier" after the look-up). So an argument-less write (``eat``, ``rest``)
is not offered to "could you spare some flour?" (Gemma ate, unasked, in five of eight must-not-act
scenarios). The offline reader's next call and a template's call go first, with the arguments the
message does not give (a channel, the desk's own question) as their only values.

One request asks for one write: once a write of this turn acted, a write the request does not name
is no longer offered (Gemma went on from the flour it gave to selling the rest and eating), nor one
that acted already; a named one still is ("refund HT… and tell the supplier"). What the model picks
is still a call like any other: the executor validates it and the tool decides.
"""

from __future__ import annotations

import json
import re
from typing import Any

from django.utils import translation

from .registry import registry
from .selectors import residents
from .providers.base import GROUNDED, sendable
from .providers.frames import ENUMS, SLOT_KINDS, is_write, registered_frames
from .providers.vocabulary import language_of
from .providers.understanding import QUOTED, NAME_END, NAMING, Reading, read, without_particle

# A message naming no entity of a kind: a look-up may take any of them while they are at most this many.
ALL_UP_TO = 30
# Words that give the value a field is set to: "change the remarks to X", "改成 X", "名称：X".
VALUE_WORDS = re.compile(
    r"(?:改成|改为|修改为|更新为|设为|设置为|换成|写成|改名为|内容是|内容为|[:：]|\bto\b|\bas\b|\bsaying\b)\s*",
    re.IGNORECASE,
)
# "叫 Gamma 的基金": the name ends where a Chinese attributive "的" starts describing the thing named.
ATTRIBUTIVE = re.compile(r"\s*的\S*$")


def grounded(tools: list[dict], said: str, made: list[dict] = (), system: str = "") -> list[dict]:
    """``tools`` each with its arguments' schema grounded in ``said`` under ``GROUNDED`` (``False``: a
    write these words cannot fill or do not ask for, or one not named once one of this turn's calls
    ``made`` wrote), the next call of the offline reader (``system``: the agent's prompt) or of a
    tool's template first."""
    if not tools:
        return tools
    made = list(made)
    reading = read(said)
    values = Values(reading, said)
    names = [tool["function"]["name"] for tool in tools]
    given = {**composed(names, said, made), **planned(tools, said, made, system)}
    named = named_tools(said, set(names), reading) | set(given)
    wrote = {call["name"] for call in made if is_write(call["name"]) and _acted(call.get("result"))}
    out = [
        {
            **tool,
            GROUNDED: False if is_write(name) and wrote and (name in wrote or name not in named)
            else grounded_schema(name, tool["function"].get("parameters") or {}, values, given.get(name, {}), named=name in named),
        }
        for tool, name in zip(tools, names)
    ]
    # A small model takes the first option: the write the reader or a template prepared leads.
    return sorted(out, key=lambda tool: not (tool["function"]["name"] in given and is_write(tool["function"]["name"])))


def _acted(result: Any) -> bool:
    return isinstance(result, dict) and result.get("status") in ("success", "pending_confirmation")


def named_tools(said: str, offered: set[str], reading: Reading | None = None) -> set[str]:
    """The tools whose doing the message names: the offline reader's phrases, and the frames whose
    trigger words it says (a frame triggered by a span alone, "@resident", names no doing: Bob's name
    is no request to accept a market order)."""
    from .tool_relevance import parsed_tools

    reading = reading or read(said)
    triggered = {
        frame.tool for frame in registered_frames()
        if frame.tool in offered and frame.triggered(reading) and reading.has(*frame.words)
    }
    return set(parsed_tools(said, offered)) | triggered


def planned(tools: list[dict], said: str, made: list[dict], system: str = "") -> dict[str, dict]:
    """The calls the offline reader (the rules provider) would make next in this turn, by tool: a
    domain's flow, every argument of a write a span of the words, a look-up's row or its own composition."""
    from .providers.rules import RulesChatPolicy

    messages = [{"role": "system", "content": system}, {"role": "user", "content": said}]
    for index, call in enumerate(made):
        arguments = call.get("arguments") if isinstance(call.get("arguments"), dict) else {}
        messages += [
            {"role": "assistant", "content": "", "tool_calls": [{
                "id": f"made_{index}", "type": "function",
                "function": {"name": call["name"], "arguments": json.dumps(arguments, ensure_ascii=False, default=str)},
            }]},
            {"role": "tool", "tool_call_id": f"made_{index}", "content": json.dumps(call.get("result") or {}, ensure_ascii=False, default=str)},
        ]
    plan: dict[str, dict] = {}
    for call in RulesChatPolicy().decide(messages, sendable(tools)).tool_calls:
        arguments = json.loads(call.arguments or "{}")
        plan.setdefault(call.name, arguments if isinstance(arguments, dict) else {})
    return plan


def composed(names: list[str], said: str, made: list[dict]) -> dict[str, dict]:
    """The arguments each tool's own template composes for this turn (``ToolSpec.compose``), by tool."""
    found = {}
    with translation.override(language_of(said)):
        for name in names:
            spec = registry.get(name)
            if spec is not None and spec.compose is not None and (arguments := spec.compose(said, made)):
                found[name] = arguments
    return found


def grounded_schema(tool: str, schema: dict, values: Values, given: dict | None = None, *, named: bool = True) -> dict | bool:
    """``schema`` with each argument narrowed to what ``values`` holds for it, or to the one value
    ``given`` (the offline reader's or a template's) where it has one; False when a write's required
    argument has nothing to take, or when the message gives none of them and does not name the write."""
    given = given or {}
    write = is_write(tool)
    required = set(schema.get("required") or ())
    texts = [key for key, spec in (schema.get("properties") or {}).items() if _kind(key, spec) == "text"]
    told = told_fields(tool, texts, values.said, required) if write and len(texts) > 1 else set(texts)
    properties: dict[str, Any] = {}
    gives = False  # the message (or the reader's plan) gives a value to a required argument
    for key, spec in (schema.get("properties") or {}).items():
        kind = _kind(key, spec)
        if key in given and _typed([given[key]], spec.get("type") == "integer") and (kind is not None or "enum" not in spec):
            properties[key] = _enum(spec, [given[key]])
            gives = gives or key in required
            continue
        if kind is None:
            properties[key] = spec
            continue
        options = values.of(kind, integer=spec.get("type") == "integer") if kind != "text" or key in told else []
        gives = gives or bool(options and key in required)
        if not options and not write and kind not in ("number", "text"):
            options = values.every(kind, integer=spec.get("type") == "integer")
        if options:
            properties[key] = _enum(spec, options)
        elif not write:
            properties[key] = spec
        elif key in required:
            return False
    if write and not named and not gives:
        return False  # "could you spare some flour?" asks nobody to eat
    # What the reader or a template chose is filled, optional or not: Gemma left the desk's order
    # number out of the supplier question, and the supplier's reply was then filed under no order.
    chosen = [key for key in properties if key in given and key not in required and "enum" in properties[key]]
    return {**schema, "properties": properties, "required": [key for key in schema.get("required") or () if key in properties] + chosen}


def _enum(spec: dict, options: list) -> dict:
    return {"type": spec["type"], "enum": options, **({"description": spec["description"]} if "description" in spec else {})}


def told_fields(tool: str, texts: list[str], said: str, required: set[str]) -> set[str]:
    """Which of a write's text arguments the message gives its value phrases to: those whose own
    words (their descriptions' words, in Chinese and English, that the tool's other text arguments
    and its name do not share) it says most ("备注改成 X": the remarks, not the name); when it says
    none, the required ones (else all). One phrase does not become both a name and a remark."""
    from .tool_relevance import LANGUAGES, words

    spec = registry.get(tool)
    if spec is None:
        return set(texts)
    own: dict[str, set[str]] = {key: set(key.split("_")) for key in texts}
    for language in LANGUAGES:
        with translation.override(language):
            for key in texts:
                own[key] |= {word for word in words(str(spec.input_schema["properties"][key].get("description", ""))) if len(word) > 1}
    shared = set(tool.split("_"))
    for key in texts:
        shared |= {word for other in texts if other != key for word in own[key] & own[other]}
    said_words = words(said)
    score = {key: len((own[key] - shared) & said_words) for key in texts}
    best = max(score.values())
    if best:
        return {key for key in texts if score[key] == best} | (required & set(texts))
    return (required & set(texts)) or set(texts)


def _kind(key: str, spec: dict) -> str | None:
    """What an argument holds, or None for one left as it is (a boolean, an enum, a choice word)."""
    kind_of_type = {"integer": "number", "string": "text"}.get(spec.get("type"))
    if kind_of_type is None or "enum" in spec or key in ENUMS:
        return None
    return SLOT_KINDS.get(key, kind_of_type)


class Values:
    """What one message offers each kind of argument, in the order it says them."""

    def __init__(self, reading: Reading, said: str) -> None:
        self.reading = reading
        self.said = said
        self._residents: dict[str, int] | None = None

    def of(self, kind: str, *, integer: bool) -> list:
        if kind == "number":
            found = [span.value for span in self.reading.of("number")] if integer else []
        elif kind == "text":
            found = [] if integer else self.phrases()
        else:
            found = []
            for span in self.reading.of(kind):
                found += [span.value, *(value for _name, value, _score in span.rivals)]
            if kind == "resident":
                found = self._resident_ids(found)
        return _typed(found, integer)

    def every(self, kind: str, *, integer: bool) -> list:
        """Every entity of ``kind`` while they are few; [] otherwise."""
        from .providers.understanding import lexicon

        found = list(dict.fromkeys(entity.value for entity in lexicon() if entity.kind == kind))
        if kind == "resident":
            found = self._resident_ids(found)
        return _typed(found, integer) if len(found) <= ALL_UP_TO else []

    def phrases(self) -> list[str]:
        """The values the message gives: a quotation, a name after "called", what follows "to"/"改成"."""
        found = [span.value for span in self.reading.of("quoted")]
        for marker in (*NAMING.finditer(self.said), *VALUE_WORDS.finditer(self.said)):
            start = marker.end()
            quote = QUOTED.match(self.said, start)
            if quote:
                found.append(quote.group(1).strip())
                continue
            phrase = without_particle(self.said[start : NAME_END.search(self.said, start).start()])
            found += [ATTRIBUTIVE.sub("", phrase).strip(), phrase]
        return [phrase for phrase in dict.fromkeys(found) if phrase]

    def _resident_ids(self, names: list) -> list[int]:
        if self._residents is None:
            self._residents = dict(residents().filter(is_active=True).values_list("name", "pk"))
        return [self._residents[name] for name in names if name in self._residents]


def _typed(found: list, integer: bool) -> list:
    kept = [v for v in found if isinstance(v, int) and not isinstance(v, bool)] if integer else [v for v in found if isinstance(v, str)]
    return list(dict.fromkeys(kept))
