"""Opening a project: the one place hookwright goes from a folder to hooks that run.

    discover   every dialect's config files read and validated; no hook code runs
    -> trust   the trust store, `--trust`, or the person asked (`AskTrust`)
    -> bind    trusted hooks only: modules imported, factories called, specs registered
    -> frontmatter   a skill's or subagent's hooks, later, under the same settings policy
    -> start   the processes that live as long as the session (PicoClaw), before its first event

The reference agent (`runtime.opening`), `HookSession.open` (adapters, bridges, `serve`) and
the daemon reach a project's hooks only through here, so every rule about opening a project is
written once. What will not run comes back on `OpenedProject.not_run`, each with its reason,
for the caller to report.

The command line's `hooks` commands open a project here too, synchronously
(`discover_project`, then `bind_hooks`: bound, but registered on an engine only when the
command needs one). So this module imports no engine and no dialect at start-up: each dialect
is imported when a project has its files, PicoClaw's process support when processes start.

This is also the only module of `hookwright.host` that imports a dialect: the rest of the host
contract knows none (importing `hookwright.dialects` here is also what tells discovery which
dialects exist). What a running host needs of a dialect comes from here too: the PicoClaw
tool-result reader (registered when the session contract loads) and where a request's prompt
injections go (`prompt_placement`, `host.prompts.PromptFlow`'s default), and the Claude Code
version profile a session imitates (`ClaudeCodeProfile`, `NEWEST`, `choose_profile`).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import hookwright.dialects  # (also tells discovery which dialects exist)
from hookwright.config.loading import (
    Diagnostic,
    DiscoveredHook,
    Discovery,
    LoadContext,
    LoadResult,
    discover,
    discover_by_dialect,
    earliest,
    load_error,
    source_names,
    unrecognised_configs,
)
from hookwright.config.policy import FailurePolicy, load_failure_policy
from hookwright.config.trust import TrustPolicy, TrustStore, folder_to_trust
from hookwright.core.words import counted, listed
from hookwright.dialects.claude_profiles import NEWEST, ClaudeCodeProfile
from hookwright.dialects.claude_version_setting import choose_profile

TYPE_CHECKING = False
if TYPE_CHECKING:
    from asyncio import AbstractEventLoop
    from typing import Any, Literal

    from hookwright.core.audit_record import AuditRecord
    from hookwright.core.effect_parts import ToolResult
    from hookwright.dialects.skills import HookInfo, SkillHookError
    from hookwright.dialects.skills.placement import SkillPlacement
    from hookwright.engine.host_seams import WorkspaceAccess
    from hookwright.engine.kernel import HookEngine
    from hookwright.engine.services import ModelEvaluator
    from hookwright.host.load_failures import LoadFailure
    from hookwright.host.not_run import NotRun, NotRunReason

#: Asked, before binding, whether to trust `folder` for the `count` hooks that need it.
AskTrust = Callable[[Path, int], Awaitable[bool]]
#: Where the PicoClaw config came from and what is trusted: what a running session watches.
ConfigWatchTarget = tuple[LoadContext, TrustPolicy]


#: The logger `report_not_run` warns on, one line per hook that will not run.
NOT_RUN_LOGGER = "hookwright.open"


class ProjectRefused(ValueError):
    """No session starts on the project: a file of hooks an organization requires could not
    be read and the failure policy fails its hooks closed (`failure_policy.start_refusal`).
    One line: the file, why, the fix and the rule."""


@dataclass(frozen=True, slots=True)
class OpenedProject:
    """What opening a project gave: the hooks now on the engine, one line per problem, what
    will not run and why, whether the project folder itself is trusted, and what a running
    session watches for changes (None when PicoClaw hooks are left out)."""

    project_dir: Path
    home: Path
    policy: TrustPolicy
    trusted: bool
    diagnostics: tuple[str, ...]
    not_run: tuple[NotRun, ...]
    watch: ConfigWatchTarget | None
    #: The failure policy read from the managed, user and project `policy.yaml`.
    failure_policy: FailurePolicy = field(default_factory=FailurePolicy)
    #: The lines of `diagnostics` the `not_run` lines say again hook by hook (the count of an
    #: untrusted folder's hooks, why a dialect turned a hook off): a host that prints those
    #: leaves these out.
    not_run_summary: tuple[str, ...] = ()
    #: The Claude Code version the project's hooks were loaded as (`project_profile`).
    claude_code: ClaudeCodeProfile = NEWEST
    #: The config files whose hooks (or some of them) did not load, outside untrusted
    #: folders: what a host that prints no diagnostics answers with (`host.load_failures`).
    load_failures: tuple[LoadFailure, ...] = ()
    #: The files of hooks an organization requires that could not be read (`Diagnostic.
    #: required`), under a failure policy that lets the session start without them: logged
    #: and audited by `report_not_run`, as loudly as the hooks that will not run (and left
    #: in `diagnostics`, for a host that prints those).
    unread: tuple[Diagnostic, ...] = ()
    #: When what was read stops holding with no file changing (`Discovery.valid_until`): a
    #: host that keeps the session opens the project again once it passes.
    valid_until: float | None = None

    @property
    def untrusted(self) -> tuple[DiscoveredHook, ...]:
        """The hooks left unbound because their folder is not trusted."""
        return tuple(item.hook for item in self.not_run if item.reason == "untrusted")


#: The record's earlier public name (`hookwright.host.ProjectHooks`).
ProjectHooks = OpenedProject


@dataclass(frozen=True, slots=True)
class ProjectScope:
    """Which of a project's hooks to open: `config_files` named by the user (they need no
    trust), the dialects to keep (None: all) and those to leave out; the skills of
    `<project>/skills` whose prompt hooks to open with them (None: every skill there; a host
    that places skill prompts itself, as the reference agent does, leaves them out) and the
    host's tools (as hooks see them) their `tool_filter` names are checked against."""

    config_files: Sequence[Path] = ()
    dialects: Collection[str] | None = None
    exclude: Collection[str] = ()
    #: The Claude Code version to imitate, chosen by the caller (``--claude-code-version``);
    #: None: `choose_profile` reads the environment and the settings files.
    claude_code: ClaudeCodeProfile | None = None
    skills: Sequence[str] | None = ()
    host_tools: Collection[str] | None = None
    #: Dialects left out whose files an organization requires are read still, for the refusal
    #: alone (`bind_hooks`): the host runs their hooks itself, but one of those files that
    #: hookwright cannot read refuses the session as it does in every other host.
    required_of: Collection[str] = ()

    def keeps(self, dialect: str) -> bool:
        return (self.dialects is None or dialect in self.dialects) and dialect not in self.exclude


