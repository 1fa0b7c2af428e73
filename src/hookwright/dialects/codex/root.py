"""Where Codex puts the project root, and so which ``.codex`` folders it reads as project layers.

Measured against Codex CLI 0.171.0: the root is the nearest folder at or above the project
holding one of ``project_root_markers`` (default ``[".git"]``; a marker counts when it exists,
through a link too, and a dangling link does not). A ``.git`` marker counts as a file (a linked
worktree's, whatever it holds) or as a folder holding ``HEAD``: an empty ``.git`` folder, or a
link to one, is no root in Codex. The key is read from the system and the user
``config.toml`` (the user's wins), never from a project's: a repository cannot move its own
root. An empty list turns the search off, and so does a marker found nowhere: the project is
its own root. A value that is not a list of strings stops Codex from starting; hookwright says
so in one line naming the file and the key, and looks for ``.git``.

Codex also reads the key from a profile (``--profile NAME``: ``$CODEX_HOME/NAME.config.toml``)
and from ``-c project_root_markers=...``; neither reaches a hook (nothing in its input or
environment names them), so hookwright reads the files alone. The legacy selector ``profile =
"NAME"`` in the user's ``config.toml`` stops Codex 0.171.0 from starting, and a legacy
``[profiles.NAME]`` table's markers are not read (both measured); hookwright says the first in
one line and reads neither.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Final

from hookwright.config.loading import Diagnostic
from hookwright.dialects.codex.config import LayerFiles

KEY: Final = "project_root_markers"
LEGACY_PROFILE: Final = "profile"
GIT: Final = ".git"
DEFAULT_MARKERS: Final = (GIT,)
#: How many folders above the project the root is looked for: a hostile deep tree cannot make
#: discovery slow. Beyond it, the project alone is read, as when no marker is found.
ROOT_SEARCH_LIMIT: Final = 64


def root_markers(read_from: Sequence[LayerFiles], diagnostics: list[Diagnostic]) -> tuple[str, ...]:
    """``project_root_markers`` of the last of `read_from` (the system, then the user layer)
    that sets it; the default when none does or when the value is not a list of strings."""
    setting = None
    for files in read_from:
        _refuse_legacy_profile(files, diagnostics)
        if files.config is not None and KEY in files.config:
            setting = files
    if setting is None or setting.config is None:
        return DEFAULT_MARKERS
    value = setting.config[KEY]
    if isinstance(value, list) and all(isinstance(marker, str) for marker in value):
        return tuple(value)
    message = (
        f"must be a list of strings, not {value!r:.60}: Codex CLI does not start with it; "
        f"hookwright looks for {', '.join(DEFAULT_MARKERS)}"
    )
    diagnostics.append(Diagnostic(str(setting.toml_path), KEY, message))
    return DEFAULT_MARKERS


def _refuse_legacy_profile(files: LayerFiles, diagnostics: list[Diagnostic]) -> None:
    """One error line for the user's legacy ``profile = "NAME"``, which Codex refuses."""
    value = files.config.get(LEGACY_PROFILE) if files.config else None
    if files.layer != "user" or not isinstance(value, str):
        return
    message = (
        f"the legacy selector {value!r:.40} stops Codex CLI from starting (use --profile "
        f"{value:.40} with {value:.40}.config.toml); hookwright reads no profile"
    )
    diagnostics.append(Diagnostic(str(files.toml_path), LEGACY_PROFILE, message))


def project_folders(
    project: Path, diagnostics: list[Diagnostic], markers: Sequence[str] = DEFAULT_MARKERS
) -> list[Path]:
    """The ``.codex`` folders Codex reads as project layers, the root's first: one in every
    folder from the root down to the project. A ``.codex`` whose files lie outside the root
    (through a link) is not read, with a warning."""
    start = project.absolute()
    reach = [start, *start.parents][: ROOT_SEARCH_LIMIT + 1]
    root = _root_index(reach, markers)
    chain = reversed(reach[: root + 1])
    return [
        folder / ".codex"
        for folder in chain
        if _inside(folder / ".codex", reach[root], diagnostics)
    ]


def _root_index(reach: Sequence[Path], markers: Sequence[str]) -> int:
    """The place in `reach` of the nearest folder holding a marker (0, the project, if none)."""
    for index, folder in enumerate(reach):
        if any(_marks(folder / marker) for marker in markers):
            return index
    return 0


def _marks(path: Path) -> bool:
    """`path` exists (through links), and a ``.git`` folder holds ``HEAD``."""
    if path.name == GIT and path.is_dir():
        return (path / "HEAD").exists()
    return path.exists()


def _inside(codex: Path, root: Path, diagnostics: list[Diagnostic]) -> bool:
    """False, with a warning, when ``codex`` or a file Codex reads in it leaves `root`."""
    base = root.resolve()
    for path in (codex, codex / "hooks.json", codex / "config.toml"):
        target = path.resolve()
        if path.exists() and target != base and base not in target.parents:
            message = f"links outside the repository {root} to {target}; not read"
            diagnostics.append(Diagnostic(str(path), "", message, "warning"))
            return False
    return True
