"""Read, Write and Edit: the file tools, with Claude Code's argument names, result shapes and
result texts (measured against Claude Code 2.1.240).

A relative `file_path` is taken from the session's shell directory; results name the path as
the model wrote it. Read counts lines as JavaScript's `split("\\n")` does (a final newline
ends with an empty line) and numbers them `N<tab>line`.

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
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from hookwright.runtime.tools.base import (
    InputCheck,
    ModelTool,
    ToolContext,
    ToolOutput,
    absolute_path,
    failure,
    resolve_path,
)
from hookwright.runtime.tools.path_hint import missing_file_message
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
FRESH_STATE = "(file state is current in your context \u2014 no need to Read it back)"
NO_NEWLINE_MARK = "\\ No newline at end of file"


class ReadInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # The bounds are shown to the model and not enforced: Claude Code reads an empty path, a
    # negative offset or a limit of 0 (measured), so the call reaches its hooks and runs.
    file_path: str = Field(
        description="The path of the file to read", json_schema_extra={"minLength": 1}
    )
    offset: int | None = Field(
        default=None,
        description="The line number to start reading from (1-based)",
        json_schema_extra={"minimum": 0},
    )
    limit: int | None = Field(
        default=None,
        description=f"The number of lines to read (default {DEFAULT_READ_LIMIT})",
        json_schema_extra={"minimum": 1},
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


def check_file_to_read(path: Path, cwd: Path, plain_hint_extensions: bool = False) -> None:
    """Read's own errors, worded as Claude Code words them (a missing file's hint: `path_hint`,
    `plain_hint_extensions` as the profile's)."""
    if not path.exists():
        raise FileToolError(missing_file_message(path, cwd, plain_extensions=plain_hint_extensions))
    if path.is_dir():
        raise FileToolError(f"EISDIR: illegal operation on a directory, read '{path}'")
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


def _patch_lines(text: str) -> list[str]:
    """`text` as lines that keep their `\\n`, so a missing final newline is a difference."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    return [*lines, parts[-1]] if parts[-1] else lines


def _hunk_lines(sign: str, lines: list[str], start: int, total: int) -> list[str]:
    """`sign`ed diff lines for a run starting at line index `start` of a `total`-line file; the
    file's last line, when it has no newline, is followed by the `\\ No newline` mark."""
    out: list[str] = []
    for offset, line in enumerate(lines):
        out.append(sign + line.removesuffix("\n"))
        if start + offset == total - 1 and not line.endswith("\n"):
            out.append(NO_NEWLINE_MARK)
    return out


def structured_patch(old: str, new: str) -> list[dict[str, Any]]:
    """Unified-diff hunks in Claude Code's `structuredPatch` shape."""
    before, after = _patch_lines(old), _patch_lines(new)
    hunks: list[dict[str, Any]] = []
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for group in matcher.get_grouped_opcodes(3):
        lines: list[str] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines.extend(_hunk_lines(" ", before[i1:i2], i1, len(before)))
                continue
            lines.extend(_hunk_lines("-", before[i1:i2], i1, len(before)))
            lines.extend(_hunk_lines("+", after[j1:j2], j1, len(after)))
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
    """Claude Code's layout: the line number, a tab, the line."""
    return "\n".join(f"{number}\t{line}" for number, line in enumerate(lines, start))


def _split_lines(path: Path) -> Iterator[str]:
    """The file's lines as JavaScript's `text.split("\\n")` gives them (a final newline ends
    with an empty line), decoded as UTF-8 with a trailing `\\r` dropped."""
    last = b"\n"
    with path.open("rb") as handle:
        for raw in handle:
            last = raw
            yield raw.decode("utf-8", errors="replace").rstrip("\n").removesuffix("\r")
    if last.endswith(b"\n"):
        yield ""


def _read(path: Path, offset: int | None, limit: int | None, ctx: ToolContext) -> ToolOutput:
    check_file_to_read(path, ctx.cwd, ctx.plain_hint_extensions)
    start = max(offset or 1, 1)
    wanted = limit or DEFAULT_READ_LIMIT
    selected: list[str] = []
    total = 0
    for line in _split_lines(path):
        total += 1
        if start <= total < start + wanted:
            selected.append(line[:MAX_LINE_CHARS])
    if selected == [""] and total == 1:
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
    """The Write tool's sentence for the file it wrote."""
    if created:
        return f"File created successfully at: {path} {FRESH_STATE}"
    return f"The file {path} has been updated successfully. {FRESH_STATE}"


