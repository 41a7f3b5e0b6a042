"""Daphne (Twisted) answers an over-long request line with 414 instead of closing the connection.

Twisted's HTTPChannel reads the request line and each header as a line of at most
``MAX_LENGTH`` (16 KiB) bytes; past it, ``LineReceiver.lineLengthExceeded`` drops the
connection without a word, so a client with a 20,000-character query string saw a reset, not an
answer. Daphne builds its channels from Twisted's class and has no setting for this, so the
class's hook is replaced when the ASGI application is loaded (``config.asgi``).
"""

from twisted.web import http

_RESPONSES = {
    True: b"HTTP/1.1 414 URI Too Long\r\nContent-Type: text/plain\r\nContent-Length: 13\r\nConnection: close\r\n\r\nURI Too Long\n",
    False: (
        b"HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain\r\nContent-Length: 32\r\n"
        b"Connection: close\r\n\r\nRequest Header Fields Too Large\n"
    ),
}


def _answer_overlong_line(channel: http.HTTPChannel, line: bytes) -> None:
    # Nothing of this request counted yet: the overlong line is its request line (method, URI).
    request_line = channel._receivedHeaderSize == 0
    channel.transport.write(_RESPONSES[request_line])
    channel.loseConnection()


def answer_overlong_lines() -> None:
    """Install the 414 (request line) / 431 (header line) answers; idempotent."""
    http.HTTPChannel.lineLengthExceeded = _answer_overlong_line
