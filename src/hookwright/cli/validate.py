"""`hookwright hooks validate`: every hook config file of every dialect, checked, with a
non-zero exit status when any has an error (for CI).

Discovery reads and validates the files without running anything; so does reading each skill's
`hooks/hooks.json` under `<project>/skills`. Claude Code hooks are then checked for guards
that load but can never work (`dialects.claude_code.checks`: a missing or non-executable
command, a matcher no tool has, an http URL that is malformed, refused or not in
`allowedHttpHookUrls`), and OpenHarness and PicoClaw hooks for a program or script that is
not there (`dialects.openharness.checks`, `dialects.picoclaw.checks`). Hooks of trusted
folders are then bound as a session binds them (native modules imported, PicoClaw builtin
factories called), so a `call:` that cannot be imported is an error too; hooks of a folder
that is not trusted are bound only with `--trust`.

Each file says how many of its hooks loaded and how many did not (failed, turned off by a
setting, or not loaded because their folder is not trusted), and each hook how it fails under
the failure policy (`docs/policy.md`): open, or closed by a policy rule or its own field."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hookwright.cli.hook_entries import entry_field, rejected_entries, whole_file_failed
from hookwright.config.loading import Diagnostic, Discovery, LoadContext, under
from hookwright.config.trust import TrustPolicy
from hookwright.core.home import user_home
from hookwright.core.tool_names import REFERENCE_AGENT_TOOLS
from hookwright.core.words import counted
from hookwright.dialects.skills.tools import tool_filter_warnings
from hookwright.host.failure_policy import FailureMode, failure_mode, untrusted_failure_mode
from hookwright.host.labels import system_name
from hookwright.host.open import (
    BoundHooks,
    ProjectRefused,
    ProjectScope,
    bind_hooks,
    discover_each_dialect,
)
from hookwright.skills import SkillHookError, scan_hooks


@dataclass(frozen=True, slots=True)
class HookFailure:
    """How one hook fails on one event ("-": an event only its code knows)."""

    hook: str
    event: str
    mode: FailureMode


@dataclass(slots=True)
class FileReport:
    """One config file: `hooks` its hooks that were read, of which `loaded` will run,
    `failed` did not load (with those rejected while the file was read, which were never read
    as hooks), `off` were turned off by a setting and `untrusted` were not loaded because their
    folder is not trusted; `unreadable`: the file itself did not load."""

    file: str
    dialect: str
    hooks: int = 0
    loaded: int = 0
    failed: int = 0
    off: int = 0
    untrusted: int = 0
    unreadable: bool = False
    problems: list[Diagnostic] = field(default_factory=list)
    failures: list[HookFailure] = field(default_factory=list)

    def count(self, severity: str) -> int:
        return sum(1 for d in self.problems if d.severity == severity)


@dataclass(slots=True)
class Report:
    project: Path
    files: dict[str, FileReport] = field(default_factory=dict)
    #: Hooks of folders not trusted, whose code was not loaded.
    unchecked: int = 0

    def file(self, name: str, dialect: str) -> FileReport:
        report = self.files.get(name)
        if report is None:
            report = self.files[name] = FileReport(name, dialect)
        return report

    @property
    def errors(self) -> int:
        return sum(f.count("error") for f in self.files.values())

    @property
    def warnings(self) -> int:
        return sum(f.count("warning") for f in self.files.values())

    @property
    def ok(self) -> bool:
        """No error, and every hook read loaded (or was left out on purpose)."""
        failed = any(f.failed or f.unreadable for f in self.files.values())
        return self.errors == 0 and not failed


def _file_of(origin: str) -> str:
    return origin.rpartition(":")[0] or origin


def _add_dialect(
    report: Report,
    dialect: str,
    discovery: Discovery,
    policy: TrustPolicy,
    scope: ProjectScope,
    home: Path,
) -> None:
    for name in discovery.files:
        report.file(name, dialect)
    for hook in discovery.hooks:
        report.file(_file_of(hook.origin), dialect).hooks += 1
    try:
        bound = bind_hooks(discovery, policy, report.project, home, scope)
    except ProjectRefused as exc:  # nothing is bound: the files' own problems, and why
        refused = Diagnostic(str(report.project), "", str(exc))
        for diagnostic in [*discovery.diagnostics, refused]:
            report.file(diagnostic.file, dialect).problems.append(diagnostic)
        return
    report.unchecked += len(bound.opened.untrusted)
    problems = list(bound.loaded.diagnostics)
    problems += [d for d in _dead_guards(dialect, report.project, home, scope) if d not in problems]
    for diagnostic in problems:
        report.file(diagnostic.file, dialect).problems.append(diagnostic)
    for origin, failure in _failures(bound):
        report.file(_file_of(origin), dialect).failures.append(failure)
    _count_loaded(report, dialect, discovery, bound, problems)


def _dead_guards(dialect: str, project: Path, home: Path, scope: ProjectScope) -> list[Diagnostic]:
    """Hooks that load but can never work (a program that is not there, a URL that is
    refused), found without running anything, whether their folder is trusted or not."""
    if dialect == "claude_code":
        from hookwright.dialects.claude_code.checks import check

        return check(LoadContext(project, home, scope.config_files))
    if dialect == "openharness":
        from hookwright.dialects.openharness import checks

        return checks.check(project, home)
    if dialect == "picoclaw":
        from hookwright.dialects.picoclaw import checks as picoclaw_checks

        return picoclaw_checks.check(LoadContext(project, home, scope.config_files))
    return []


def _count_loaded(
    report: Report,
    dialect: str,
    discovery: Discovery,
    bound: BoundHooks,
    problems: list[Diagnostic],
) -> None:
    """Per file, what became of each hook read (`FileReport`: one with an error under its
    entry failed, whatever its folder), and the entries its errors say were rejected before
    they were read as hooks."""
    loaded = bound.loaded
    untrusted = {id(hook) for hook in loaded.untrusted}
    unbound = {id(hook) for hook in loaded.unloaded}
    errors: dict[str, list[Diagnostic]] = {}
    for diagnostic in problems:
        errors.setdefault(diagnostic.file, []).append(diagnostic)
    fields: dict[str, list[str]] = {}
    for hook in discovery.hooks:
        file, field_path = (
            report.file(_file_of(hook.origin), dialect),
            entry_field(dialect, hook.origin),
        )
        fields.setdefault(file.file, []).append(field_path)
        broken = any(
            d.severity == "error" and under(d.path, field_path) for d in errors.get(file.file, ())
        )
        if broken or (id(hook) in unbound and id(hook) not in loaded.off):
            file.failed += 1
        elif id(hook) in untrusted:
            file.untrusted += 1
        elif id(hook) in loaded.off:
            file.off += 1
        else:
            file.loaded += 1
    for name, problems in errors.items():
        file = report.file(name, dialect)
        file.failed += len(rejected_entries(dialect, problems, fields.get(name, ())))
        file.unreadable = file.unreadable or (file.hooks == 0 and whole_file_failed(problems))


def _failures(bound: BoundHooks) -> list[tuple[str, HookFailure]]:
    """How each hook fails, with the origin of its declaration: the bound ones as they are
    registered, the untrusted ones as the guards that stand in for them block."""
    policy, loaded = bound.opened.failure_policy, bound.loaded
    found: list[tuple[str, HookFailure]] = []
    for spec in loaded.specs:
        declared = loaded.declared_by.get(id(spec))
        if declared is not None:  # not a guard standing in for an untrusted hook
            mode = failure_mode(spec, policy)
            found.append((declared.origin, HookFailure(spec.name, spec.event.value, mode)))
    for hook in loaded.untrusted:
        for event in hook.events or (None,):
            mode = untrusted_failure_mode(hook, event, policy)
            shown = event.value if event is not None else "-"
            found.append((hook.origin, HookFailure(hook.name, shown, mode)))
    return found


def _add_skills(report: Report, project: Path, policy: TrustPolicy) -> None:
    """Every skill's `hooks/hooks.json` under `<project>/skills` (read, nothing runs); the
    hooks of a folder not trusted are counted as such, as `hooks list` and `run` treat them."""
    root = project / "skills"
    trusted = policy.trusts(root)
    skills = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    for skill in skills:
        config = root / skill / "hooks" / "hooks.json"
        if not config.is_file():
            continue
        errors: list[SkillHookError] = []
        loaded = scan_hooks([skill], str(root), errors=errors, quiet=True)
        file = report.file(str(config), "skill")
        file.hooks += len(loaded)
        if trusted:
            file.loaded += len(loaded)
        else:
            file.untrusted += len(loaded)
        problems = [Diagnostic(error.file, error.field, error.message) for error in errors]
        for problem in problems:
            report.file(problem.file, "skill").problems.append(problem)
        file.failed += len(rejected_entries("skill", problems, ()))
        file.unreadable = not loaded and whole_file_failed(problems)
        for warning in tool_filter_warnings(loaded, root, REFERENCE_AGENT_TOOLS):
            report.file(warning.file, "skill").problems.append(warning)


def validate(project: Path, scope: ProjectScope, policy: TrustPolicy) -> Report:
    """Every dialect's files under `project` (and `scope`'s config files), opened where every
    host opens a project (`hookwright.host.open`), one dialect at a time so each problem is
    reported under its own dialect."""
    report = Report(project)
    home = user_home()
    found, unrecognised = discover_each_dialect(project, home, scope.config_files)
    for dialect, discovery in found.items():
        _add_dialect(report, dialect, discovery, policy, scope, home)
    _add_skills(report, project, policy)
    for diagnostic in unrecognised:
        report.file(diagnostic.file, "-").problems.append(diagnostic)
    return report


def _problem(diagnostic: Diagnostic) -> str:
    """A problem under its file's line: its field when it names one (the file is named on
    the line above)."""
    where = f"{diagnostic.path}: " if diagnostic.path else ""
    return f"{diagnostic.severity}: {where}{diagnostic.message}"


def _shown(name: str, project: Path) -> str:
    path = Path(name)
    if path.is_absolute() and path.is_relative_to(project):
        return str(path.relative_to(project))
    return name


def to_json(report: Report) -> dict[str, Any]:
    return {
        "project": str(report.project),
        "ok": report.ok,
        "errors": report.errors,
        "warnings": report.warnings,
        "unchecked_untrusted_hooks": report.unchecked,
        "files": [
            {
                "file": f.file,
                "dialect": f.dialect,
                "system": system_name(f.dialect),
                "hooks": f.hooks,
                "loaded": f.loaded,
                "failed": f.failed,
                "turned_off": f.off,
                "not_trusted": f.untrusted,
                "file_loaded": not f.unreadable,
                "problems": [
                    {"severity": d.severity, "path": d.path, "message": d.message}
                    for d in f.problems
                ],
                "failure_modes": [
                    {
                        "hook": h.hook,
                        "event": h.event,
                        "fails": h.mode.fails,
                        "closed_by": h.mode.closed_by,
                    }
                    for h in f.failures
                ],
            }
            for f in report.files.values()
        ],
    }


def _hooks(count: int) -> str:
    return "1 hook" if count == 1 else f"{count or 'no'} hooks"


def _held_back(report: FileReport) -> str:
    """What a folder's trust holds back of a file's hooks: a skill's prompt hooks have no
    code to load, they only do not run."""
    return "will not run" if report.dialect == "skill" else "code not loaded"


def _what_loaded(report: FileReport) -> str:
    """``1 hook loaded, 2 hooks failed``: what became of the file's hooks, in plain words."""
    if report.unreadable:
        return "the file did not load"
    others = [
        f"{_hooks(report.failed)} failed" if report.failed else "",
        f"{_hooks(report.off)} turned off" if report.off else "",
        f"{_hooks(report.untrusted)} checked (folder not trusted: {_held_back(report)})"
        if report.untrusted
        else "",
    ]
    said = [text for text in others if text]
    if report.loaded or not said:
        said.insert(0, f"{_hooks(report.loaded)} loaded" if report.hooks else "no hooks")
    return ", ".join(said)


