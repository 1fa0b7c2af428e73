"""Command hooks' state answers through the real `hookwright run`: a hostile answer is one
line naming the hook and stores nothing; a hook that did not opt in reads its dialect's bytes
unchanged, one that did reads the state."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest

from cli_runner import run_hookwright as hookwright

HOOK = """\
import sys
from pathlib import Path
Path(sys.argv[1]).write_text(sys.stdin.read())
sys.stdout.write('{"hookwright": {"state": ' + Path(sys.argv[2]).read_text() + '}}')
"""


def project_with(root: Path, answer: str, opted_in: bool) -> Path:
    (root / ".claude").mkdir(parents=True)
    (root / "hook.py").write_text(HOOK)
    (root / "answer.json").write_text(answer)
    seen = root / "seen.json"
    entry: dict[str, object] = {
        "type": "command",
        "command": f"{sys.executable} {root / 'hook.py'} {seen} {root / 'answer.json'}",
    }
    if opted_in:
        entry["hookwright"] = {"state": True}
    settings = {"hooks": {"UserPromptSubmit": [{"hooks": [entry]}]}}
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    return seen


def run(project: Path, home: Path, tmp_path: Path) -> str:
    model = tmp_path / "script.json"
    model.write_text(json.dumps({"turns": [{"content": "done"}]}))
    proc = hookwright(
        "run", "hi", "-p", str(project), "--model", f"scripted:{model}", "--trust", home=home
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout + proc.stderr


def stored(home: Path) -> list[tuple[str, str]]:
    path = home / ".hookwright" / "state.db"
    if not path.exists():
        return []
    with sqlite3.connect(path) as db:
        return db.execute("SELECT key, entry FROM entries").fetchall()


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ('{"incr": {"%s": 1}}' % ("k" * 100_000), "bad key"),
        ('{"set": {"v": "%s"}}' % ("x" * 100_000), "longer than 1024"),
        ('{"set": {"v": %s}}' % ("[" * 5000 + "]" * 5000), "deeper than"),
        ('{"incr": {"n": "many"}}', "expected an integer"),
        ('"not an object"', "expected an object"),
    ],
    ids=["huge-key", "huge-value", "deep-nesting", "wrong-type", "not-an-object"],
)
def test_a_hostile_state_answer_is_one_line_naming_the_hook(
    answer: str, reason: str, tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "project"
    project_with(project, answer, opted_in=False)
    shown = run(project, isolated_home, tmp_path)
    lines = [line for line in shown.splitlines() if "hookwright.state" in line]
    assert len(lines) == 1, shown
    assert "command:" in lines[0] and "nothing stored" in lines[0] and reason in lines[0]
    assert len(lines[0]) < 600
    assert stored(isolated_home) == []


def test_only_an_opted_in_hook_reads_the_state(tmp_path: Path, isolated_home: Path) -> None:
    plain = tmp_path / "plain"
    seen = project_with(plain, '{"incr": {"prompts": 1}}', opted_in=False)
    run(plain, isolated_home, tmp_path)
    assert "hookwright" not in json.loads(seen.read_text())
    assert [key for key, _ in stored(isolated_home)] == ["prompts"]

    opted = tmp_path / "opted"
    seen = project_with(opted, '{"set": {"greeted": true}}', opted_in=True)
    run(opted, isolated_home, tmp_path)
    given = json.loads(seen.read_text())
    assert given["hookwright"] == {"state": {}}, "a new session starts with no state"
    assert given["hook_event_name"] == "UserPromptSubmit"
