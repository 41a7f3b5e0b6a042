"""Daphne answers an over-long request line with 414 and an over-long header with 431; both
used to close the connection without an answer (Twisted's 16 KiB line limit)."""

import socket
from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def _exchange(base_url: str, request: bytes) -> bytes:
    address = urlsplit(base_url)
    with socket.create_connection((address.hostname, address.port), timeout=10) as conn:
        conn.sendall(request)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    return answer


def test_a_20000_character_query_string_is_a_414(live_server_url):
    request = f"GET /api/tools/?q={'x' * 20_000} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    assert _exchange(live_server_url, request).startswith(b"HTTP/1.1 414 ")


def test_a_20000_character_header_is_a_431(live_server_url):
    request = f"GET /api/tools/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: {'x' * 20_000}\r\n\r\n".encode()
    assert _exchange(live_server_url, request).startswith(b"HTTP/1.1 431 ")


def test_a_long_but_allowed_query_string_is_served(live_server_url):
    request = f"GET /api/tools/?q={'x' * 4_000} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode()
    assert _exchange(live_server_url, request).startswith(b"HTTP/1.1 401 ")
