"""A live ``pending_action`` event reaches only the clients whose user may see that proposal: the
rule of ``confirmations.visible_pending_actions`` (decide it, or view its domain), with a real
WebSocket client against Daphne."""

from __future__ import annotations

import asyncio
import json

import websockets

from tests.support.django_process import DaphneServer, run_django

FUND_MANAGER, FRONT_DESK, AUDITOR, OPERATOR = "fund manager", "front desk", "auditor", "city operator"
ROLES = [FUND_MANAGER, FRONT_DESK, AUDITOR, OPERATOR]
# A fund proposal, an orders proposal, a city proposal; the last one tells every client the run is over.
PROPOSED = ["create_fund", "refund", "transfer_resource"]


def test_each_role_hears_only_the_proposals_of_its_domains(django_child):
    database = django_child("sqlite")
    keys = run_django(database, "tests.agents.event_scenarios:role_tokens", roles=ROLES)
    superuser = run_django(database, "tests.agents.event_scenarios:create_superuser_token", username="root")

    with DaphneServer(database) as server:
        url = f"ws://127.0.0.1:{server.port}/ws/events/"

        async def heard(ws) -> list[str]:
            tools = []
            try:
                while True:
                    frame = json.loads(await asyncio.wait_for(ws.recv(), 3))
                    if frame["type"] == "system_event" and frame["data"]["event"] == "pending_action":
                        tools.append(frame["data"]["tool"])
            except TimeoutError:
                return tools

        async def scenario() -> dict[str, list[str]]:
            sockets = {}
            for role, key in [*keys.items(), ("superuser", superuser)]:
                sockets[role] = await websockets.connect(url, additional_headers={"Authorization": f"Token {key}"})
            await asyncio.sleep(0.5)  # the hub is subscribed
            await asyncio.to_thread(run_django, database, "tests.agents.event_scenarios:propose", tool_names=PROPOSED)
            received = dict(zip(sockets, await asyncio.gather(*(heard(ws) for ws in sockets.values()))))
            for ws in sockets.values():
                await ws.close()
            return received

        received = asyncio.run(scenario())

    assert received == {
        FUND_MANAGER: ["create_fund"],
        FRONT_DESK: ["refund"],
        AUDITOR: PROPOSED,  # views every domain
        OPERATOR: ["transfer_resource"],
        "superuser": PROPOSED,
    }
