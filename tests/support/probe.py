"""Small functions that tests run in Django child processes via ``run_django``."""

from __future__ import annotations

from typing import Any


def database_vendor() -> str:
    from django.db import connection

    return connection.vendor


def migrated_table_count() -> int:
    from django.db import connection

    return len(connection.introspection.table_names())


def create_group(name: str) -> int:
    from django.contrib.auth.models import Group

    return Group.objects.create(name=name).pk


def group_names() -> list[str]:
    from django.contrib.auth.models import Group

    return sorted(Group.objects.values_list("name", flat=True))


def noisy_echo(value: Any) -> Any:
    # Stands for code that logs to stdout: the result must still come through.
    print("log line that looks like JSON: {\"value\": null}")
    print(value)
    return value


def fail(message: str) -> None:
    raise RuntimeError(message)


async def channel_layer_roundtrip() -> dict[str, Any]:
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.send(channel, {"type": "probe.message", "text": "hello"})
    message = await layer.receive(channel)
    return {"backend": type(layer).__name__, "text": message["text"]}
