"""The autonomy tick (DESIGN §5): every active resident decides one action per tick.

``run_tick`` is the entry point; see ``tick`` for the flow, ``world`` for the snapshot,
``prompt`` / ``decisions`` for what the model is told and how its answer is read, and
``policy`` for the model and the offline rules policy.
"""