@dataclass(frozen=True, slots=True)
class BoundHooks:
    """A project's hooks bound under a trust policy, on no engine yet: `loaded` as the binders
    gave them (specs, and each problem naming its file and field), `opened` the report a host
    reads. A command that may need no engine builds one only when it does (`register`)."""

    loaded: LoadResult
    opened: OpenedProject

    def register(self, engine: HookEngine) -> dict[int, DiscoveredHook]:
        """Register the bound specs on `engine`, in order; returns the hook each was declared
        by, keyed by `id()` of the spec the engine registered."""
        declared_by: dict[int, DiscoveredHook] = {}
        for spec in self.loaded.specs:
            registered = engine.register(spec)
            if id(spec) in self.loaded.declared_by:
                declared_by[id(registered)] = self.loaded.declared_by[id(spec)]
        return declared_by


async def open_project(
    engine: HookEngine,
    project_dir: Path,
    home: Path,
    policy: TrustPolicy,
    scope: ProjectScope | None = None,
    *,
    ask_trust: AskTrust | None = None,
) -> OpenedProject:
    """Discover the project's hooks, ask `ask_trust` (when given) about the folder when some
    need trust it lacks (a yes is stored in the trust store), and bind the trusted ones onto
    `engine`. Processes start later, with `start_processes`, when the host is ready for
    their first event."""
    scope = scope or ProjectScope()
    project_dir = project_dir.resolve()
    profile = project_profile(project_dir, home, scope, policy)  # chosen once, used twice
    discovery = discover_project(project_dir, home, scope, policy, profile=profile[0])
    needing = discovery.needing_trust(policy) if ask_trust is not None else ()
    if needing and ask_trust is not None and await ask_trust(project_dir, len(needing)):
        TrustStore(home).trust(project_dir)
        before = profile[0]
        policy = policy.with_folder(project_dir)
        profile = project_profile(project_dir, home, scope, policy)
        if profile[0] != before:
            discovery = discover_project(project_dir, home, scope, policy, profile=profile[0])
    return bind_project(engine, discovery, policy, project_dir, home, scope, profile=profile)


