"""URL path converters: an id in a path is a positive integer a database can store."""

from .params import MAX_ID


class IdConverter:
    """``<id:pk>``: like ``<int:pk>``, but an id past ``MAX_ID`` does not match (404), rather
    than reaching the database as an integer it cannot hold (a 500 on SQLite)."""

    regex = "[0-9]+"

    def to_python(self, value: str) -> int:
        number = int(value)
        if not 0 < number <= MAX_ID:
            raise ValueError(value)
        return number

    def to_url(self, value: int) -> str:
        return str(value)
