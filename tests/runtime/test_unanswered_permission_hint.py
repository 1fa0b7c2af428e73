"""A `hookwright run` whose stdin is not a terminal cannot ask for permission: a call the
rules and mode would ask about is denied, with the text Claude Code's `-p` gives the model, and
the terminal says once per run how to allow such calls (the `--permission-mode` flag, or an
allow rule in the settings); through the real command."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from cli_runner import run_hookwright

HINT = (
    "hint: no one can answer a permission prompt here (stdin is not a terminal); to let such "
    "calls run, give --permission-mode bypassPermissions (acceptEdits: file edits only), or "
    'allow them in .claude/settings.json: {"permissions": {"allow": ["Bash(echo *)"]}}'
)


def _project(root: Path) -> Path:
    """Two Bash calls, in two model turns of one run."""
    root.mkdir()
    calls = [{"name": "Bash", "arguments": {"command": f"echo ran > made-{i}"}} for i in (1, 2)]
    turns = [{"content": "", "tool_calls": [call]} for call in calls] + [{"content": "done"}]
    (root / "script.json").write_text(json.dumps({"model": "s", "turns": turns}))
    return root


def _run(
    project: Path, home: Path, *flags: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """`run` on the project's script; with `stdin`, the prompt read from it (`run -`)."""
    prompt = "-" if stdin is not None else "go"
    return run_hookwright("run", prompt, "-p", str(project), "--trust",
                          "--model", "scripted:script.json", *flags, home=home,
                          stdin=stdin)  # fmt: skip


def test_a_piped_run_says_once_how_to_allow_the_denied_calls(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = _project(tmp_path / "proj")
    for proc in (_run(project, isolated_home), _run(project, isolated_home, stdin="go")):
        assert proc.returncode == 0, proc.stderr
        assert not list(project.glob("made-*"))  # both calls were denied
        denials = proc.stdout.count("permission Bash: deny")
        assert denials == 2, proc.stdout
        assert proc.stdout.count(HINT) == 1, proc.stdout  # once per run, not per call
        assert proc.stdout.count("hint:") == 1, proc.stdout
        assert "permission Bash: deny (This command requires approval)\n" in proc.stdout


def test_the_model_still_gets_claude_codes_text_and_the_json_events_say_how(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = _project(tmp_path / "proj")
    proc = _run(project, isolated_home, "--json")
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    results = [e["content"] for e in events if e["type"] == "tool_result"]
    assert results == ["This command requires approval"] * 2  # what the model reads
    denied = [e for e in events if e["type"] == "permission"]
    assert [(e["unanswered"], e["allow_rule"]) for e in denied] == [(True, "Bash(echo *)")] * 2
    assert "hint:" not in proc.stdout  # the events carry the facts; the terminal says the hint


def test_no_hint_where_the_flag_allows_the_calls(tmp_path: Path, isolated_home: Path) -> None:
    project = _project(tmp_path / "proj")
    proc = _run(project, isolated_home, "--permission-mode", "bypassPermissions")
    assert proc.returncode == 0, proc.stderr
    assert sorted(path.name for path in project.glob("made-*")) == ["made-1", "made-2"]
    assert "hint:" not in proc.stdout, proc.stdout
