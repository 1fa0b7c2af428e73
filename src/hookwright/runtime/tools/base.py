"""What every tool shares: the context it runs in, what it returns, and argument validation.

Built-in tools describe their arguments with one pydantic model each (`ModelTool`), so the JSON
schema the model sees and the validation applied to what it sends can never drift apart.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar, Generic, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ValidationError

ArgsT = TypeVar("ArgsT", bound=BaseModel)


@dataclass(slots=True)
class ToolContext:
    """Where a call runs: `cwd` is the session's shell working directory; `project_dir`, when
    set, is the folder the shell may not leave (Bash falls back to it)."""

    cwd: Path
    session_id: str = ""
    env: dict[str, str] | None = None
    env_files: list[Path] = field(default_factory=list)
    project_dir: Path | None = None
    #: The id of the model's call being run ("" outside a model's call).
    tool_use_id: str = ""
    #: The files the model has read or written in this session (Read and Write add theirs;
    #: an Edit does not); None: not tracked.
    files_in_context: set[Path] | None = None
    #: An Edit of a file not in `files_in_context` says so (the Claude Code profile's
    #: `marks_unread_edits`).
    marks_unread_edits: bool = False
    #: A missing file's `Did you mean` hint names only an entry with a plain extension (the
    #: Claude Code profile's `plain_hint_extensions`; `path_hint`).
    plain_hint_extensions: bool = False


@dataclass(slots=True)
class ToolOutput:
    """A tool's answer.

    `content` is what the model reads; `data` is the structured `tool_response` hooks receive
    (Claude Code's per-tool shapes); `error` is the PostToolUseFailure `error` string; `cwd`
    is the shell's working directory after the call when the tool tracks it (Bash); `parts`,
    when set, are the text blocks the model receives one by one (an MCP tool's content
    blocks, as Claude Code passes them), `content` being their text joined by newlines;
    `followup` are user texts the model receives after the batch's results (a skill's text).
    """

    content: str
    is_error: bool = False
    data: Any = None
    error: str | None = None
    cwd: Path | None = None
    parts: tuple[str, ...] | None = None
    followup: tuple[str, ...] = ()


class ToolInputError(ValueError):
    """The arguments do not fit the tool's schema; the message names the offending field."""


class Tool(Protocol):
    name: str
    description: str
    read_only: bool

    def input_schema(self) -> dict[str, Any]: ...

    def validate(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]: ...

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput: ...


@runtime_checkable
class RendersResponse(Protocol):
    """A tool that can show a structured result a hook put in place of its own (Claude Code
    `updatedToolOutput`) the way it shows its own; None when the object does not fit."""

    def render_response(self, response: Any) -> ToolOutput | None: ...


@runtime_checkable
class ChecksInput(Protocol):
    """A tool that refuses some inputs before any hook sees the call, as Claude Code's tools
    validate theirs: the model gets ``<tool_use_error>REASON</tool_use_error>`` as an error
    result, PostToolBatch sees that text, and no PreToolUse or PostToolUse hook runs."""

    async def refusal(self, arguments: Mapping[str, Any], check: InputCheck) -> str | None: ...


@dataclass(frozen=True, slots=True)
class InputCheck:
    """What a tool's check of an input before its hooks knows of the session."""

    #: The working directory (a relative path is taken from it).
    cwd: Path
    #: A Write to a folder is refused here (else it fails when it runs, after PreToolUse).
    refuses_folder_writes: bool = False
    #: As `ToolContext.plain_hint_extensions`.
    plain_hint_extensions: bool = False


def failure(message: str, *, data: dict[str, Any] | None = None) -> ToolOutput:
    """A failed call: the model and PostToolUseFailure hooks both see `message`."""
    return ToolOutput(content=message, is_error=True, data=data, error=message)


def describe_validation_error(exc: ValidationError) -> str:
    """Render pydantic errors as `field: problem` pairs, e.g. `file_path: field required`."""
    parts: list[str] = []
    for err in exc.errors(include_url=False):
        message = str(err["msg"])
        message = message[:1].lower() + message[1:]
        where = ".".join(str(part) for part in err["loc"])
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts)


def json_schema_of(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema by alias, trimmed for LLM providers.

    pydantic's generated `title` keys are dropped, and an optional field (`X | None = None`) is
    shown as plain `X` rather than `anyOf: [X, null]`, which several providers handle poorly;
    validation still accepts an explicit null.
    """
    schema: dict[str, Any] = _simplify(model.model_json_schema(by_alias=True))
    return schema


def _simplify(node: Any) -> Any:
    if isinstance(node, list):
        return [_simplify(item) for item in node]
    if not isinstance(node, dict):
        return node
    cleaned: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
            cleaned[key] = {name: _simplify(sub) for name, sub in value.items()}
        else:
            cleaned[key] = _simplify(value)
    return _collapse_optional(cleaned)


def _collapse_optional(node: dict[str, Any]) -> dict[str, Any]:
    variants = node.get("anyOf")
    if "default" not in node or node["default"] is not None or not isinstance(variants, list):
        return node
    rest = [variant for variant in variants if variant != {"type": "null"}]
    if len(rest) != 1 or len(rest) == len(variants):
        return node
    collapsed = {key: value for key, value in node.items() if key not in ("anyOf", "default")}
    return {**rest[0], **collapsed}


def parse_arguments(model: type[ArgsT], arguments: Mapping[str, Any] | None) -> ArgsT:
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        raise ToolInputError(f"arguments must be a JSON object, got {type(arguments).__name__}")
    try:
        return model.model_validate(dict(arguments))
    except ValidationError as exc:
        raise ToolInputError(describe_validation_error(exc)) from None


def resolve_path(ctx: ToolContext, raw: str) -> Path:
    """Absolute, normalised path: `~` expanded, relative paths taken from the session cwd.

    Symlinks are not resolved, so the path reported back is the one the model asked for.
    """
    return absolute_path(ctx.cwd, raw)


def absolute_path(cwd: Path, raw: str) -> Path:
    """`raw` made absolute against `cwd` (`~` expanded, `..` folded, symlinks kept)."""
    expanded = Path(os.path.expanduser(raw))
    base = cwd if cwd.is_absolute() else Path.cwd() / cwd
    return Path(os.path.normpath(base / expanded))


class ModelTool(Generic[ArgsT]):
    """A tool whose arguments are exactly one pydantic model; subclasses implement `call`.

    `path_fields` and `input_defaults` shape the input hooks see, as Claude Code shows it
    (`ToolRegistry.observed_input`): those path fields made absolute, those defaults filled in.
    """

    name: str
    description: str
    read_only: bool
    args_model: type[ArgsT]
    path_fields: ClassVar[tuple[str, ...]] = ()
    input_defaults: ClassVar[Mapping[str, Any]] = MappingProxyType({})

    def input_schema(self) -> dict[str, Any]:
        return json_schema_of(self.args_model)

    def validate(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        parsed = parse_arguments(self.args_model, arguments)
        dumped: dict[str, Any] = parsed.model_dump(mode="json", by_alias=True, exclude_unset=True)
        return dumped

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        return await self.call(parse_arguments(self.args_model, arguments), ctx)

    async def call(self, args: ArgsT, ctx: ToolContext) -> ToolOutput:
        raise NotImplementedError
