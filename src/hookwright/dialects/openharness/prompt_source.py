"""PromptSource: `{inline: text}` or `{file: path}`, the file resolved inside the workspace.

Files are read when the hook runs (so edits apply without a reload), as in the real project,
which however resolves the path with no containment check. Prompts usually live in
`.openharness/hooks/prompts/`, which the loader never reads as hook definitions.
"""

from __future__ import annotations

from pathlib import Path

from hookwright.dialects.openharness.schema import PromptSource
from hookwright.dialects.openharness.workspace import resolve_inside


class PromptSourceError(RuntimeError):
    pass


def source_path(source: PromptSource, root: Path) -> Path | None:
    """The file a source names, resolved inside `root`; raises when it leaves `root`."""
    if source.file is None:
        return None
    path = resolve_inside(root, source.file)
    if path is None:
        raise PromptSourceError(f"prompt file {source.file!r} resolves outside the workspace")
    return path


def read_source(source: PromptSource, root: Path) -> str:
    if source.inline is not None:
        return source.inline
    path = source_path(source, root)
    assert path is not None
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PromptSourceError(f"cannot read prompt file {source.file}: {exc.strerror}") from None
