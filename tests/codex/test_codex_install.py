"""`hookwright install codex` / `uninstall codex` and `hookwright hook codex`, as real
subprocesses: the user's Codex `hooks.json`, Codex's review entries, and a project's Claude
Code guard answering Codex's stdin in Codex's terms."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from tests.cli_runner import run_hookwright

GUARD = {
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "echo no deleting >&2; exit 2"}],
            }
        ]
    }
}


def codex_env(home: Path) -> dict[str, str]:
    return {"CODEX_HOME": str(home / ".codex")}


def test_install_then_uninstall_restores_the_file_bytes_and_mode(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    hooks = home / ".codex" / "hooks.json"
    original = b'{\n  "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "mine"}]}]}\n}\n'
    hooks.write_bytes(original)
    os.chmod(hooks, 0o640)
    installed = run_hookwright("install", "codex", home=home, env=codex_env(home))
    assert installed.returncode == 0, installed.stderr
    data = json.loads(hooks.read_text())
    assert data["hooks"]["Stop"][0]["hooks"][0]["command"] == "mine"
    ours = data["hooks"]["PreToolUse"][0]["hooks"][0]
    assert ours["command"].endswith("-I -m hookwright hook codex")
    assert f'[hooks.state."{hooks}:pre_tool_use:0:0"]' in installed.stdout
    assert f'[hooks.state."{hooks}:stop:1:0"]' in installed.stdout
    interrupt = data["hooks"]["Interrupt"][0]["hooks"][0]
    assert interrupt["timeout"] == 3, "Codex clamps a longer Interrupt timeout, warning each start"
    assert f'[hooks.state."{hooks}:interrupt:0:0"]' in installed.stdout
    removed = run_hookwright("uninstall", "codex", home=home, env=codex_env(home))
    assert removed.returncode == 0, removed.stderr
    assert hooks.read_bytes() == original
    assert stat.S_IMODE(hooks.stat().st_mode) == 0o640


def test_uninstall_removes_a_file_install_created(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert run_hookwright("install", "codex", home=home, env=codex_env(home)).returncode == 0
    assert (home / ".codex" / "hooks.json").is_file()
    assert run_hookwright("uninstall", "codex", home=home, env=codex_env(home)).returncode == 0
    assert not (home / ".codex" / "hooks.json").exists()


def codex_input(project: Path, command: str) -> str:
    return json.dumps(
        {
            "session_id": "s",
            "turn_id": "t",
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "model": "gpt-5",
            "permission_mode": "bypassPermissions",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_use_id": "call_1",
        },
        separators=(",", ":"),
    )


def test_a_claude_code_guard_answers_codex_in_codex_terms(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps(GUARD))
    assert run_hookwright("trust", str(project), home=home).returncode == 0
    asked = run_hookwright("hook", "codex", home=home, stdin=codex_input(project, "rm -rf build"))
    assert asked.returncode == 0, asked.stderr
    answer = json.loads(asked.stdout)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    assert "no deleting" in answer["permissionDecisionReason"]


def test_codex_s_interrupt_reaches_a_project_s_python_hook(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    hooks = project / ".hookwright"
    hooks.mkdir(parents=True)
    (hooks / "told.py").write_text(
        "import json\n"
        "def note(inp):\n"
        "    with open('told.json', 'w') as f:\n"
        "        json.dump([inp.event.value, inp.session_id, inp.turn_id], f)\n"
    )
    (hooks / "hooks.yaml").write_text(
        "hooks:\n  - {name: told, event: Interrupt, call: 'told:note'}\n"
    )
    assert run_hookwright("trust", str(project), home=home).returncode == 0
    sent = {
        "session_id": "s",
        "turn_id": "t",
        "transcript_path": None,
        "cwd": str(project),
        "hook_event_name": "Interrupt",
        "model": "gpt-5",
        "permission_mode": "bypassPermissions",
    }
    asked = run_hookwright("hook", "codex", home=home, stdin=json.dumps(sent), cwd=project)
    assert asked.returncode == 0, asked.stderr
    assert asked.stdout == "", "Codex takes nothing but a systemMessage from an Interrupt hook"
    assert json.loads((project / "told.json").read_text()) == ["Interrupt", "s", "t"]


def test_an_untrusted_project_s_guard_does_not_run_and_nothing_is_decided(
    tmp_path: Path,
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps(GUARD))
    asked = run_hookwright("hook", "codex", home=home, stdin=codex_input(project, "rm -rf build"))
    assert asked.returncode == 0, asked.stderr
    assert "permissionDecision" not in asked.stdout


def managed_env(home: Path, managed: Path) -> dict[str, str]:
    return {**codex_env(home), "HOOKWRIGHT_CODEX_MANAGED_DIR": str(managed)}


def test_a_managed_install_needs_no_review_and_uninstall_removes_it(
    tmp_path: Path, managed_dir: Path
) -> None:
    home = tmp_path / "home"
    env = managed_env(home, managed_dir)
    installed = run_hookwright("install", "codex", "--managed", home=home, env=env)
    assert installed.returncode == 0, installed.stderr
    data = json.loads((managed_dir / "hooks.json").read_text())
    assert data["hooks"]["PreToolUse"][0]["hooks"][0]["command"].endswith("hook codex")
    assert "[hooks.state" not in installed.stdout
    assert not (home / ".codex" / "hooks.json").exists()
    assert run_hookwright("uninstall", "codex", "--managed", home=home, env=env).returncode == 0
    assert not (managed_dir / "hooks.json").exists()


def test_install_says_when_codex_will_not_run_the_hooks_or_a_project_could_stop_them(
    tmp_path: Path, managed_dir: Path
) -> None:
    home = tmp_path / "home"
    env = managed_env(home, managed_dir)
    requirements = managed_dir / "requirements.toml"
    first = run_hookwright("install", "codex", home=home, env=env).stdout
    assert "a trusted project's .codex/config.toml can turn off every Codex hook" in first
    assert f"pin [features] hooks = true in {requirements}" in first
    requirements.write_text("allow_managed_hooks_only = true\n\n[features]\nhooks = true\n")
    second = run_hookwright("install", "codex", home=home, env=env).stdout
    assert f"allow_managed_hooks_only in {requirements}): it will not run these" in second
    assert "can turn off" not in second
    managed = run_hookwright("install", "codex", "--managed", home=home, env=env).stdout
    assert "warning" not in managed
