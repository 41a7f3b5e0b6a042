"""The load generator's HTTP/1.1 client: kept-alive connections on asyncio streams, nothing more.

``bench.load`` measured its servers with httpx, which spends about 1.7 ms of the generator's CPU
per request (its connection pool, anyio streams, h11, trace hooks); on two cores that is CPU the
servers under test do not get, and on sixteen it is what made one generator process the limit.
This client spends about a tenth of that (``python -m bench.http``: 0.15-0.17 ms against
httpx's 1.6-1.9 ms on the shared 2-core machine, 2026-11-26). It speaks only what the
bench needs: a request with an optional JSON body to a loopback Daphne, and a response with
``Content-Length`` or chunked transfer encoding.

Failures keep httpx's meaning for the bench: ``ConnectError`` when no connection could be opened
(the request never reached a server, so it may go elsewhere), ``TransportError`` when it broke
after the request was sent (the outcome is unknown). A kept connection the server has closed
while idle is noticed before it is used, and a new one is opened, as httpx does.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import urlsplit


class TransportError(Exception):
    """The request may have reached the server; no (complete) answer came back."""


class ConnectError(TransportError):
    """No connection could be opened: the request never reached a server."""


class ReadTimeout(TransportError):
    """No complete answer within the client's timeout."""


class RemoteProtocolError(TransportError):
    """The server closed the connection or sent something this client does not read."""


class Response:
    __slots__ = ("status_code", "content")

    def __init__(self, status_code: int, content: bytes) -> None:
        self.status_code = status_code
        self.content = content

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.content)


Connection = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class Client:
    """Kept-alive connections per server (``host:port``), each carrying one request at a time."""

    def __init__(self, *, timeout: float = 30.0, headers: dict[str, str] | None = None) -> None:
        self.timeout = timeout
        self.headers = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
        self.idle: dict[tuple[str, int], list[Connection]] = {}

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        for connections in self.idle.values():
            for _, writer in connections:
                writer.close()
        self.idle.clear()

    async def get(self, url: str, headers: dict[str, str] | None = None) -> Response:
        return await self.request("GET", url, headers=headers)

    async def request(self, method: str, url: str, *, json: Any = None, headers: dict[str, str] | None = None) -> Response:
        parts = urlsplit(url)
        server = (parts.hostname or "127.0.0.1", parts.port or 80)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        body = b"" if json is None else _dumps(json)
        head = f"{method} {target} HTTP/1.1\r\nHost: {parts.netloc}\r\n{self.headers}"
        if headers:
            head += "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        if json is not None:
            head += "Content-Type: application/json\r\n"
        if body or method in ("POST", "PUT", "PATCH"):
            head += f"Content-Length: {len(body)}\r\n"
        message = (head + "\r\n").encode("latin-1") + body
        try:
            return await asyncio.wait_for(self._exchange(server, message, method), self.timeout)
        except TimeoutError:
            raise ReadTimeout(f"no answer from {parts.netloc} within {self.timeout} s") from None

    async def _exchange(self, server: tuple[str, int], message: bytes, method: str) -> Response:
        reader, writer = await self._connection(server)
        try:
            writer.write(message)
            status, length, chunked, close = _head(await reader.readuntil(b"\r\n\r\n"))
            if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
                content = b""
            elif chunked:
                content = await _chunks(reader)
            elif length is not None:
                content = await reader.readexactly(length)
            else:
                content, close = await reader.read(), True  # the end of the connection ends the body
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as exc:
            writer.close()
            raise RemoteProtocolError(f"{type(exc).__name__}: {exc}") from exc
        except BaseException:
            writer.close()  # cancelled (the timeout): the connection's state is unknown
            raise
        if close:
            writer.close()
        else:
            self.idle.setdefault(server, []).append((reader, writer))
        return Response(status, content)

    async def _connection(self, server: tuple[str, int]) -> Connection:
        kept = self.idle.get(server)
        while kept:
            reader, writer = kept.pop()
            # Closed by the server while idle: it said so (EOF), and a request sent there would be lost.
            if not reader.at_eof() and not writer.is_closing():
                return reader, writer
            writer.close()
        try:
            return await asyncio.open_connection(*server, limit=2**22)
        except OSError as exc:
            raise ConnectError(f"{server[0]}:{server[1]}: {exc}") from exc


def _dumps(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def _head(raw: bytes) -> tuple[int, int | None, bool, bool]:
    """(status, Content-Length, chunked, close) of a response head."""
    lines = raw.decode("latin-1").split("\r\n")
    version, status = lines[0].split(" ", 2)[:2]
    length, chunked, close = None, False, version == "HTTP/1.0"
    for line in lines[1:]:
        name, _, value = line.partition(":")
        name = name.strip().lower()
        if name == "content-length":
            length = int(value)
        elif name == "transfer-encoding":
            chunked = "chunked" in value.lower()
        elif name == "connection":
            close = value.strip().lower() == "close"
    return int(status), length, chunked, close


async def _chunks(reader: asyncio.StreamReader) -> bytes:
    parts = []
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";", 1)[0], 16)
        if size == 0:
            while (await reader.readuntil(b"\r\n")) != b"\r\n":
                pass  # trailers
            return b"".join(parts)
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)


# --- python -m bench.http: this client's CPU per request against httpx's ---------------------

_BODY = json.dumps({"ok": True, "data": [{"id": i, "name": f"居民 {i}"} for i in range(50)]}, ensure_ascii=False).encode()


async def _serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    answer = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(_BODY), _BODY)
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")), 0)
            await reader.readexactly(length)
            writer.write(answer)
    except (asyncio.IncompleteReadError, ConnectionError):
        writer.close()


def _server(port_out: Any) -> None:
    async def main() -> None:
        server = await asyncio.start_server(_serve, "127.0.0.1", 0)
        port_out.send(server.sockets[0].getsockname()[1])
        await server.serve_forever()

    asyncio.run(main())


def _measure(make: Any, url: str, requests: int, users: int) -> float:
    import time

    async def main() -> None:
        async with make() as http:
            async def user() -> None:
                for number in range(requests // users):
                    body = {"from_agent_id": 1, "to_agent_id": 2, "quantity": number} if number % 2 else None
                    response = await http.request("POST" if body else "GET", url, json=body, headers={"Authorization": "Token x"})
                    response.json()

            await user()  # untimed: connections opened, code warm
            began = time.process_time()
            await asyncio.gather(*(user() for _ in range(users)))
            spent[0] = time.process_time() - began

    spent = [0.0]
    asyncio.run(main())
    return spent[0] * 1000 / (requests // users * users)


def main() -> None:
    """CPU ms per request of this client and of httpx, on a trivial loopback server in another process."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe()
    server = context.Process(target=_server, args=(child,), daemon=True)
    server.start()
    try:
        url = f"http://127.0.0.1:{parent.recv()}/api/agents/"
        figures = {"bench.http": _measure(Client, url, 4000, 20)}
        try:
            import httpx2 as httpx

            figures["httpx"] = _measure(lambda: httpx.AsyncClient(timeout=30), url, 4000, 20)
        except ImportError:
            pass
        print(", ".join(f"{name} {ms:.3f} ms" for name, ms in figures.items()) + " of client CPU per request (20 users, 4,000 requests)")
    finally:
        server.kill()


if __name__ == "__main__":
    main()
