"""``bench.http``: the load generator's lean HTTP/1.1 client, against a scripted loopback server."""

from __future__ import annotations

import asyncio
import socket

import pytest

from bench import http

OK = b'{"ok": true, "version": 3}'


async def serve(script):
    """A server answering each request with the next of ``script`` (raw bytes, or "close"); the requests it read."""
    seen: list[bytes] = []
    answers = iter(script)

    async def handle(reader, writer):
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")), 0)
                seen.append(head + await reader.readexactly(length))
                answer = next(answers)
                if answer == "close":
                    writer.close()
                    return
                writer.write(answer)
        except asyncio.IncompleteReadError:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}", seen


def fixed(body: bytes, status: str = "200 OK") -> bytes:
    return b"HTTP/1.1 %s\r\nContent-Length: %d\r\n\r\n%s" % (status.encode(), len(body), body)


def test_json_requests_on_one_kept_connection():
    async def main():
        server, base, seen = await serve([fixed(OK), fixed(b'{"ok": false, "code": "version_conflict"}', "409 Conflict")])
        async with http.Client(headers={"Authorization": "Token t"}) as client:
            first = await client.get(base + "/api/funds/1/?x=1")
            second = await client.request("PATCH", base + "/api/funds/1/", json={"version": 3, "remarks": "负载"})
        server.close()
        return first, second, seen

    first, second, seen = asyncio.run(main())
    assert (first.status_code, first.json()["version"]) == (200, 3)
    assert second.status_code == 409 and "version_conflict" in second.text
    assert seen[0].startswith(b"GET /api/funds/1/?x=1 HTTP/1.1\r\n") and b"Authorization: Token t\r\n" in seen[0]
    assert seen[1].startswith(b"PATCH /api/funds/1/ ") and seen[1].endswith('{"version":3,"remarks":"负载"}'.encode())
    assert b"Content-Type: application/json\r\n" in seen[1]


def test_a_chunked_answer_is_read_whole():
    chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"ok\"\r\n7\r\n: true}\r\n0\r\n\r\n"

    async def main():
        server, base, _ = await serve([chunked, fixed(OK)])
        async with http.Client() as client:
            answers = [await client.get(base + "/a"), await client.get(base + "/b")]  # the connection is still usable
        server.close()
        return answers

    first, second = asyncio.run(main())
    assert first.json() == {"ok": True} and second.json()["version"] == 3


def test_an_answer_that_closes_the_connection_leaves_nothing_to_reuse():
    async def main():
        server, base, _ = await serve([b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}"])
        async with http.Client() as client:
            answer = await client.get(base + "/a")
            kept = sum(len(connections) for connections in client.idle.values())
        server.close()
        return answer, kept

    answer, kept = asyncio.run(main())
    assert answer.json() == {} and kept == 0


def test_an_idle_connection_closed_by_the_server_is_not_used_again():
    async def main():
        connections: list[asyncio.StreamWriter] = []

        async def handle(reader, writer):
            connections.append(writer)
            await reader.readuntil(b"\r\n\r\n")
            writer.write(fixed(OK))
            await writer.drain()
            writer.close()  # idle timeout: gone before the next request, without saying so

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        base = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
        async with http.Client() as client:
            await client.get(base + "/a")
            await asyncio.sleep(0.05)  # the close reaches the client
            second = await client.get(base + "/b")
        server.close()
        return second, len(connections)

    second, opened = asyncio.run(main())
    assert second.status_code == 200 and opened == 2


def test_no_server_is_a_connect_error_and_a_broken_answer_a_transport_error():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # nobody listens once it is closed

    async def refused():
        async with http.Client() as client:
            await client.get(f"http://127.0.0.1:{port}/")

    with pytest.raises(http.ConnectError):
        asyncio.run(refused())

    async def cut():
        server, base, _ = await serve(["close"])
        try:
            async with http.Client() as client:
                await client.request("POST", base + "/api/agents/transfer-resource/", json={"quantity": 1})
        finally:
            server.close()

    with pytest.raises(http.TransportError) as raised:
        asyncio.run(cut())
    assert not isinstance(raised.value, http.ConnectError)  # it may have committed: the bench counts it unknown


def test_no_answer_in_time_is_a_read_timeout():
    async def main():
        async def silent(reader, writer):
            await asyncio.sleep(5)

        server = await asyncio.start_server(silent, "127.0.0.1", 0)
        try:
            async with http.Client(timeout=0.2) as client:
                await client.get(f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/")
        finally:
            server.close()

    with pytest.raises(http.ReadTimeout):
        asyncio.run(main())
