"""The API's JSON body parser: DRF's, reading the body as untrusted JSON (core.untrusted)."""

from django.conf import settings
from django.utils.translation import gettext as _
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from core.errors import ApplicationError
from core.untrusted import InvalidNumberError, UntrustedJSONError, load_json


class UntrustedJSONParser(JSONParser):
    """A body nested 100,000 deep is a 400 ``malformed_request``; one holding NaN, Infinity or
    ``1e309`` is a 400 ``invalid_number``. Neither is a 500."""

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            return load_json(stream.read().decode(encoding), max_chars=settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
        except InvalidNumberError as exc:
            raise ApplicationError("invalid_number", _("数字超出范围或不是有限数：%(error)s") % {"error": exc}) from None
        except (UntrustedJSONError, UnicodeDecodeError) as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