def to_lines(report: Report) -> list[str]:
    lines = [f"hook config files of {report.project}:"]
    if not report.files:
        lines.append("  none found")
    for f in report.files.values():
        failed = f.count("error") or f.failed or f.unreadable
        status = "error" if failed else "warn " if f.problems else "ok   "
        name = _shown(f.file, report.project)
        lines.append(f"  {status} {name} ({system_name(f.dialect)}): {_what_loaded(f)}")
        lines += [f"        {_problem(d)}" for d in f.problems]
        lines += [
            f"        fails closed: {h.hook} on {h.event}, closed by {h.mode.closed_by}"
            for h in f.failures
            if h.mode.closed_by is not None
        ]
    held_back = sum(f.untrusted for f in report.files.values())
    if held_back:
        lines.append(
            f"{_hooks(held_back)} will not run until the folder is trusted: "
            f"hookwright trust {report.project}, or run with --trust"
        )
    if report.unchecked:
        lines.append(
            f"{_hooks(report.unchecked)} of a folder that is not trusted "
            f"{'was' if report.unchecked == 1 else 'were'} checked without loading "
            f"{'its' if report.unchecked == 1 else 'their'} code "
            "(modules, factories); --trust loads them too"
        )
    failures = [h for f in report.files.values() for h in f.failures]
    closed = sum(1 for h in failures if h.mode.fails == "closed")
    if failures:
        opened = len(failures) - closed
        lines.append(f"failure modes (per hook and event): {closed} closed, {opened} open")
    lines.append(
        f"{counted(report.errors, 'error')}, {counted(report.warnings, 'warning')} in "
        f"{counted(len(report.files), 'file')}"
    )
    return lines
