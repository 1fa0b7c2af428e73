"""`NotRun`: a declared hook that will not run, and why (`OpenedProject.not_run`).

Apart from opening a project (`hookwright.host.open`): it loads where a hook is held back (a
folder not trusted, a hook that did not load or a setting turned off, a command whose program
is missing), not when every hook of a project runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hookwright.core.systems import system_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal, TypeAlias

    from hookwright.config.loading import Diagnostic, DiscoveredHook

NotRunReason: TypeAlias = "Literal['untrusted', 'not_bound', 'missing_command', 'not_executable']"

#: Why a trusted hook bound to nothing does not run, and what to do, when its dialect did not
#: say (a load error, a setting such as Claude Code's `disableAllHooks`).
NOT_BOUND_FIX = "it failed to load, or a setting turns it off; see the warnings for its file"


@dataclass(frozen=True, slots=True)
class NotRun:
    """A declared hook that will not run: its folder is not trusted (`untrusted`), it is
    trusted but bound to nothing (`not_bound`: turned off by its settings, or it failed to
    load; `diagnostics` then says why), or its command's program is not there
    (`missing_command`) or lacks its execute bit (`not_executable`); `path` names that
    program. Such a command hook stays registered: it fails when it runs, and blocks where
    the failure policy or its own field fails it closed. `detail`: for a hook its dialect
    turned off on purpose (a Codex hook not reviewed, a folder Gemini CLI does not trust),
    why, and what makes it run. `error`: the load error of a hook that failed to load (its
    file and field, said once on the line)."""

    hook: DiscoveredHook
    reason: NotRunReason
    path: str | None = None
    detail: str | None = None
    error: Diagnostic | None = None

    @property
    def severity(self) -> Literal["error", "warning"]:
        """ "error" for a hook that failed to load; "warning" for one held back (a folder not
        trusted, a setting or a dialect's rule turning it off) or registered to fail when it
        runs (its program missing: Claude Code's own non-blocking error)."""
        return "error" if self.error is not None else "warning"

    @property
    def registered(self) -> bool:
        """True for a command hook whose program is missing or not executable: it is on the
        engine, and fails when it runs."""
        return self.reason in ("missing_command", "not_executable")

    @property
    def file(self) -> str:
        """The file (and field) that declares the hook; for a load error the file alone (the
        error names the field)."""
        if self.error is not None:
            return self.error.file
        return self.hook.origin or self.hook.source

    @property
    def fix(self) -> str:
        """What makes the hook run."""
        if self.reason == "untrusted":
            folder = self.hook.trust_root or Path(self.file).parent
            return f"trust the folder with: hookwright trust {folder}, or run again with --trust"
        if self.registered and self.hook.program_problem is not None:  # the field to change
            return self.hook.program_problem.fix
        if self.reason == "missing_command":
            return f"create {self.path} or correct the command"
        if self.reason == "not_executable":
            return f"make it executable: chmod +x {self.path}"
        if self.detail is not None:
            return self.detail
        return NOT_BOUND_FIX

    def __str__(self) -> str:
        hook = f"hook {self.hook.name!r} ({system_name(self.hook.dialect)})"
        if self.reason == "not_bound":  # the fix says why in the user's words
            return f"{self.file}: {hook} not run: {self.fix}"
        why = self.reason.replace("_", " ")
        if self.path is not None:
            why = f"{why}: {self.path}"
        happens = "fails when it runs" if self.registered else "not run"
        return f"{self.file}: {hook} {happens}: {why}; {self.fix}"


__all__ = ["NOT_BOUND_FIX", "NotRun", "NotRunReason"]
