from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from hookwright.runtime.tools import search
from hookwright.runtime.tools.base import Tool, ToolContext, ToolInputError, ToolOutput
from hookwright.runtime.tools.search import GlobTool, GrepTool, expand_braces, glob_to_regex


async def call(tool: Tool, ctx: ToolContext, **arguments: Any) -> ToolOutput:
    return await tool.run(tool.validate(arguments), ctx)


def make(root: Path, relative: str, text: str, age: int) -> Path:
    """Create a file whose mtime is `age` hours in the past (older files have larger ages)."""
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    stamp = 1_700_000_000 - age * 3600
    os.utime(path, (stamp, stamp))
    return path


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    make(tmp_path, "a.py", "import os\nprint('hello')\n", age=5)
    make(tmp_path, ".hidden.py", "secret = 1\n", age=6)
    make(tmp_path, "src/b.py", "def hello():\n    return 'Hello'\n", age=1)
    make(tmp_path, "src/deep/c.py", "x = 1\n", age=3)
    make(tmp_path, "src/d.txt", "hello from text\n", age=2)
    make(tmp_path, ".git/config.py", "hello = 'git'\n", age=0)
    make(tmp_path, "node_modules/m.py", "hello = 'npm'\n", age=0)
    make(tmp_path, ".venv/lib/v.py", "hello = 'venv'\n", age=0)
    (tmp_path / "image.bin").write_bytes(b"hello\x00\x01binary")
    return tmp_path


@pytest.fixture
def ctx(tree: Path) -> ToolContext:
    return ToolContext(cwd=tree)


# --- Glob -------------------------------------------------------------------------------------


async def test_glob_recursive_newest_first_skipping_vendored_dirs(
    ctx: ToolContext, tree: Path
) -> None:
    output = await call(GlobTool(), ctx, pattern="**/*.py")

    expected = [str(tree / p) for p in ("src/b.py", "src/deep/c.py", "a.py", ".hidden.py")]
    assert output.data == {"filenames": expected, "numFiles": 4, "truncated": False}
    assert output.content == "\n".join(expected)
    assert not output.is_error


async def test_glob_star_stays_in_one_directory(ctx: ToolContext, tree: Path) -> None:
    output = await call(GlobTool(), ctx, pattern="*.py")

    assert output.data is not None
    assert output.data["filenames"] == [str(tree / "a.py"), str(tree / ".hidden.py")]


async def test_glob_braces_and_static_prefix(ctx: ToolContext, tree: Path) -> None:
    output = await call(GlobTool(), ctx, pattern="src/**/*.{py,txt}")

    assert output.data is not None
    assert output.data["filenames"] == [
        str(tree / p) for p in ("src/b.py", "src/d.txt", "src/deep/c.py")
    ]


async def test_glob_relative_to_the_path_argument(ctx: ToolContext, tree: Path) -> None:
    output = await call(GlobTool(), ctx, pattern="*.py", path="src")

    assert output.data is not None
    assert output.data["filenames"] == [str(tree / "src/b.py")]


async def test_glob_absolute_pattern(ctx: ToolContext, tree: Path) -> None:
    output = await call(GlobTool(), ctx, pattern=f"{tree}/src/deep/*.py")

    assert output.data is not None
    assert output.data["filenames"] == [str(tree / "src/deep/c.py")]


async def test_glob_literal_path(ctx: ToolContext, tree: Path) -> None:
    output = await call(GlobTool(), ctx, pattern="src/d.txt")

    assert output.data is not None
    assert output.data["filenames"] == [str(tree / "src/d.txt")]


async def test_glob_pattern_naming_a_skipped_dir_searches_it(ctx: ToolContext, tree: Path) -> None:
    output = await call(GlobTool(), ctx, pattern="node_modules/**/*.py")

    assert output.data is not None
    assert output.data["filenames"] == [str(tree / "node_modules/m.py")]


async def test_glob_no_match(ctx: ToolContext) -> None:
    output = await call(GlobTool(), ctx, pattern="**/*.rs")

    assert output.content == "No files found"
    assert output.data == {"filenames": [], "numFiles": 0, "truncated": False}


async def test_glob_caps_at_100_newest(tmp_path: Path) -> None:
    for index in range(105):
        make(tmp_path, f"many/f{index:03}.txt", "", age=index)

    output = await call(GlobTool(), ToolContext(cwd=tmp_path), pattern="many/*.txt")

    assert output.data is not None
    assert output.data["truncated"] is True
    assert output.data["numFiles"] == 100
    assert output.data["filenames"][0] == str(tmp_path / "many/f000.txt")
    assert output.data["filenames"][-1] == str(tmp_path / "many/f099.txt")
    assert "truncated" in output.content.splitlines()[-1]


