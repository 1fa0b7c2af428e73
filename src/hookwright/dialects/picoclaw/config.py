"""PicoClaw's `hooks` config section, read permissively.

Files, in order (later files override earlier ones key by key; a process or builtin defined in
several files takes the whole entry of the last one):

* ``~/.picoclaw/config.json`` (source ``user``);
* ``<project>/.picoclaw/config.json`` (source ``project``; its processes and builtins run only
  when the project is trusted);
* each ``--config FILE`` that is JSON with a top-level ``hooks`` object holding ``processes`` or
  ``builtins`` (source ``project``; named by the user, so it needs no trust).

Every entry remembers its file's source and trust root (`ConfigFile`). The loader merges the
files when binding, from the trusted ones only (`read_sections`, then `merge_sections`): an
untrusted project file changes nothing, not even the user's own hooks.

Validation follows PicoClaw (spec §1) with our additions: ``timeout_ms`` per hook, ``protocol``
(``seed``, the default, or ``current``) globally and per process, and ``restart``. Unlike
PicoClaw, where one bad hook stops the agent, an invalid hook yields a `Diagnostic` naming the
file and key (``hooks.processes.<name>.intercept[1]``) and only that hook is left out.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from hookwright.config.loading import Diagnostic, LoadContext
from hookwright.config.safeparse import ParseError, read_json
from hookwright.core.validation import field_path, unknown_key
from hookwright.dialects.picoclaw.isolation import Isolation, Mount
from hookwright.dialects.picoclaw.kinds import UnknownKindError, normalize_kind

Protocol = Literal["seed", "current"]
#: A validated entry of `hooks.processes` or `hooks.builtins`.
_Entry = TypeVar("_Entry", bound=BaseModel)

DEFAULT_OBSERVER_TIMEOUT_MS = 500
DEFAULT_INTERCEPTOR_TIMEOUT_MS = 5000
DEFAULT_APPROVAL_TIMEOUT_MS = 60000

INTERCEPTS = ("before_llm", "after_llm", "before_tool", "after_tool", "approve_tool")


def _check_intercept(value: str) -> str:
    if value not in INTERCEPTS and value != "":
        raise ValueError(
            f"unsupported intercept {value!r} (expected one of {', '.join(INTERCEPTS)})"
        )
    return value


def _check_observe(value: str) -> str:
    if value in ("*", "all", ""):
        return value
    try:
        normalize_kind(value)
    except UnknownKindError as exc:
        raise ValueError(str(exc)) from None
    return value


class Defaults(BaseModel):
    model_config = ConfigDict(extra="ignore")

    observer_timeout_ms: int = 0
    interceptor_timeout_ms: int = 0
    approval_timeout_ms: int = 0


class RestartConfig(BaseModel):
    """Our addition: what to do when a hook process dies (PicoClaw never restarts)."""

    model_config = ConfigDict(extra="forbid")

    policy: Literal["on-failure", "never"] = "on-failure"
    backoff_ms: int = Field(default=1000, gt=0)
    max_backoff_ms: int = Field(default=30000, gt=0)
    max_restarts: int | None = Field(default=None, ge=0)


class ProcessConfig(BaseModel):
    model_config = ConfigDict(extra="ignore")

    enabled: bool = True
    priority: int = 0
    transport: str = ""
    command: list[str] = Field(default_factory=list, validate_default=True)
    dir: str = ""
    env: dict[str, str] = Field(default_factory=dict)
    observe: list[Annotated[str, AfterValidator(_check_observe)]] = Field(default_factory=list)
    intercept: list[Annotated[str, AfterValidator(_check_intercept)]] = Field(default_factory=list)
    timeout_ms: int | None = Field(default=None, gt=0)
    protocol: Protocol | None = None
    seed_event_kind: Literal["name", "index"] = "index"
    restart: RestartConfig = Field(default_factory=RestartConfig)
    #: Our addition: tool methods' params carry the call's canonical actions
    #: (``hookwright_actions``).
    actions: bool = False
    #: Our addition: every method's params carry the session state (``hookwright.state``).
    state: bool = False
    #: Our addition: ``shadow`` runs the process's methods and records their answers, never
    #: applying them.
    mode: Literal["enforce", "shadow"] = "enforce"

    @field_validator("transport")
    @classmethod
    def _stdio_only(cls, value: str) -> str:
        if value not in ("", "stdio"):
            raise ValueError(f"unsupported transport {value!r}")
        return value

    @field_validator("command")
    @classmethod
    def _command_required(cls, value: list[str]) -> list[str]:
        if not value or not value[0]:
            raise ValueError("command is required")
        return value

    @model_validator(mode="after")
    def _some_mode(self) -> ProcessConfig:
        if not (self.observe or self.intercepts):
            raise ValueError("no hook modes enabled")
        return self

    @property
    def intercepts(self) -> frozenset[str]:
        return frozenset(i for i in self.intercept if i)

    @property
    def intercept_llm(self) -> bool:
        return bool(self.intercepts & {"before_llm", "after_llm"})

    @property
    def intercept_tool(self) -> bool:
        return bool(self.intercepts & {"before_tool", "after_tool"})

    @property
    def approve(self) -> bool:
        return "approve_tool" in self.intercepts

    @property
    def modes(self) -> list[str]:
        """The `hook.hello` modes, in PicoClaw's order."""
        flags = (
            ("observe", bool(self.observe)),
            ("llm", self.intercept_llm),
            ("tool", self.intercept_tool),
            ("approve", self.approve),
        )
        return [mode for mode, on in flags if on]


