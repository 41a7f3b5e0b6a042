"""The autonomy tick engine (DESIGN §5): every active resident decides one action per tick.

``run_tick`` is the entry point; see ``tick`` for the flow (batching, concurrency, budget,
execution, round log), ``decisions`` for how the model's answer is read and repaired,
``policy`` for the model policy and ``prompt`` for the engine's part of the prompt.
The world itself (snapshot, actions, rules policy) is a ``WorldSource`` an app registers
from its ``autonomy`` module (``sources``); the city's is in ``city/autonomy/``.
"""
