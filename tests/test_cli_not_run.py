"""`hooks list` reports the hooks that will not run from the report every host gets when it
opens a project (`OpenedProject.not_run`, `diagnostics`): the same hooks, the same reasons,
the same warning lines. The command runs as a real subprocess; the embedder's side is
`HookSession.open` on the same folder."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from cli_runner import hookwright_rows, run_hookwright
from hookwright.host import HookSession

hookwright = functools.partial(run_hookwright, timeout=60)


def write_project(root: Path) -> Path:
    """A native hook whose module does not exist (it binds to nothing once trusted) and one
    Claude Code command hook (inert until dispatched)."""
    (root / ".hookwright").mkdir(parents=True)
    (root / ".hookwright" / "hooks.yaml").write_text(
        "hooks:\n  - {name: gone, event: Stop, call: 'hookwright_no_such_module:guard'}\n"
    )
    (root / ".claude").mkdir()
    hook = {"type": "command", "command": "true"}
    (root / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}})
    )
    return root


async def embedders_report(project: Path, home: Path) -> tuple[set[tuple[str, str]], list[str]]:
    session = await HookSession.open(project, home=home)
    try:
        assert session.opened is not None
        not_run = {(item.hook.name, item.reason) for item in session.opened.not_run}
        return not_run, list(session.opened.diagnostics)
    finally:
        await session.aclose()


def listed(project: Path, home: Path) -> tuple[set[tuple[str, str]], str]:
    """The hooks `hooks list --json` says will not run, with why, and its stderr."""
    proc = hookwright("hooks", "list", "--json", "-p", str(project), home=home)
    assert proc.returncode == 0, proc.stderr
    rows = hookwright_rows(proc.stdout)
    return {(row["name"], row["not_run"]) for row in rows if row["not_run"]}, proc.stderr


async def test_an_untrusted_folder_is_listed_as_every_host_reports_it(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = write_project(tmp_path / "proj")
    not_run, stderr = listed(project, isolated_home)
    embedder_not_run, embedder_lines = await embedders_report(project, isolated_home)
    assert not_run == embedder_not_run
    assert {reason for _, reason in not_run} == {"untrusted"} and len(not_run) == 2
    [warning] = [line for line in embedder_lines if "not trusted" in line]
    assert warning in stderr.splitlines()
    assert f"hookwright trust {project.resolve()}" in warning


async def test_a_trusted_hook_that_binds_to_nothing_is_listed_not_bound(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = write_project(tmp_path / "proj")
    trusted = hookwright("trust", str(project), home=isolated_home)
    assert trusted.returncode == 0, trusted.stderr
    not_run, stderr = listed(project, isolated_home)
    embedder_not_run, embedder_lines = await embedders_report(project, isolated_home)
    assert not_run == embedder_not_run == {("gone", "not_bound")}
    assert "cannot import hookwright_no_such_module:guard" in stderr
    assert all(line in stderr.splitlines() for line in embedder_lines)

    text = hookwright("hooks", "list", "-p", str(project), home=isolated_home)
    [entry] = [line for line in text.stdout.splitlines() if "will not run" in line]
    assert "will not run: hooks[0].call: cannot import hookwright_no_such_module:guard" in entry
    assert "not bound" not in text.stdout
