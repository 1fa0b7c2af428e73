from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from hookwright.runtime.tools import ToolContext, ToolRegistry, default_tools, function_tool

BUILTINS = ["Bash", "Read", "Write", "Edit", "Glob", "Grep"]


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path)


def test_default_tools_are_the_six_builtins() -> None:
    registry = default_tools()

    assert registry.names() == BUILTINS
    read_only: dict[str, bool] = {}
    for name in BUILTINS:
        tool = registry.get(name)
        assert tool is not None
        read_only[name] = tool.read_only
    assert read_only == {
        "Bash": False,
        "Read": True,
        "Write": False,
        "Edit": False,
        "Glob": True,
        "Grep": True,
    }


def test_default_tools_returns_independent_registries() -> None:
    first = default_tools()
    first.register(function_tool(lambda: "x", name="Extra"))

    assert "Extra" not in default_tools()


def test_definitions_are_openai_function_tools() -> None:
    definitions = default_tools().definitions()

    assert [d["function"]["name"] for d in definitions] == BUILTINS
    for definition in definitions:
        assert set(definition) == {"type", "function"}
        assert definition["type"] == "function"
        function = definition["function"]
        assert set(function) == {"name", "description", "parameters"}
        assert function["description"]
        assert function["parameters"]["type"] == "object"
        assert function["parameters"]["additionalProperties"] is False
    read = definitions[1]["function"]["parameters"]
    assert read["required"] == ["file_path"]
    assert read["properties"]["offset"] == {
        "type": "integer",
        "minimum": 0,
        "description": "The line number to start reading from (1-based)",
    }
    grep = definitions[5]["function"]["parameters"]
    assert {"-i", "-n", "multiline", "head_limit", "output_mode"} <= set(grep["properties"])


def test_register_rejects_duplicates() -> None:
    registry = default_tools()

    with pytest.raises(ValueError, match="'Bash' is already registered"):
        registry.register(function_tool(lambda: "", name="Bash"))


async def test_task_is_an_alias_of_agent(ctx: ToolContext) -> None:
    registry = ToolRegistry()
    assert registry.get("Task") is None

    async def agent(prompt: str, description: str, subagent_type: str) -> str:
        return f"{subagent_type}: {prompt}"

    tool = function_tool(agent, name="Agent")
    registry.register(tool)

    assert registry.get("Task") is tool
    assert "Task" in registry
    output = await registry.execute(
        "Task", {"prompt": "go", "description": "d", "subagent_type": "general"}, ctx
    )
    assert output.content == "general: go"


async def test_unknown_tool_is_a_model_visible_error(ctx: ToolContext) -> None:
    output = await default_tools().execute("Teleport", {}, ctx)

    assert output.is_error
    assert output.content == "Error: No such tool available: Teleport"
    assert output.error == output.content


async def test_invalid_arguments_are_a_model_visible_error(ctx: ToolContext) -> None:
    output = await default_tools().execute("Read", {"path": "x"}, ctx)

    assert output.is_error
    assert output.content.startswith("InputValidationError: ")
    assert "file_path: field required" in output.content
    assert "path: extra inputs are not permitted" in output.content


async def test_missing_and_non_object_arguments(ctx: ToolContext) -> None:
    registry = default_tools()
    registry.register(function_tool(lambda: "pong", name="ping"))

    missing = await registry.execute("Read", None, ctx)
    listed = await registry.execute("Read", ["file_path"], ctx)  # type: ignore[arg-type]
    no_args = await registry.execute("ping", None, ctx)

    assert "file_path: field required" in missing.content
    assert "arguments must be a JSON object, got list" in listed.content
    assert listed.is_error
    assert no_args.content == "pong"


async def test_exceptions_inside_a_tool_become_error_results(ctx: ToolContext) -> None:
    def explode(reason: str) -> str:
        raise RuntimeError(f"boom: {reason}")

    registry = ToolRegistry()
    registry.register(function_tool(explode))

    output = await registry.execute("explode", {"reason": "disk"}, ctx)

    assert output.is_error
    assert output.content == "Error: RuntimeError: boom: disk"
    assert output.error == output.content


async def test_cancellation_is_not_swallowed(ctx: ToolContext) -> None:
    started = asyncio.Event()

    async def wait_forever() -> str:
        started.set()
        await asyncio.Event().wait()
        return "unreachable"

    registry = ToolRegistry()
    registry.register(function_tool(wait_forever))
    task = asyncio.create_task(registry.execute("wait_forever", {}, ctx))
    await started.wait()

    task.cancel()

    with pytest.raises(asyncio.CancelledError):
        await task


async def test_builtins_round_trip_through_the_registry(ctx: ToolContext) -> None:
    registry = default_tools()

    written = await registry.execute("Write", {"file_path": "n.txt", "content": "one\n"}, ctx)
    edited = await registry.execute(
        "Edit", {"file_path": "n.txt", "old_string": "one", "new_string": "two"}, ctx
    )
    read = await registry.execute("Read", {"file_path": "n.txt"}, ctx)
    listed = await registry.execute("Bash", {"command": "cat n.txt"}, ctx)

    assert not (written.is_error or edited.is_error or read.is_error or listed.is_error)
    assert read.content == "1\ttwo\n2\t"
    assert listed.content == "two"


def test_hooks_see_absolute_paths_and_filled_defaults(tmp_path: Path) -> None:
    registry = default_tools()
    edit = {"file_path": "sub/../a.txt", "old_string": "x", "new_string": "y"}

    observed = registry.observed_input("Edit", edit, tmp_path)
    parsed = registry.parsed_input("Edit", edit)

    assert list(observed.items()) == [
        ("file_path", str(tmp_path / "a.txt")),
        ("old_string", "x"),
        ("new_string", "y"),
        ("replace_all", False),
    ]
    assert list(parsed) == ["replace_all", "file_path", "old_string", "new_string"]
    assert parsed["file_path"] == "sub/../a.txt"
    assert registry.observed_input("Bash", {"command": "ls"}, tmp_path) == {"command": "ls"}
    assert registry.observed_input("Nope", {"file_path": "x"}, tmp_path) == {"file_path": "x"}
