from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from hookwright.runtime.tools.base import Tool, ToolContext, ToolInputError, ToolOutput
from hookwright.runtime.tools.files import EditTool, ReadTool, WriteTool, structured_patch


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path)


async def call(tool: Tool, ctx: ToolContext, **arguments: Any) -> ToolOutput:
    return await tool.run(tool.validate(arguments), ctx)


def assert_failed(output: ToolOutput, fragment: str) -> None:
    assert output.is_error
    assert fragment in output.content
    assert output.error == output.content


# --- Read -------------------------------------------------------------------------------------


async def test_read_numbers_lines_as_claude_code_does(ctx: ToolContext) -> None:
    path = ctx.cwd / "notes.txt"
    path.write_text("alpha\nbeta\ngamma\n")

    output = await call(ReadTool(), ctx, file_path=str(path))

    assert output.content == "1\talpha\n2\tbeta\n3\tgamma\n4\t"
    assert output.data == {
        "type": "text",
        "file": {
            "filePath": str(path),
            "content": "alpha\nbeta\ngamma\n",
            "numLines": 4,
            "startLine": 1,
            "totalLines": 4,
        },
    }
    assert not output.is_error


async def test_read_of_a_file_without_a_final_newline(ctx: ToolContext) -> None:
    path = ctx.cwd / "nonl.txt"
    path.write_text("x\ny")

    output = await call(ReadTool(), ctx, file_path=str(path))

    assert output.content == "1\tx\n2\ty"
    assert output.data is not None
    assert (output.data["file"]["content"], output.data["file"]["totalLines"]) == ("x\ny", 2)


async def test_read_resolves_relative_paths_against_the_session_cwd(ctx: ToolContext) -> None:
    (ctx.cwd / "sub").mkdir()
    (ctx.cwd / "sub" / "f.txt").write_text("x")

    output = await call(ReadTool(), ctx, file_path="sub/../sub/f.txt")

    assert output.data is not None
    assert output.data["file"]["filePath"] == str(ctx.cwd / "sub" / "f.txt")
    assert output.content == "1\tx"


async def test_read_offset_is_one_based_and_limit_counts_lines(ctx: ToolContext) -> None:
    path = ctx.cwd / "ten.txt"
    path.write_text("".join(f"line {n}\n" for n in range(1, 11)))

    output = await call(ReadTool(), ctx, file_path=str(path), offset=4, limit=2)

    assert output.content == "4\tline 4\n5\tline 5"
    assert output.data is not None
    assert output.data["file"] == {
        "filePath": str(path),
        "content": "line 4\nline 5",
        "numLines": 2,
        "startLine": 4,
        "totalLines": 11,
    }


async def test_read_defaults_to_2000_lines_and_truncates_long_lines(ctx: ToolContext) -> None:
    path = ctx.cwd / "big.txt"
    path.write_text("y" * 2500 + "\n" + "".join(f"{n}\n" for n in range(2, 2501)))

    output = await call(ReadTool(), ctx, file_path=str(path))

    lines = output.content.split("\n")
    assert len(lines) == 2000
    assert lines[0] == "1\t" + "y" * 2000
    assert lines[-1] == "2000\t2000"
    assert output.data is not None
    assert output.data["file"]["numLines"] == 2000
    assert output.data["file"]["totalLines"] == 2501


async def test_read_hides_carriage_returns_and_replaces_invalid_utf8(ctx: ToolContext) -> None:
    path = ctx.cwd / "dos.txt"
    path.write_bytes(b"one\r\ntw\xffo\r\n")

    output = await call(ReadTool(), ctx, file_path=str(path))

    assert output.content == "1\tone\n2\ttw\ufffdo\n3\t"


async def test_read_past_the_end_warns_without_failing(ctx: ToolContext) -> None:
    path = ctx.cwd / "short.txt"
    path.write_text("a\nb\n")

    output = await call(ReadTool(), ctx, file_path=str(path), offset=5)

    assert not output.is_error
    assert "shorter than the provided offset (5)" in output.content
    assert "The file has 3 lines" in output.content


async def test_read_empty_file_warns(ctx: ToolContext) -> None:
    path = ctx.cwd / "empty.txt"
    path.touch()

    output = await call(ReadTool(), ctx, file_path=str(path))

    assert not output.is_error
    assert "contents are empty" in output.content
    assert output.data is not None
    assert output.data["file"] == {
        "filePath": str(path),
        "content": "",
        "numLines": 1,
        "startLine": 1,
        "totalLines": 1,
    }


async def test_read_missing_file(ctx: ToolContext) -> None:
    output = await call(ReadTool(), ctx, file_path="nope.txt")

    assert_failed(
        output, f"File does not exist. Note: your current working directory is {ctx.cwd}."
    )


