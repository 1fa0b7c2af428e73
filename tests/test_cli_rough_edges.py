"""Small manners of the command line, each through the real `python -m hookwright`: what a
terminal gets versus a pipe, ids where paths were wanted, one-line refusals."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_hookwright as hookwright
from terminal import Terminal


def _deny_project(root: Path) -> Path:
    hooks = root / ".hookwright"
    hooks.mkdir(parents=True)
    (hooks / "guards.py").write_text(
        "from hookwright import deny\ndef no_rm(inp):\n    return deny('rm is blocked')\n"
    )
    (hooks / "hooks.yaml").write_text(
        "hooks:\n  - {name: no-rm, event: PreToolUse, matcher: Bash, call: 'guards:no_rm'}\n"
    )
    return root


def test_hooks_test_indents_its_verdict_for_a_terminal_and_not_for_a_pipe(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = _deny_project(tmp_path / "proj")
    given = tmp_path / "input.json"
    given.write_text(json.dumps({"tool_name": "Bash", "tool_input": {"command": "rm x"}}))
    args = ["hooks", "test", "PreToolUse", "-i", str(given), "-p", str(project)]
    piped = hookwright(*args, home=isolated_home)
    assert piped.returncode == 0, piped.stderr
    assert len(piped.stdout.splitlines()) == 1
    terminal = Terminal(args, isolated_home, tmp_path)
    terminal.expect("}")
    assert terminal.close() == 0
    shown = terminal.output.replace("\r\n", "\n")
    assert '\n  "decision": "deny",\n' in shown
    start = shown.index("{")
    indented, one_line = json.loads(shown[start:]), json.loads(piped.stdout)
    assert indented.keys() == one_line.keys()
    assert indented["reason"] == one_line["reason"] == "rm is blocked"


def test_an_openharness_typo_is_named_with_its_closest_value(
    tmp_path: Path, isolated_home: Path
) -> None:
    hooks = tmp_path / ".openharness" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "x.yaml").write_text(
        "name: x\nevents: [after_tool_dispatchh]\nhandler: {type: comand, command: echo}\n"
    )
    proc = hookwright("hooks", "validate", "-p", str(tmp_path), home=isolated_home)
    assert proc.returncode == 1
    assert (
        "events[0]: \"after_tool_dispatchh\" (did you mean 'after_tool_dispatch'?) is not one "
        "of: before_context_build, after_context_build," in proc.stdout
    )
    assert "handler: \"comand\" (did you mean 'command'?) is not one of: command, http" in (
        proc.stdout
    )


def test_a_rejected_skill_hook_is_said_once(tmp_path: Path, isolated_home: Path) -> None:
    hooks = tmp_path / "skills" / "sk" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "a.md").write_text("be careful\n")
    entry = {"name": "a", "file": "a.md", "timing": "after_tool_calls", "role": "system"}
    (hooks / "hooks.json").write_text(json.dumps({"hooks": [{**entry, "persistent": False}]}))
    script = tmp_path / "script.yaml"
    script.write_text("turns:\n  - content: hi\n")
    args = ["-p", str(tmp_path), "--trust", "--skill", "sk", "--model", f"scripted:{script}"]
    proc = hookwright("run", "x", *args, home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    said = [line for line in proc.stderr.splitlines() if "unknown timing" in line]
    assert len(said) == 1, proc.stderr
    assert said[0].startswith("error: skill 'sk': ")