def project_profile(
    project_dir: Path, home: Path, scope: ProjectScope, policy: TrustPolicy
) -> tuple[ClaudeCodeProfile, list[str]]:
    """The Claude Code version a project's hooks load as: the scope's, else the environment's
    or the settings files' (the project's only once `policy` trusts its folder); and one line
    per unusable setting."""
    if scope.claude_code is not None:
        return scope.claude_code, []
    return choose_profile(None, project_dir, home, project_trusted=policy.trusts(project_dir))


def discover_project(
    project_dir: Path,
    home: Path,
    scope: ProjectScope,
    policy: TrustPolicy | None = None,
    *,
    profile: ClaudeCodeProfile | None = None,
) -> Discovery:
    """Every hook the project declares, as read from disk (no hook code runs), limited to the
    dialects `scope` keeps (the others are not read at all) and loaded as the Claude Code
    version `project_profile` picks under `policy` (None: the trust store's), or as `profile`
    when the caller has it already; a dialect name no dialect has is a warning."""
    if profile is None:
        profile = project_profile(project_dir, home, scope, policy or _store_policy(home))[0]
    ctx = LoadContext(
        project_dir=project_dir,
        home=home,
        config_files=scope.config_files,
        claude_code_version=profile.version,
    )
    found = discover(ctx, leave_out={name for name in source_names() if not scope.keeps(name)})
    named = {*(scope.dialects or ()), *scope.exclude}
    known = dialect_names() if named else set()
    unknown = sorted(named - known)
    if unknown:
        found.diagnostics.append(
            Diagnostic(
                str(project_dir),
                "dialects",
                f"unknown {listed(unknown, 'dialect')} (known: {', '.join(sorted(known))})",
                "warning",
            )
        )
    found.hooks = [hook for hook in found.hooks if scope.keeps(hook.dialect)]
    found.extend(_required_files(ctx, scope))
    if (scope.skills is None or scope.skills) and scope.keeps("skill"):
        found.extend(discover_skills(project_dir, scope.skills, scope.host_tools))
    return found


def _required_files(ctx: LoadContext, scope: ProjectScope) -> Discovery:
    """What the dialects `scope` leaves out but reads for their required files say of those
    files (`ProjectScope.required_of`): their errors alone, each file named with its dialect,
    and when what was read expires."""
    wanted = {name for name in scope.required_of if not scope.keeps(name)}
    if not wanted:
        return Discovery()
    others = {name for name in source_names() if name not in wanted}
    found = Discovery()
    for part in discover_by_dialect(ctx, present_only=True, leave_out=others).values():
        required = [problem for problem in part.diagnostics if problem.required]
        found.required_elsewhere += required
        found.dialects.update({d.file: part.dialects.get(d.file, "") for d in required})
        found.valid_until = earliest(found.valid_until, part.valid_until)
    return found


