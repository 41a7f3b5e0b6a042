"""Who decides in an autonomy tick: a model, or the world's offline rules policy.

Both answer a batch with the same thing, the text of a JSON decision array, which then
goes through the same parsing, validation and execution. ``ModelPolicy`` sends the
batch's prompt to the configured provider; the rules policy comes from the world source
(it reads the structured world, which only the source knows).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from agents.providers import ModelProvider, get_provider, model_for
from agents.providers.tokens import decisions_tokens

from .prompt import decisions_schema
from .sources import Policy, WorldSource


@dataclass
class Answer:
    text: str
    usage: dict = field(default_factory=dict)


class ModelPolicy:
    """Ask a model provider for each batch's decisions."""

    uses_prompt = True

    def __init__(
        self, provider: ModelProvider, model: str | None = None, *, system_prompt: str, actions: Iterable[str] = (),
        choices: Callable[[Any, list[int]], Mapping[str, Mapping[str, list]]] | None = None,
    ) -> None:
        self.provider = provider
        self.model = model
        self.name = provider.name
        self._system = system_prompt
        self._actions = list(actions)
        self._choices = choices  # the world source's: what a batch's snapshot offers each parameter

    @property
    def announces_requests(self) -> bool:
        """Whether ``request_sent`` hears when each of this policy's requests has left (the tick paces its calls by it)."""
        return bool(getattr(self.provider, "announces_requests", False))

    def session(self) -> AbstractAsyncContextManager[Any]:
        """What a tick's calls share: the provider's pooled client where it keeps one."""
        pooled = getattr(self.provider, "pooled", None)
        return pooled() if pooled is not None else nullcontext()

    def choices(self, world: Any, batch: list[int]) -> Mapping[str, Mapping[str, list]] | None:
        """What the batch's snapshot offers each action's parameters; None without the world."""
        return self._choices(world, batch) if self._choices is not None and world is not None else None

    async def answer(
        self, world: Any, batch: list[int], prompt: str, *, choices: Mapping[str, Mapping[str, list]] | None = None,
    ) -> Answer:
        """``choices`` come with the batch where the world is not at hand: a Celery worker's batch,
        a replayed one (the coordinator or the recording read them from the snapshot)."""
        messages = [{"role": "system", "content": self._system}, {"role": "user", "content": prompt}]
        # Where the endpoint decodes by a schema, the answer cannot be prose, name an unknown action,
        # or (given the world) an item, building or resource the snapshot does not name.
        choices = choices if choices is not None else self.choices(world, batch)
        schema = decisions_schema(self._actions, batch, choices) if self._actions else None
        completion = await self.provider.complete(
            messages, [], model=self.model, max_tokens=decisions_tokens(len(batch)), json_schema=schema,
        )
        return Answer(completion.content, completion.usage)


def session(policy: Any) -> AbstractAsyncContextManager[Any]:
    """What a tick's calls to ``policy`` share, entered around all of them (``ModelPolicy.session``);
    nothing for a policy that keeps nothing (the rules)."""
    opened = getattr(policy, "session", None)
    return opened() if opened is not None else nullcontext()


def policy_from_settings(source: WorldSource, seed: int = 0) -> Policy:
    if settings.AGENT_PROVIDER == "rules":
        return source.rules_policy(seed)
    return ModelPolicy(
        get_provider(), model_for(None), system_prompt=source.system_prompt(), actions=source.actions, choices=source.choices,
    )
