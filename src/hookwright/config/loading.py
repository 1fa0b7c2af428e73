"""Hook sources in three phases: discover -> trust decision -> bind.

* `discover(ctx)` reads and validates every dialect's config files. It imports no hook module,
  calls no factory, starts no process and sends no request. Each `DiscoveredHook` carries the
  folder that must be trusted before its code may run (`trust_root`), or None when it needs no
  trust (user-level and managed files, config files named on the command line).
* `Discovery.bind(policy)` binds the hooks whose root the `TrustPolicy` trusts: it imports
  native modules, calls PicoClaw builtin factories and hands over the specs. Hooks it does not
  trust are kept in `LoadResult.untrusted` (for listing) and never bound. Binders receive the
  policy, so settings that change other hooks (Claude Code's `disableAllHooks`, PicoClaw's
  file-level `enabled`) are resolved from trusted files only.

Loading is permissive: a bad file, hook or field becomes a `Diagnostic` naming the file and the
field path, and everything else still loads.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hookwright.config.safeparse import ParseError, read_json, read_yaml
from hookwright.config.trust import TrustPolicy
from hookwright.core.events import Event
from hookwright.core.systems import authored_event

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    from hookwright.config.commands import ProgramProblem
    from hookwright.core.spec import HookSpec, Mode


@dataclass(slots=True, frozen=True)
class Diagnostic:
    """One problem found in a config file: the file, where in it, and what. `required`: the
    file holds hooks an organization requires (a managed config the agent itself refuses to
    start without) and could not be read; under a failure policy that closes its hooks no
    session starts (`host.failure_policy.start_refusal`)."""

    file: str
    path: str
    message: str
    severity: Literal["error", "warning"] = "error"
    required: bool = False

    def __str__(self) -> str:
        where = f"{self.file}: {self.path}" if self.path else self.file
        return f"{self.severity}: {where}: {self.message}"

    @property
    def said(self) -> str:
        """Where in the file and what, without the file (``handler.timout: unknown field``)."""
        return f"{self.path}: {self.message}" if self.path else self.message


@dataclass(slots=True)
class LoadContext:
    """Where a project's hooks are looked for, and as what."""

    project_dir: Path
    home: Path
    #: Files named on the command line (`--config`): the user chose them, they need no trust.
    config_files: Sequence[Path] = ()
    #: The Claude Code version the session imitates, as (major, minor, patch); None: the
    #: newest (`hookwright.dialects.claude_profiles`).
    claude_code_version: tuple[int, int, int] | None = None


@dataclass(slots=True)
class LoadResult:
    """The hooks a project's config files bound, and what did not bind or load."""

    specs: list[HookSpec] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: Discovered hooks left unbound because their folder is not trusted.
    untrusted: list[DiscoveredHook] = field(default_factory=list)
    #: Trusted hooks that bound to no spec: turned off by their settings (Claude Code's
    #: `disableAllHooks`, `allowManagedHooksOnly`, a disabled plugin) or failed to bind.
    unloaded: list[DiscoveredHook] = field(default_factory=list)
    #: `id()` of each spec in `specs` -> the discovered hook it was bound from.
    declared_by: dict[int, DiscoveredHook] = field(default_factory=dict)
    #: Set by a binder that gives no spec on purpose: why its hook does not run (a setting, a
    #: review it lacks) and what makes it run, in the words every host reports it with.
    off_because: str | None = None
    #: `id()` of each hook in `unloaded` whose binder said why (`off_because`) -> that text.
    off: dict[int, str] = field(default_factory=dict)

    def extend(self, other: LoadResult) -> None:
        self.specs.extend(other.specs)
        self.diagnostics.extend(other.diagnostics)
        self.untrusted.extend(other.untrusted)
        self.unloaded.extend(other.unloaded)
        self.declared_by.update(other.declared_by)
        self.off.update(other.off)


#: Builds a trusted hook's specs; the policy says which files' settings apply to them.
Binder = Callable[[TrustPolicy], LoadResult]


