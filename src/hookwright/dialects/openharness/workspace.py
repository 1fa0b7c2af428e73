"""The workspace: its kind (`.openharness/workspace.yaml`) and paths that must stay inside it.

Only `kind: project` workspaces run hooks (the seed; the real project until April 2026); a
`chat` workspace ignores every hook definition. A missing file or `kind` means `project`. An
unknown kind is an error diagnostic and the workspace is treated as `project`, so a typo never
silently switches guard hooks off. Other keys of workspace.yaml belong to the rest of the
workspace config and are not checked here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from hookwright.config.loading import Diagnostic
from hookwright.config.safeparse import ParseError, read_yaml

OH_DIR = ".openharness"
WORKSPACE_FILE = "workspace.yaml"

Kind = Literal["project", "chat"]
KINDS: tuple[Kind, ...] = ("project", "chat")


@dataclass(slots=True)
class WorkspaceKind:
    kind: Kind = "project"
    diagnostics: list[Diagnostic] = field(default_factory=list)


def read_kind(root: Path) -> WorkspaceKind:
    path = root / OH_DIR / WORKSPACE_FILE
    result = WorkspaceKind()
    if not path.is_file():
        return result
    file = str(path)
    try:
        data = read_yaml(path)
    except ParseError as exc:
        result.diagnostics.append(Diagnostic(file, "", f"{exc.reason}; assuming project"))
        return result
    if data is None:
        return result
    if not isinstance(data, dict):
        result.diagnostics.append(Diagnostic(file, "", "expected a mapping, assuming project"))
        return result
    kind = data.get("kind", "project")
    if kind == "project" or kind == "chat":
        result.kind = kind
    else:
        result.diagnostics.append(
            Diagnostic(file, "kind", f"must be 'project' or 'chat', got {kind!r}; hooks still load")
        )
    return result


def resolve_inside(root: Path, relative: str) -> Path | None:
    """`relative` resolved against `root` (symlinks followed), or None when it leaves `root`.

    The real project resolves `cwd` and prompt files with `path.resolve` and no containment
    check; hookwright refuses paths outside the workspace.
    """
    base = root.resolve()
    target = (base / relative).resolve()
    return target if target == base or target.is_relative_to(base) else None
