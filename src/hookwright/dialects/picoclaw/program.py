"""Whether a PicoClaw process's program can start, found from its config alone (nothing runs):
the one check `hooks validate` reports, the project opening turns into a `missing_command`
(`hooks list`, the run's warning, the audit) and a failed start's hint repeats.

A process runs `command` in its `dir` (relative to the project), or, with no `dir`, in the
folder hookwright was started in. The program is missing when it is a name not found on PATH
(the process's own PATH when it sets one) or an absolute path that is not there. With `dir`
set, the folder and each script the command names by a relative path are resolved in it:
a `dir` that is not a folder, or a script not in it, is missing, and the fix names the field
to change (the `dir` that holds the script, when one of the usual folders does). With no
`dir`, a script is missing only when it is in none of the folders it could be meant from (the
folder hookwright runs in, the project folder, the config file's folder and its parent): one
that is in the project but not where the process runs gets the start hint at run time
instead (`launch_hint`), since that depends on the folder hookwright is started in.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from hookwright.config.commands import ProgramProblem
from hookwright.core.script_paths import relative_scripts
from hookwright.dialects.picoclaw.config import ProcessConfig, ProcessEntry


@dataclass(frozen=True, slots=True)
class MissingProgram:
    """Why a process cannot start: `why` names the resolved path that is missing, `field`
    the process's field to change (``command`` or ``dir``) and `fix` how."""

    path: str
    why: str
    field: str
    fix: str

    def problem(self) -> ProgramProblem:
        """The same, as the project opening reports every hook's missing program."""
        return ProgramProblem("missing_command", self.path, self.fix)


def workdir(config: ProcessConfig, project_dir: Path) -> Path | None:
    """The folder the process runs in when its `dir` names one (relative to the project);
    None: the folder hookwright was started in."""
    if not config.dir:
        return None
    folder = Path(config.dir)
    return folder if folder.is_absolute() else project_dir / folder


def missing_program(entry: ProcessEntry, project_dir: Path) -> MissingProgram | None:
    """What keeps `entry`'s process from starting, when its config alone tells."""
    config = entry.config
    if not config.command:
        return None
    folder = workdir(config, project_dir)
    if folder is not None and not folder.is_dir():
        return MissingProgram(
            str(folder), f'{folder} ("dir") is not a folder', "dir", 'create it, or correct "dir"'
        )
    found = _program_missing(config.command[0], config.env)
    if found is not None:
        return found
    if folder is None:
        return _script_nowhere(config.command, entry.file, project_dir)
    return _script_not_in_dir(config.command, folder, entry.file, project_dir)


def _program_missing(program: str, env: dict[str, str]) -> MissingProgram | None:
    """A program named by a name not on PATH, or by an absolute path that is not there; a
    relative path is a script (below)."""
    fix = "create it, or correct the path in command"
    if os.path.isabs(program):
        missing = not Path(program).exists()
        return (
            MissingProgram(program, f"{program} is not there", "command", fix) if missing else None
        )
    if "/" in program:
        return None
    path = env.get("PATH", os.environ.get("PATH", os.defpath))
    if shutil.which(program, path=path):
        return None
    return MissingProgram(program, f"{program} is not found on PATH", "command", fix)


def _script_not_in_dir(
    command: list[str], folder: Path, config_file: str, project_dir: Path
) -> MissingProgram | None:
    """A script the command names by a relative path that is not in its `dir`: the `dir` to
    set when a usual folder holds it, else create it or correct either field."""
    for script in relative_scripts(command):
        resolved = folder / script
        if resolved.exists():
            continue
        why = f"{resolved} is not there"
        holder = script_holder(script, config_file, project_dir)
        if holder is not None:
            return MissingProgram(
                str(resolved), why, "dir", f'set "dir" to {holder}, which holds it'
            )
        fix = 'create it, or correct "dir" or the path in command'
        return MissingProgram(str(resolved), why, "command", fix)
    return None


def _script_nowhere(
    command: list[str], config_file: str, project_dir: Path
) -> MissingProgram | None:
    """A script the command names by a relative path that is in none of the folders it
    could be meant from, with no `dir` (said as `hooks validate` has said it)."""
    try:
        folder = Path.cwd()
    except OSError:  # the folder hookwright was started in is gone: the project's stands in
        folder = project_dir
    for script in relative_scripts(command):
        if (folder / script).exists() or script_holder(script, config_file, project_dir):
            continue
        looked = ", ".join(str(place) for place in dict.fromkeys((folder, project_dir)))
        fix = "create it, or correct the path in command"
        return MissingProgram(
            str(folder / script), f"{script} is not there (looked in {looked})", "command", fix
        )
    return None


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
