"""Ids from a request: a query parameter, a form field, a command-line argument."""

# The largest id any supported database stores (a signed 64-bit integer).
MAX_ID = 2**63 - 1


def parse_id(raw: object) -> int | None:
    """``raw`` as a positive id, or None when it is not one.

    Only ASCII digits count: ``str.isdigit`` also accepts "²" and other Unicode digits,
    which ``int`` then refuses. An id past ``MAX_ID`` matches no row and is None too,
    so it never reaches the database as an overflow.
    """
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        value = raw
    else:
        text = str(raw if raw is not None else "").strip()
        if not (text.isascii() and text.isdigit()):
            return None
        value = int(text)
    return value if 0 < value <= MAX_ID else None
