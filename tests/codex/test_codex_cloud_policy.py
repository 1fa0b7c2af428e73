"""The workspace's cloud-managed config that cannot be read, under the failure policy: Codex
CLI 0.171.0 does not start without it ("Error loading config.toml: Failed to load cloud config
bundle (workspace-managed policies)."); hookwright does not start either when a policy fails
the hooks of that file closed, in every host (they all open a project in one place), and
otherwise goes on saying so on the terminal, the `hookwright.open` logger and the audit."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from tests.cli_runner import run_hookwright, run_scripted
from tests.codex.project import bash, script
from tests.codex.test_codex_cloud import auth_json
from tests.codex.test_codex_layers import hooks_json, reviews

from hookwright.dialects.codex.cloud import CACHE_FILE
from hookwright.host import HookSession
from hookwright.host.open import NOT_RUN_LOGGER, ProjectRefused

CLOSED_CODEX = "rules:\n  - fail: closed\n    dialects: [codex]\n"
CLOSED_OTHERS = "rules:\n  - fail: closed\n    dialects: [openharness]\n"


def unread_workspace(tmp_path: Path, policy: str | None) -> tuple[Path, Path, dict[str, str]]:
    """(home, project, env): a Business sign-in with no cached bundle (Codex would fetch it),
    a reviewed project hook that leaves a mark when it runs, and `policy` as the user's."""
    home, project = tmp_path / "home", tmp_path / "project"
    codex_home = home / ".codex"
    auth_json(codex_home, "business")
    hooks_json(project / ".codex", f"touch {tmp_path / 'hook-ran'}")
    (codex_home / "config.toml").write_text(reviews(project / ".codex"))
    if policy is not None:
        (home / ".hookwright").mkdir(parents=True)
        (home / ".hookwright" / "policy.yaml").write_text(policy)
    managed = tmp_path / "etc-codex"
    managed.mkdir(exist_ok=True)
    env = {"CODEX_HOME": str(codex_home), "HOOKWRIGHT_CODEX_MANAGED_DIR": str(managed)}
    return home, project, env


def cache_of(home: Path) -> Path:
    return home / ".codex" / CACHE_FILE


def test_a_fail_closed_run_does_not_start_and_says_why_in_one_line(
    tmp_path: Path, managed_dir: Path
) -> None:
    home, project, env = unread_workspace(tmp_path, CLOSED_CODEX)
    model = script(tmp_path / "s.json", [bash("touch made.txt"), {"content": "ok"}])
    done = run_scripted(project, model, "--json", home=home, env=env)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"hookwright: error: not starting: {cache_of(home)}: ")
    assert "(it is absent; plan 'business' in auth.json)" in lines[0]
    assert "start Codex online once to refresh the copy" in lines[0]
    assert lines[0].endswith(
        f"the failure policy ({home / '.hookwright' / 'policy.yaml'}: rules[0]) fails its hooks "
        "closed"
    )
    assert not (project / "made.txt").exists() and not (tmp_path / "hook-ran").exists()


@pytest.mark.parametrize("policy", [None, CLOSED_OTHERS])
def test_a_run_the_policy_does_not_close_goes_on_and_says_so_loudly(
    tmp_path: Path, managed_dir: Path, policy: str | None
) -> None:
    home, project, env = unread_workspace(tmp_path, policy)
    model = script(tmp_path / "s.json", [bash("touch made.txt"), {"content": "ok"}])
    audit = tmp_path / "audit.jsonl"
    done = run_scripted(
        project, model, "--json", home=home, env={**env, "HOOKWRIGHT_AUDIT_LOG": str(audit)}
    )
    assert done.returncode == 0, done.stderr
    assert (project / "made.txt").exists() and (tmp_path / "hook-ran").exists()
    said = [line for line in done.stderr.splitlines() if CACHE_FILE in line]
    assert len(said) == 1 and said[0].startswith(f"error: {cache_of(home)}: "), done.stderr
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    unread = [r for r in records if r.get("status") == "not_loaded"]
    assert len(unread) == 1 and unread[0]["hook"] == str(cache_of(home))
    assert "(it is absent;" in unread[0]["reason"]