@dataclass(frozen=True, slots=True)
class DiscoveredHook:
    """One declared hook, read and validated, none of its code loaded.

    `events` is empty when only the hook's code can tell (a PicoClaw builtin's events are the
    methods of the object its factory returns); `note` then says so for listings. `binder`
    produces the hook's specs: it is called only by `Discovery.bind` for a trusted root.
    """

    name: str
    dialect: str
    source: str
    origin: str
    trust_root: Path | None
    binder: Binder = field(compare=False, repr=False)
    events: tuple[Event, ...] = ()
    matcher: str | None = None
    if_rule: str | None = None
    mode: Mode = "parallel"
    timeout: float | None = None
    priority: int = 0
    note: str | None = None
    #: The command line a command hook runs, as declared: its first word is checked when the
    #: project is opened (`hookwright.config.commands`). None for other hooks.
    command: str | None = None
    #: A program that cannot start, found by the dialect when it read the hook (a PicoClaw
    #: process's program or script in its `dir`); None: not known to be missing.
    program_problem: ProgramProblem | None = None
    #: Each of `events` in the words of the hook's author ("" where those are the canonical
    #: ones); empty when every one is canonical.
    own_events: tuple[str, ...] = ()
    #: What the engine allows beyond the hook's own timeout, included in `timeout`
    #: (`timeout_grace`).
    grace: float | None = None

    def own_event(self, event: Event) -> str | None:
        """`event` in the words of the hook's author, when they differ from the canonical."""
        named = dict(zip(self.events, self.own_events, strict=False)).get(event)
        return named or None

    @classmethod
    def of_specs(cls, specs: Sequence[HookSpec], trust_root: Path | None) -> DiscoveredHook:
        """A hook whose specs are already built because their handlers are inert until
        dispatched (a command runs, a request is sent, only when the engine calls them)."""
        first = specs[0]
        built = list(specs)
        own: dict[Event, str] = {}
        for spec in specs:
            own.setdefault(spec.event, authored_event(spec.dialect_data) or "")
        return cls(
            name=first.name,
            dialect=first.dialect,
            source=first.source,
            origin=first.origin or "",
            trust_root=trust_root,
            binder=lambda _policy: LoadResult(specs=built),
            events=tuple(own),
            own_events=tuple(own.values()) if any(own.values()) else (),
            matcher=first.shown_matcher(),
            if_rule=first.if_rule.source if first.if_rule is not None else None,
            mode=first.mode,
            timeout=first.timeout,
            priority=first.priority,
            grace=timeout_grace(first),
        )


def under(path: str, field: str) -> bool:
    """True when the field path `path` is `field` or inside it (every path is inside the
    empty field: the whole file)."""
    return not field or path == field or path.startswith((f"{field}.", f"{field}["))


def load_error(hook: DiscoveredHook, diagnostics: Sequence[Diagnostic]) -> Diagnostic | None:
    """The first error under a hook's entry in its file: why a hook that bound to nothing did
    not load. A hook its file declares alone (an OpenHarness file) has no entry: the file's
    first error."""
    file, _, entry = hook.origin.rpartition(":")
    if not file:
        file, entry = hook.origin, ""
    for d in diagnostics:
        if d.severity == "error" and d.file == file and under(d.path, entry):
            return d
    return None


def timeout_grace(spec: HookSpec) -> float | None:
    """What the engine allows beyond a hook's own timeout (OpenHarness: the handler's
    `timeout_seconds` ends it first, the engine's deadline, `spec.timeout`, is this much
    later); None when there is no such margin."""
    declared = getattr(spec.dialect_data, "timeout_seconds", None)
    if isinstance(declared, int | float) and spec.timeout and spec.timeout > declared:
        return spec.timeout - declared
    return None


