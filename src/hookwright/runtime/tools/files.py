"""Read, Write and Edit: the file tools, with Claude Code's argument names and result shapes.

Filesystem work runs in a worker thread so a large file never stalls the event loop. Writes
(from Write and Edit alike) go to a temporary file in the target's directory and are renamed
over it, so a crash or a concurrent reader never sees half a file.
"""

from __future__ import annotations

import asyncio
import difflib
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from hookwright.runtime.tools.base import (
    ModelTool,
    ToolContext,
    ToolOutput,
    failure,
    resolve_path,
)
from hookwright.runtime.tools.responses import edit_response, read_response, write_response

DEFAULT_READ_LIMIT = 2000
MAX_LINE_CHARS = 2000
BINARY_SNIFF_BYTES = 8192
_DOCUMENTS = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".webp", ".tiff", ".pdf")
_ARCHIVES = (".zip", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".tar", ".jar", ".whl")
_COMPILED = (".class", ".so", ".dylib", ".dll", ".exe", ".o", ".a", ".pyc", ".bin")
_MEDIA = (".db", ".sqlite", ".mp3", ".mp4", ".wav", ".ogg", ".mov", ".avi", ".woff", ".woff2")
BINARY_SUFFIXES = frozenset(_DOCUMENTS + _ARCHIVES + _COMPILED + _MEDIA + (".ttf", ".otf"))
EMPTY_FILE_NOTE = (
    "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
)
SNIPPET_CONTEXT_LINES = 4


class ReadInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    file_path: str = Field(min_length=1, description="The path of the file to read")
    offset: int | None = Field(
        default=None, ge=0, description="The line number to start reading from (1-based)"
    )
    limit: int | None = Field(
        default=None,
        ge=1,
        description=f"The number of lines to read (default {DEFAULT_READ_LIMIT})",
    )


class WriteInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    file_path: str = Field(min_length=1, description="The path of the file to write")
    content: str = Field(description="The content to write to the file")


class EditInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    file_path: str = Field(min_length=1, description="The path of the file to modify")
    old_string: str = Field(description="The text to replace")
    new_string: str = Field(description="The text to replace it with (must differ from old_string)")
    replace_all: bool | None = Field(
        default=None, description="Replace every occurrence of old_string (default false)"
    )


class FileToolError(Exception):
    """A problem the model should read about (missing file, ambiguous edit...)."""


def looks_binary(path: Path) -> bool:
    if path.suffix.lower() in BINARY_SUFFIXES:
        return True
    with path.open("rb") as handle:
        return b"\x00" in handle.read(BINARY_SNIFF_BYTES)


def check_readable_file(path: Path) -> None:
    if not path.exists():
        raise FileToolError(f"File does not exist: {path}")
    if path.is_dir():
        raise FileToolError(f"{path} is a directory, not a file; use Glob or Bash `ls` to list it.")
    if looks_binary(path):
        raise FileToolError(f"Cannot read {path}: it appears to be a binary file.")


def atomic_write(path: Path, text: str) -> None:
    """Replace `path` with `text` in one rename, keeping an existing file's permission bits.

    A symlink is written through (its target is replaced), not replaced by a regular file.
    """
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = None
    temp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def structured_patch(old: str, new: str) -> list[dict[str, Any]]:
    """Unified-diff hunks in Claude Code's `structuredPatch` shape."""
    before, after = old.splitlines(), new.splitlines()
    hunks: list[dict[str, Any]] = []
    for group in difflib.SequenceMatcher(None, before, after, autojunk=False).get_grouped_opcodes(
        3
    ):
        lines: list[str] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines.extend(" " + line for line in before[i1:i2])
                continue
            lines.extend("-" + line for line in before[i1:i2])
            lines.extend("+" + line for line in after[j1:j2])
        first, last = group[0], group[-1]
        hunks.append(
            {
                "oldStart": first[1] + 1,
                "oldLines": last[2] - first[1],
                "newStart": first[3] + 1,
                "newLines": last[4] - first[3],
                "lines": lines,
            }
        )
    return hunks


def number_lines(lines: list[str], start: int) -> str:
    """`cat -n` layout: the line number right-aligned in six columns, a tab, the line."""
    return "\n".join(f"{number:>6}\t{line}" for number, line in enumerate(lines, start))


def _read(path: Path, offset: int | None, limit: int | None) -> ToolOutput:
    check_readable_file(path)
    start = max(offset or 1, 1)
    wanted = limit or DEFAULT_READ_LIMIT
    selected: list[str] = []
    total = 0
    with path.open("rb") as handle:
        for raw in handle:
            total += 1
            if start <= total < start + wanted:
                line = raw.decode("utf-8", errors="replace").rstrip("\n").removesuffix("\r")
                selected.append(line[:MAX_LINE_CHARS])
    if total == 0:
        content = EMPTY_FILE_NOTE
    elif not selected:
        content = (
            "<system-reminder>Warning: the file exists but is shorter than the provided offset "
            f"({start}). The file has {total} lines.</system-reminder>"
        )
    else:
        content = number_lines(selected, start)
    data = {
        "type": "text",
        "file": {
            "filePath": str(path),
            "content": "\n".join(selected),
            "numLines": len(selected),
            "startLine": start,
            "totalLines": total,
        },
    }
    return ToolOutput(content=content, data=data)


def write_message(created: bool, path: str) -> str:
    if created:
        return f"File created successfully at: {path}"
    return edit_message(path)


