"""The set of tools the model may call, and the one place a call is turned into a `ToolOutput`.

`execute` never raises for anything the model can cause (unknown tool, bad arguments, a tool that
blows up): the failure becomes an error result the model reads, so the agent loop keeps going.
Cancellation is the exception and always propagates.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from hookwright.runtime.tools.base import (
    ChecksInput,
    InputCheck,
    RendersResponse,
    Tool,
    ToolContext,
    ToolInputError,
    ToolOutput,
    absolute_path,
    failure,
)
from hookwright.runtime.tools.input_order import in_schema_order, unexpected_keys
from hookwright.runtime.tools.input_refusal import schema_refusal, with_numbers

ALIASES: dict[str, str] = {"Task": "Agent"}
"""Legacy tool names still used by models and hook matchers, mapped to their current name."""


class ToolRegistry:
    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}

    def register(self, tool: Tool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def get(self, name: str) -> Tool | None:
        tool = self._tools.get(name)
        if tool is None and name in ALIASES:
            tool = self._tools.get(ALIASES[name])
        return tool

    def names(self) -> list[str]:
        return list(self._tools)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def __len__(self) -> int:
        return len(self._tools)

    def definitions(self) -> list[dict[str, Any]]:
        """OpenAI-style function-tool definitions, in registration order."""
        return [
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.input_schema(),
                },
            }
            for tool in self._tools.values()
        ]

    def observed_input(self, name: str, arguments: Mapping[str, Any], cwd: Path) -> dict[str, Any]:
        """The input as Claude Code shows it to PreToolUse and PostToolUse hooks: the fields in
        Claude Code's schema order (`in_schema_order`) without the keys a schema that ignores
        unknown keys left out, relative file paths made absolute
        against the shell's directory, defaults the model left out added after its own fields
        (Edit's `replace_all: false`)."""
        tool = self.get(name)
        shown = getattr(tool, "shown_input", None)
        known = _without_ignored_keys(tool, arguments)
        observed = in_schema_order(
            tool.name if tool else name, shown(known) if callable(shown) else known
        )
        for field in getattr(tool, "path_fields", ()):
            value = observed.get(field)
            if isinstance(value, str) and value:
                observed[field] = str(absolute_path(cwd, value))
        return {**observed, **self._missing_defaults(tool, arguments)}

    def parsed_input(
        self, name: str, arguments: Mapping[str, Any], *, refused: bool = False
    ) -> dict[str, Any]:
        """The input as Claude Code shows it to PostToolBatch hooks: the model's own fields in
        Claude Code's schema order, the keys that have a default in front (the model's value
        or the default; measured: Edit's `replace_all` first either way); as the model wrote
        it when it was `refused` before any hook."""
        if refused:
            return dict(arguments)
        tool = self.get(name)
        shown = tool.name if tool else name
        defaults: Mapping[str, Any] = getattr(tool, "input_defaults", {})
        first = {key: arguments.get(key, value) for key, value in defaults.items()}
        return {**first, **in_schema_order(shown, arguments)}

    @staticmethod
    def _missing_defaults(tool: Tool | None, arguments: Mapping[str, Any]) -> dict[str, Any]:
        defaults: Mapping[str, Any] = getattr(tool, "input_defaults", {})
        return {key: value for key, value in defaults.items() if key not in arguments}

    def schema_refusal(
        self, name: str, arguments: Mapping[str, Any], *, lists_invalid_values: bool = True
    ) -> str | None:
        """Claude Code's refusal of an input its schema for tool `name` does not take, before
        any hook runs (`input_refusal.schema_refusal`); None when it takes it."""
        tool = self.get(name)
        model = _args_model(tool)
        if tool is None or model is None:
            return None
        return schema_refusal(
            tool.name, model, arguments, lists_invalid_values=lists_invalid_values
        )

    def read_input(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """`arguments` as Claude Code reads them before anything else: numbers written as
        strings for numeric keys read as numbers (`input_refusal.with_numbers`)."""
        tool = self.get(name)
        model = _args_model(tool)
        if tool is None or model is None:
            return arguments
        return dict(with_numbers(tool.name, model, arguments))

    async def refusal(
        self, name: str, arguments: Mapping[str, Any], check: InputCheck
    ) -> str | None:
        """Why tool `name` refuses an input its schema takes before any hook runs
        (`ChecksInput`); None when it does not."""
        tool = self.get(name)
        return await tool.refusal(arguments, check) if isinstance(tool, ChecksInput) else None

    def render_response(self, name: str, response: Any) -> ToolOutput | None:
        """A hook's replacement for the result of tool `name`, shown as the tool shows its own;
        None when the tool cannot show it (the original result stands)."""
        tool = self.get(name)
        if not isinstance(tool, RendersResponse):
            return None
        return tool.render_response(response)

    async def execute(
        self, name: str, arguments: Mapping[str, Any] | None, ctx: ToolContext
    ) -> ToolOutput:
        tool = self.get(name)
        if tool is None:
            return failure(f"Error: No such tool available: {name}")
        try:
            validated = tool.validate(arguments)
        except ToolInputError as exc:
            return failure(f"InputValidationError: {name} failed due to the following issue: {exc}")
        except Exception as exc:
            return failure(_describe_exception(exc))
        try:
            return await tool.run(validated, ctx)
        except Exception as exc:
            return failure(_describe_exception(exc))


def _without_ignored_keys(tool: Tool | None, arguments: Mapping[str, Any]) -> Mapping[str, Any]:
    """`arguments` without the keys Claude Code's schema for `tool` does not have, when the
    tool's input model ignores unknown keys (Agent's) rather than refusing them."""
    model = _args_model(tool)
    if tool is None or model is None or model.model_config.get("extra") != "ignore":
        return arguments
    unknown = set(unexpected_keys(tool.name, arguments))
    return {key: value for key, value in arguments.items() if key not in unknown}


def _args_model(tool: Tool | None) -> type[BaseModel] | None:
    """The pydantic model of a tool that has one (`ModelTool`)."""
    model = getattr(tool, "args_model", None)
    return model if isinstance(model, type) and issubclass(model, BaseModel) else None


def _describe_exception(exc: Exception) -> str:
    detail = str(exc)
    kind = type(exc).__name__
    return f"Error: {kind}: {detail}" if detail else f"Error: {kind}"