def discover_skills(
    project_dir: Path, skills: Sequence[str] | None, host_tools: Collection[str] | None = None
) -> Discovery:
    """The prompt hooks of `skills` (None: every skill) in `<project_dir>/skills`, one
    discovered hook each, trusted with the project folder; each rejected hook an error, and
    with `host_tools` each `tool_filter` name the host does not have a warning."""
    if skills is None and not (project_dir / "skills").is_dir():
        return Discovery()
    from hookwright.dialects.skills import available_skills
    from hookwright.dialects.skills.specs import skill_specs
    from hookwright.dialects.skills.tools import tool_filter_warnings

    names = available_skills(project_dir) if skills is None else list(skills)
    hooks, errors = _scan_skills(project_dir, names, quiet=True)
    found = Discovery()
    found.hooks = [
        replace(DiscoveredHook.of_specs([spec], project_dir), note=spec.description)
        for spec in skill_specs(hooks)
    ]
    found.diagnostics = [
        Diagnostic(error.file, error.field, f"skill {error.skill!r}: {error.message}")
        for error in errors
    ]
    if host_tools is not None:
        found.diagnostics += tool_filter_warnings(hooks, project_dir / "skills", host_tools)
    return found


def _store_policy(home: Path) -> TrustPolicy:
    """The trust store's policy; an unreadable store trusts none."""
    policy = store_policy(home)
    return TrustPolicy() if policy is None else policy


def trusted_by_store(project: Path, home: Path) -> bool:
    """Whether the trust store trusts `project`; an unreadable store trusts none."""
    return _store_policy(home).trusts(project)


def store_policy(home: Path) -> TrustPolicy | None:
    """The trust store's policy; None when the store cannot be read (it then trusts no
    folder, and a session opened without a policy reads the store again and fails to
    open)."""
    try:
        return TrustPolicy.load(home)
    except ValueError:
        return None


def session_engine(
    home: Path,
    *,
    audit_path: Path | str | None,
    evaluator: ModelEvaluator | None = None,
    workspace_access: WorkspaceAccess | None = None,
) -> tuple[HookEngine, tuple[str, ...]]:
    """A new engine for one session, its hook processes doing their I/O on the running loop
    (none running: on a loop of their own, started when one is first needed), keeping hook
    state in the store the user's settings choose; and one warning line per unusable state
    setting. `audit_path` as `HookEngine` takes it (`engine.defaults.DEFAULT_AUDIT`: the
    user's audit file)."""
    from hookwright.config.state_setting import choose_state
    from hookwright.engine.kernel import HookEngine
    from hookwright.engine.services import Services
    from hookwright.engine.state import store_for
    from hookwright.transports.ioloop import IoLoop

    setting, problems = choose_state(home)
    services = Services(
        evaluator=evaluator,
        io=IoLoop(_running_loop()),
        workspace_access=workspace_access,
        state=store_for(setting),
    )
    engine = HookEngine(audit_path=audit_path, services=services)
    return engine, tuple(f"warning: {problem}" for problem in problems)


def _running_loop() -> AbstractEventLoop | None:
    """The running event loop, if any; asyncio is not loaded for it (a process answering one
    event with in-process hooks never needs it, and its import is a third of that answer)."""
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:
        return None
    loop: AbstractEventLoop | None = asyncio._get_running_loop()
    return loop


def untrusted_hooks(
    project_dir: Path, home: Path, scope: ProjectScope
) -> tuple[DiscoveredHook, ...]:
    """The project's hooks that will not run because their folder is not trusted (by the
    trust store), read from the config files alone: nothing of the project runs."""
    discovery = discover_project(project_dir.resolve(), home, scope)
    return tuple(discovery.needing_trust(TrustPolicy.load(home)))


def discover_each_dialect(
    project_dir: Path, home: Path, config_files: Sequence[Path] = ()
) -> tuple[dict[str, Discovery], list[Diagnostic]]:
    """Each dialect's hooks and config files, by dialect, every dialect asked whether or not
    its files exist (`hooks validate` reports each file under its dialect), and a warning for
    each of `config_files` no dialect recognised. No hook code runs."""
    profile, _ = project_profile(project_dir, home, ProjectScope(), _store_policy(home))
    ctx = LoadContext(
        project_dir=project_dir,
        home=home,
        config_files=config_files,
        claude_code_version=profile.version,
    )
    found = discover_by_dialect(ctx)
    everything = Discovery()
    for discovery in found.values():
        everything.extend(discovery)
    return found, unrecognised_configs(ctx, everything)