@dataclass(slots=True)
class Discovery:
    """The hooks found in a project's config files, before trust binds them."""

    hooks: list[DiscoveredHook] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: Every config file read, with hooks or not (`hooks validate` lists them all).
    files: list[str] = field(default_factory=list)
    #: Each config file read, or with a problem -> the dialect that read it, so a file none of
    #: whose hooks loaded is still named with its system (`hookwright.host.load_failures`).
    dialects: dict[str, str] = field(default_factory=dict)
    #: When what was read stops holding with no file changing (Unix time; None: never): a
    #: copy that expires, such as Codex's cached cloud requirements. A host that keeps the
    #: hooks loaded opens the project again once it passes.
    valid_until: float | None = None
    #: The errors of files an organization requires (`Diagnostic.required`) read for a
    #: dialect whose hooks the host runs itself (`host.open.ProjectScope.required_of`): they
    #: refuse the session under the failure policy, and are otherwise the host's to report.
    required_elsewhere: list[Diagnostic] = field(default_factory=list)

    def extend(self, other: Discovery) -> None:
        self.hooks.extend(other.hooks)
        self.diagnostics.extend(other.diagnostics)
        self.required_elsewhere.extend(other.required_elsewhere)
        self.files.extend(other.files)
        self.dialects.update(other.dialects)
        self.valid_until = earliest(self.valid_until, other.valid_until)

    def read_by(self, dialect: str) -> Discovery:
        """This discovery with each of its files marked as read by `dialect`."""
        origins = (hook.origin.rpartition(":")[0] or hook.origin for hook in self.hooks)
        files = (*self.files, *(d.file for d in self.diagnostics), *origins)
        self.dialects.update(dict.fromkeys(files, dialect))
        return self

    def needing_trust(self, policy: TrustPolicy) -> list[DiscoveredHook]:
        return [hook for hook in self.hooks if not policy.trusts(hook.trust_root)]

    def bind(self, policy: TrustPolicy) -> LoadResult:
        """Bind the hooks `policy` trusts, in discovery order; keep the others unbound. A
        problem several binders report (a setting shared by their file) is listed once."""
        result = LoadResult(diagnostics=list(self.diagnostics))
        for hook in self.hooks:
            if not policy.trusts(hook.trust_root):
                result.untrusted.append(hook)
                continue
            try:
                bound = hook.binder(policy)
            except Exception as exc:
                file, _, where = hook.origin.rpartition(":")
                result.diagnostics.append(
                    Diagnostic(file or hook.origin, where if file else "", f"cannot bind: {exc}")
                )
                result.unloaded.append(hook)
                continue
            result.extend(bound)
            result.declared_by.update((id(spec), hook) for spec in bound.specs)
            if not bound.specs:
                result.unloaded.append(hook)
                if bound.off_because:
                    result.off[id(hook)] = bound.off_because
        result.diagnostics = list(dict.fromkeys(result.diagnostics))
        return result


def earliest(first: float | None, second: float | None) -> float | None:
    """The earlier of two deadlines (None: none)."""
    if first is None or second is None:
        return second if first is None else first
    return min(first, second)


SourceDiscoverer = Callable[[LoadContext], Discovery]

_DISCOVERERS: dict[str, SourceDiscoverer] = {}


@dataclass(frozen=True, slots=True)
class SourceCatalogue:
    """The built-in dialects, as the package that holds them (`hookwright.dialects`) describes
    them when it is imported: their discovery order, how to import them (but those named) so
    they register their sources, and which certainly find nothing in a context (checked
    without importing them). This module never imports a dialect itself."""

    order: tuple[str, ...]
    load: Callable[[Collection[str]], None]
    absent: Callable[[LoadContext], set[str]]


_CATALOGUE: list[SourceCatalogue] = []


def register_source(dialect: str, discoverer: SourceDiscoverer) -> None:
    _DISCOVERERS[dialect] = discoverer


def register_catalogue(catalogue: SourceCatalogue) -> None:
    """Called once by `hookwright.dialects` on import."""
    _CATALOGUE[:] = [catalogue]


