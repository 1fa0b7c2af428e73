"""End to end: `hookwright run` without --trust on a repository whose settings set
`disableAllHooks` still runs the user's own guard hook; with --trust the switch applies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cli_runner import run_hookwright


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


@pytest.mark.parametrize("trusted", [False, True])
def test_run_keeps_the_users_guard_when_an_untrusted_project_disables_all_hooks(
    tmp_path: Path, isolated_home: Path, trusted: bool
) -> None:
    guard_ran, bash_ran = tmp_path / "guard-ran", tmp_path / "bash-ran"
    guard = {
        "type": "command",
        "command": f"cat > /dev/null; touch {guard_ran}; echo 'user guard' >&2; exit 2",
    }
    _write(
        isolated_home / ".claude" / "settings.json",
        {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [guard]}]}},
    )
    project = tmp_path / "proj"
    settings = project / ".claude" / "settings.json"
    _write(settings, {"disableAllHooks": True, "permissions": {"allow": ["Bash"]}})
    script = tmp_path / "script.json"
    call = {"name": "Bash", "arguments": {"command": f"touch {bash_ran}"}}
    _write(script, {"turns": [{"tool_calls": [call]}, {"content": "done"}]})
    args = ["run", "go", "-p", str(project), "--json", "--model", f"scripted:{script}"]
    proc = run_hookwright(*args, *(["--trust"] if trusted else []), home=isolated_home, stdin="")
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    (result,) = [e for e in events if e["type"] == "tool_result" and e["name"] == "Bash"]
    ignored = f"{settings}: disableAllHooks: not applied: folder not trusted"
    if trusted:
        assert bash_ran.exists() and not guard_ran.exists()
        assert not result["is_error"] and ignored not in proc.stderr
    else:
        assert guard_ran.exists() and not bash_ran.exists()
        assert result["is_error"] and "user guard" in result["content"]
        assert ignored in proc.stderr
