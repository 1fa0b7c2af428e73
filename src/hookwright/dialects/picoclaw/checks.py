"""What `hooks validate` checks in PicoClaw process hooks beyond their shape: a program that
cannot start (`program.missing_program`: a name not on PATH, a path that is not there, a
`dir` that is not a folder, a script not in its `dir` or, with no `dir`, in none of the
folders it could be meant from). Every call then fails and the run goes on as if the hook
were not there: an error naming the file, the process's field, the resolved path and the fix.
Nothing runs.
"""

from __future__ import annotations

import json

from hookwright.config.loading import Diagnostic, LoadContext
from hookwright.dialects.picoclaw.config import ProcessEntry, read_context
from hookwright.dialects.picoclaw.program import missing_program

_UNRUNNABLE = "every call fails and the run goes on as if the hook were not there"


def check(ctx: LoadContext) -> list[Diagnostic]:
    """A diagnostic per enabled PicoClaw process of the project whose program cannot start."""
    settings = read_context(ctx)
    if not settings.enabled:
        return []
    found = (_process(entry, ctx) for entry in settings.processes if entry.config.enabled)
    return [problem for problem in found if problem is not None]


def _process(entry: ProcessEntry, ctx: LoadContext) -> Diagnostic | None:
    missing = missing_program(entry, ctx.project_dir)
    if missing is None:
        return None
    config = entry.config
    said = f"command {json.dumps(config.command)}"
    if config.dir:
        said += f", dir {json.dumps(config.dir)}"
    message = f"process {entry.name!r}: {missing.why} ({said}); {_UNRUNNABLE}; fix: {missing.fix}"
    return Diagnostic(entry.file, f"hooks.processes.{entry.name}.{missing.field}", message)