def test_hooks_list_and_validate_refuse_as_a_session_would(
    tmp_path: Path, managed_dir: Path
) -> None:
    home, project, env = unread_workspace(tmp_path, CLOSED_CODEX)
    listed = run_hookwright("hooks", "list", "--project", str(project), home=home, env=env)
    assert listed.returncode == 2 and listed.stdout == ""
    assert listed.stderr.startswith(f"hookwright: error: not starting: {cache_of(home)}: ")
    assert len(listed.stderr.splitlines()) == 1
    checked = run_hookwright("hooks", "validate", "--project", str(project), home=home, env=env)
    assert checked.returncode == 1
    assert f"not starting: {cache_of(home)}: " in checked.stdout


async def test_an_embedder_s_session_is_refused_and_one_left_open_is_logged(
    tmp_path: Path,
    managed_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    home, project, env = unread_workspace(tmp_path, CLOSED_CODEX)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(ProjectRefused, match=r"not starting: .*it is absent"):
        await HookSession.open(project, home=home)
    (home / ".hookwright" / "policy.yaml").write_text(CLOSED_OTHERS)
    with caplog.at_level(logging.WARNING, logger=NOT_RUN_LOGGER):
        session = await HookSession.open(project, home=home)
    try:
        assert session.opened is not None
        assert [d.file for d in session.opened.unread] == [str(cache_of(home))]
    finally:
        await session.aclose()
    said = [r for r in caplog.records if CACHE_FILE in r.getMessage()]
    assert len(said) == 1 and said[0].levelno == logging.ERROR


def test_the_installed_hook_answer_refuses_each_gated_call(
    tmp_path: Path, managed_dir: Path
) -> None:
    """Claude Code's hook answered by hookwright, with the project's Codex hooks read: the
    session cannot be opened, so the call is denied with the line."""
    home, project, env = unread_workspace(tmp_path, CLOSED_CODEX)
    stdin = json.dumps(
        {
            "session_id": "s",
            "transcript_path": str(tmp_path / "t.jsonl"),
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "rm -rf build"},
        }
    )
    done = run_hookwright(
        "hook", "claude-code", "--project", str(project), home=home, env=env, stdin=stdin
    )
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert f"not starting: {cache_of(home)}: " in output["permissionDecisionReason"]
    assert not (tmp_path / "hook-ran").exists()


def claude_code_input(project: Path, event: str, **fields: object) -> str:
    base = {"session_id": "s", "transcript_path": "", "cwd": str(project)}
    return json.dumps({**base, "hook_event_name": event, **fields})


def test_the_installed_hook_answer_says_so_without_a_fail_closed_policy(
    tmp_path: Path, managed_dir: Path
) -> None:
    """SessionStart: a message the user sees names the copy; a gated call: the command
    fails (Claude Code's non-blocking error) with the same line, nothing blocked."""
    home, project, env = unread_workspace(tmp_path, None)
    start = run_hookwright(
        "hook",
        "claude-code",
        "--project",
        str(project),
        home=home,
        env=env,
        stdin=claude_code_input(project, "SessionStart", source="startup"),
    )
    assert start.returncode == 0, start.stderr
    message = json.loads(start.stdout)["systemMessage"]
    assert f"{cache_of(home)} did not load: the workspace's cloud-managed hooks" in message
    gated = run_hookwright(
        "hook",
        "claude-code",
        "--project",
        str(project),
        home=home,
        env=env,
        stdin=claude_code_input(
            project, "PreToolUse", tool_name="Bash", tool_input={"command": "ls"}
        ),
    )
    assert gated.returncode == 1 and gated.stdout == ""
    assert "(it is absent; plan 'business' in auth.json)" in gated.stderr


def test_the_installed_hook_shows_the_refusal_on_events_that_gate_nothing(
    tmp_path: Path, managed_dir: Path
) -> None:
    """Refused, the session does not open: SessionStart answers the line to the user instead
    of nothing (`claude_hook.failure`), as every relay does."""
    home, project, env = unread_workspace(tmp_path, CLOSED_CODEX)
    start = run_hookwright(
        "hook",
        "claude-code",
        "--project",
        str(project),
        home=home,
        env=env,
        stdin=claude_code_input(project, "SessionStart", source="startup"),
    )
    assert start.returncode == 0, start.stderr
    message = json.loads(start.stdout)["systemMessage"]
    assert message.startswith(f"hookwright failed: not starting: {cache_of(home)}: ")
    assert message.endswith("fails its hooks closed") and "\n" not in message