def bind_project(
    engine: HookEngine,
    discovery: Discovery,
    policy: TrustPolicy,
    project_dir: Path,
    home: Path,
    scope: ProjectScope,
    *,
    profile: tuple[ClaudeCodeProfile, list[str]] | None = None,
) -> OpenedProject:
    """Bind the hooks `policy` trusts onto `engine`; a warning says how to trust the rest.
    `profile`: as `bind_hooks` takes it."""
    bound = bind_hooks(discovery, policy, project_dir, home, scope, profile=profile)
    bound.register(engine)
    engine.audit.describe(project=str(project_dir))
    return bound.opened


def report_not_run(
    engine: HookEngine,
    not_run: Iterable[NotRun],
    session_id: str | None = None,
    unread: Iterable[Diagnostic] = (),
) -> None:
    """Every hook that will not run, one warning each on the `hookwright.open` logger and one
    audit record (status ``not_run``, for `session_id` when the host knows it already); and
    each required file that could not be read (`OpenedProject.unread`), one error and one
    record (status ``not_loaded``). Every host reports here: `HookSession.open` (adapters,
    bridges, the daemon) and the reference agent (`hookwright run`, `chat`, `serve`), whose
    command line shows these lines on stderr (`hookwright.cli.run.say_not_run_on_stderr`)."""
    from hookwright.core.audit_record import AuditRecord
    from hookwright.core.logs import LazyLogger

    log = LazyLogger(NOT_RUN_LOGGER)  # `logging` loaded only when there is one to say
    now = time.time()
    for diagnostic in unread:
        line = str(diagnostic).partition(": ")[2]
        log.error("%s", line)
        engine.audit.note(_unread_record(diagnostic, line, now, session_id))
    for item in not_run:
        (log.error if item.severity == "error" else log.warning)("%s", item)
        hook = item.hook
        engine.audit.note(
            AuditRecord(
                ts=now,
                event=",".join(event.value for event in hook.events) or "open",
                hook=hook.name,
                source=hook.source,
                dialect=hook.dialect,
                status="not_run",
                decision=None,
                duration_ms=0.0,
                exit_code=None,
                reason=str(item),
                error=item.reason,
                stderr_tail=None,
                session_id=session_id,
                origin=hook.origin or None,
            )
        )


def _unread_record(
    diagnostic: Diagnostic, line: str, now: float, session_id: str | None
) -> AuditRecord:
    """The audit record of a required file that could not be read (status ``not_loaded``)."""
    from hookwright.core.audit_record import AuditRecord

    return AuditRecord(
        ts=now,
        event="open",
        hook=diagnostic.file,
        source="config",
        dialect="",
        status="not_loaded",
        decision=None,
        duration_ms=0.0,
        exit_code=None,
        reason=line,
        error=diagnostic.message,
        stderr_tail=None,
        session_id=session_id,
        origin=diagnostic.file,
    )


