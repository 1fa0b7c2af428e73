"""The daemon keeping a project warm whose Codex hooks come with the workspace's cloud-managed
requirements (Codex's signed copy in ``~/.codex``): a real `hookwright daemon` started by the
installed command client answers as a fresh `hookwright hook claude-code` does when the copy
expires with no file changing, when the sign-in in ``auth.json`` changes, and when the sign-in
reaches the minutes in which Codex renews it."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from tests.codex.test_codex_cloud import GUARD, auth_json, cache
from tests.codex.test_codex_cloud_policy import CLOSED_CODEX
from tests.codex.test_codex_cloud_signin import signed_in
from tests.hosts.project import hook_input
from tests.hosts.test_daemon import daemon_status, installed, run_command

from cli_runner import run_cli
from hookwright.dialects.codex.cloud import CACHE_FILE
from hookwright.dialects.codex.layers import MANAGED_DIR_ENV
from hookwright.dialects.codex.signin import REFRESH_MARGIN
from hookwright.dialects.managed_paths import CODEX_MANAGED_PREFERENCES_ENV

RM = {"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}, "tool_use_id": "t1"}
#: What the copy's requirements guard answers through Claude Code (its exit 2 and stderr).
GUARD_SAYS = "refused by the workspace"
#: How long the copy holds, and how long before the sign-in reaches Codex's renewal, in turn:
#: time enough for the daemon to start and load the project (the first event's answer shows
#: it was loaded before then). The short one suits a quiet machine; where the machine was too
#: slow for it, the case starts again in a new home with the long one, so the test waits out
#: the long one only then.
LIFETIMES = (timedelta(seconds=4), timedelta(seconds=30))


def cloud_project(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    policy: str | None,
    lifetime: timedelta = LIFETIMES[-1],
) -> Path:
    """A trusted project with nothing of its own; a Business sign-in whose cached bundle holds
    a Bash guard and expires `lifetime` from now; `policy` as the user's."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.setenv(MANAGED_DIR_ENV, str(tmp_path / "etc-codex"))
    monkeypatch.delenv(CODEX_MANAGED_PREFERENCES_ENV, raising=False)
    auth_json(home / ".codex", "business")
    expires = datetime.now(UTC) + lifetime
    cache(home / ".codex", GUARD, expires_at=expires.strftime("%Y-%m-%dT%H:%M:%S.%fZ"))
    if policy is not None:
        (home / ".hookwright").mkdir(parents=True)
        (home / ".hookwright" / "policy.yaml").write_text(policy)
    return project


def fresh(project: Path, event: str, **fields: Any) -> Any:
    """The answer of `hookwright hook claude-code`: a session opened for the one event."""
    stdin = hook_input(project, event, **fields).decode()
    done = run_cli(
        ["hook", "claude-code", "--project", str(project)], dict(os.environ), stdin=stdin
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def reason(answer: Any) -> str:
    output = answer["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    return str(output["permissionDecisionReason"])


def expiry() -> datetime:
    text = json.loads((Path.home() / ".codex" / CACHE_FILE).read_text())["signed_payload"]
    return datetime.fromisoformat(text["expires_at"].replace("Z", "+00:00"))


def test_an_expired_copy_refuses_the_warm_session_under_a_fail_closed_policy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for attempt, lifetime in enumerate(LIFETIMES, 1):
        project = cloud_project(tmp_path / str(attempt), monkeypatch, CLOSED_CODEX, lifetime)
        hooks = installed(project, "command")
        first = reason(run_command(hooks["PreToolUse"], project, "PreToolUse", **RM))
        if GUARD_SAYS in first or attempt == len(LIFETIMES):
            break
    assert GUARD_SAYS in first, "the copy expired before the daemon loaded it"
    assert daemon_status()["projects"] == [str(project)]
    copy = Path.home() / ".codex" / CACHE_FILE
    written = copy.stat().st_mtime_ns
    time.sleep(max(0.0, (expiry() - datetime.now(UTC)).total_seconds()) + 0.5)

    warm = run_command(hooks["PreToolUse"], project, "PreToolUse", **RM)
    said = reason(warm)
    assert f"not starting: {copy}: " in said and "\n" not in said
    assert "(it expired at " in said and GUARD_SAYS not in said
    assert warm == fresh(project, "PreToolUse", **RM)
    assert copy.stat().st_mtime_ns == written  # nothing changed but the time


def test_a_changed_sign_in_is_noticed_by_the_warm_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plan the workspace's requirements do not apply to: the guard no longer runs."""
    project = cloud_project(tmp_path, monkeypatch, None)
    hooks = installed(project, "command")
    assert GUARD_SAYS in reason(run_command(hooks["PreToolUse"], project, "PreToolUse", **RM))
    auth_json(Path.home() / ".codex", "plus")
    warm = run_command(hooks["PreToolUse"], project, "PreToolUse", **RM)
    assert warm == {} == fresh(project, "PreToolUse", **RM)


def test_a_sign_in_reaching_codex_s_renewal_is_said_by_the_warm_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No copy, and an access token a few seconds from the five minutes in which Codex renews
    it first: once they begin, the warm session's refusal names the sign-in and `codex login`
    with no file changing, as a fresh `hookwright hook claude-code` does."""
    for attempt, lead in enumerate(LIFETIMES, 1):
        project = cloud_project(tmp_path / str(attempt), monkeypatch, CLOSED_CODEX)
        (Path.home() / ".codex" / CACHE_FILE).unlink()
        renews = time.time() + lead.total_seconds()
        signed_in(Path.home() / ".codex", int(renews) + REFRESH_MARGIN + 1)
        hooks = installed(project, "command")
        before = reason(run_command(hooks["PreToolUse"], project, "PreToolUse", **RM))
        if "renewed the sign-in" not in before or attempt == len(LIFETIMES):
            break
    assert "(it is absent;" in before and "codex login` first if" in before
    assert "renewed the sign-in" not in before
    time.sleep(max(0.0, renews + 2 - time.time()))

    warm = run_command(hooks["PreToolUse"], project, "PreToolUse", **RM)
    said = reason(warm)
    assert f"renewed the sign-in in {Path.home() / '.codex' / 'auth.json'}" in said
    assert "(its access token expires at " in said and "sign in again with `codex login`" in said
    assert warm == fresh(project, "PreToolUse", **RM)
