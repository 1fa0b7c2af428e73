"""Glob and Grep, in pure Python so the agent needs no ripgrep.

Glob patterns follow the usual shell rules plus `**` (any number of directories) and `{a,b}`
alternatives; `*` also matches dot-files. Grep's `glob` filter follows ripgrep: a pattern with no
`/` is matched against the file name at any depth, one with `/` against the path below the
search root, and a leading `!` excludes. Both tools skip VCS metadata, `node_modules`, `.venv`,
`__pycache__` and linters' caches unless the pattern itself names such a directory; `.gitignore`
is not consulted.
"""

from __future__ import annotations

import asyncio
import os
import re
from bisect import bisect_right
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from hookwright.runtime.tools.base import (
    ModelTool,
    ToolContext,
    ToolOutput,
    failure,
    resolve_path,
)

GLOB_LIMIT = 100
MAX_OUTPUT_CHARS = 30_000
MAX_LINE_CHARS = 2000
BINARY_SNIFF_BYTES = 8192
_VCS_DIRS = (".git", ".hg", ".svn")
_CACHE_DIRS = ("__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache")
SKIP_DIRS = frozenset((*_VCS_DIRS, "node_modules", ".venv", *_CACHE_DIRS))
_MAGIC = re.compile(r"[*?\[{]")

OutputMode = Literal["content", "files_with_matches", "count"]


class GlobInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pattern: str = Field(min_length=1, description='The glob pattern, e.g. "**/*.py"')
    path: str | None = Field(
        default=None, description="The directory to search in (default: the working directory)"
    )


class GrepInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pattern: str = Field(min_length=1, description="The regular expression to search for")
    path: str | None = Field(
        default=None, description="File or directory to search (default: the working directory)"
    )
    glob: str | None = Field(
        default=None, description='Only search files matching this glob, e.g. "*.py"'
    )
    output_mode: OutputMode | None = Field(
        default=None,
        description='"content" (matching lines), "files_with_matches" (default) or "count"',
    )
    case_insensitive: bool | None = Field(default=None, alias="-i", description="Ignore case")
    line_numbers: bool | None = Field(
        default=None, alias="-n", description="Show line numbers (content mode; default true)"
    )
    after: int | None = Field(
        default=None, ge=0, alias="-A", description="Lines of context after each match"
    )
    before: int | None = Field(
        default=None, ge=0, alias="-B", description="Lines of context before each match"
    )
    context: int | None = Field(
        default=None, ge=0, alias="-C", description="Lines of context around each match"
    )
    multiline: bool | None = Field(
        default=None, description="Let the pattern span lines; `.` then matches newlines"
    )
    head_limit: int | None = Field(
        default=None, ge=0, description="Only return the first N lines or entries (0: all)"
    )


def expand_braces(pattern: str) -> list[str]:
    """`a{b,c{d,e}}` -> [ab, acd, ace]; braces without a top-level comma stay literal."""
    depth, start = 0, -1
    commas: list[int] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if char == "{":
            if depth == 0:
                start, commas = index, []
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0 and commas:
                bounds = [start, *commas, index]
                head, tail = pattern[:start], pattern[index + 1 :]
                return [
                    expanded
                    for left, right in pairwise(bounds)
                    for expanded in expand_braces(head + pattern[left + 1 : right] + tail)
                ]
        elif char == "," and depth == 1:
            commas.append(index)
        index += 1
    return [pattern]


def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """Compile a glob (with `**` and `{a,b}`) into a regex matched against `/`-separated paths."""
    alternatives = [_translate(alt) for alt in expand_braces(pattern)]
    return re.compile("(?:" + "|".join(alternatives) + r")\Z", re.DOTALL)