def bind_hooks(
    discovery: Discovery,
    policy: TrustPolicy,
    project_dir: Path,
    home: Path,
    scope: ProjectScope,
    *,
    profile: tuple[ClaudeCodeProfile, list[str]] | None = None,
) -> BoundHooks:
    """Bind the hooks `policy` trusts (their code runs: modules imported, factories called),
    keep the others unbound, and report every hook that will not run and why. Raises
    `ProjectRefused`, before any hook code runs, when the failure policy closes the hooks of
    a required file that could not be read. `profile`: what `project_profile` answers under
    `policy`, when the caller has it already (None: asked here)."""
    from hookwright.host.failure_policy import start_refusal

    failure, policy_problems = load_failure_policy(project_dir, home)
    required = (*discovery.diagnostics, *discovery.required_elsewhere)
    refusal = start_refusal(required, discovery.dialects, failure)
    if refusal is not None:
        raise ProjectRefused(refusal)
    loaded = discovery.bind(policy)
    loaded.diagnostics += policy_problems
    missing: list[tuple[DiscoveredHook, NotRunReason, str]] = []
    if discovery.hooks:  # the policy's rules act on hooks; a folder without any has none
        missing = _close_and_check(loaded, discovery, failure, project_dir, home)
    watch = None
    if scope.keeps("picoclaw"):
        watch = LoadContext(project_dir, home, scope.config_files), policy
    summary = _untrusted_warning(loaded, project_dir, home)
    unloaded, said = _why_not_bound(loaded)
    unread = tuple(d for d in loaded.diagnostics if d.required)
    chosen, profile_problems = profile or project_profile(project_dir, home, scope, policy)
    opened = OpenedProject(
        project_dir=project_dir,
        home=home,
        policy=policy,
        trusted=policy.trusts(project_dir),
        diagnostics=(*map(str, loaded.diagnostics), *profile_problems, *summary),
        not_run=_not_run(loaded, unloaded, missing),
        watch=watch,
        failure_policy=failure,
        not_run_summary=(*summary, *said),
        claude_code=chosen,
        load_failures=_load_failures(loaded, project_dir, policy, scope, discovery.dialects),
        unread=unread,
        valid_until=discovery.valid_until,
    )
    return BoundHooks(loaded, opened)


def _close_and_check(
    loaded: LoadResult,
    discovery: Discovery,
    failure: FailurePolicy,
    project_dir: Path,
    home: Path,
) -> list[tuple[DiscoveredHook, NotRunReason, str]]:
    """Close what the failure policy closes, add the guards that stand in for an untrusted
    folder's hooks, and return the bound command hooks whose program is missing or not
    executable."""
    from hookwright.host.failure_policy import (
        apply_failure_policy,
        command_problems,
        untrusted_guards,
    )

    loaded.diagnostics += apply_failure_policy(loaded, failure)
    loaded.specs.extend(untrusted_guards(loaded.untrusted, failure, TrustStore(home), project_dir))
    unbound = {id(hook) for hook in (*loaded.untrusted, *loaded.unloaded)}
    bound_hooks = [hook for hook in discovery.hooks if id(hook) not in unbound]
    return list(command_problems(bound_hooks, project_dir, home))


def _not_run(
    loaded: LoadResult,
    unloaded: Sequence[tuple[DiscoveredHook, str | None, Diagnostic | None]],
    missing: Sequence[tuple[DiscoveredHook, NotRunReason, str]],
) -> tuple[NotRun, ...]:
    """Every hook that will not run, and why (`host.not_run` loads where there is one)."""
    if not (loaded.untrusted or unloaded or missing):
        return ()
    from hookwright.host.not_run import NotRun

    return (
        *(NotRun(hook, "untrusted") for hook in loaded.untrusted),
        *(NotRun(hook, "not_bound", detail=why, error=error) for hook, why, error in unloaded),
        *(NotRun(hook, problem, path) for hook, problem, path in missing),
    )


def _load_failures(
    loaded: LoadResult,
    project_dir: Path,
    policy: TrustPolicy,
    scope: ProjectScope,
    dialects: Mapping[str, str],
) -> tuple[LoadFailure, ...]:
    """The config files whose hooks did not all load (`host.load_failures`, loaded where
    there is a diagnostic: a project whose files all load has none)."""
    if not loaded.diagnostics:
        return ()
    from hookwright.host.load_failures import load_failures

    untrusted = (hook.trust_root for hook in loaded.untrusted)
    return load_failures(
        loaded.diagnostics, project_dir, policy, untrusted, scope.config_files, dialects
    )


