"""The ``none`` provider: a model that never calls a tool and never decides (``eval_agents --provider none``).

It is the baseline a score is read against: whatever it passes needs no model at all.
"""

from __future__ import annotations

from typing import Any

from .base import Completion


class SilentProvider:
    name = "none"

    async def complete(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], *, model: str | None = None,
        max_tokens: int | None = None, **options: Any,
    ) -> Completion:
        return Completion(content="OK.")