def _translate(pattern: str) -> str:
    out: list[str] = []
    index, size = 0, len(pattern)
    while index < size:
        char = pattern[index]
        if pattern.startswith("**", index) and (index == 0 or pattern[index - 1] == "/"):
            if index + 2 == size:
                out.append(".*")
                index += 2
                continue
            if pattern[index + 2] == "/":
                out.append("(?:.*/)?")
                index += 3
                continue
        if char == "*":
            while index + 1 < size and pattern[index + 1] == "*":
                index += 1
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find(
                "]", index + 2 if pattern[index + 1 : index + 2] == "]" else index + 1
            )
            if end == -1:
                out.append(re.escape(char))
            else:
                body = pattern[index + 1 : end]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                index = end
        elif char == "\\" and index + 1 < size:
            index += 1
            out.append(re.escape(pattern[index]))
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


def split_static_prefix(pattern: str) -> tuple[str, str]:
    """`src/app/**/*.ts` -> (`src/app`, `**/*.ts`): the part that needs no matching is walked to."""
    parts = pattern.split("/")
    for index, part in enumerate(parts):
        if _MAGIC.search(part):
            return "/".join(parts[:index]), "/".join(parts[index:])
    return "/".join(parts[:-1]), parts[-1]


def walk_files(
    root: Path, *, pattern_text: str = "", max_depth: int | None = None
) -> Iterator[Path]:
    """Every file under `root` (symlinked directories are not followed).

    Directories in SKIP_DIRS are pruned unless `pattern_text` names them.
    """
    named = set(re.split(r"[/{},!]", pattern_text))
    skip = SKIP_DIRS - named
    root_depth = len(root.parts)
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        depth = len(here.parts) - root_depth
        if max_depth is not None and depth >= max_depth:
            dirnames.clear()
        else:
            dirnames[:] = sorted(name for name in dirnames if name not in skip)
        for name in sorted(filenames):
            yield here / name


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def newest_first(paths: Iterable[Path]) -> list[Path]:
    return sorted(paths, key=lambda path: (-_mtime(path), str(path)))


def is_binary(path: Path) -> bool:
    with path.open("rb") as handle:
        return b"\x00" in handle.read(BINARY_SNIFF_BYTES)


def _glob(base: Path, pattern: str) -> ToolOutput:
    if not base.exists():
        return failure(f"Directory does not exist: {base}")
    if not base.is_dir():
        return failure(f"Path is not a directory: {base}")
    if os.path.isabs(pattern):
        base, pattern = Path("/"), pattern.lstrip("/")
    prefix, rest = split_static_prefix(pattern)
    root = Path(os.path.normpath(base / prefix)) if prefix else base
    if not _MAGIC.search(rest):
        candidate = root / rest
        found = [candidate] if candidate.is_file() else []
    else:
        regex = glob_to_regex(rest)
        max_depth = None if "**" in rest else rest.count("/")
        found = [
            path
            for path in walk_files(root, pattern_text=pattern, max_depth=max_depth)
            if regex.match(path.relative_to(root).as_posix())
        ]
    ordered = newest_first(found)
    shown = [str(path) for path in ordered[:GLOB_LIMIT]]
    truncated = len(ordered) > GLOB_LIMIT
    lines = list(shown) or ["No files found"]
    if truncated:
        lines.append(
            f"(Results are truncated to the {GLOB_LIMIT} most recently modified files. "
            "Use a more specific path or pattern.)"
        )
    data = {"filenames": shown, "numFiles": len(shown), "truncated": truncated}
    return ToolOutput(content="\n".join(lines), data=data)


@dataclass(slots=True, frozen=True)
class Line:
    number: int
    text: str
    is_match: bool


def with_context(
    lines: Iterable[str], is_match: Callable[[int, str], bool], before: int, after: int
) -> Generator[Line, None, None]:
    """Matching lines plus up to `before`/`after` lines of context around each, in order."""
    window: deque[tuple[int, str]] = deque(maxlen=before)
    trailing = 0
    for number, text in enumerate(lines, 1):
        if is_match(number, text):
            yield from (Line(n, t, False) for n, t in window)
            window.clear()
            yield Line(number, text, True)
            trailing = after
        elif trailing:
            yield Line(number, text, False)
            trailing -= 1
        else:
            window.append((number, text))


def _stream_lines(path: Path) -> Iterator[str]:
    with path.open("rb") as handle:
        for raw in handle:
            yield raw.decode("utf-8", errors="replace").rstrip("\n").removesuffix("\r")


