"""Schema derivation, duplicate names, discovery and the broken-tool system check."""

from typing import Annotated, Literal

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy

from agents.checks import check_tool_schemas
from agents.registry import Param, ToolContext, ToolRegistry, localized_schema, registry, schema_for_function, tool


def props(func):
    return schema_for_function(func)["properties"]


def test_primitive_hints_become_json_types():
    def f(ctx: ToolContext, a: int, b: float, c: str, d: bool): ...

    assert props(f) == {
        "a": {"type": "integer"},
        "b": {"type": "number"},
        "c": {"type": "string"},
        "d": {"type": "boolean"},
    }
    assert schema_for_function(f)["required"] == ["a", "b", "c", "d"]
    assert schema_for_function(f)["additionalProperties"] is False


def test_list_and_dict_hints():
    def f(ctx: ToolContext, ids: list[int], tags: list, extra: dict): ...

    assert props(f) == {
        "ids": {"type": "array", "items": {"type": "integer"}},
        "tags": {"type": "array"},
        "extra": {"type": "object"},
    }


def test_literal_becomes_enum():
    def f(ctx: ToolContext, channel: Literal["upstream", "downstream"]): ...

    assert props(f)["channel"] == {"type": "string", "enum": ["upstream", "downstream"]}


def test_optional_and_defaults_are_not_required():
    def f(ctx: ToolContext, name: str, remarks: str | None = None, limit: int = 10): ...

    schema = schema_for_function(f)
    assert schema["required"] == ["name"]
    assert schema["properties"]["limit"] == {"type": "integer", "default": 10}
    assert schema["properties"]["remarks"] == {"type": "string"}


def test_annotated_param_gives_description_and_bounds():
    def f(ctx: ToolContext, quantity: Annotated[int, Param(ge=1, le=999, description="数量")],
          name: Annotated[str, Param(min_length=1, max_length=20)]): ...

    assert props(f)["quantity"] == {
        "type": "integer", "minimum": 1, "maximum": 999, "description": "数量",
    }
    assert props(f)["name"] == {"type": "string", "minLength": 1, "maxLength": 20}


def test_parameter_descriptions_follow_the_language():
    def f(ctx: ToolContext, quantity: Annotated[int, Param(description=gettext_lazy("数量（正整数）"))]): ...

    schema = schema_for_function(f)
    assert localized_schema(schema, "en")["properties"]["quantity"]["description"] == "quantity (a whole number ≥ 1)"
    assert localized_schema(schema, "zh-hans")["properties"]["quantity"] == {"type": "integer", "description": "数量（正整数）"}


@pytest.mark.parametrize(
    "signature",
    [
        "def f(ctx, x: set): ...",
        "def f(ctx, x): ...",
        "def f(ctx, x: int | str): ...",
        "def f(ctx, *args: int): ...",
        "def f(x: int): ...",
    ],
)
def test_unsupported_signature_is_reported_not_registered(signature):
    namespace: dict = {}
    exec(signature, namespace)
    own = ToolRegistry()
    tool(description="x", register_to=own)(namespace["f"])
    assert own.get("f") is None
    assert "f" in own.broken


def test_system_check_reports_a_broken_tool(monkeypatch):
    monkeypatch.setitem(registry.broken, "bad_tool", "x.bad_tool: unsupported type hint: set")
    errors = check_tool_schemas(None)
    assert [e.id for e in errors] == ["agents.E001"]
    assert "bad_tool" in errors[0].msg


def test_duplicate_name_is_an_error():
    own = ToolRegistry()

    @tool(description="一", register_to=own, name="same")
    def first(ctx: ToolContext) -> dict: ...

    with pytest.raises(ImproperlyConfigured, match="duplicate tool name 'same'"):

        @tool(description="二", register_to=own, name="same")
        def second(ctx: ToolContext) -> dict: ...


@pytest.mark.parametrize("name", ["two words", "give,take", "x" * 65, "付款"])
def test_a_tool_name_an_endpoint_would_refuse_is_an_error(name):
    with pytest.raises(ImproperlyConfigured, match="must be 1-64 letters, digits"):

        @tool(description="x", register_to=ToolRegistry(), name=name)
        def named(ctx: ToolContext) -> dict: ...


def test_decorator_returns_the_function_unchanged():
    def plain(ctx: ToolContext, n: int) -> int:
        return n * 2

    decorated = tool(description="x", register_to=None)(plain)
    assert decorated is plain
    assert plain(None, 3) == 6
    assert plain.tool_spec.source.endswith("plain")


def test_every_app_tools_module_is_discovered():
    assert "get_my_status" in registry.names()
    assert registry.broken == {}


def test_register_temporarily_removes_the_tool_afterwards():
    @tool(description="临时", register_to=None)
    def temporary_tool(ctx: ToolContext) -> dict:
        return {}

    with registry.register_temporarily(temporary_tool):
        assert registry.get("temporary_tool") is not None
    assert registry.get("temporary_tool") is None


def test_openai_schema_uses_active_language():
    spec = registry.get("get_my_status")
    assert spec.openai_schema("en")["function"]["description"].startswith("Show my own status")
    assert spec.openai_schema("zh-hans")["function"]["description"].startswith("查看自己的状态")
    assert spec.openai_schema("en")["type"] == "function"
