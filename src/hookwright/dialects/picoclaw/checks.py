"""What `hooks validate` checks in PicoClaw process hooks beyond their shape: a program that
cannot start.

A process runs `command` in its `dir` (relative to the project), or, with no `dir`, in the
folder hookwright was started in. When the program is a name not found on PATH, an absolute
path that is not there, or a script the command names by a relative path that is in none of
the folders it could be meant from (the folder it runs in, the project folder, the config
file's folder and its parent), every call fails and the run goes on as if the hook were not
there: an error naming the file, the process and its `command`, with the fix. A script that is
in the project but not where the process runs gets the start hint at run time instead
(`launch_hint`), since that depends on the folder hookwright is started in. Nothing runs.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from hookwright.config.loading import Diagnostic, LoadContext
from hookwright.dialects.picoclaw.config import ProcessEntry, read_context
from hookwright.dialects.picoclaw.launch_hint import relative_scripts, script_holder

_UNRUNNABLE = "every call fails and the run goes on as if the hook were not there"


def check(ctx: LoadContext) -> list[Diagnostic]:
    """A diagnostic per enabled PicoClaw process of the project whose program cannot start."""
    settings = read_context(ctx)
    if not settings.enabled:
        return []
    found = (_process(entry, ctx.project_dir) for entry in settings.processes)
    return [problem for problem in found if problem is not None]


def _process(entry: ProcessEntry, project_dir: Path) -> Diagnostic | None:
    config = entry.config
    if not config.enabled or not config.command:
        return None
    folder = Path(config.dir) if config.dir else Path.cwd()
    if not folder.is_absolute():
        folder = project_dir / folder
    why = _program_missing(config.command[0], config.env) or _script_missing(
        config.command, folder, entry.file, project_dir
    )
    if why is None:
        return None
    message = (
        f"process {entry.name!r}: {why} (command {json.dumps(config.command)}); {_UNRUNNABLE}; "
        "fix: create "
        "it, or correct the path in command"
    )
    return Diagnostic(entry.file, f"hooks.processes.{entry.name}.command", message)


def _program_missing(program: str, env: dict[str, str]) -> str | None:
    """Why the program is not there: a name not on PATH (the process's own PATH when it sets
    one), or an absolute path that is not there; a relative path is a script (below)."""
    if os.path.isabs(program):
        return None if Path(program).exists() else f"{program} is not there"
    if "/" in program:
        return None
    path = env.get("PATH", os.environ.get("PATH", os.defpath))
    return None if shutil.which(program, path=path) else f"{program} is not found on PATH"


def _script_missing(
    command: list[str], folder: Path, config_file: str, project_dir: Path
) -> str | None:
    """Why a script the command names by a relative path is nowhere it could be meant from."""
    for script in relative_scripts(command):
        if (folder / script).exists() or script_holder(script, config_file, project_dir):
            continue
        looked = ", ".join(str(place) for place in dict.fromkeys((folder, project_dir)))
        return f"{script} is not there (looked in {looked})"
    return None
