"""Interactive runs in a real pseudo-terminal: the trust question and the permission prompt."""

from __future__ import annotations

from pathlib import Path

from terminal import Terminal


def write_project(root: Path) -> None:
    hooks = root / ".hookwright"
    hooks.mkdir(parents=True)
    (hooks / "ctx.py").write_text(
        "from hookwright import add_context\n"
        "def facts(inp):\n    return add_context('project hook ran')\n"
    )
    (hooks / "hooks.yaml").write_text(
        "hooks:\n  - {name: facts, event: SessionStart, call: 'ctx:facts'}\n"
    )
    (hooks / "script.yaml").write_text(
        "turns:\n"
        "  - tool_calls: [{name: Bash, arguments: {command: 'echo from-bash > out.txt'}}]\n"
        "  - content: all done\n"
    )


def test_interactive_run_asks_trust_once_and_prompts_for_permission(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "repo"
    write_project(project)
    term = Terminal(["run", "make out.txt", "--project", str(project)], isolated_home, tmp_path)
    term.expect("Trust this folder?")
    term.send("y")
    term.expect("Allow?")
    term.send("y")
    term.expect("all done")
    assert term.close() == 0
    assert "SessionStart facts (Python, .hookwright/hooks.yaml): context" in term.output
    assert (project / "out.txt").read_text() == "from-bash\n"
    trust = (isolated_home / ".hookwright" / "trust.json").read_text()
    assert str(project.resolve()) in trust

    again = Terminal(["run", "make out.txt", "--project", str(project)], isolated_home, tmp_path)
    again.expect("Allow?")
    again.send("n")
    again.expect("all done")
    assert again.close() == 0
    assert "Trust this folder?" not in again.output
    assert "denied by user" in again.output