class ExposePathConfig(BaseModel):
    model_config = ConfigDict(extra="ignore")

    source: str = Field(min_length=1)
    target: str = ""
    mode: Literal["ro", "rw"]

    @model_validator(mode="after")
    def _absolute(self) -> ExposePathConfig:
        if not Path(self.source).is_absolute() or not Path(self.target or "/").is_absolute():
            raise ValueError("source and target must be absolute paths")
        return self


class IsolationConfig(BaseModel):
    """PicoClaw's top-level `isolation` section (`config.IsolationConfig`)."""

    model_config = ConfigDict(extra="ignore")

    enabled: bool = False
    expose_paths: list[ExposePathConfig] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one_rule_per_target(self) -> IsolationConfig:
        targets = [os.path.normpath(p.target or p.source) for p in self.expose_paths]
        for target in targets:
            if targets.count(target) > 1:
                raise ValueError(f"duplicate expose_path target: {target}")
        return self


class BuiltinConfig(BaseModel):
    model_config = ConfigDict(extra="ignore")

    enabled: bool = True
    priority: int = 0
    #: Our addition: ``module:factory``. Without it the name is looked up among the builtins
    #: registered in-process, then tried as ``module:factory`` itself.
    factory: str | None = Field(default=None, pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
    config: Any = None
    timeout_ms: int | None = Field(default=None, gt=0)


@dataclass(slots=True)
class Timeouts:
    observer: float = DEFAULT_OBSERVER_TIMEOUT_MS / 1000
    interceptor: float = DEFAULT_INTERCEPTOR_TIMEOUT_MS / 1000
    approval: float = DEFAULT_APPROVAL_TIMEOUT_MS / 1000


@dataclass(frozen=True, slots=True)
class ConfigFile:
    path: Path
    source: str
    #: The folder that must be trusted before this file's hooks run; None: no trust needed.
    trust_root: Path | None


@dataclass(slots=True)
class ProcessEntry:
    name: str
    config: ProcessConfig
    file: str
    source: str
    protocol: Protocol
    #: None: needs no trust (see `ConfigFile`).
    trust_root: Path | None
    #: No file chose the protocol: `seed` is the default.
    protocol_assumed: bool = False


@dataclass(slots=True)
class BuiltinEntry:
    name: str
    config: BuiltinConfig
    file: str
    protocol: Protocol
    source: str
    trust_root: Path | None


@dataclass(slots=True)
class HooksSettings:
    """The merged `hooks` sections: valid entries plus a diagnostic per invalid one."""

    enabled: bool = True
    protocol: Protocol = "seed"
    #: Whether a file sets `protocol` (the default `seed` was chosen, not assumed).
    protocol_set: bool = False
    timeouts: Timeouts = field(default_factory=Timeouts)
    processes: list[ProcessEntry] = field(default_factory=list)
    builtins: list[BuiltinEntry] = field(default_factory=list)
    isolation: Isolation = field(default_factory=Isolation)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


def _ms(value: int, default: int) -> float:
    return (value if value > 0 else default) / 1000


def _errors(file: str, prefix: str, exc: ValidationError) -> list[Diagnostic]:
    out = []
    for err in exc.errors():
        message = str(err["msg"]).removeprefix("Value error, ")
        out.append(Diagnostic(file, field_path(err["loc"], prefix), message))
    return out


def candidate_files(ctx: LoadContext) -> list[ConfigFile]:
    """Existing config files in load order."""
    candidates = [
        ConfigFile(ctx.home / ".picoclaw" / "config.json", "user", None),
        ConfigFile(ctx.project_dir / ".picoclaw" / "config.json", "project", ctx.project_dir),
    ]
    candidates += [
        ConfigFile(Path(p), "project", None) for p in ctx.config_files if is_picoclaw_file(Path(p))
    ]
    out: list[ConfigFile] = []
    seen: set[Path] = set()
    for candidate in candidates:
        if not candidate.path.is_file():
            continue
        resolved = candidate.path.resolve()
        if resolved not in seen:
            seen.add(resolved)
            out.append(candidate)
    return out


def is_picoclaw_file(path: Path) -> bool:
    """A --config file is PicoClaw's when it is JSON whose `hooks` has processes or builtins."""
    if path.suffix.lower() != ".json":
        return False
    try:
        data = read_json(path)
    except ParseError:
        return False
    hooks = data.get("hooks") if isinstance(data, dict) else None
    return isinstance(hooks, dict) and ("processes" in hooks or "builtins" in hooks)


@dataclass(frozen=True, slots=True)
class FileSection:
    """One config file's `hooks` object (empty when it has none) and `isolation` value."""

    config: ConfigFile
    hooks: dict[str, Any]
    isolation: Any = None


#: The keys of a `hooks` object that apply to the hooks of every file.
FILE_SETTINGS = ("enabled", "protocol", "defaults")


def read_sections(files: list[ConfigFile]) -> tuple[list[FileSection], list[Diagnostic]]:
    """The `hooks` object of each file that has one, in load order."""
    sections: list[FileSection] = []
    diagnostics: list[Diagnostic] = []
    for config in files:
        file = str(config.path)
        try:
            data = read_json(config.path)
        except ParseError as exc:
            diagnostics.append(Diagnostic(file, "", exc.reason))
            continue
        hooks = data.get("hooks") if isinstance(data, dict) else None
        isolation = data.get("isolation") if isinstance(data, dict) else None
        if hooks is None and isolation is None:
            continue
        if hooks is not None and not isinstance(hooks, dict):
            diagnostics.append(Diagnostic(file, "hooks", "expected an object"))
            continue
        sections.append(FileSection(config, hooks or {}, isolation))
    return sections, diagnostics


@dataclass(slots=True)
class _Merge:
    """The sections merged so far: later files override earlier ones key by key."""

    settings: HooksSettings = field(default_factory=HooksSettings)
    defaults: dict[str, Any] = field(default_factory=dict)
    processes: dict[str, tuple[Any, ConfigFile]] = field(default_factory=dict)
    builtins: dict[str, tuple[Any, ConfigFile]] = field(default_factory=dict)

    def add(self, section: FileSection) -> None:
        settings, hooks, file = self.settings, section.hooks, str(section.config.path)
        settings.files.append(file)
        if "enabled" in hooks:
            if isinstance(hooks["enabled"], bool):
                settings.enabled = hooks["enabled"]
            else:
                settings.diagnostics.append(
                    Diagnostic(file, "hooks.enabled", "expected true or false")
                )
        if "protocol" in hooks:
            if hooks["protocol"] in ("seed", "current"):
                settings.protocol = hooks["protocol"]
                settings.protocol_set = True
            else:
                settings.diagnostics.append(
                    Diagnostic(file, "hooks.protocol", "expected 'seed' or 'current'")
                )
        if section.isolation is not None:
            self.add_isolation(file, section.isolation)
        for key in ("defaults", "processes", "builtins"):
            value = hooks.get(key)
            if value is None:
                continue
            if not isinstance(value, dict):
                settings.diagnostics.append(Diagnostic(file, f"hooks.{key}", "expected an object"))
            elif key == "defaults":
                settings.diagnostics += unknown_keys(file, "hooks.defaults", value, Defaults)
                try:
                    Defaults.model_validate(value)
                except ValidationError as exc:
                    settings.diagnostics.extend(_errors(file, "hooks.defaults", exc))
                else:
                    self.defaults.update(value)
            else:
                entries = self.processes if key == "processes" else self.builtins
                entries.update({name: (raw, section.config) for name, raw in value.items()})

    def add_isolation(self, file: str, raw: Any) -> None:
        """A file's `isolation`: `enabled` overrides, `expose_paths` replace rules by target.
        Invalid settings are reported and, once enabled, start no process (fail closed)."""
        settings = self.settings
        current = settings.isolation
        try:
            config = IsolationConfig.model_validate(raw)
        except ValidationError as exc:
            errors = _errors(file, "isolation", exc)
            settings.diagnostics.extend(errors)
            enabled = isinstance(raw, dict) and raw.get("enabled") is True
            problem = "; ".join(f"{e.path}: {e.message}" for e in errors)
            settings.isolation = replace(
                current, enabled=current.enabled or enabled, problem=problem
            )
            return
        rules = {os.path.normpath(m.target): m for m in current.expose_paths}
        for path in config.expose_paths:
            target = os.path.normpath(path.target or path.source)
            rules[target] = Mount(os.path.normpath(path.source), target, path.mode)
        enabled = config.enabled if "enabled" in raw else current.enabled
        settings.isolation = replace(current, enabled=enabled, expose_paths=tuple(rules.values()))

    def finish(self) -> None:
        """Validate the winning entries and the merged defaults into `settings`."""
        settings = self.settings
        merged = Defaults.model_validate(self.defaults)
        settings.timeouts = Timeouts(
            observer=_ms(merged.observer_timeout_ms, DEFAULT_OBSERVER_TIMEOUT_MS),
            interceptor=_ms(merged.interceptor_timeout_ms, DEFAULT_INTERCEPTOR_TIMEOUT_MS),
            approval=_ms(merged.approval_timeout_ms, DEFAULT_APPROVAL_TIMEOUT_MS),
        )
        for name, proc, file, origin in self._valid("processes", self.processes, ProcessConfig):
            protocol = proc.protocol or settings.protocol
            assumed = proc.protocol is None and not settings.protocol_set
            settings.processes.append(
                ProcessEntry(name, proc, file, origin.source, protocol, origin.trust_root, assumed)
            )
        for name, builtin, file, origin in self._valid("builtins", self.builtins, BuiltinConfig):
            settings.builtins.append(
                BuiltinEntry(
                    name, builtin, file, settings.protocol, origin.source, origin.trust_root
                )
            )

    def _valid(
        self, key: str, entries: dict[str, tuple[Any, ConfigFile]], model: type[_Entry]
    ) -> Iterator[tuple[str, _Entry, str, ConfigFile]]:
        """The winning entries of `hooks.<key>` that validate as `model`, by name; each one's
        unknown keys and each invalid one are reported in `settings.diagnostics`."""
        for name in sorted(entries):
            raw, origin = entries[name]
            file = str(origin.path)
            where = f"hooks.{key}.{name}"
            self.settings.diagnostics += unknown_keys(file, where, raw, model)
            try:
                entry = model.model_validate(raw)
            except ValidationError as exc:
                self.settings.diagnostics.extend(_errors(file, where, exc))
                continue
            yield name, entry, file, origin


def unknown_keys(file: str, where: str, raw: object, model: type[BaseModel]) -> list[Diagnostic]:
    """PicoClaw (Go's JSON decoding) ignores keys it does not know, and so does loading here;
    each is still reported, quoting its value: an error when it resembles a known key (a typo
    such as ``"intercep"`` leaves a guard that never runs), else a warning."""
    if not isinstance(raw, dict):
        return []
    known = {k for name, info in model.model_fields.items() for k in (name, info.alias) if k}
    found = []
    for key, value in raw.items():
        if key in known:
            continue
        message, typo = unknown_key(str(key), value, known)
        found.append(Diagnostic(file, f"{where}.{key}", message, "error" if typo else "warning"))
    return found


def current_era_notice(entry: ProcessEntry) -> list[Diagnostic]:
    """A warning for a process that gets the default `seed` protocol although its config is
    written for current PicoClaw: it observes kinds by their runtime names (``agent.*``,
    ``gateway.*``, ...), which only PicoClaw v0.2.9 and later know."""
    runtime = [kind for kind in entry.config.observe if "." in kind]
    if not entry.protocol_assumed or not runtime:
        return []
    message = (
        f"observes {runtime[0]!r}, a runtime event name of PicoClaw v0.2.9 and later, but "
        'speaks the default "seed" protocol (PicoClaw v0.2.6: hook.event with integer kinds, '
        'no context object); set "protocol": "current" in the hooks section or on the process '
        "for current PicoClaw hooks"
    )
    where = f"hooks.processes.{entry.name}.observe"
    return [Diagnostic(entry.file, where, message, "warning")]


def merge_sections(sections: list[FileSection]) -> HooksSettings:
    """The sections merged in order, as PicoClaw merges its config files."""
    merge = _Merge()
    for section in sections:
        merge.add(section)
    merge.finish()
    return merge.settings


def read_settings(files: list[ConfigFile]) -> HooksSettings:
    sections, problems = read_sections(files)
    settings = merge_sections(sections)
    settings.diagnostics[:0] = problems
    return settings


def read_context(ctx: LoadContext) -> HooksSettings:
    return read_settings(candidate_files(ctx))


def json_schema() -> dict[str, Any]:
    """JSON Schema (2020-12) of the `hooks` and `isolation` sections of a PicoClaw config
    file; its other sections are PicoClaw's own and left open."""
    from pydantic.json_schema import models_json_schema

    refs, schemas = models_json_schema(
        [(m, "validation") for m in (Defaults, ProcessConfig, BuiltinConfig, IsolationConfig)],
        ref_template="#/$defs/{model}",
    )
    ref = {model: refs[(model, "validation")] for model in (Defaults, ProcessConfig, BuiltinConfig)}
    hooks = {
        "type": "object",
        "properties": {
            "enabled": {"type": "boolean"},
            "protocol": {"enum": ["seed", "current"]},
            "defaults": ref[Defaults],
            "processes": {"type": "object", "additionalProperties": ref[ProcessConfig]},
            "builtins": {"type": "object", "additionalProperties": ref[BuiltinConfig]},
        },
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "PicoClaw config (hooks, isolation)",
        "type": "object",
        "properties": {
            "hooks": hooks,
            "isolation": refs[(IsolationConfig, "validation")],
        },
        "$defs": schemas["$defs"],
    }