async def test_glob_missing_directory(ctx: ToolContext, tree: Path) -> None:
    output = await call(GlobTool(), ctx, pattern="*", path="nowhere")

    assert output.is_error
    assert output.content == f"Directory does not exist: {tree / 'nowhere'}"


async def test_glob_path_must_be_a_directory(ctx: ToolContext) -> None:
    output = await call(GlobTool(), ctx, pattern="*", path="a.py")

    assert output.is_error
    assert "not a directory" in output.content


def test_glob_requires_a_pattern() -> None:
    with pytest.raises(ToolInputError, match="pattern: field required"):
        GlobTool().validate({"path": "."})


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("*.py", "a.py", True),
        ("*.py", "src/a.py", False),
        ("**/*.py", "a.py", True),
        ("**/*.py", "src/deep/a.py", True),
        ("src/**", "src/x/y", True),
        ("src/**/test_*.py", "src/test_a.py", True),
        ("src/**/test_*.py", "srcx/test_a.py", False),
        ("file?.txt", "file1.txt", True),
        ("file?.txt", "file10.txt", False),
        ("[!a]*.c", "b.c", True),
        ("[!a]*.c", "a.c", False),
        ("*.{ts,tsx}", "x.tsx", True),
        ("*.{ts,tsx}", "x.js", False),
        ("{a,b{c,d}}.txt", "bd.txt", True),
        ("{single}.txt", "{single}.txt", True),
        ("a+b(1).txt", "a+b(1).txt", True),
    ],
)
def test_glob_to_regex(pattern: str, path: str, matches: bool) -> None:
    assert (glob_to_regex(pattern).match(path) is not None) is matches


def test_expand_braces_nested() -> None:
    assert expand_braces("x{a,b{c,d}}y") == ["xay", "xbcy", "xbdy"]


# --- Grep -------------------------------------------------------------------------------------


async def test_grep_lists_files_newest_first_by_default(ctx: ToolContext, tree: Path) -> None:
    output = await call(GrepTool(), ctx, pattern="hello")

    names = [str(tree / p) for p in ("src/b.py", "src/d.txt", "a.py")]
    assert output.data == {"mode": "files_with_matches", "filenames": names, "numFiles": 3}
    assert output.content == "Found 3 files\n" + "\n".join(names)


async def test_grep_ignore_case(ctx: ToolContext, tree: Path) -> None:
    exact = await call(GrepTool(), ctx, pattern="HELLO")
    folded = await call(GrepTool(), ctx, pattern="HELLO", **{"-i": True})

    assert exact.data is not None
    assert exact.data["filenames"] == []
    assert folded.data is not None
    assert folded.data["filenames"] == [str(tree / p) for p in ("src/b.py", "src/d.txt", "a.py")]


async def test_grep_content_mode_with_line_numbers(ctx: ToolContext, tree: Path) -> None:
    output = await call(GrepTool(), ctx, pattern="[Hh]ello", output_mode="content")

    lines = [
        f"{tree / 'a.py'}:2:print('hello')",
        f"{tree / 'src/b.py'}:1:def hello():",
        f"{tree / 'src/b.py'}:2:    return 'Hello'",
        f"{tree / 'src/d.txt'}:1:hello from text",
    ]
    assert output.content == "\n".join(lines)
    assert output.data == {
        "mode": "content",
        "filenames": [str(tree / p) for p in ("a.py", "src/b.py", "src/d.txt")],
        "numFiles": 3,
        "content": "\n".join(lines),
        "numLines": 4,
    }


async def test_grep_content_without_line_numbers_in_a_single_file(ctx: ToolContext) -> None:
    output = await call(
        GrepTool(), ctx, pattern="ello", path="src/b.py", output_mode="content", **{"-n": False}
    )

    assert output.content == "def hello():\n    return 'Hello'"


async def test_grep_context_lines_and_separators(tmp_path: Path) -> None:
    make(
        tmp_path, "f.txt", "".join(f"{n}{' hit' if n in (2, 9) else ''}\n" for n in range(1, 12)), 0
    )

    output = await call(
        GrepTool(),
        ToolContext(cwd=tmp_path),
        pattern="hit",
        path="f.txt",
        output_mode="content",
        **{"-C": 1},
    )

    assert output.content.splitlines() == ["1-1", "2:2 hit", "3-3", "--", "8-8", "9:9 hit", "10-10"]


async def test_grep_after_context_overrides_context(tmp_path: Path) -> None:
    make(tmp_path, "f.txt", "a\nhit\nb\nc\n", 0)

    output = await call(
        GrepTool(),
        ToolContext(cwd=tmp_path),
        pattern="hit",
        path="f.txt",
        output_mode="content",
        **{"-C": 1, "-A": 2},
    )

    assert output.content.splitlines() == ["1-a", "2:hit", "3-b", "4-c"]