def scan_file(
    path: Path, regex: re.Pattern[str], multiline: bool, before: int, after: int
) -> Generator[Line, None, None]:
    """The matching lines of one file, with context; lines are streamed unless `multiline`."""
    if not multiline:
        return with_context(
            _stream_lines(path), lambda _, text: regex.search(text) is not None, before, after
        )
    text = path.read_bytes().decode("utf-8", errors="replace")
    starts = [0, *(match.end() for match in re.finditer("\n", text))]
    matched: set[int] = set()
    for match in regex.finditer(text):
        first = bisect_right(starts, match.start())
        last = bisect_right(starts, max(match.end() - 1, match.start()))
        matched.update(range(first, last + 1))
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    if text.endswith("\n"):
        lines.pop()
    return with_context(lines, lambda number, _: number in matched, before, after)


@dataclass(slots=True)
class GrepOptions:
    regex: re.Pattern[str]
    mode: OutputMode
    multiline: bool
    line_numbers: bool
    before: int
    after: int
    head_limit: int | None


def compile_file_filter(glob: str | None) -> Callable[[str], bool]:
    """ripgrep-style `--glob`: the argument is a path relative to the search root."""
    if not glob:
        return lambda _: True
    exclude = glob.startswith("!")
    pattern = glob[1:] if exclude else glob
    regex = glob_to_regex(pattern.lstrip("/"))
    by_name = "/" not in pattern

    def accepts(relative: str) -> bool:
        target = relative.rsplit("/", 1)[-1] if by_name else relative
        return (regex.match(target) is not None) != exclude

    return accepts


def _grep(root: Path, glob: str | None, options: GrepOptions) -> ToolOutput:
    if not root.exists():
        return failure(f"Path does not exist: {root}")
    single = root.is_file()
    if single:
        candidates: Iterable[Path] = [root]
    else:
        accepts = compile_file_filter(glob)
        candidates = (
            path
            for path in walk_files(root, pattern_text=glob or "")
            if accepts(path.relative_to(root).as_posix())
        )
    report = _Report(options, show_path=not single)
    for path in candidates:
        try:
            if is_binary(path):
                continue
            report.add(
                path,
                scan_file(path, options.regex, options.multiline, options.before, options.after),
            )
        except OSError:
            continue
    return report.output()