def _why_not_bound(
    loaded: LoadResult,
) -> tuple[list[tuple[DiscoveredHook, str | None, Diagnostic | None]], tuple[str, ...]]:
    """Each hook bound to nothing -> why, when known: what its dialect said turned it off, or
    the error it failed to load with (and that error); and the diagnostics its not-run line
    says again, so that each is said once."""
    why: list[tuple[DiscoveredHook, str | None, Diagnostic | None]] = []
    reasons = set(loaded.off.values())
    # What turned a hook off, said by its dialect as the note on its entry or as the reason.
    noted = {hook.origin for hook in loaded.unloaded if id(hook) in loaded.off}
    said = [
        str(d)
        for d in loaded.diagnostics
        if d.message in reasons or (d.severity == "warning" and f"{d.file}:{d.path}" in noted)
    ]
    for hook in loaded.unloaded:
        off = loaded.off.get(id(hook))
        error = load_error(hook, loaded.diagnostics) if off is None else None
        why.append((hook, off if error is None else error.said, error))
        if error is not None and str(error) not in said:
            said.append(str(error))
    return why, tuple(said)


def _untrusted_warning(loaded: LoadResult, project_dir: Path, home: Path) -> tuple[str, ...]:
    if not loaded.untrusted:
        return ()
    folder = folder_to_trust((hook.trust_root for hook in loaded.untrusted), project_dir)
    how = TrustStore(home).how_to_trust(folder)
    count = counted(len(loaded.untrusted), "project hook")
    message = f"{count} not run: this folder is not trusted; {how}"
    return (str(Diagnostic(str(project_dir), "", message, "warning")),)


async def start_processes(engine: HookEngine, watch: ConfigWatchTarget | None) -> list[str]:
    """Start every hook process that lives as long as the session (PicoClaw), so observers
    see the session's first event; one line per process that failed to start. With `watch`,
    a process whose config file changes is restarted with its new settings for the rest of
    the session. A session with neither PicoClaw hooks nor PicoClaw config files to watch
    has nothing to start: PicoClaw is not loaded."""
    if not uses_picoclaw(watch):
        return []
    from hookwright.dialects import picoclaw

    picoclaw.attach_observers(engine)
    if watch is not None:
        picoclaw.ConfigWatch(engine, *watch).start()
    processes = picoclaw.registered_processes(engine)
    failures = await picoclaw.start_processes(engine)
    return [
        f"error: PicoClaw hook process {target.name}: cannot start: {failure}"
        for target, failure in zip(processes, failures, strict=True)
        if failure is not None
    ]


def uses_picoclaw(watch: ConfigWatchTarget | None) -> bool:
    """Whether a PicoClaw process may be registered (none can be before PicoClaw's process
    module is loaded, by a hook or by the host), or `watch` has a PicoClaw config file that
    may exist (checked as discovery checks it, without loading the dialect)."""
    if "hookwright.dialects.picoclaw.hook_process" in sys.modules:
        return True
    return watch is not None and not hookwright.dialects.absent(watch[0], of=("picoclaw",))


def add_frontmatter_hooks(
    engine: HookEngine,
    path: Path,
    kind: Literal["skill", "agent"],
    scope: str,
    *,
    project_dir: Path,
    home: Path,
    trust: TrustPolicy | None = None,
    failure: FailurePolicy | None = None,
    claude_code: ClaudeCodeProfile = NEWEST,
) -> list[str]:
    """Register the hooks of a skill's or subagent definition's frontmatter for `scope`, under
    the settings' policy (`disableAllHooks`, ...) of the files `trust` trusts and the failure
    policy `failure` (None: read from the policy files, as `bind_hooks` reads them); returns
    one line per problem."""
    from hookwright.dialects.claude_code.frontmatter import load_frontmatter_hooks
    from hookwright.dialects.claude_code.loader import load_policy
    from hookwright.host.failure_policy import apply_failure_policy

    policy = load_policy(LoadContext(project_dir, home), trust)
    loaded = load_frontmatter_hooks(
        path, kind, scope, project_dir=project_dir, home=home, policy=policy, profile=claude_code
    )
    if failure is None:
        failure, problems = load_failure_policy(project_dir, home)
        loaded.diagnostics += problems
    loaded.diagnostics += apply_failure_policy(loaded, failure)
    for spec in loaded.specs:
        engine.register(spec)
    return [str(d) for d in loaded.diagnostics]


