"""The Bash tool's persistent working directory, as Claude Code 2.1.240 keeps it: a real bash
per call, the session's directory carried from one call to the next through `ToolOutput.cwd`."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

from hookwright.runtime.tools.base import ToolContext, ToolOutput
from hookwright.runtime.tools.bash import BashTool


class Shell:
    """Calls Bash the way the agent does: each call starts where the last one left off."""

    def __init__(self, project: Path, env: dict[str, str] | None = None) -> None:
        self.ctx = ToolContext(cwd=project, project_dir=project, env=env)

    async def run(self, command: str, **arguments: Any) -> ToolOutput:
        tool = BashTool()
        output = await tool.run(tool.validate({"command": command, **arguments}), self.ctx)
        if output.cwd is not None:
            self.ctx.cwd = output.cwd
        return output


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


async def test_cd_carries_over_to_the_next_command(project: Path) -> None:
    shell = Shell(project)

    moved = await shell.run("mkdir -p sub && cd sub")
    where = await shell.run("pwd")

    assert moved.cwd == project / "sub"
    assert moved.data is not None and moved.data["noOutputExpected"] is True
    assert where.content == os.path.realpath(project / "sub")
    assert where.cwd == project / "sub"


async def test_a_failing_command_does_not_move_the_shell(project: Path) -> None:
    shell = Shell(project)

    failed = await shell.run("mkdir f1 && cd f1 && false")
    exited = await shell.run("mkdir -p f2 && cd f2; exit 0")
    where = await shell.run("pwd")

    assert failed.is_error and failed.cwd is None
    assert exited.cwd is None
    assert where.content == os.path.realpath(project)


@pytest.mark.parametrize("command", ["cd ..", "cd /", "cd"])
async def test_leaving_the_project_sends_the_shell_back_and_says_so(
    project: Path, command: str
) -> None:
    shell = Shell(project, env={"HOME": str(project.parent)})

    output = await shell.run(command)
    where = await shell.run("pwd")

    assert output.cwd == project
    assert output.data is not None
    assert output.data["stderr"] == f"\nShell cwd was reset to {project}"
    assert output.content == f"Shell cwd was reset to {project}"
    assert where.content == os.path.realpath(project)


async def test_the_reset_notice_follows_the_output(project: Path) -> None:
    output = await Shell(project).run("echo hi; cd /")

    assert output.data is not None
    assert (output.data["stdout"], output.data["noOutputExpected"]) == ("hi", False)
    assert output.content == f"hi\nShell cwd was reset to {project}"


async def test_a_symlinked_directory_is_kept_as_its_real_path(project: Path) -> None:
    shell = Shell(project)

    await shell.run("mkdir -p real && ln -s real link && cd link")

    assert shell.ctx.cwd == project / "real"


async def test_a_removed_directory_makes_the_next_command_run_in_the_project(
    project: Path,
) -> None:
    shell = Shell(project)
    await shell.run("mkdir gone && cd gone")

    removed = await shell.run("rmdir ../gone")
    after = await shell.run("pwd")

    assert removed.is_error
    assert removed.content == (
        "Exit code 1\npwd: error retrieving current directory: getcwd: cannot access parent "
        "directories: No such file or directory"
    )
    assert after.content == os.path.realpath(project)
    assert after.cwd == project


async def test_maintain_project_dir_starts_every_command_in_the_project(project: Path) -> None:
    shell = Shell(project, env={"CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR": "1"})

    moved = await shell.run("mkdir -p sub && cd sub")
    where = await shell.run("pwd")

    assert moved.cwd == project
    assert moved.data is not None and moved.data["stderr"] == ""
    assert where.content == os.path.realpath(project)


async def test_no_record_file_is_left_behind(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a temporary folder of the test's own (the shared one also holds the records of
    commands other tests run at the same time)."""
    private = tmp_path / "tmp"
    private.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    made: list[str] = []
    mkstemp = tempfile.mkstemp

    def recorded_mkstemp(*args: Any, **kwargs: Any) -> tuple[int, str]:
        fd, name = mkstemp(*args, **kwargs)
        made.append(name)
        return fd, name

    monkeypatch.setattr(tempfile, "mkstemp", recorded_mkstemp)

    await Shell(project).run("cd . && echo x")
    await Shell(project).run("exit 4")

    assert [Path(name).parent for name in made] == [private, private]
    assert os.listdir(private) == []
