"""A Codex handler with `async: true` runs in the background as in Codex CLI 0.171.0 (measured,
case `async_hooks`): not waited for, its exit 2 blocks nothing, its context reaches the model
at the next request after it ends, and the run says so, naming the field; an async SessionEnd
handler is waited for as any other. A StopFailure
handler never runs (case `stop_failure_not_fired_on_a_failed_request`), and the run says why,
through `python -m hookwright run` and `hooks list`."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.bounds import eventually
from tests.cli_runner import run_hookwright, run_scripted
from tests.codex.project import bash, command, script, write_project
from tests.codex.test_codex_context_placement import context_hook, run
from tests.procs import running

from hookwright.dialects.codex.layers import MANAGED_DIR_ENV
from runtime.fake_llm_server import FakeLLMServer, FakeReply, FakeToolCall


def test_an_async_codex_hook_runs_unwaited_its_context_reaching_the_next_request(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    guard = command("touch guard-ran.txt; echo no >&2; exit 2", "Bash")
    prompt = context_hook("UserPromptSubmit", "late context")
    for hook in (guard, prompt):
        hook[0]["hooks"][0]["async"] = True
    home, project = write_project(tmp_path, {"PreToolUse": guard, "UserPromptSubmit": prompt})
    call = FakeToolCall("Bash", json.dumps({"command": "sleep 1; printf hi"}), id="call_1")
    server.queue_openai(FakeReply(tool_calls=[call]), FakeReply("done"))
    first, second = run(home, project, server)
    assert first[1:] == [{"role": "user", "content": "go"}]
    assert second[-2:] == [
        {"role": "tool", "tool_call_id": "call_1", "content": "hi"},
        {"role": "system", "content": "late context"},
    ]
    assert (project / "guard-ran.txt").exists()
    env = {"CODEX_HOME": str(home / ".codex"), MANAGED_DIR_ENV: os.environ[MANAGED_DIR_ENV]}
    assert run_hookwright("trust", str(project), home=home, env=env).returncode == 0
    listed = run_hookwright("hooks", "list", "--project", str(project), home=home, env=env)
    where = f"{project / '.codex' / 'hooks.json'}: hooks.PreToolUse[0].hooks[0].async"
    assert f"{where}: true: Codex starts an async hook in the background" in (
        listed.stdout + listed.stderr
    )


def test_an_async_codex_session_end_hook_is_waited_for_as_in_codex(tmp_path: Path) -> None:
    """Codex CLI 0.171.0 waits for an async SessionEnd hook (measured, case `async_hooks`):
    killed at the run's end, it would never write its file."""
    ending = command("sleep 1; touch ended.txt")
    ending[0]["hooks"][0]["async"] = True
    home, project = write_project(tmp_path, {"SessionEnd": ending})
    env = {"CODEX_HOME": str(home / ".codex"), MANAGED_DIR_ENV: os.environ[MANAGED_DIR_ENV]}
    done = run_scripted(
        project, script(tmp_path / "s.json", [{"content": "ok"}]), home=home, env=env
    )
    assert done.returncode == 0, done.stderr
    assert (project / "ended.txt").exists()
    assert ".async: true" not in done.stderr


def test_an_async_codex_hook_still_running_is_killed_when_the_run_ends_as_in_codex(
    tmp_path: Path,
) -> None:
    """Codex CLI 0.171.0 kills an async hook still running when it exits (measured, case
    `async_hooks`): the hook's shell and its child are gone once `hookwright run` returns, and
    what it would have done after them never happens. The model's one call waits for the
    hook to have started its child."""
    hook = command("echo $$ > shell.pid; sleep 60 & echo $! > sleep.pid; wait; touch late.txt")
    hook[0]["hooks"][0]["async"] = True
    home, project = write_project(tmp_path, {"UserPromptSubmit": hook})
    env = {"CODEX_HOME": str(home / ".codex"), MANAGED_DIR_ENV: os.environ[MANAGED_DIR_ENV]}
    started = "for _ in $(seq 400); do [ -s sleep.pid ] && break; sleep 0.05; done; cat sleep.pid"
    model = script(tmp_path / "s.json", [bash(started), {"content": "ok"}])
    done = run_scripted(project, model, home=home, env=env)
    assert done.returncode == 0, done.stderr
    pids = [int((project / f"{name}.pid").read_text()) for name in ("shell", "sleep")]
    assert all(eventually(lambda pid=pid: not running(pid)) for pid in pids), pids
    assert not (project / "late.txt").exists()


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
