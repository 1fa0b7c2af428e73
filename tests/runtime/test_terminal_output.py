"""What `hookwright run` prints: through a pipe (one plain line per event) and in a real
80-column terminal (wrapped with indented continuation lines, a spinner while the model
thinks)."""

from __future__ import annotations

import re
from pathlib import Path

from cli_runner import run_hookwright
from terminal import Terminal

LONG_REASON = "recursive rm is refused in this project because " + "the build cache " * 8
CONTEXT = "Remember: pushes here are dry runs. " * 10


def write_project(root: Path) -> Path:
    hooks = root / ".hookwright"
    hooks.mkdir(parents=True)
    (hooks / "guards.py").write_text(
        "from hookwright import add_context, deny, rewrite_input\n"
        f"def no_rm(inp):\n    return deny({LONG_REASON!r})\n"
        "def dry(inp):\n"
        "    return rewrite_input({'command': 'echo dry-run'}, reason='rehearsed')\n"
        f"def facts(inp):\n    return add_context({CONTEXT!r})\n"
    )
    (hooks / "hooks.yaml").write_text(
        "hooks:\n"
        "  - {name: no-rm, event: PreToolUse, matcher: Bash, if: 'Bash(rm *)',\n"
        "     call: 'guards:no_rm'}\n"
        "  - {name: dry, event: PreToolUse, matcher: Bash, if: 'Bash(git *)', call: 'guards:dry'}\n"
        "  - {name: facts, event: SessionStart, call: 'guards:facts'}\n"
    )
    script = root / "script.yaml"
    script.write_text(
        "turns:\n"
        "  - tool_calls: [{name: Bash, arguments: {command: 'rm -rf build'}}]\n"
        "  - tool_calls: [{name: Bash, arguments: {command: 'git push origin main'}}]\n"
        "  - content: finished\n"
    )
    return script


def run_args(root: Path, script: Path) -> list[str]:
    model = f"scripted:{script}"
    return [
        "run",
        "go",
        "-p",
        str(root),
        "--trust",
        "--model",
        model,
        "--permission-mode",
        "bypassPermissions",
    ]


def test_without_a_terminal_each_event_is_one_plain_line(
    tmp_path: Path, isolated_home: Path
) -> None:
    script = write_project(tmp_path)
    proc = run_hookwright(
        *run_args(tmp_path, script), home=isolated_home, env={"COLUMNS": "80"}, stdin=""
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "\x1b" not in out, "no colours or cursor movement in a pipe"
    assert out.count("recursive rm is refused") == 1, out
    (deny_line,) = [line for line in out.splitlines() if "recursive rm is refused" in line]
    assert deny_line.startswith("⚑ PreToolUse no-rm (Python, .hookwright/hooks.yaml): deny — ")
    assert "(reason above) [denied by hook]" in out
    assert "⏺ Bash(git push origin main)" in out
    assert "  ↳ ran Bash(echo dry-run)" in out, "the command that actually ran"
    (context_line,) = [line for line in out.splitlines() if "+ context:" in line]
    assert context_line.endswith("…") and len(context_line) < 200, "context is abbreviated"
    assert "thinking" not in out
    assert "⎿ dry-run" in out


def visible(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\r", "", text)


def test_in_an_80_column_terminal_lines_wrap_under_their_text_and_a_spinner_thinks(
    tmp_path: Path, isolated_home: Path
) -> None:
    script = write_project(tmp_path)
    term = Terminal(
        run_args(tmp_path, script),
        isolated_home,
        tmp_path,
        extra_env={"COLUMNS": "80", "LINES": "24", "TERM": "xterm-256color"},
    )
    term.expect("finished")
    assert term.close() == 0
    assert "thinking…" in term.output, "a spinner while the model thinks"
    lines = [visible(line) for line in term.output.splitlines()]
    assert all(len(line) <= 80 for line in lines), "\n".join(lines)
    start = next(i for i, line in enumerate(lines) if "⚑ PreToolUse no-rm" in line)
    continuation = lines[start + 1]
    assert continuation.startswith(" " * len("⚑ PreToolUse ")), lines[start : start + 3]
    assert "↳ ran Bash(echo dry-run)" in "\n".join(lines)


def test_a_read_result_keeps_its_lines_and_counts_the_hidden_ones(
    tmp_path: Path, isolated_home: Path
) -> None:
    (tmp_path / "notes.txt").write_text("".join(f"note line {n}\n" for n in range(1, 21)))
    script = tmp_path / "script.yaml"
    script.write_text(
        "turns:\n"
        "  - tool_calls: [{name: Read, arguments: {file_path: notes.txt}}]\n"
        "  - content: finished\n"
    )
    args = ["run", "go", "-p", str(tmp_path), "--model", f"scripted:{script}"]
    term = Terminal([*args, "--permission-mode", "bypassPermissions"], isolated_home, tmp_path)
    term.expect("finished")
    assert term.close() == 0
    lines = [visible(line).rstrip() for line in term.output.splitlines()]
    first = next(i for i, line in enumerate(lines) if line.startswith("  ⎿ "))
    assert lines[first] == "  ⎿ 1 note line 1"
    assert lines[first + 7] == "    8 note line 8"
    assert lines[first + 8] == "    … 13 more lines"  # 20 lines and the empty 21st
    piped = run_hookwright(*args, "--permission-mode", "bypassPermissions", home=isolated_home)
    [result] = [line for line in piped.stdout.splitlines() if line.startswith("  ⎿ ")]
    assert result.startswith("  ⎿ 1 note line 1 2 note line 2")
    assert result.endswith("… (21 lines)")
