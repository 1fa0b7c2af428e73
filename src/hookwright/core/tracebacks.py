"""What a Python hook's exception says about the hook author's own code: the frames of the
author's files (file, line, the line's text), without hookwright's frames around the call nor
the frames of the standard library and installed packages below it.

A command hook written in Python prints its traceback on stderr; an in-process hook's
traceback is kept the same way (`HookResult.stderr`), so every view that shows a hook's stderr
(`hooks test --explain`, `--debug`, the audit, the terminal of `hookwright run`) shows it."""

from __future__ import annotations

import functools
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    import traceback

#: At most this many of the author's frames are kept, the innermost ones.
MAX_FRAMES = 8

_HOOKWRIGHT = str(Path(__file__).resolve().parent.parent) + "/"


@functools.cache
def _library_roots() -> tuple[str, ...]:
    """Where the interpreter's and the installed libraries' code lives (read when a hook
    first fails: `sysconfig` costs a process answering one event more than the answer)."""
    import sysconfig

    paths = sysconfig.get_paths()
    names = ("stdlib", "platstdlib", "purelib", "platlib")
    return tuple(dict.fromkeys(str(Path(paths[name]).resolve()) + "/" for name in names))


def _authors(filename: str) -> bool:
    """A frame of code the hook's author wrote: a real file, not hookwright's, not a
    library's."""
    if filename.startswith("<"):
        return False
    try:
        resolved = str(Path(filename).resolve())
    except (OSError, RuntimeError):
        resolved = filename
    return not resolved.startswith((_HOOKWRIGHT, *_library_roots()))


def author_frames(exc: BaseException) -> list[traceback.FrameSummary]:
    """The frames of `exc`'s traceback that are in the author's files, outermost first
    (the innermost `MAX_FRAMES`)."""
    import traceback  # when a hook fails, not before

    frames = traceback.extract_tb(exc.__traceback__)
    return [frame for frame in frames if _authors(frame.filename)][-MAX_FRAMES:]


def describe_exception(exc: BaseException) -> str:
    """`KeyError: 'boom'`: the exception's type and text on one line."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def where(frame: traceback.FrameSummary) -> str:
    """`/path/guards.py:5 in boom: return inp['boom']`."""
    line = f"{frame.filename}:{frame.lineno} in {frame.name}"
    return f"{line}: {frame.line.strip()}" if frame.line else line


#: The first line of `author_traceback`.
AUTHOR_TRACEBACK = "Traceback (most recent call last, the hook's own frames):"


def author_traceback(exc: BaseException) -> str | None:
    """The traceback Python would print, limited to the author's frames; None when none of
    its frames are the author's (the failure is not in the author's code)."""
    frames = author_frames(exc)
    if not frames:
        return None
    lines = [AUTHOR_TRACEBACK]
    for frame in frames:
        lines.append(f'  File "{frame.filename}", line {frame.lineno}, in {frame.name}')
        if frame.line:
            lines.append(f"    {frame.line.strip()}")
    lines.append(describe_exception(exc))
    return "\n".join(lines) + "\n"
