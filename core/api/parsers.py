"""The API's JSON body parser: DRF's, reading the body as untrusted JSON (core.untrusted)."""

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from core.untrusted import UntrustedJSONError, load_json


class UntrustedJSONParser(JSONParser):
    """A body nested 100,000 deep or holding NaN is a 400 ``malformed_request``, not a 500."""

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            return load_json(stream.read().decode(encoding), max_chars=settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
        except (UntrustedJSONError, UnicodeDecodeError) as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
