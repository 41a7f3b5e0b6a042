"""Celery tasks of the autonomy tick (``agents.autonomy.distributed`` explains the flow)."""

from celery import shared_task

from agents.autonomy import distributed


@shared_task(name="agents.autonomy_batch", bind=True, acks_late=True, reject_on_worker_lost=True)
def autonomy_batch(
    self, round_id: int, index: int, agent_ids: list[int], prompt: str, answer: str | None, choices: dict | None = None,
) -> dict:
    return distributed.run_batch(round_id, index, agent_ids, prompt, answer, self.request.hostname or "celery", choices)