def edit_message(path: str, replace_all: bool, in_context: bool = True) -> str:
    """The Edit tool's sentence for the file it edited; without the note that the model's copy
    is current when the model had not read the file (`in_context` False)."""
    note = f" {FRESH_STATE}" if in_context else ""
    if replace_all:
        return (
            f"The file {path} has been updated. All occurrences were successfully replaced.{note}"
        )
    return f"The file {path} has been updated successfully.{note}"


def _write(path: Path, shown: str, content: str) -> ToolOutput:
    if path.is_dir():
        raise FileToolError("EISDIR: illegal operation on a directory, read")
    original: str | None = None
    if path.exists():
        original = path.read_text(encoding="utf-8", errors="replace")
    atomic_write(path, content)
    message = write_message(original is None, shown)
    data = {
        "type": "create" if original is None else "update",
        "filePath": shown,
        "content": content,
        "structuredPatch": [] if original is None else structured_patch(original, content),
        "originalFile": original,
        "userModified": False,
    }
    return ToolOutput(content=message, data=data)


def _edit(
    path: Path, shown: str, old: str, new: str, replace_all: bool, in_context: bool
) -> ToolOutput:
    original = _edit_source(path, old)
    if old == new:
        raise FileToolError("No changes to make: old_string and new_string are exactly the same.")
    target, replacement = _match_line_endings(original, old, new)
    updated = _replace(original, target, replacement, replace_all)
    atomic_write(path, updated)
    message = edit_message(shown, replace_all, in_context)
    data: dict[str, Any] = {
        "filePath": shown,
        "oldString": old,
        "newString": new,
        "originalFile": original,
        "structuredPatch": structured_patch(original, updated),
        "userModified": False,
        "replaceAll": replace_all,
    }
    if not in_context:
        data["contentNotInModelContext"] = True
    return ToolOutput(content=message, data=data)


def _edit_source(path: Path, old: str) -> str:
    """The text an Edit of `path` starts from: empty for a missing file and an empty `old`
    (Claude Code creates the file, measured with 2.1.240 and 2.1.332)."""
    if not old and not path.exists():
        return ""
    check_readable_file(path)
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise FileToolError(f"Cannot edit {path}: it is not valid UTF-8 text.") from None


def _blank(text: str) -> bool:
    """Whether `text` holds only whitespace, as JavaScript's `trim()` sees it."""
    return not text.replace("\ufeff", "").strip()


def _match_line_endings(text: str, old: str, new: str) -> tuple[str, str]:
    """Let `\\n`-only strings from the model edit a CRLF file, as Read showed it without `\\r`."""
    if old in text or "\r\n" not in text or "\r" in old:
        return old, new
    return old.replace("\n", "\r\n"), new.replace("\n", "\r\n")


def _replace(text: str, old: str, new: str, replace_all: bool) -> str:
    if not old:
        if not _blank(text):
            raise FileToolError(
                "old_string is empty but the file already has content; quote the text to replace."
            )
        return new
    problem = _match_problem(text, old, old, replace_all)
    if problem is not None:
        raise FileToolError(problem)
    return text.replace(old, new) if replace_all else text.replace(old, new, 1)


def _match_problem(text: str, target: str, shown: str, replace_all: bool) -> str | None:
    """Why `target` cannot be replaced in `text` (quoting the model's `shown` string); None:
    it can."""
    count = text.count(target)
    if count == 0:
        return f"String to replace not found in file.\nString: {shown}"
    if count > 1 and not replace_all:
        return (
            f"Found {count} matches of the string to replace, but replace_all is false. To "
            "replace all occurrences, set replace_all to true. To replace only one occurrence, "
            f"please provide more context to uniquely identify the instance.\nString: {shown}"
        )
    return None


