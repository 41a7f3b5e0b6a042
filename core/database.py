"""The database failing under a request (PostgreSQL restarted, a connection killed, SQLite's disk
full): one answer for every surface, a 503 that says so, never a 500 traceback.

Django closes a connection that raised such an error at the end of the request, so the next
request opens a fresh one: nothing needs a restart.
"""

import logging

from django.db import InterfaceError, OperationalError
from django.utils.translation import gettext as _

from core.errors import ServiceUnavailable

logger = logging.getLogger(__name__)

# SQLITE_FULL's message: the file (or its WAL) could not grow, the transaction was rolled back.
DISK_FULL_MESSAGE = "database or disk is full"


def database_failure(exc: BaseException) -> ServiceUnavailable | None:
    """The ServiceUnavailable to answer with when ``exc`` is the database failing, else None."""
    if not isinstance(exc, OperationalError | InterfaceError):
        return None
    logger.warning("database failure answered with 503: %s", exc)
    if DISK_FULL_MESSAGE in str(exc):
        return ServiceUnavailable("database_full", _("数据库存储空间已满，这次写入没有保存。请告诉管理员。"))
    return ServiceUnavailable("database_unavailable", _("数据库暂时不可用，什么也没有改变。请稍后再试。"))
