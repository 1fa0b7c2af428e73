"""Why a PicoClaw process hook may have failed to start, when its command names a script by a
relative path that is not in the folder the process runs in.

A process without `dir` runs in the folder hookwright was started in, as PicoClaw runs it in
its own: `["python3", "hook.py"]` works from the project folder and fails from any other with
the interpreter's "can't open file" and nothing more. The hint says which folder the process
ran in, where the script is, and which `dir` to set in which file; or, when the script is in
none of the folders it could be meant from, that it is missing.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from hookwright.core.script_paths import relative_scripts
from hookwright.transports.rpc import StartHint

__all__ = ["missing_script_hint", "relative_scripts", "script_holder"]


def missing_script_hint(
    command: Sequence[str],
    workdir: Path | None,
    config_file: str,
    hook: str,
    project_dir: Path,
) -> StartHint | None:
    """The hint for a process that failed to start, when a relative script path of `command`
    is not in the folder it ran in (`workdir`, its `dir`, else the current folder): the `dir`
    that holds it, or, with no `dir`, that it is missing; None otherwise (a `dir` holding no
    such script: the program's own error names the file). Its brief form names the script and
    what to change, for the failures after the first."""
    folder = workdir if workdir is not None else Path.cwd()
    missing = [script for script in relative_scripts(command) if not (folder / script).exists()]
    if not missing:
        return None
    script = missing[0]
    holder = script_holder(script, config_file, project_dir)
    where = f"{_shown(config_file, project_dir)} hooks.processes.{hook}"
    if holder is None and workdir is not None:
        return None  # its own "dir" names the folder: the program's own error says which file
    if holder is None:
        nor = "" if folder == project_dir else f", nor in the project {project_dir}"
        return StartHint(
            f"{script} is missing: it is not in {folder}, the folder the hook ran in{nor}; "
            f"create it, or correct the path in {where}.command",
            f"{script} is missing (said at the first failure)",
        )
    if workdir is not None:
        ran_in, verb = 'its "dir"', "correct"
    else:
        ran_in, verb = 'no "dir" set: the folder hookwright was started in', "set"
    return StartHint(
        f'{script} is not in {folder}, the folder the hook ran in ({ran_in}); {verb} "dir" in '
        f"{where} to {holder}, which holds it",
        f'{script} is not in the folder the hook ran in: {verb} "dir" (said at the first failure)',
    )


def script_holder(script: str, config_file: str, project_dir: Path) -> Path | None:
    """The first folder a script named relative to a config file is usually kept in that
    holds it (`_candidates`); None: it is in none of them."""
    holders = (d for d in _candidates(config_file, project_dir) if (d / script).exists())
    return next(holders, None)


def _candidates(config_file: str, project_dir: Path) -> list[Path]:
    """Where a script named relative to a config file is usually kept: the project folder,
    and the folder of the config file and its parent."""
    config_folder = Path(config_file).parent
    return list(dict.fromkeys((project_dir, config_folder.parent, config_folder)))


def _shown(file: str, project_dir: Path) -> str:
    path = Path(file)
    return str(path.relative_to(project_dir)) if path.is_relative_to(project_dir) else file
