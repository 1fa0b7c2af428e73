from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Annotated, Any, Literal, Optional

import pytest
from pydantic import BaseModel, Field

from hookwright.runtime.tools import ToolContext, ToolInputError, ToolOutput, function_tool
from hookwright.runtime.tools.functions import parse_docstring, to_tool_output


def forecast(
    city: str,
    days: int = 3,
    units: Literal["metric", "imperial"] = "metric",
    tags: list[str] | None = None,
    note: Optional[str] = None,  # noqa: UP045 - the spelling under test
) -> dict[str, Any]:
    """Get the weather forecast for a city.

    Uses the cached provider when possible.

    Args:
        city: Name of the city.
        days (int): How many days to forecast,
            at most seven.
        units: Unit system.

    Returns:
        The forecast.
    """
    return {"city": city, "days": days, "units": units, "tags": tags or [], "note": note}


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path, session_id="s-1")


def test_schema_comes_from_the_signature_and_docstring() -> None:
    tool = function_tool(forecast)

    assert tool.name == "forecast"
    assert tool.description == (
        "Get the weather forecast for a city.\n\nUses the cached provider when possible."
    )
    assert tool.read_only is False
    assert tool.input_schema() == {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "city": {"type": "string", "description": "Name of the city."},
            "days": {
                "type": "integer",
                "description": "How many days to forecast, at most seven.",
                "default": 3,
            },
            "units": {
                "type": "string",
                "enum": ["metric", "imperial"],
                "description": "Unit system.",
                "default": "metric",
            },
            "tags": {"type": "array", "items": {"type": "string"}},
            "note": {"type": "string"},
        },
        "required": ["city"],
    }


def test_explicit_name_description_and_read_only() -> None:
    tool = function_tool(forecast, name="weather", description="Weather.", read_only=True)

    assert (tool.name, tool.description, tool.read_only) == ("weather", "Weather.", True)


def test_annotated_constraints_reach_schema_and_validation() -> None:
    def page(size: Annotated[int, Field(ge=1, le=50, description="Page size")] = 10) -> str:
        return str(size)

    tool = function_tool(page)

    assert tool.input_schema()["properties"]["size"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 50,
        "description": "Page size",
        "default": 10,
    }
    with pytest.raises(ToolInputError, match="size: input should be less than or equal to 50"):
        tool.validate({"size": 51})


async def test_sync_function_runs_off_the_event_loop(ctx: ToolContext) -> None:
    released = threading.Event()

    def blocking() -> str:
        return "released" if released.wait(timeout=10) else "loop was blocked"

    tool = function_tool(blocking)
    running = asyncio.create_task(tool.run({}, ctx))
    await asyncio.sleep(0)
    released.set()

    assert (await running).content == "released"


async def test_async_function_is_awaited(ctx: ToolContext) -> None:
    async def shout(text: str) -> str:
        await asyncio.sleep(0)
        return text.upper()

    tool = function_tool(shout)

    assert (await tool.run(tool.validate({"text": "hi"}), ctx)).content == "HI"


async def test_dict_result_is_json_content_and_data(ctx: ToolContext) -> None:
    tool = function_tool(forecast)

    output = await tool.run(tool.validate({"city": "Oslo", "tags": ["x"]}), ctx)

    expected = {"city": "Oslo", "days": 3, "units": "metric", "tags": ["x"], "note": None}
    assert output.data == expected
    assert output.content == (
        '{"city": "Oslo", "days": 3, "units": "metric", "tags": ["x"], "note": null}'
    )
    assert not output.is_error


class Point(BaseModel):
    x: int
    y: int


@pytest.mark.parametrize(
    ("value", "content", "data"),
    [
        ("plain", "plain", None),
        (None, "(no output)", None),
        ([1, "two"], '[1, "two"]', {"result": [1, "two"]}),
        (7, "7", {"result": 7}),
        (Point(x=1, y=2), '{"x": 1, "y": 2}', {"x": 1, "y": 2}),
        ({"path": Path("/a")}, '{"path": "/a"}', {"path": "/a"}),
    ],
)
def test_return_values_become_tool_outputs(
    value: object, content: str, data: dict[str, Any] | None
) -> None:
    output = to_tool_output(value)

    assert (output.content, output.data, output.is_error) == (content, data, False)


async def test_tool_output_is_returned_unchanged(ctx: ToolContext) -> None:
    wanted = ToolOutput(content="nope", is_error=True, error="nope")
    tool = function_tool(lambda: wanted, name="passthrough")

    assert await tool.run({}, ctx) is wanted


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "city: field required"),
        ({"city": "Oslo", "days": "many"}, "days: input should be a valid integer"),
        ({"city": "Oslo", "units": "kelvin"}, "units: input should be 'metric' or 'imperial'"),
        ({"city": "Oslo", "tags": "x"}, "tags: input should be a valid list"),
        ({"city": "Oslo", "country": "NO"}, "country: extra inputs are not permitted"),
    ],
)
def test_invalid_arguments_name_the_field(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolInputError, match=message):
        function_tool(forecast).validate(arguments)


async def test_run_validates_too(ctx: ToolContext) -> None:
    with pytest.raises(ToolInputError, match="city: field required"):
        await function_tool(forecast).run({}, ctx)


async def test_context_parameter_is_injected_and_hidden(ctx: ToolContext) -> None:
    def where(name: str, context: ToolContext) -> str:
        return f"{name} in {context.session_id}"

    tool = function_tool(where)

    assert set(tool.input_schema()["properties"]) == {"name"}
    assert (await tool.run(tool.validate({"name": "n"}), ctx)).content == "n in s-1"


async def test_parameter_names_that_shadow_pydantic_attributes(ctx: ToolContext) -> None:
    def encode(json: str, schema: str = "v1", _raw: bool = False) -> str:
        return f"{schema}:{json}:{_raw}"

    tool = function_tool(encode)

    assert set(tool.input_schema()["properties"]) == {"json", "schema", "_raw"}
    arguments = tool.validate({"json": "{}", "_raw": True})
    assert arguments == {"json": "{}", "_raw": True}
    assert (await tool.run(arguments, ctx)).content == "v1:{}:True"


async def test_positional_only_parameters(ctx: ToolContext) -> None:
    def power(base: int, /, exponent: int = 2) -> int:
        return int(base**exponent)

    tool = function_tool(power)

    assert (await tool.run(tool.validate({"base": 3}), ctx)).content == "9"


def test_validate_returns_json_values() -> None:
    def touch(path: Path, mode: int = 0o644) -> str:
        return str(path)

    assert function_tool(touch).validate({"path": "/tmp/x"}) == {"path": "/tmp/x"}


def test_unsupported_signatures_are_rejected() -> None:
    def variadic(*names: str) -> str:
        return ""

    with pytest.raises(TypeError, match=r"\*args"):
        function_tool(variadic)
    with pytest.raises(ValueError, match="invalid tool name '<lambda>'"):
        function_tool(lambda: "")
    with pytest.raises(ValueError, match="invalid tool name 'has space'"):
        function_tool(forecast, name="has space")


def test_sphinx_docstrings() -> None:
    summary, params = parse_docstring(
        "Resize an image.\n\n:param width: Target width\n    in pixels.\n"
        ":param int height: Height.\n:returns: nothing"
    )

    assert summary == "Resize an image."
    assert params == {"width": "Target width in pixels.", "height": "Height."}
