"""Why a PicoClaw process hook may have failed to start, when its config tells
(`program.missing_program`), or when its command names a script by a relative path that is
not in the folder the process runs in.

A process without `dir` runs in the folder hookwright was started in, as PicoClaw runs it in
its own: `["python3", "hook.py"]` works from the project folder and fails from any other with
the interpreter's "can't open file" and nothing more. The hint says which folder the process
ran in, where the script is, and which `dir` to set in which file; or, when the script is in
none of the folders it could be meant from, that it is missing. A process with `dir` gets what
`hooks validate` says of it: the resolved path that is missing and the field to change.
"""

from __future__ import annotations

from pathlib import Path

from hookwright.core.script_paths import relative_scripts
from hookwright.dialects.picoclaw.config import ProcessEntry
from hookwright.dialects.picoclaw.program import missing_program, script_holder, workdir
from hookwright.transports.rpc import StartHint

__all__ = ["missing_script_hint", "relative_scripts"]


def missing_script_hint(entry: ProcessEntry, project_dir: Path) -> StartHint | None:
    """The hint for a process that failed to start: what its config says is missing; with
    no `dir`, the `dir` that holds a script not in the folder it ran in, or that the script
    is missing; None otherwise. Its brief form names the path and what to change, for the
    failures after the first."""
    where = f"{_shown(entry.file, project_dir)} hooks.processes.{entry.name}"
    folder = workdir(entry.config, project_dir)
    if folder is not None:
        missing = missing_program(entry, project_dir)
        if missing is None:
            return None
        return StartHint(
            f"{missing.why}; fix in {where}: {missing.fix}",
            f"{missing.why}; fix {where}.{missing.field} (said at the first failure)",
        )
    return _no_dir_hint(entry, where, project_dir)


def _no_dir_hint(entry: ProcessEntry, where: str, project_dir: Path) -> StartHint | None:
    folder = Path.cwd()
    command = entry.config.command
    missing = [script for script in relative_scripts(command) if not (folder / script).exists()]
    if not missing:
        return None
    script = missing[0]
    holder = script_holder(script, entry.file, project_dir)
    if holder is None:
        nor = "" if folder == project_dir else f", nor in the project {project_dir}"
        return StartHint(
            f"{script} is missing: it is not in {folder}, the folder the hook ran in{nor}; "
            f"create it, or correct the path in {where}.command",
            f"{script} is missing (said at the first failure)",
        )
    return StartHint(
        f'{script} is not in {folder}, the folder the hook ran in (no "dir" set: the folder '
        f'hookwright was started in); set "dir" in {where} to {holder}, which holds it',
        f'{script} is not in the folder the hook ran in: set "dir" (said at the first failure)',
    )


def _shown(file: str, project_dir: Path) -> str:
    path = Path(file)
    return str(path.relative_to(project_dir)) if path.is_relative_to(project_dir) else file