def add_skill_hooks(
    engine: HookEngine, hooks: Iterable[HookInfo], scope: str | None, failure: FailurePolicy
) -> None:
    """Register skill prompt hooks for the session `scope` (None: every session of `engine`,
    for an engine that serves one session whose id its host names later), each closed where
    the failure policy `failure` closes it."""
    from hookwright.dialects.skills.specs import skill_specs
    from hookwright.host.failure_policy import close_by_policy

    for spec in skill_specs(hooks, scope=scope):
        engine.register(close_by_policy(spec, failure)[0])


def scan_skill_hooks(
    project_dir: Path, skills: Sequence[str], *, quiet: bool = False
) -> tuple[list[HookInfo], list[str]]:
    """The prompt hooks of `skills` in ``<project_dir>/skills`` (as ``hookwright run --skill``
    reads them), and one ``error: ...`` line per rejected hook, naming its file and field;
    `quiet`: the rejections are not logged as well (the caller shows these lines)."""
    hooks, errors = _scan_skills(project_dir, skills, quiet=quiet)
    return hooks, [f"error: {error}" for error in errors]


def _scan_skills(
    project_dir: Path, skills: Sequence[str], *, quiet: bool
) -> tuple[list[HookInfo], list[SkillHookError]]:
    """`scan_hooks` in `<project_dir>/skills`; `quiet`: the rejections are not logged (the
    caller reports them)."""
    from hookwright.dialects.skills import scan_hooks

    errors: list[SkillHookError] = []
    hooks = scan_hooks(list(skills), str(project_dir / "skills"), errors=errors, quiet=quiet)
    return hooks, errors


def prompt_placement(messages: list[dict[str, Any]]) -> SkillPlacement:
    """Where one request's prompt injections go in `messages`: the skills dialect's table, the
    only dialect whose hooks inject prompts (`host.prompts.PromptFlow`'s default placement)."""
    from hookwright.dialects.skills.placement import SkillPlacement

    return SkillPlacement(messages)


def register_tool_result_readers() -> None:
    """Let hook-supplied tool results in a built-in dialect's own shape (PicoClaw's
    `for_llm`) be read as such: a Python hook's `respond(...)` value is read when the hook
    returns. Called when the session contract is loaded (`hookwright.host.session`); PicoClaw
    itself loads when the first such value is read, so a session whose hooks answer no tool
    result in a shape of their own never loads it."""
    from hookwright.core.tool_results import register_tool_result_reader

    register_tool_result_reader(_read_picoclaw_tool_result)


def _read_picoclaw_tool_result(value: Any, default_error: bool) -> ToolResult | None:
    from hookwright.dialects.picoclaw.codec import read_tool_result

    return read_tool_result(value, default_error)


def __getattr__(name: str) -> Any:
    """`HookInfo` (a skill prompt hook, `hookwright.host.HookInfo`), loaded on first use."""
    if name == "HookInfo":
        from hookwright.dialects.skills import HookInfo

        return HookInfo
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def dialect_names() -> set[str]:
    """Every dialect a project can name (`dialects=`, `exclude_dialects=`)."""
    return source_names() | {"skill"}


__all__ = [
    "NEWEST",
    "NOT_RUN_LOGGER",
    "AskTrust",
    "BoundHooks",
    "ClaudeCodeProfile",
    "ConfigWatchTarget",
    "HookInfo",
    "OpenedProject",
    "ProjectHooks",
    "ProjectRefused",
    "ProjectScope",
    "add_frontmatter_hooks",
    "add_skill_hooks",
    "bind_hooks",
    "bind_project",
    "choose_profile",
    "dialect_names",
    "discover_each_dialect",
    "discover_project",
    "discover_skills",
    "open_project",
    "prompt_placement",
    "register_tool_result_readers",
    "report_not_run",
    "session_engine",
    "start_processes",
    "store_policy",
    "trusted_by_store",
    "untrusted_hooks",
]
