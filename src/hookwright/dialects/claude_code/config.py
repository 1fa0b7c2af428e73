"""The `hooks` object of a Claude Code settings file, parsed permissively.

``{"hooks": {Event: [{"matcher": str?, "hooks": [handler, ...]}, ...]}}``. Each bad piece (an
unknown event, a group that is not an object, a handler with a wrong field) becomes a
`Diagnostic` naming the file and the field path (``hooks.PreToolUse[0].hooks[1].timeout``) and
is skipped; the rest loads.

An unknown key is reported with its value, as an error when it resembles a known one (a typo,
`"timout"`); another unknown key is a warning on a group and accepted on a handler (Anthropic's
own plugins use undocumented handler keys such as ``description``). A
key that is there to narrow what runs must never be lost to a typo: a matcher group on a
matcher event that has no `matcher` but an unknown key (`"matchr"`), and a handler with an
unknown key that resembles `if` or `matcher`, would run on every tool, so they are withheld
(`ParsedHooks.withheld`): not run, reported as an error that names the key and its value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from hookwright.config.loading import Diagnostic
from hookwright.core.events import Event
from hookwright.core.validation import did_you_mean, field_path, model_keys, unknown_key
from hookwright.dialects.claude_code.tables import ACCEPTED_TYPES, EVENT_NAMES, MATCHER_EVENTS

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
    #: The input carries the call's canonical actions (``hookwright_actions``).
    actions: bool = False

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
    #: The request body carries the call's canonical actions (``hookwright_actions``).
    actions: bool = False

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
_MODEL_KEYS: dict[str, frozenset[str]] = {
    name: frozenset({*model_keys(model), "type"}) for name, model in _MODELS.items()
}
_HANDLER_KEYS = frozenset().union(*_MODEL_KEYS.values())
GROUP_KEYS = ("matcher", "hooks")
#: Handler keys that narrow when a handler runs; a typo of one must not widen it.
_NARROWING_KEYS = ("if", "matcher")
WITHHELD = "not loaded, since without it the hooks would run on every tool"


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
    #: Handlers not loaded because a key meant to narrow them is misspelled (each has an
    #: error in `diagnostics`), with that error's text: they never run.
    withheld: list[tuple[ParsedHandler, str]] = field(default_factory=list)


def _unknown_keys(
    raw: dict[str, Any],
    known: frozenset[str] | tuple[str, ...],
    where: str,
    file: str,
    *,
    typos_only: bool = False,
) -> list[Diagnostic]:
    """A diagnostic per key of `raw` not in `known`: an error for a typo, else a warning
    (none with `typos_only`)."""
    found = []
    for key, value in raw.items():
        if key in known:
            continue
        message, typo = unknown_key(str(key), value, known)
        if typo or not typos_only:
            path = field_path([str(key)], where)
            found.append(Diagnostic(file, path, message, "error" if typo else "warning"))
    return found


def _narrowing_typo(raw: dict[str, Any]) -> str | None:
    """An unknown handler key that resembles `if` or `matcher` (or is `matcher`, which
    belongs on the group), when the handler has no `if`."""
    if "if" in raw:
        return None
    for key in raw:
        if key not in _HANDLER_KEYS and (key == "matcher" or did_you_mean(key, _NARROWING_KEYS)):
            return str(key)
    return None


def _handler(
    raw: Any, event: Event, where: str, file: str, diagnostics: list[Diagnostic]
) -> HandlerConfig | None:
    if not isinstance(raw, dict):
        diagnostics.append(Diagnostic(file, where, "expected a hook object"))
        return None
    hook_type = raw.get("type")
    if hook_type is None:
        typos = _unknown_keys(raw, _HANDLER_KEYS, where, file, typos_only=True)
        diagnostics.extend(
            Diagnostic(file, d.path, f"{d.message}; missing hook type: not loaded") for d in typos
        )
        if not typos:
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
    diagnostics.extend(_unknown_keys(raw, _MODEL_KEYS[hook_type], where, file, typos_only=True))
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
            _group(group, event, group_index, f"{where}[{group_index}]", file, result)
    return result


def _group(
    group: Any, event: Event, group_index: int, where: str, file: str, result: ParsedHooks
) -> None:
    """One matcher group's handlers into `result`; all of them withheld when the group has
    no matcher on a matcher event but has an unknown key (the matcher, misspelled?)."""
    diagnostics = result.diagnostics
    if not isinstance(group, dict):
        diagnostics.append(Diagnostic(file, where, "expected a matcher group object"))
        return
    matcher = group.get("matcher")
    if matcher is not None and not isinstance(matcher, str):
        diagnostics.append(Diagnostic(file, f"{where}.matcher", "matcher must be a string"))
        return
    handlers = group.get("hooks")
    if not isinstance(handlers, list):
        diagnostics.append(Diagnostic(file, f"{where}.hooks", "expected a list of hooks"))
        return
    unknown = _unknown_keys(group, GROUP_KEYS, where, file)
    withheld = None
    if unknown and matcher is None and event in MATCHER_EVENTS:
        first = unknown[0]
        message = f"{first.message}; the group has no matcher: {WITHHELD}"
        unknown[0] = Diagnostic(file, first.path, message)
        withheld = f"{first.path}: {message}"
    diagnostics.extend(unknown)
    for index, raw in enumerate(handlers):
        hook_where = f"{where}.hooks[{index}]"
        config = _handler(raw, event, hook_where, file, diagnostics)
        if config is None:
            continue
        parsed = ParsedHandler(event, group_index, index, matcher, config, hook_where)
        reason = withheld or _withheld_handler(raw, event, hook_where, file, diagnostics)
        if reason is None:
            result.handlers.append(parsed)
        else:
            result.withheld.append((parsed, reason))


def _withheld_handler(
    raw: dict[str, Any], event: Event, where: str, file: str, diagnostics: list[Diagnostic]
) -> str | None:
    """Why a handler is withheld (its `if` or matcher misspelled), or None; the error
    replaces the key's unknown-field diagnostic."""
    key = _narrowing_typo(raw) if event in MATCHER_EVENTS else None
    if key is None:
        return None
    path = field_path([key], where)
    message, _ = unknown_key(key, raw[key], _NARROWING_KEYS if key != "matcher" else ())
    if key == "matcher":
        message += ' (a matcher belongs on the group, next to "hooks")'
    message += f": {WITHHELD}"
    diagnostics[:] = [d for d in diagnostics if d.path != path]
    diagnostics.append(Diagnostic(file, path, message))
    return f"{path}: {message}"


def json_schema() -> dict[str, Any]:
    """JSON Schema (2020-12) of the `hooks` of a Claude Code settings file (its other keys are
    Claude Code's own and left open): event name -> matcher groups -> handlers."""
    from pydantic import TypeAdapter

    from hookwright.dialects.claude_code.tables import EVENT_NAMES

    handler = TypeAdapter(HandlerConfig).json_schema(by_alias=True, ref_template="#/$defs/{model}")
    defs = {**handler.pop("$defs", {}), "Handler": handler}
    group = {
        "type": "object",
        "required": ["hooks"],
        "properties": {
            "matcher": {"type": "string", "description": "Tool names: exact, a|b, or a regex."},
            "hooks": {"type": "array", "items": {"$ref": "#/$defs/Handler"}},
        },
    }
    events = {name: {"type": "array", "items": group} for name in sorted(EVENT_NAMES)}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Claude Code settings (hooks)",
        "type": "object",
        "properties": {
            "hooks": {"type": "object", "properties": events, "additionalProperties": False}
        },
        "$defs": defs,
    }
