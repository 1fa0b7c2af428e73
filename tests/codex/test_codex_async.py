"""A Codex handler with `async: true`, or on StopFailure: Codex CLI 0.171.0 never runs one
(measured, cases `async_hooks`, `stop_failure_not_fired_on_a_failed_request`), so neither does
hookwright, and it says so, naming the field, through `python -m hookwright run` and `hooks
list`."""

from __future__ import annotations

import os
from pathlib import Path

from tests.cli_runner import run_hookwright, run_scripted
from tests.codex.project import bash, command, script, write_project

from hookwright.dialects.codex.layers import MANAGED_DIR_ENV


def test_an_async_codex_guard_does_not_run_and_the_run_says_which_field(tmp_path: Path) -> None:
    guard = command("touch guard-ran.txt; echo no >&2; exit 2", "Bash")
    guard[0]["hooks"][0]["async"] = True
    home, project = write_project(tmp_path, {"PreToolUse": guard})
    env = {"CODEX_HOME": str(home / ".codex"), MANAGED_DIR_ENV: os.environ[MANAGED_DIR_ENV]}
    model = script(tmp_path / "s.json", [bash("touch made.txt"), {"content": "ok"}])
    done = run_scripted(project, model, home=home, env=env)
    assert done.returncode == 0, done.stderr
    assert (project / "made.txt").exists()
    assert not (project / "guard-ran.txt").exists()
    where = f"{project / '.codex' / 'hooks.json'}: hooks.PreToolUse[0].hooks[0].async"
    assert f"{where}: true: Codex runs no async hook" in done.stderr
    assert run_hookwright("trust", str(project), home=home, env=env).returncode == 0
    listed = run_hookwright("hooks", "list", "--project", str(project), home=home, env=env)
    assert "Codex runs no async hook" in listed.stdout + listed.stderr


def test_a_codex_stop_failure_hook_does_not_run_on_a_failed_model_request_as_in_codex(
    tmp_path: Path,
) -> None:
    """Codex CLI 0.171.0 never fires StopFailure (measured, case
    `stop_failure_not_fired_on_a_failed_request`); the reference agent fires it for the other
    systems' hooks, and says why a Codex one does not run."""
    home, project = write_project(tmp_path, {"StopFailure": command("touch told.txt")})
    env = {"CODEX_HOME": str(home / ".codex"), MANAGED_DIR_ENV: os.environ[MANAGED_DIR_ENV]}
    model = script(tmp_path / "s.json", [{"error": "rate_limit"}])
    done = run_scripted(project, model, home=home, env=env)
    assert not (project / "told.txt").exists()
    where = f"{project / '.codex' / 'hooks.json'}: hooks.StopFailure[0].hooks[0]"
    assert f"{where}: Codex CLI 0.171.0 accepts StopFailure hooks but never runs them" in (
        done.stderr
    )
