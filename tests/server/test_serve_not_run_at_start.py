"""`hookwright serve` says at start, on stderr, the project's hooks that will not run, in the
words `run` says them (one line per untrusted folder, one per hook whose file is broken),
once, before the URL; a page's session says them again on its page only."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_hookwright

from .serve_process import ServeProcess


def _guarded(project: Path) -> None:
    """A Claude Code guard, and an OpenHarness hook file YAML cannot read."""
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "sh .claude/guard.sh"}]}]}}  # fmt: skip
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    hook = project / ".openharness" / "hooks" / "guard.yaml"
    hook.parent.mkdir(parents=True)
    hook.write_text(
        "name: guard\nevents: [before_tool_dispatch]\nhandler:\n  type: command\n"
        "  command: echo reason: no\n"
    )


def _not_run_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith(("warning: ", "error: "))]


def _run_lines(project: Path, home: Path, *options: str) -> list[str]:
    """What `hookwright run` says on stderr about the same project's hooks as it opens it."""
    model = project.parent / "model.json"
    model.write_text(json.dumps({"model": "s", "turns": [{"content": "ok"}]}))
    ran = run_hookwright("run", "go", "-p", str(project), "--model", f"scripted:{model}",
                         *options, home=home)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    return _not_run_lines(ran.stderr)


def test_serve_says_at_start_what_run_says_about_hooks_that_will_not_run(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    _guarded(project)
    for options in ((), ("--trust",)):
        server = ServeProcess(project, isolated_home, *options)
        stderr = server.stop()
        said = _not_run_lines(stderr)
        expected = _run_lines(project, isolated_home, *options)
        assert expected, stderr
        assert said == expected, stderr
        serving = next(i for i, line in enumerate(stderr.splitlines()) if "serving" in line)
        assert all(stderr.splitlines().index(line) < serving for line in said), stderr
    untrusted = _run_lines(project, isolated_home)
    [held_back] = [line for line in untrusted if "untrusted" in line]
    assert "1 hook not run: untrusted" in held_back, untrusted
    trusted = _run_lines(project, isolated_home, "--trust")
    assert any("guard.yaml" in line and "quote the whole value" in line for line in trusted)
    audit = isolated_home / ".hookwright" / "audit.jsonl"
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    assert None not in {r["session_id"] for r in records if r["status"] == "not_run"}  # runs' only


def test_serve_on_a_project_whose_hooks_all_run_says_nothing_about_them(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    stderr = ServeProcess(project, isolated_home).stop()
    assert _not_run_lines(stderr) == [], stderr