def edit_refusal(
    arguments: Mapping[str, Any], cwd: Path, plain_hint_extensions: bool = False
) -> str | None:
    """Claude Code's refusal of an Edit before any hook runs (measured with 2.1.240 and
    2.1.332: the model reads it in ``<tool_use_error>``, no PreToolUse or PostToolUse runs):
    nothing to change, a folder, a missing file (unless `old_string` is empty: the Edit creates
    it), an empty `old_string` for a file with more than whitespace,
    an `old_string` the file does not hold, or holds more than once without `replace_all`.
    None: the Edit goes on to its hooks (an input of the wrong shape is the schema's)."""
    raw, old, new = (arguments.get(key) for key in ("file_path", "old_string", "new_string"))
    if not (isinstance(raw, str) and isinstance(old, str) and isinstance(new, str)):
        return None
    if old == new:
        return "No changes to make: old_string and new_string are exactly the same."
    path = absolute_path(cwd, raw)
    if path.is_dir():
        return "Error calling tool (Edit): EISDIR: illegal operation on a directory, read"
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        if not old:
            return None
        return missing_file_message(path, cwd, plain_extensions=plain_hint_extensions)
    except (OSError, UnicodeDecodeError):
        return None  # the Edit itself reports it, after its hooks
    if not old:
        return None if _blank(text) else "Cannot create new file - file already exists."
    target = _match_line_endings(text, old, new)[0]
    return _match_problem(text, target, old, arguments.get("replace_all") is True)


async def _tracked(
    ctx: ToolContext, path: Path, func: Callable[..., ToolOutput], *args: Any
) -> ToolOutput:
    """`func(*args)` in a thread; `path` is in the model's context after it succeeds."""
    output = await _in_thread(func, *args)
    if not output.is_error and ctx.files_in_context is not None:
        ctx.files_in_context.add(path)
    return output


def _in_context(ctx: ToolContext, path: Path) -> bool:
    """Whether an Edit of `path` finds it in the model's context (as Claude Code's Edit tells
    the model, per profile: read or written before in this session; measured: an Edit does
    not count)."""
    tracked = ctx.files_in_context
    return not ctx.marks_unread_edits or tracked is None or path in tracked


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


def _below(value: Any, bound: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value < bound


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
    path_fields = ("file_path",)

    @staticmethod
    def shown_input(arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The input as PreToolUse and PostToolUse hooks read it: a negative `offset` and a
        `limit` below 1 left out, an empty `file_path` as the working directory (measured with
        2.1.240 and 2.1.332: Claude Code reads the file from its start, whole)."""
        shown = {
            key: value
            for key, value in arguments.items()
            if not ((key == "offset" and _below(value, 0)) or (key == "limit" and _below(value, 1)))
        }
        if shown.get("file_path") == "":
            shown["file_path"] = "."
        return shown

    async def call(self, args: ReadInput, ctx: ToolContext) -> ToolOutput:
        path = resolve_path(ctx, args.file_path)
        return await _tracked(ctx, path, _read, path, args.offset, args.limit, ctx)

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
    path_fields = ("file_path",)

    async def refusal(self, arguments: Mapping[str, Any], check: InputCheck) -> str | None:
        """A folder as `file_path`, where the profile refuses it before any hook (measured:
        2.1.332, in these words; 2.1.240 runs PreToolUse and fails with ``EISDIR: illegal
        operation on a directory, read``)."""
        raw = arguments.get("file_path")
        if not check.refuses_folder_writes or not isinstance(raw, str):
            return None
        if not await asyncio.to_thread(absolute_path(check.cwd, raw).is_dir):
            return None
        return (
            f"{raw} is a directory, not a file. To create a file inside it, include the file "
            "name in file_path."
        )

    async def call(self, args: WriteInput, ctx: ToolContext) -> ToolOutput:
        path = resolve_path(ctx, args.file_path)
        return await _tracked(ctx, path, _write, path, args.file_path, args.content)

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
    path_fields = ("file_path",)
    input_defaults = MappingProxyType({"replace_all": False})

    async def refusal(self, arguments: Mapping[str, Any], check: InputCheck) -> str | None:
        return await asyncio.to_thread(
            edit_refusal, arguments, check.cwd, check.plain_hint_extensions
        )

    async def call(self, args: EditInput, ctx: ToolContext) -> ToolOutput:
        path = resolve_path(ctx, args.file_path)
        edit = (args.file_path, args.old_string, args.new_string, bool(args.replace_all))
        if not args.old_string and not await asyncio.to_thread(path.exists):
            # Creating the file puts it in the model's context, as a Write does.
            return await _tracked(ctx, path, _edit, path, *edit, True)
        return await _in_thread(_edit, path, *edit, _in_context(ctx, path))

    def render_response(self, response: Any) -> ToolOutput | None:
        return edit_response(response, edit_message)