def edit_message(path: str) -> str:
    return f"The file {path} has been updated successfully."


def _write(path: Path, content: str) -> ToolOutput:
    if path.is_dir():
        raise FileToolError(f"{path} is a directory; cannot write a file there.")
    original: str | None = None
    if path.exists():
        original = path.read_text(encoding="utf-8", errors="replace")
    atomic_write(path, content)
    message = write_message(original is None, str(path))
    data = {
        "type": "create" if original is None else "update",
        "filePath": str(path),
        "content": content,
        "structuredPatch": [] if original is None else structured_patch(original, content),
        "originalFile": original,
    }
    return ToolOutput(content=message, data=data)


def _edit(path: Path, old: str, new: str, replace_all: bool) -> ToolOutput:
    check_readable_file(path)
    if old == new:
        raise FileToolError("No changes to make: old_string and new_string are exactly the same.")
    try:
        original = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise FileToolError(f"Cannot edit {path}: it is not valid UTF-8 text.") from None
    target, replacement = _match_line_endings(original, old, new)
    updated = _replace(original, target, replacement, replace_all)
    atomic_write(path, updated)
    message = edit_message(str(path))
    if not replace_all and target:
        at = original.index(target)
        message += "\n" + _snippet(updated, at, at + len(replacement))
    data = {
        "filePath": str(path),
        "oldString": old,
        "newString": new,
        "originalFile": original,
        "structuredPatch": structured_patch(original, updated),
        "userModified": False,
        "replaceAll": replace_all,
    }
    return ToolOutput(content=message, data=data)


def _match_line_endings(text: str, old: str, new: str) -> tuple[str, str]:
    """Let `\\n`-only strings from the model edit a CRLF file, as Read showed it without `\\r`."""
    if old in text or "\r\n" not in text or "\r" in old:
        return old, new
    return old.replace("\n", "\r\n"), new.replace("\n", "\r\n")


def _replace(text: str, old: str, new: str, replace_all: bool) -> str:
    if not old:
        if text:
            raise FileToolError(
                "old_string is empty but the file already has content; quote the text to replace."
            )
        return new
    count = text.count(old)
    if count == 0:
        raise FileToolError(f"String to replace not found in file.\nString: {old}")
    if count > 1 and not replace_all:
        raise FileToolError(
            f"Found {count} matches of the string to replace, but replace_all is false. To "
            "replace all occurrences, set replace_all to true. To replace only one occurrence, "
            f"provide more context to uniquely identify the instance.\nString: {old}"
        )
    return text.replace(old, new) if replace_all else text.replace(old, new, 1)


def _snippet(text: str, start: int, end: int) -> str:
    lines = text.splitlines()
    first = max(text.count("\n", 0, start) - SNIPPET_CONTEXT_LINES, 0)
    last = text.count("\n", 0, end) + SNIPPET_CONTEXT_LINES + 1
    shown = [line.removesuffix("\r") for line in lines[first:last]]
    return (
        "Here's the result of running `cat -n` on a snippet of the edited file:\n"
        + number_lines(shown, first + 1)
    )


async def _in_thread(func: Callable[..., ToolOutput], *args: Any) -> ToolOutput:
    try:
        return await asyncio.to_thread(func, *args)
    except FileToolError as exc:
        return failure(str(exc))
    except OSError as exc:
        return failure(describe_os_error(exc))


def describe_os_error(exc: OSError) -> str:
    reason = exc.strerror or str(exc)
    return f"{reason}: {exc.filename}" if exc.filename else reason


class ReadTool(ModelTool[ReadInput]):
    name = "Read"
    description = (
        "Reads a text file. file_path may be absolute or relative to the working directory. "
        f"Returns up to {DEFAULT_READ_LIMIT} lines by default, numbered like `cat -n`; use "
        "offset (1-based line) and limit to page through long files. Lines longer than "
        f"{MAX_LINE_CHARS} characters are truncated. Binary files cannot be read."
    )
    read_only = True
    args_model = ReadInput

    async def call(self, args: ReadInput, ctx: ToolContext) -> ToolOutput:
        path = resolve_path(ctx, args.file_path)
        return await _in_thread(_read, path, args.offset, args.limit)

    def render_response(self, response: Any) -> ToolOutput | None:
        return read_response(response, number_lines)


class WriteTool(ModelTool[WriteInput]):
    name = "Write"
    description = (
        "Writes a file, replacing it if it exists and creating missing parent directories. "
        "Prefer Edit for changing part of an existing file."
    )
    read_only = False
    args_model = WriteInput

    async def call(self, args: WriteInput, ctx: ToolContext) -> ToolOutput:
        path = resolve_path(ctx, args.file_path)
        return await _in_thread(_write, path, args.content)

    def render_response(self, response: Any) -> ToolOutput | None:
        return write_response(response, write_message)


class EditTool(ModelTool[EditInput]):
    name = "Edit"
    description = (
        "Replaces old_string with new_string in an existing file. old_string must match the "
        "file exactly (without the line-number prefix Read shows) and occur exactly once, "
        "unless replace_all is true, which replaces every occurrence."
    )
    read_only = False
    args_model = EditInput

    async def call(self, args: EditInput, ctx: ToolContext) -> ToolOutput:
        path = resolve_path(ctx, args.file_path)
        return await _in_thread(
            _edit, path, args.old_string, args.new_string, bool(args.replace_all)
        )

    def render_response(self, response: Any) -> ToolOutput | None:
        return edit_response(response, edit_message)
