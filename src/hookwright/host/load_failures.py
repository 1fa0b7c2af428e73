"""The config files whose hooks, or some of them, did not load when a project was opened.

Loading is permissive (`config.loading`): a file that does not parse, or a hook in it that
does not bind, is an error-level `Diagnostic` and everything else still loads. A host that
prints diagnostics (the reference agent, `serve`, the adapters' logs) shows those lines; a
host that only answers events (the Claude Code, Codex and Gemini CLI hook commands, the
daemon) answers with `OpenedProject.load_failures` instead, so the hooks of a broken file
never vanish without a word (`bridges.claude_hook`).

A file inside a folder that is not trusted is left out: nothing of such a folder runs, and the
host already says so (the untrusted notice); its errors are not the user's to see first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from hookwright.config.loading import Diagnostic
from hookwright.config.trust import TrustPolicy
from hookwright.core.systems import system_name


@dataclass(frozen=True, slots=True)
class LoadFailure:
    """A config file (`file`) whose hooks did not all load: `field` is where in it (empty:
    the whole file), `message` why; `dialect` the dialect that read it (empty: unknown)."""

    file: str
    field: str
    message: str
    dialect: str = ""

    def __str__(self) -> str:
        where = f"{self.file}: {self.field}" if self.field else self.file
        return f"{where}: {self.message}"

    @property
    def hooks(self) -> str:
        """``the Python hooks of /p/.hookwright/hooks.yaml``: the file's hooks, named with
        their system as its users say it."""
        system = f"{system_name(self.dialect)} " if self.dialect else ""
        return f"the {system}hooks of {self.file}"


def load_failures(
    diagnostics: Iterable[Diagnostic],
    project_dir: Path,
    policy: TrustPolicy,
    untrusted_roots: Iterable[Path | None] = (),
    named: Sequence[Path] = (),
    dialects: Mapping[str, str] = MappingProxyType({}),
) -> tuple[LoadFailure, ...]:
    """The error-level `diagnostics`, but those of a file inside a folder `policy` does not
    trust (the project folder or an untrusted hook's root); a file the user `named` on the
    command line needs no trust and is always kept. `dialects`: each file's dialect."""
    roots = {project_dir.resolve(), *(root.resolve() for root in untrusted_roots if root)}
    closed = tuple(root for root in roots if not policy.trusts(root))
    chosen = {str(path) for path in named} | {str(path.resolve()) for path in named}
    failures: dict[LoadFailure, None] = {}
    for diagnostic in diagnostics:
        if diagnostic.severity != "error":
            continue
        if diagnostic.file not in chosen and _inside(diagnostic.file, closed):
            continue
        dialect = dialects.get(diagnostic.file, "")
        failure = LoadFailure(diagnostic.file, diagnostic.path, diagnostic.message, dialect)
        failures[failure] = None
    return tuple(failures)


def _inside(file: str, folders: Sequence[Path]) -> bool:
    if not folders:
        return False
    path = Path(file).resolve()
    return any(path == folder or folder in path.parents for folder in folders)
