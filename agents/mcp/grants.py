"""Open MCP sessions hear that their agent's tools changed: ``notifications/tools/list_changed``.

``agents.grants`` broadcasts ``agent_tools_changed`` whenever a grant changes; the event reaches
every server process through its event hub, the path the pages' events take (so across processes
on the embedded default and with Redis). In each process one ``GrantWatch`` per event loop is a
member of that hub and tells the changed agents' sessions, in both protocol eras:

- a handshake-era session (``initialize``) is remembered when it lists or calls tools, and gets the
  notification on its standalone stream (the client's GET stream; dropped when it has none);
- a 2026-07-28 session gets it on each ``subscriptions/listen`` stream it opened for that agent
  (one subscription bus per agent, so other agents' clients are not woken).

A change of the user's own permissions changes what ``tools/list`` shows too, but is not announced:
the client sees it on its next listing.
"""

from __future__ import annotations

import asyncio
import json
import logging
from weakref import WeakKeyDictionary, WeakSet

from mcp.server.connection import Connection
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged

from ..consumers import Event, SharedFrames, hub_for
from ..grants import TOOLS_CHANGED

logger = logging.getLogger(__name__)


class GrantWatch:
    """This event loop's MCP sessions by agent, told when an agent's tools change.

    A member of the process's event hub like a WebSocket consumer (``offer_burst``), without a
    channel-layer group of its own.
    """

    own_group = ""
    channel_name = ""

    def __init__(self) -> None:
        self.connections: dict[int, WeakSet[Connection]] = {}
        self.buses: dict[int, InMemorySubscriptionBus] = {}
        self.listeners: dict[int, ListenHandler] = {}
        self.joined: asyncio.Task | None = None
        self.pending: set[asyncio.Task] = set()

    def join(self) -> None:
        """Become a member of this loop's event hub (once)."""
        if self.joined is None:
            self.joined = asyncio.ensure_future(hub_for().subscribe(self))

    def remember(self, agent_id: int, connection: Connection) -> None:
        """A handshake-era session of ``agent_id``: it gets the notification on its standalone stream."""
        self.join()
        self.connections.setdefault(agent_id, WeakSet()).add(connection)

    def listen_handler(self, agent_id: int) -> ListenHandler:
        """The ``subscriptions/listen`` handler of ``agent_id``'s sessions (2026-07-28)."""
        self.join()
        if agent_id not in self.listeners:
            self.buses[agent_id] = InMemorySubscriptionBus()
            self.listeners[agent_id] = ListenHandler(self.buses[agent_id])
        return self.listeners[agent_id]

    async def offer_burst(self, burst: list[Event], frames: SharedFrames) -> None:
        """Called by the hub for every burst of events; picks out the grant changes."""
        for _seq, event, text in burst:
            if event != TOOLS_CHANGED:
                continue
            try:
                agent_ids = json.loads(text)["data"]["agent_ids"]
            except (ValueError, KeyError, TypeError):
                logger.warning("an %s event without agent ids", TOOLS_CHANGED)
                continue
            for agent_id in agent_ids:
                # Not awaited here: the hub offers events to the pages too, and a session's stream may be slow.
                task = asyncio.ensure_future(self.tell(agent_id))
                self.pending.add(task)
                task.add_done_callback(self.pending.discard)

    async def tell(self, agent_id: int) -> None:
        for connection in list(self.connections.get(agent_id, ())):
            await connection.send_tool_list_changed()  # best effort: never raises
        bus = self.buses.get(agent_id)
        if bus is not None:
            await bus.publish(ToolsListChanged())


_watches: WeakKeyDictionary[asyncio.AbstractEventLoop, GrantWatch] = WeakKeyDictionary()


def loop_watch() -> GrantWatch:
    """The running event loop's ``GrantWatch`` (its hub is per loop too)."""
    loop = asyncio.get_running_loop()
    watch = _watches.get(loop)
    if watch is None:
        watch = _watches[loop] = GrantWatch()
    return watch