def sources(
    ctx: LoadContext | None = None, leave_out: Collection[str] = ()
) -> dict[str, SourceDiscoverer]:
    """The registered sources: the built-in dialects in their order, then any others in the
    order they registered, but those in `leave_out` (a built-in one is then not imported).
    With `ctx`, a built-in dialect that certainly finds nothing in it (none of its files
    exists) is left out too. Raises LookupError when no dialect is known at all (nothing
    imported `hookwright.dialects`): a discovery that could find nothing must not pass for an
    empty project."""
    if not _CATALOGUE and not _DISCOVERERS:
        raise LookupError("no hook dialect is registered: import hookwright.dialects first")
    order: tuple[str, ...] = ()
    skip: set[str] = set(leave_out)
    if _CATALOGUE:
        catalogue = _CATALOGUE[0]
        if ctx is not None:
            skip |= catalogue.absent(ctx)
        catalogue.load(skip)
        order = catalogue.order
    ordered = {name: _DISCOVERERS[name] for name in order if name in _DISCOVERERS}
    ordered.update(_DISCOVERERS)
    return {name: source for name, source in ordered.items() if name not in skip}


def source_names() -> set[str]:
    """Every dialect name discovery knows (the built-in ones and any registered), without
    importing a built-in dialect; raises LookupError as `sources` does."""
    if not _CATALOGUE and not _DISCOVERERS:
        raise LookupError("no hook dialect is registered: import hookwright.dialects first")
    return {*(_CATALOGUE[0].order if _CATALOGUE else ()), *_DISCOVERERS}


def discover_by_dialect(
    ctx: LoadContext, *, present_only: bool = False, leave_out: Collection[str] = ()
) -> dict[str, Discovery]:
    """Each dialect's hooks as declared, by dialect name; no hook code runs. `present_only`
    leaves out the built-in dialects none of whose files exists (see `sources`), `leave_out`
    the dialects named (neither imported nor read)."""
    found: dict[str, Discovery] = {}
    for dialect, discoverer in sources(ctx if present_only else None, leave_out).items():
        try:
            found[dialect] = discoverer(ctx).read_by(dialect)
        except Exception as exc:
            problem = Diagnostic(str(ctx.project_dir), dialect, f"discovery failed: {exc}")
            found[dialect] = Discovery(diagnostics=[problem])
    return found


def unrecognised_configs(ctx: LoadContext, discovery: Discovery) -> list[Diagnostic]:
    """A problem for each `--config` file no dialect found a hook or a problem in: an error
    when it does not even parse (as JSON for `.json`, else as YAML), a warning otherwise."""
    return [
        _unrecognised(Path(config))
        for config in ctx.config_files
        if not _mentioned(Path(config), discovery)
    ]


def _unrecognised(config: Path) -> Diagnostic:
    try:
        (read_json if config.suffix == ".json" else read_yaml)(config)
    except ParseError as exc:
        kind = "JSON" if config.suffix == ".json" else "YAML"
        return Diagnostic(
            str(config), "", f"not a hook config: does not parse as {kind}: {exc.reason}"
        )
    known = ", ".join(sorted(sources()))
    return Diagnostic(
        str(config), "", f"no hooks found: not a hook config of any dialect ({known})", "warning"
    )


def discover(ctx: LoadContext, leave_out: Collection[str] = ()) -> Discovery:
    """Every dialect's hooks as declared, but those of the dialects in `leave_out` (neither
    imported nor read: no hook and no problem of theirs); no hook code runs."""
    discovery = Discovery()
    for part in discover_by_dialect(ctx, present_only=True, leave_out=leave_out).values():
        discovery.extend(part)
    discovery.diagnostics += unrecognised_configs(ctx, discovery)
    return discovery


def _mentioned(config: Path, discovery: Discovery) -> bool:
    """True when a discovered hook or a diagnostic comes from `config`."""
    names = {str(config), str(config.resolve())}
    origins = (hook.origin.rsplit(":", 1)[0] for hook in discovery.hooks)
    return any(
        origin in names or any(origin.startswith(name) for name in names) for origin in origins
    ) or any(d.file in names for d in discovery.diagnostics)
