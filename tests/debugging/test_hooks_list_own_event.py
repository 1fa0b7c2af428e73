"""`hookwright hooks list` names each hook's event in its system's own words next to the
canonical one (`as run_completed`), on the rows of a folder that is not trusted as on trusted
ones, in the text and in `--json`; through the real command."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_hookwright


def _project(root: Path) -> Path:
    (root / ".openharness" / "hooks").mkdir(parents=True)
    (root / ".openharness" / "hooks" / "at-end.yaml").write_text(
        "name: at-end\nevents: [run_completed, before_tool_dispatch]\n"
        "handler: {type: command, command: 'cat >/dev/null'}\n"
    )
    (root / ".picoclaw").mkdir()
    guard = {"command": ["python3", "guard.py"], "intercept": ["before_tool"]}
    (root / ".picoclaw" / "config.json").write_text(
        json.dumps({"hooks": {"processes": {"guard": guard}}})
    )
    return root


def _rows(project: Path, home: Path) -> tuple[str, dict[tuple[str, str], str | None]]:
    text = run_hookwright("hooks", "list", "-p", str(project), home=home)
    assert text.returncode == 0, text.stderr
    listed = run_hookwright("hooks", "list", "-p", str(project), "--json", home=home)
    rows = [hook["hookwright"] for hook in json.loads(listed.stdout)["hooks"]]
    return text.stdout, {(row["name"], row["event"]): row["own_event"] for row in rows}


def test_untrusted_rows_say_the_event_in_the_systems_own_words(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = _project(tmp_path / "proj")
    expected = {
        ("at-end", "Stop"): "run_completed",
        ("at-end", "PreToolUse"): "before_tool_dispatch",
        ("guard", "PreToolUse"): "before_tool",
        ("guard", "PostToolUse"): "after_tool",  # PicoClaw sends a process every tool result
        ("guard", "PostToolUseFailure"): "after_tool",
    }
    untrusted, own = _rows(project, isolated_home)
    assert own == expected, own
    assert "     as run_completed — .openharness/hooks/at-end.yaml:events[0] — not trusted" in (
        untrusted
    ), untrusted
    assert "     as before_tool — .picoclaw/config.json:hooks.processes.guard — not trusted" in (
        untrusted
    ), untrusted
    trust = run_hookwright("trust", str(project), home=isolated_home)
    assert trust.returncode == 0, trust.stderr
    trusted, own = _rows(project, isolated_home)
    assert {key: own[key] for key in expected} == expected, own
    assert "     as run_completed — .openharness/hooks/at-end.yaml:events[0]\n" in trusted


def test_explain_heads_with_the_event_as_the_command_named_it(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = _project(tmp_path / "proj")
    call = json.dumps({"tool": "Bash", "arguments": {"command": "ls"}})
    heads = {"before_tool": "before_tool (PreToolUse): ", "PreToolUse": "PreToolUse: "}
    for asked, head in heads.items():
        tested = run_hookwright("hooks", "test", asked, "-i", "-", "-p", str(project),
                                "--explain", stdin=call, home=isolated_home)  # fmt: skip
        assert tested.returncode == 0, tested.stderr
        [line] = [line for line in tested.stderr.splitlines() if "for this event" in line]
        assert line.startswith(head), line