async def test_read_directory(ctx: ToolContext) -> None:
    output = await call(ReadTool(), ctx, file_path=str(ctx.cwd))

    assert_failed(output, f"EISDIR: illegal operation on a directory, read '{ctx.cwd}'")


async def test_read_binary_file(ctx: ToolContext) -> None:
    (ctx.cwd / "blob").write_bytes(b"ELF\x00\x01\x02")

    output = await call(ReadTool(), ctx, file_path="blob")

    assert_failed(output, "binary")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "file_path: field required"),
        ({"file_path": "a", "pages": "1"}, "pages: extra inputs are not permitted"),
    ],
)
def test_read_rejects_bad_arguments(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolInputError, match=message):
        ReadTool().validate(arguments)


@pytest.mark.parametrize(
    "arguments",
    [{"file_path": "a", "offset": -1}, {"file_path": "a", "limit": 0}, {"file_path": ""}],
)
def test_read_takes_what_claude_codes_schema_takes(arguments: dict[str, Any]) -> None:
    """The bounds shown to the model are not enforced (as in Claude Code, measured)."""
    assert ReadTool().validate(arguments) == arguments


# --- Write ------------------------------------------------------------------------------------


async def test_write_creates_parents_and_reports_create(ctx: ToolContext) -> None:
    output = await call(WriteTool(), ctx, file_path="a/b/new.txt", content="hello\n")

    path = ctx.cwd / "a" / "b" / "new.txt"
    assert path.read_text() == "hello\n"
    assert output.content == (
        "File created successfully at: a/b/new.txt (file state is current in your context "
        "\u2014 no need to Read it back)"
    )
    assert output.data == {
        "type": "create",
        "filePath": "a/b/new.txt",
        "content": "hello\n",
        "structuredPatch": [],
        "originalFile": None,
        "userModified": False,
    }


async def test_write_new_file_gets_umask_permissions(ctx: ToolContext) -> None:
    umask = os.umask(0)
    os.umask(umask)

    await call(WriteTool(), ctx, file_path="perm.txt", content="x")

    assert stat.S_IMODE((ctx.cwd / "perm.txt").stat().st_mode) == 0o666 & ~umask


async def test_write_update_keeps_mode_and_leaves_no_temp_files(ctx: ToolContext) -> None:
    path = ctx.cwd / "conf.ini"
    path.write_text("a\nb\n")
    path.chmod(0o640)

    output = await call(WriteTool(), ctx, file_path=str(path), content="a\nB\n")

    assert path.read_text() == "a\nB\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in ctx.cwd.iterdir()) == ["conf.ini"]
    assert output.data == {
        "type": "update",
        "filePath": str(path),
        "content": "a\nB\n",
        "structuredPatch": [
            {
                "oldStart": 1,
                "oldLines": 2,
                "newStart": 1,
                "newLines": 2,
                "lines": [" a", "-b", "+B"],
            }
        ],
        "originalFile": "a\nb\n",
        "userModified": False,
    }
    assert output.content == (
        f"The file {path} has been updated successfully. (file state is current in your "
        "context \u2014 no need to Read it back)"
    )


async def test_write_marks_a_missing_final_newline_in_the_patch(ctx: ToolContext) -> None:
    (ctx.cwd / "rel.txt").write_text("rel")

    output = await call(WriteTool(), ctx, file_path="rel.txt", content="rel2")

    assert output.data is not None
    assert output.data["filePath"] == "rel.txt"
    assert output.data["structuredPatch"] == [
        {
            "oldStart": 1,
            "oldLines": 1,
            "newStart": 1,
            "newLines": 1,
            "lines": [
                "-rel",
                "\\ No newline at end of file",
                "+rel2",
                "\\ No newline at end of file",
            ],
        }
    ]


async def test_write_through_a_symlink_updates_its_target(ctx: ToolContext) -> None:
    target = ctx.cwd / "target.txt"
    target.write_text("old")
    link = ctx.cwd / "link.txt"
    link.symlink_to(target)

    await call(WriteTool(), ctx, file_path=str(link), content="new")

    assert link.is_symlink()
    assert target.read_text() == "new"


async def test_write_onto_a_directory_fails(ctx: ToolContext) -> None:
    (ctx.cwd / "d").mkdir()

    output = await call(WriteTool(), ctx, file_path="d", content="x")

    assert_failed(output, "EISDIR: illegal operation on a directory")


async def test_write_below_a_regular_file_fails_cleanly(ctx: ToolContext) -> None:
    (ctx.cwd / "plain").write_text("x")

    output = await call(WriteTool(), ctx, file_path="plain/child.txt", content="x")

    assert output.is_error
    assert (ctx.cwd / "plain").read_text() == "x"


def test_write_requires_content() -> None:
    with pytest.raises(ToolInputError, match="content: field required"):
        WriteTool().validate({"file_path": "x"})


# --- Edit -------------------------------------------------------------------------------------


