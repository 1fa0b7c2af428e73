"""User tools from plain Python functions.

The function's signature becomes a pydantic model (so type hints, defaults, `Optional`, `Literal`,
`Annotated[..., Field(...)]` and nested models all validate and show up in the JSON schema), its
docstring becomes the description, and Google-style `Args:` or Sphinx `:param x:` entries become
per-argument descriptions. A parameter annotated `ToolContext` receives the call's context and is
not shown to the model.

Model fields are named `arg0`, `arg1`, ... with the parameter names as aliases, so parameters
called `json`, `schema` or `_private` cannot collide with pydantic's own attributes.

Sync functions run in a worker thread, so a blocking function never stalls the agent loop.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic_core import PydanticSerializationError, to_jsonable_python

from hookwright.runtime.tools.base import (
    Tool,
    ToolContext,
    ToolOutput,
    json_schema_of,
    parse_arguments,
)

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_SECTION = re.compile(r"^([A-Z][A-Za-z ]*):\s*$")
_ARG_SECTIONS = frozenset({"args", "arguments", "parameters", "params", "keyword args"})
_GOOGLE_ARG = re.compile(r"^\**(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_SPHINX_PARAM = re.compile(r"^:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")


@dataclass(slots=True, frozen=True)
class _Param:
    name: str
    field: str
    positional_only: bool


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a docstring into its description and per-parameter descriptions."""
    summary: list[str] = []
    params: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    arg_indent: int | None = None
    for line in doc.splitlines():
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        header = _SECTION.match(line)
        if header:
            section, current, arg_indent = header.group(1).lower(), None, None
            continue
        sphinx = _SPHINX_PARAM.match(stripped)
        if sphinx:
            section, current = "sphinx", sphinx.group(1)
            params[current] = sphinx.group(2).strip()
            continue
        if stripped.startswith(":") and section in (None, "sphinx"):
            section, current = "sphinx", None
            continue
        if section is None:
            summary.append(line)
            continue
        if not stripped:
            continue
        if section in _ARG_SECTIONS:
            arg_indent = indent if arg_indent is None else arg_indent
            entry = _GOOGLE_ARG.match(stripped)
            if indent <= arg_indent and entry:
                current = entry.group(1)
                params[current] = entry.group(2).strip()
                continue
        if current is not None and section in (*_ARG_SECTIONS, "sphinx"):
            params[current] = f"{params[current]} {stripped}".strip()
    return "\n".join(summary).strip(), params


def _type_hints(func: Callable[..., Any]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(func, include_extras=True)
    except (NameError, TypeError):
        return {}


def _build_model(
    func: Callable[..., Any], name: str, docs: Mapping[str, str]
) -> tuple[type[BaseModel], list[_Param], str | None]:
    hints = _type_hints(func)
    fields: dict[str, Any] = {}
    params: list[_Param] = []
    context_param: str | None = None
    for index, param in enumerate(inspect.signature(func).parameters.values()):
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(f"{name}: *args and **kwargs cannot be described to a model")
        annotation = hints.get(param.name, param.annotation)
        if annotation is param.empty:
            annotation = Any
        if annotation is ToolContext:
            if param.kind is param.POSITIONAL_ONLY:
                raise TypeError(f"{name}: the ToolContext parameter cannot be positional-only")
            context_param = param.name
            continue
        default = ... if param.default is param.empty else param.default
        field = f"arg{index}"
        extra: dict[str, Any] = {}
        if param.name in docs:
            extra["description"] = docs[param.name]
        fields[field] = (annotation, Field(default, alias=param.name, **extra))
        params.append(_Param(param.name, field, param.kind is param.POSITIONAL_ONLY))
    model = create_model(f"{name}_arguments", __config__=ConfigDict(extra="forbid"), **fields)
    return model, params, context_param


def to_tool_output(result: Any) -> ToolOutput:
    """str -> content; dict (or pydantic model) -> JSON content and `data`; other JSON values ->
    JSON content and `data = {"result": value}`; None -> "(no output)"."""
    if isinstance(result, ToolOutput):
        return result
    if isinstance(result, str):
        return ToolOutput(content=result)
    if result is None:
        return ToolOutput(content="(no output)")
    try:
        value = to_jsonable_python(result)
    except PydanticSerializationError:
        return ToolOutput(content=str(result))
    data = value if isinstance(value, dict) else {"result": value}
    return ToolOutput(content=json.dumps(value, ensure_ascii=False), data=data)


class FunctionTool:
    """A tool backed by a Python function; build it with `function_tool`."""

    def __init__(
        self,
        func: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        read_only: bool = False,
    ) -> None:
        tool_name = name if name else str(getattr(func, "__name__", ""))
        if not _NAME.match(tool_name):
            raise ValueError(
                f"invalid tool name {tool_name!r}: use 1-64 letters, digits, '_' or '-'"
            )
        summary, docs = parse_docstring(inspect.getdoc(func) or "")
        self.name: str = tool_name
        self.description: str = summary if description is None else description
        self.read_only: bool = read_only
        self._func = func
        self._model, self._params, self._context_param = _build_model(func, tool_name, docs)

    def input_schema(self) -> dict[str, Any]:
        return json_schema_of(self._model)

    def validate(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        parsed = parse_arguments(self._model, arguments)
        dumped: dict[str, Any] = parsed.model_dump(mode="json", by_alias=True, exclude_unset=True)
        return dumped

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        parsed = parse_arguments(self._model, arguments)
        positional = [getattr(parsed, p.field) for p in self._params if p.positional_only]
        keywords = {p.name: getattr(parsed, p.field) for p in self._params if not p.positional_only}
        if self._context_param is not None:
            keywords[self._context_param] = ctx
        if inspect.iscoroutinefunction(self._func):
            result = await self._func(*positional, **keywords)
        else:
            result = await asyncio.to_thread(self._func, *positional, **keywords)
            if inspect.isawaitable(result):
                result = await result
        return to_tool_output(result)

    def render_response(self, response: Any) -> ToolOutput:
        """A replaced result reads as the function's own return value would."""
        return to_tool_output(response)


def function_tool(
    func: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    read_only: bool = False,
) -> Tool:
    """Wrap a sync or async function as a tool; see the module docstring for the rules."""
    return FunctionTool(func, name=name, description=description, read_only=read_only)
