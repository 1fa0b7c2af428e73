"""The `hooks` object of a Claude Code settings file, parsed permissively.

``{"hooks": {Event: [{"matcher": str?, "hooks": [handler, ...]}, ...]}}``. Each bad piece (an
unknown event, a group that is not an object, a handler with a wrong field) becomes a
`Diagnostic` naming the file and the field path (``hooks.PreToolUse[0].hooks[1].timeout``) and
is skipped; the rest loads. Unknown handler keys are accepted (Anthropic's own plugins use
undocumented ones such as ``rewakeMessage``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from hookwright.config.loading import Diagnostic
from hookwright.core.events import Event
from hookwright.core.validation import did_you_mean, field_path
from hookwright.dialects.claude_code.tables import ACCEPTED_TYPES, EVENT_NAMES

#: A timeout at or above this many seconds is almost certainly meant as milliseconds.
MILLISECONDS_HINT = 1000

#: What a failure of a command, http or mcp_tool hook does (CLI 2.1.295+): ``continue`` lets
#: the action go ahead, ``block`` counts the failure as exit code 2 (see `on_failure`).
OnFailure = Literal["continue", "block"]


class _Handler(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    if_: str | None = Field(default=None, alias="if")
    timeout: float | None = Field(default=None, gt=0)
    statusMessage: str | None = None
    once: bool = False


def _fails_closed(value: Any) -> OnFailure:
    """Every `onFailure` value but "continue" reads as "block" (Claude Code's rule for
    mcp_tool hooks; on command and http hooks `_on_failure_note` also reports it)."""
    return "continue" if value == "continue" else "block"


class CommandHook(_Handler):
    type: Literal["command"]
    command: str = Field(min_length=1)
    args: list[str] | None = None
    async_: bool = Field(default=False, alias="async")
    asyncRewake: bool = False
    shell: Literal["bash", "powershell"] | None = None
    rewakeMessage: str | None = None
    rewakeSummary: str | None = None
    onFailure: OnFailure = "continue"

    _on_failure = field_validator("onFailure", mode="before")(_fails_closed)

    @property
    def is_async(self) -> bool:
        return self.async_ or self.asyncRewake


class HttpHook(_Handler):
    type: Literal["http"]
    url: str = Field(min_length=1)
    headers: dict[str, str] = Field(default_factory=dict)
    allowedEnvVars: list[str] = Field(default_factory=list)
    onFailure: OnFailure = "continue"

    _on_failure = field_validator("onFailure", mode="before")(_fails_closed)


class McpToolHook(_Handler):
    """Calls `tool` on the configured MCP server `server` (plugin servers as
    ``plugin:<plugin>:<server>``) with `input`, whose string values may hold
    ``${path.into.hook_input}`` placeholders."""

    type: Literal["mcp_tool"]
    server: str = Field(min_length=1)
    tool: str = Field(min_length=1)
    input: dict[str, Any] = Field(default_factory=dict)
    onFailure: OnFailure = "continue"

    _on_failure = field_validator("onFailure", mode="before")(_fails_closed)


class PromptHook(_Handler):
    type: Literal["prompt"]
    prompt: str = Field(min_length=1)
    model: str | None = None
    continueOnBlock: bool = False


class AgentHook(_Handler):
    type: Literal["agent"]
    prompt: str = Field(min_length=1)
    model: str | None = None


HandlerConfig = CommandHook | HttpHook | McpToolHook | PromptHook | AgentHook

_MODELS: dict[str, type[HandlerConfig]] = {
    "command": CommandHook,
    "http": HttpHook,
    "mcp_tool": McpToolHook,
    "prompt": PromptHook,
    "agent": AgentHook,
}
_KNOWN_TYPES = ("command", "http", "mcp_tool", "prompt", "agent")


@dataclass(slots=True, frozen=True)
class ParsedHandler:
    """One handler that passed validation, with where it came from."""

    event: Event
    group: int
    index: int
    matcher: str | None
    config: HandlerConfig
    #: Field path inside the file, e.g. ``hooks.PreToolUse[0].hooks[1]``.
    path: str


@dataclass(slots=True)
class ParsedHooks:
    handlers: list[ParsedHandler]
    diagnostics: list[Diagnostic]


def _handler(
    raw: Any, event: Event, where: str, file: str, diagnostics: list[Diagnostic]
) -> HandlerConfig | None:
    if not isinstance(raw, dict):
        diagnostics.append(Diagnostic(file, where, "expected a hook object"))
        return None
    hook_type = raw.get("type")
    if hook_type is None:
        diagnostics.append(Diagnostic(file, f"{where}.type", "missing hook type"))
        return None
    if hook_type not in _KNOWN_TYPES:
        expected = ", ".join(_KNOWN_TYPES)
        diagnostics.append(
            Diagnostic(file, f"{where}.type", f"unknown hook type {hook_type!r} ({expected})")
        )
        return None
    if hook_type not in ACCEPTED_TYPES[event]:
        accepted = ", ".join(sorted(ACCEPTED_TYPES[event]))
        diagnostics.append(
            Diagnostic(
                file,
                f"{where}.type",
                f"{event.value} does not accept {hook_type} hooks (only {accepted}); skipped",
            )
        )
        return None
    try:
        config = _MODELS[hook_type].model_validate(raw)
    except ValidationError as exc:
        for err in exc.errors():
            diagnostics.append(Diagnostic(file, field_path(err["loc"], where), err["msg"]))
        return None
    note = _on_failure_note(raw, hook_type, f"{where}.onFailure", file)
    if note is not None:
        diagnostics.append(note)
    if config.timeout is not None and config.timeout >= MILLISECONDS_HINT:
        diagnostics.append(
            Diagnostic(
                file,
                f"{where}.timeout",
                f"timeout {config.timeout:g} is in seconds and looks like milliseconds "
                f"({config.timeout / 3600:.1f} h)",
                "warning",
            )
        )
    return config


def _on_failure_note(
    raw: dict[str, Any], hook_type: str, where: str, file: str
) -> Diagnostic | None:
    """An `onFailure` that is neither "continue" nor "block" is read as "block". Claude Code
    reads it so on mcp_tool hooks; on command and http hooks it ignores every hook of the file
    for it, so that is an error to fix."""
    if "onFailure" not in raw or raw["onFailure"] in ("continue", "block"):
        return None
    value = raw["onFailure"]
    if hook_type == "mcp_tool":
        return Diagnostic(file, where, f'onFailure {value!r} is read as "block"', "warning")
    return Diagnostic(
        file,
        where,
        f'onFailure must be "continue" or "block", got {value!r}; hookwright reads it as '
        '"block", Claude Code ignores every hook of this file',
    )


def parse_hooks(hooks: Any, file: str, base: str = "hooks") -> ParsedHooks:
    """Parse a `hooks` object into handlers, collecting a diagnostic for every bad piece."""
    result = ParsedHooks([], [])
    diagnostics = result.diagnostics
    if hooks is None:
        return result
    if not isinstance(hooks, dict):
        diagnostics.append(Diagnostic(file, base, "expected an object of event name -> groups"))
        return result
    for name, groups in hooks.items():
        where = f"{base}.{name}"
        if name not in EVENT_NAMES:
            hint = did_you_mean(name, EVENT_NAMES)
            diagnostics.append(Diagnostic(file, where, f"unknown event {name!r}{hint}; skipped"))
            continue
        event = Event(name)
        if not isinstance(groups, list):
            diagnostics.append(Diagnostic(file, where, "expected a list of matcher groups"))
            continue
        for group_index, group in enumerate(groups):
            group_where = f"{where}[{group_index}]"
            if not isinstance(group, dict):
                diagnostics.append(Diagnostic(file, group_where, "expected a matcher group object"))
                continue
            matcher = group.get("matcher")
            if matcher is not None and not isinstance(matcher, str):
                diagnostics.append(
                    Diagnostic(file, f"{group_where}.matcher", "matcher must be a string")
                )
                continue
            handlers = group.get("hooks")
            if not isinstance(handlers, list):
                diagnostics.append(
                    Diagnostic(file, f"{group_where}.hooks", "expected a list of hooks")
                )
                continue
            for index, raw in enumerate(handlers):
                hook_where = f"{group_where}.hooks[{index}]"
                config = _handler(raw, event, hook_where, file, diagnostics)
                if config is not None:
                    result.handlers.append(
                        ParsedHandler(event, group_index, index, matcher, config, hook_where)
                    )
    return result