async def test_edit_replaces_a_unique_string(ctx: ToolContext) -> None:
    path = ctx.cwd / "app.py"
    original = "def f():\n    return 1\n"
    path.write_text(original)

    output = await call(
        EditTool(), ctx, file_path="app.py", old_string="return 1", new_string="return 2"
    )

    assert path.read_text() == "def f():\n    return 2\n"
    assert output.data == {
        "filePath": "app.py",
        "oldString": "return 1",
        "newString": "return 2",
        "originalFile": original,
        "structuredPatch": [
            {
                "oldStart": 1,
                "oldLines": 2,
                "newStart": 1,
                "newLines": 2,
                "lines": [" def f():", "-    return 1", "+    return 2"],
            }
        ],
        "userModified": False,
        "replaceAll": False,
    }
    assert output.content == (
        "The file app.py has been updated successfully. (file state is current in your context "
        "\u2014 no need to Read it back)"
    )


async def test_edit_replace_all(ctx: ToolContext) -> None:
    path = ctx.cwd / "t.txt"
    path.write_text("x = 1\ny = x + x\n")

    output = await call(
        EditTool(), ctx, file_path=str(path), old_string="x", new_string="z", replace_all=True
    )

    assert path.read_text() == "z = 1\ny = z + z\n"
    assert output.data is not None
    assert output.data["replaceAll"] is True
    assert output.content == (
        f"The file {path} has been updated. All occurrences were successfully replaced. (file "
        "state is current in your context \u2014 no need to Read it back)"
    )


async def test_edit_not_found_leaves_file_alone(ctx: ToolContext) -> None:
    path = ctx.cwd / "t.txt"
    path.write_text("abc")

    output = await call(EditTool(), ctx, file_path=str(path), old_string="xyz", new_string="q")

    assert_failed(output, "String to replace not found in file.\nString: xyz")
    assert path.read_text() == "abc"


async def test_edit_ambiguous_match_says_how_many(ctx: ToolContext) -> None:
    path = ctx.cwd / "t.txt"
    path.write_text("a a a")

    output = await call(EditTool(), ctx, file_path=str(path), old_string="a", new_string="b")

    assert_failed(output, "Found 3 matches of the string to replace, but replace_all is false")
    assert path.read_text() == "a a a"


async def test_edit_identical_strings(ctx: ToolContext) -> None:
    path = ctx.cwd / "t.txt"
    path.write_text("abc")

    output = await call(EditTool(), ctx, file_path=str(path), old_string="b", new_string="b")

    assert_failed(output, "No changes to make")


async def test_edit_missing_file(ctx: ToolContext) -> None:
    output = await call(EditTool(), ctx, file_path="ghost.txt", old_string="a", new_string="b")

    assert_failed(output, "File does not exist")
    assert not (ctx.cwd / "ghost.txt").exists()


async def test_edit_keeps_crlf_line_endings(ctx: ToolContext) -> None:
    path = ctx.cwd / "dos.txt"
    path.write_bytes(b"one\r\ntwo\r\nthree\r\n")

    output = await call(
        EditTool(), ctx, file_path=str(path), old_string="one\ntwo", new_string="1\n2"
    )

    assert not output.is_error
    assert path.read_bytes() == b"1\r\n2\r\nthree\r\n"


async def test_edit_empty_old_string_fills_an_empty_file_only(ctx: ToolContext) -> None:
    empty = ctx.cwd / "empty.txt"
    empty.touch()
    full = ctx.cwd / "full.txt"
    full.write_text("content")

    filled = await call(EditTool(), ctx, file_path=str(empty), old_string="", new_string="hi")
    refused = await call(EditTool(), ctx, file_path=str(full), old_string="", new_string="hi")

    assert not filled.is_error
    assert empty.read_text() == "hi"
    assert_failed(refused, "old_string is empty")
    assert full.read_text() == "content"


async def test_edit_refuses_non_utf8_text(ctx: ToolContext) -> None:
    path = ctx.cwd / "latin1.txt"
    path.write_bytes(b"caf\xe9")

    output = await call(EditTool(), ctx, file_path=str(path), old_string="caf", new_string="bar")

    assert_failed(output, "not valid UTF-8")
    assert path.read_bytes() == b"caf\xe9"


def test_edit_requires_its_strings() -> None:
    with pytest.raises(ToolInputError, match="old_string: field required"):
        EditTool().validate({"file_path": "x", "new_string": "y"})


def test_structured_patch_of_an_insertion() -> None:
    old = "".join(f"{n}\n" for n in range(1, 11))
    new = old.replace("5\n", "5\nfive\n")

    assert structured_patch(old, new) == [
        {
            "oldStart": 3,
            "oldLines": 6,
            "newStart": 3,
            "newLines": 7,
            "lines": [" 3", " 4", " 5", "+five", " 6", " 7", " 8"],
        }
    ]
