"""Input fields of the API whose schema says exactly what the services accept."""

from rest_framework import serializers


class TextField(serializers.CharField):
    """A JSON string, passed on as sent: the service trims it and owns the text rule.

    Unlike DRF's CharField it refuses a number (``0`` is not the text "0"). With ``rule_max_length``
    the schema states ``core.text.clean_text``'s rule: at most that many characters once trimmed,
    none of them NUL, and not blank when ``rule_required``.
    """

    def __init__(self, *, rule_max_length: int | None = None, rule_required: bool = True, **kwargs):
        kwargs.setdefault("allow_blank", True)
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)
        self.rule_max_length = rule_max_length
        self.rule_required = rule_required

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)

    @property
    def pattern(self) -> str:
        """The accepted strings as a regular expression (DRF itself refuses a NUL anywhere)."""
        if self.rule_max_length is None:
            return r"^[^\x00]*$"
        # One to n characters once trimmed: no white space at either end, no NUL anywhere.
        trimmed = rf"[^\s\x00](?:[^\x00]{{0,{self.rule_max_length - 2}}}[^\s\x00])?"
        return rf"^\s*{trimmed}\s*$" if self.rule_required else rf"^\s*(?:{trimmed})?\s*$"


class JSONBooleanField(serializers.BooleanField):
    """``true`` or ``false`` as JSON has them; DRF's BooleanField also takes 0, "yes", "on"…"""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data