async def test_grep_count_mode(ctx: ToolContext, tree: Path) -> None:
    output = await call(GrepTool(), ctx, pattern="l", output_mode="count", glob="*.py")

    entries = [f"{tree / 'a.py'}:1", f"{tree / 'src/b.py'}:2"]
    assert output.data == {
        "mode": "count",
        "filenames": [str(tree / "a.py"), str(tree / "src/b.py")],
        "numFiles": 2,
        "content": "\n".join(entries),
        "numMatches": 3,
    }
    assert output.content == "\n".join(entries) + "\n\nFound 3 total occurrences across 2 files."


@pytest.mark.parametrize(
    ("glob", "expected"),
    [
        ("*.txt", ["src/d.txt"]),
        ("!*.txt", ["src/b.py", "a.py"]),
        ("src/*", ["src/b.py", "src/d.txt"]),
        ("*.{py,txt}", ["src/b.py", "src/d.txt", "a.py"]),
    ],
)
async def test_grep_glob_filter(
    ctx: ToolContext, tree: Path, glob: str, expected: list[str]
) -> None:
    output = await call(GrepTool(), ctx, pattern="hello", glob=glob)

    assert output.data is not None
    assert output.data["filenames"] == [str(tree / p) for p in expected]


async def test_grep_multiline(tmp_path: Path) -> None:
    make(tmp_path, "m.py", "class A:\n    pass\nclass B(A):\n    x = 1\n", 0)
    ctx = ToolContext(cwd=tmp_path)

    single = await call(GrepTool(), ctx, pattern=r"B\(A\):.*x", output_mode="content")
    multi = await call(
        GrepTool(), ctx, pattern=r"B\(A\):.*x", output_mode="content", multiline=True
    )

    assert single.content == "No matches found"
    assert multi.content == f"{tmp_path / 'm.py'}:3:class B(A):\n{tmp_path / 'm.py'}:4:    x = 1"


async def test_grep_head_limit(ctx: ToolContext, tree: Path) -> None:
    files = await call(GrepTool(), ctx, pattern="hello", head_limit=1)
    lines = await call(
        GrepTool(), ctx, pattern="[Hh]ello", output_mode="content", head_limit=2, **{"-n": False}
    )

    assert files.data is not None
    assert files.data["filenames"] == [str(tree / "src/b.py")]
    assert lines.data is not None
    assert lines.data["numLines"] == 2
    assert lines.content.splitlines()[:2] == [
        f"{tree / 'a.py'}:print('hello')",
        f"{tree / 'src/b.py'}:def hello():",
    ]


async def test_grep_searches_skipped_dirs_when_pointed_at_them(
    ctx: ToolContext, tree: Path
) -> None:
    output = await call(GrepTool(), ctx, pattern="hello", path="node_modules")

    assert output.data is not None
    assert output.data["filenames"] == [str(tree / "node_modules/m.py")]


async def test_grep_caps_huge_output(tmp_path: Path) -> None:
    make(tmp_path, "big.txt", ("match " + "x" * 100 + "\n") * 5000, 0)

    output = await call(
        GrepTool(), ToolContext(cwd=tmp_path), pattern="match", output_mode="content"
    )

    assert len(output.content) < search.MAX_OUTPUT_CHARS + 1000
    assert "more lines not shown" in output.content.splitlines()[-1]


async def test_grep_invalid_regex(ctx: ToolContext) -> None:
    output = await call(GrepTool(), ctx, pattern="(unclosed")

    assert output.is_error
    assert output.content.startswith("Invalid regular expression '(unclosed'")


async def test_grep_missing_path(ctx: ToolContext, tree: Path) -> None:
    output = await call(GrepTool(), ctx, pattern="x", path="missing")

    assert output.is_error
    assert output.content == f"Path does not exist: {tree / 'missing'}"


async def test_grep_no_match(ctx: ToolContext) -> None:
    output = await call(GrepTool(), ctx, pattern="zzz_not_there")

    assert output.content == "No files found"
    assert output.data == {"mode": "files_with_matches", "filenames": [], "numFiles": 0}


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "pattern: field required"),
        ({"pattern": "x", "output_mode": "lines"}, "output_mode:"),
        ({"pattern": "x", "-A": -1}, "-A:"),
        ({"pattern": "x", "case_insensitive": True}, "case_insensitive: extra inputs"),
    ],
)
def test_grep_rejects_bad_arguments(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolInputError, match=message):
        GrepTool().validate(arguments)


def test_grep_validate_keeps_claude_code_flag_names() -> None:
    assert GrepTool().validate({"pattern": "x", "-i": True, "-n": False}) == {
        "pattern": "x",
        "-i": True,
        "-n": False,
    }