class _Report:
    """Accumulates Grep results with bounded memory and renders them per output mode."""

    def __init__(self, options: GrepOptions, *, show_path: bool) -> None:
        self._options = options
        self._show_path = show_path
        self._context = options.before > 0 or options.after > 0
        self._separator_due = False
        self._chars = 0
        self.files: list[Path] = []
        self.counts: list[int] = []
        self.lines: list[str] = []
        self.lines_total = 0
        self.matches_total = 0

    def add(self, path: Path, hits: Generator[Line, None, None]) -> None:
        try:
            if self._options.mode == "files_with_matches":
                if any(line.is_match for line in hits):
                    self.files.append(path)
                return
            count = self._consume(path, hits)
        finally:
            hits.close()
        if count:
            self.files.append(path)
            self.counts.append(count)
            self.matches_total += count

    def _consume(self, path: Path, hits: Iterator[Line]) -> int:
        count = 0
        previous = 0
        for line in hits:
            count += line.is_match
            if self._options.mode != "content":
                continue
            if self._separator_due or (self._context and previous and line.number > previous + 1):
                self._keep("--")
            self._separator_due = False
            self._keep(self._format(path, line))
            previous = line.number
        if count and self._context:
            self._separator_due = True
        return count

    def _format(self, path: Path, line: Line) -> str:
        separator = ":" if line.is_match else "-"
        prefix = f"{path}{separator}" if self._show_path else ""
        if self._options.line_numbers:
            prefix += f"{line.number}{separator}"
        return prefix + line.text[:MAX_LINE_CHARS]

    def _keep(self, text: str) -> None:
        self.lines_total += 1
        if self._chars < MAX_OUTPUT_CHARS:
            self.lines.append(text)
            self._chars += len(text) + 1

    def output(self) -> ToolOutput:
        if self._options.mode == "files_with_matches":
            return self._files_output()
        if self._options.mode == "count":
            return self._count_output()
        return self._content_output()

    def _files_output(self) -> ToolOutput:
        ordered = newest_first(self.files)[: self._options.head_limit or None]
        names = [str(path) for path in ordered]
        data: dict[str, Any] = {"mode": "files_with_matches", "filenames": names}
        data["numFiles"] = len(names)
        if not names:
            return ToolOutput(content="No files found", data=data)
        header = f"Found {len(names)} {_plural(len(names), 'file')}"
        return ToolOutput(content="\n".join([header, *names]), data=data)

    def _count_output(self) -> ToolOutput:
        names = [str(path) for path in self.files]
        entries = [f"{name}:{count}" for name, count in zip(names, self.counts, strict=True)]
        shown = entries[: self._options.head_limit or None]
        text = "\n".join(shown)
        data: dict[str, Any] = {
            "mode": "count",
            "filenames": names,
            "numFiles": len(names),
            "content": text,
            "numMatches": self.matches_total,
        }
        if not shown:
            return ToolOutput(content="No matches found", data=data)
        summary = (
            f"Found {self.matches_total} total {_plural(self.matches_total, 'occurrence')} "
            f"across {len(names)} {_plural(len(names), 'file')}."
        )
        return ToolOutput(content=f"{text}\n\n{summary}", data=data)

    def _content_output(self) -> ToolOutput:
        limit = self._options.head_limit or None
        shown = self.lines[:limit]
        body = "\n".join(shown)
        available = self.lines_total if limit is None else min(self.lines_total, limit)
        data: dict[str, Any] = {
            "mode": "content",
            "filenames": [str(path) for path in self.files],
            "numFiles": len(self.files),
            "content": body,
            "numLines": len(shown),
        }
        text = body or "No matches found"
        if available > len(shown):
            text += (
                f"\n\n[Output truncated: {available - len(shown)} more lines not shown; "
                "narrow the search or use head_limit]"
            )
        return ToolOutput(content=text, data=data)


def _plural(count: int, word: str) -> str:
    return word if count == 1 else word + "s"


class GlobTool(ModelTool[GlobInput]):
    name = "Glob"
    description = (
        'Finds files by glob pattern, e.g. "**/*.py" or "src/**/*.{ts,tsx}", relative to path '
        f"(default: the working directory). Returns absolute paths, most recently modified "
        f"first, at most {GLOB_LIMIT}."
    )
    read_only = True
    args_model = GlobInput

    async def call(self, args: GlobInput, ctx: ToolContext) -> ToolOutput:
        base = resolve_path(ctx, args.path or ".")
        return await asyncio.to_thread(_glob, base, args.pattern)


class GrepTool(ModelTool[GrepInput]):
    name = "Grep"
    description = (
        "Searches file contents with a Python regular expression. Filter files with glob "
        '(e.g. "*.py"). output_mode "files_with_matches" (default) lists files, "content" '
        'shows matching lines (with -n line numbers and -A/-B/-C context), "count" counts '
        "matching lines per file. Use multiline for patterns that span lines. Binary files, "
        ".git, node_modules and .venv are skipped."
    )
    read_only = True
    args_model = GrepInput

    async def call(self, args: GrepInput, ctx: ToolContext) -> ToolOutput:
        flags = re.IGNORECASE if args.case_insensitive else 0
        if args.multiline:
            flags |= re.MULTILINE | re.DOTALL
        try:
            regex = re.compile(args.pattern, flags)
        except re.error as exc:
            return failure(f"Invalid regular expression {args.pattern!r}: {exc}")
        context = args.context or 0
        options = GrepOptions(
            regex=regex,
            mode=args.output_mode or "files_with_matches",
            multiline=bool(args.multiline),
            line_numbers=args.line_numbers is not False,
            before=args.before if args.before is not None else context,
            after=args.after if args.after is not None else context,
            head_limit=args.head_limit,
        )
        root = resolve_path(ctx, args.path or ".")
        return await asyncio.to_thread(_grep, root, args.glob, options)
