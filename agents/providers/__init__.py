"""Model providers behind one small interface (see ``base.ModelProvider``).

``get_provider(agent)`` picks the provider from settings: ``AGENT_PROVIDER`` ("rules"
unless an endpoint is configured; "none" is the baseline that never calls a tool). An agent whose ``model`` is "rules" always uses the
offline provider; any other non-empty ``model`` names the endpoint's model for that agent.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver

from .base import Completion, ContextOverflow, ModelError, ModelProvider, ModelTimeout, ModelUnavailable, ToolCallRequest
from .openai_compatible import OpenAICompatibleProvider
from .rules import RulesProvider
from .silent import SilentProvider

__all__ = [
    "Completion", "ContextOverflow", "ModelError", "ModelProvider", "ModelTimeout", "ModelUnavailable", "ToolCallRequest", "context_tokens", "get_provider", "model_for",
]

RULES = "rules"

# One instance per configuration, so an endpoint that refused `tools` is remembered (and
# logged) once per process, and tests that change settings get a fresh provider.
_instances: dict[tuple, ModelProvider] = {}
# What an endpoint taught a provider (it refused json_schema, or tools) belongs to that server: a test
# that starts another scripted server on a port the last one freed must not inherit it.
PROVIDER_SETTINGS = frozenset({
    "AGENT_PROVIDER", "OPENAI_BASE_URL", "OPENAI_API_KEY", "AGENT_MODEL", "AGENT_MODEL_TIMEOUT", "AGENT_MAX_TOKENS",
    "AGENT_TEMPERATURE", "AGENT_SEED", "AGENT_TOOL_MODE",
})


@receiver(setting_changed)
def _forget_providers(*, setting: str, **kwargs: Any) -> None:
    if setting in PROVIDER_SETTINGS:
        _instances.clear()


def _uses_rules(agent: Any = None) -> bool:
    return settings.AGENT_PROVIDER == RULES or (agent is not None and (agent.model or "").strip() == RULES)


def model_for(agent: Any = None) -> str | None:
    """The model name to ask for on behalf of ``agent`` (None for the rules provider)."""
    if _uses_rules(agent):
        return None
    return ((agent.model or "").strip() if agent is not None else "") or settings.AGENT_MODEL


def context_tokens(provider: ModelProvider) -> int:
    """The context to fit requests into: ``AGENT_CONTEXT_TOKENS``, or less where the server says it has less."""
    configured = settings.AGENT_CONTEXT_TOKENS
    served = provider.context_tokens() if isinstance(provider, OpenAICompatibleProvider) else None
    return min(configured, served) if served else configured


def get_provider(agent: Any = None) -> ModelProvider:
    if _uses_rules(agent):
        key: tuple = (RULES,)
        if key not in _instances:
            _instances[key] = RulesProvider()
        return _instances[key]
    if settings.AGENT_PROVIDER == SilentProvider.name:
        return SilentProvider()
    key = (
        "openai", settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY, settings.AGENT_MODEL, settings.AGENT_MODEL_TIMEOUT,
        settings.AGENT_MAX_TOKENS, settings.AGENT_TEMPERATURE, settings.AGENT_SEED, settings.AGENT_TOOL_MODE,
    )
    if key not in _instances:
        _instances[key] = OpenAICompatibleProvider(
            model=settings.AGENT_MODEL,
            api_key=settings.OPENAI_API_KEY,
            base_url=settings.OPENAI_BASE_URL,
            timeout=settings.AGENT_MODEL_TIMEOUT,
            max_tokens=settings.AGENT_MAX_TOKENS,
            temperature=settings.AGENT_TEMPERATURE,
            seed=settings.AGENT_SEED,
            tool_mode=settings.AGENT_TOOL_MODE,
        )
    return _instances[key]
