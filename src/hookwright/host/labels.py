"""How a hook is named to a person, in every view (terminal, summary, page, `/hooks`,
`hooks list`, the audit viewer): its system as its users call it, its event in that system's
own words next to the canonical one, and the file it came from."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

# re-exported: every view imports the label helpers from here
from hookwright.core.systems import authored_event
from hookwright.core.systems import event_words as event_words
from hookwright.core.systems import system_name as system_name

if TYPE_CHECKING:  # only named in annotations: opening a project never imports the engine's records
    from hookwright.core.spec import HookSpec

#: ``command:python3 "$CLAUDE_PROJECT_DIR/.claude/hooks/no_rm.py"``: the script it runs.
_SCRIPT = re.compile(r"""([^\s"'/\\]+\.(?:py|sh|js|ts|mjs|cjs|rb|pl|bash|zsh))\b""")
#: The field path an origin ends with (``:hooks[0]``, ``:hooks.PreToolUse[0].hooks[1]``).
_FIELD = re.compile(r":[\w.\[\]-]+$")


def short_name(name: str) -> str:
    """A hook's name for a narrow column: a command hook's is the script it runs (never a
    cut with a stray quote); any other name is kept."""
    if not name.startswith("command:"):
        return name
    scripts = _SCRIPT.findall(name)
    return scripts[-1] if scripts else name


def own_event(spec: HookSpec) -> str | None:
    """The event in the words of the hook's author (a skill's timing, a PicoClaw method, an
    OpenHarness event); None where they are the canonical ones (Claude Code, Python)."""
    return authored_event(spec.dialect_data)


def hook_file(spec: HookSpec, project_dir: Path | None = None) -> str | None:
    """The file the hook was declared in, relative to the project when inside it."""
    return origin_file(spec.origin, project_dir)


def origin_file(origin: str | None, project_dir: Path | None = None) -> str | None:
    """The file part of an origin (``file:field path``), relative to the project when
    inside it; what an audit record's `origin` names too."""
    if not origin:
        return None
    file = _FIELD.sub("", origin)
    if project_dir is not None:
        try:
            return str(Path(file).relative_to(project_dir))
        except ValueError:
            pass
    return file


@dataclass(frozen=True, slots=True)
class HookLabel:
    """One hook as every view names it."""

    name: str
    system: str
    event: str
    file: str | None

    def text(self) -> str:
        """``no-rm · Python · PreToolUse · .hookwright/hooks.yaml``"""
        parts = [self.name, self.system, self.event, self.file]
        return " · ".join(part for part in parts if part)


def label_of(spec: HookSpec, project_dir: Path | None = None) -> HookLabel:
    return HookLabel(
        name=spec.name,
        system=system_name(spec.dialect),
        event=event_words(spec.event.value, own_event(spec)),
        file=hook_file(spec, project_dir),
    )
