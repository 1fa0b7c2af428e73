"""`hookwright hook codex` (the relay `install codex` writes into Codex's hooks) when a file an
organization requires of Codex cannot be read and the failure policy fails its hooks closed:
the relay leaves Codex's hooks to Codex, but reads those files still and refuses as every
other host does (`ProjectRefused`, decided when the project is opened): a gate event refused
in Codex's wording with the one line as the reason, before any of the project's hooks runs;
any other event shows the line. Without such a policy the relay says nothing of them (Codex
runs those hooks itself) and the project's hooks run."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from tests.cli_runner import run_hookwright
from tests.codex.test_codex_cloud import GUARD, cache
from tests.codex.test_codex_cloud_policy import (
    CLOSED_CODEX,
    CLOSED_OTHERS,
    cache_of,
    unread_workspace,
)

#: A Claude Code hook of the project for every event: it leaves a mark when it runs.
MARKED = "marks.txt"


def with_a_marking_hook(tmp_path: Path, policy: str | None) -> tuple[Path, Path, dict[str, str]]:
    """`unread_workspace` (no cached copy for a Business sign-in) with a trusted project whose
    Claude Code hook appends the event's name to `MARKED` on every event."""
    home, project, env = unread_workspace(tmp_path, policy)
    mark = f"cat > /dev/null; echo $PPID >> {tmp_path / MARKED}"
    handler = {"hooks": [{"type": "command", "command": mark}]}
    events = ("SessionStart", "PreToolUse", "PermissionRequest", "UserPromptSubmit", "Stop")
    settings = {"hooks": {event: [handler] for event in events}}
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    assert run_hookwright("trust", str(project), home=home).returncode == 0
    return home, project, env


def codex_event(project: Path, event: str, **fields: Any) -> str:
    base = {"session_id": "s", "turn_id": "t", "cwd": str(project), "model": "gpt-5"}
    return json.dumps({**base, "hook_event_name": event, "permission_mode": "default", **fields})


BASH = {"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}, "tool_use_id": "c1"}
GATED = [
    ("PreToolUse", BASH),
    ("PermissionRequest", {"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}}),
    ("UserPromptSubmit", {"prompt": "clean the build"}),
]


def asked(home: Path, project: Path, env: dict[str, str], event: str, **fields: Any) -> Any:
    done = run_hookwright(
        "hook", "codex", home=home, env=env, stdin=codex_event(project, event, **fields)
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return json.loads(done.stdout) if done.stdout else {}


def refusal(answer: Any, event: str) -> str:
    """The reason of Codex's refusal of `event`, in the field Codex reads it from."""
    if event == "PreToolUse":
        output = answer["hookSpecificOutput"]
        assert output["permissionDecision"] == "deny"
        return str(output["permissionDecisionReason"])
    if event == "PermissionRequest":
        decision = answer["hookSpecificOutput"]["decision"]
        assert decision["behavior"] == "deny"
        return str(decision["message"])
    assert answer["decision"] == "block"
    return str(answer["reason"])


@pytest.mark.parametrize(("event", "fields"), GATED)
def test_a_gated_event_is_refused_in_codex_s_words_with_the_one_line(
    tmp_path: Path, managed_dir: Path, event: str, fields: dict[str, Any]
) -> None:
    home, project, env = with_a_marking_hook(tmp_path, CLOSED_CODEX)
    reason = refusal(asked(home, project, env, event, **fields), event)
    assert reason.startswith(f"hookwright failed: not starting: {cache_of(home)}: ")
    assert "(it is absent; plan 'business' in auth.json)" in reason and "\n" not in reason
    assert reason.endswith("fails its hooks closed")
    assert not (tmp_path / MARKED).exists()  # refused before any hook of the project ran


@pytest.mark.parametrize(
    ("event", "fields"),
    [
        ("SessionStart", {"source": "startup"}),
        ("Stop", {"stop_hook_active": False, "last_assistant_message": "done"}),
    ],
)
def test_any_other_event_shows_the_line(
    tmp_path: Path, managed_dir: Path, event: str, fields: dict[str, Any]
) -> None:
    home, project, env = with_a_marking_hook(tmp_path, CLOSED_CODEX)
    answer = asked(home, project, env, event, **fields)
    assert list(answer) == ["systemMessage"]
    assert answer["systemMessage"].startswith(f"hookwright failed: not starting: {cache_of(home)}")
    assert not (tmp_path / MARKED).exists()


@pytest.mark.parametrize("policy", [None, CLOSED_OTHERS])
def test_without_a_policy_closing_them_codex_s_files_are_left_to_codex(
    tmp_path: Path, managed_dir: Path, policy: str | None
) -> None:
    home, project, env = with_a_marking_hook(tmp_path, policy)
    assert asked(home, project, env, "PreToolUse", **BASH) == {}
    assert asked(home, project, env, "SessionStart", source="startup") == {}
    assert len((tmp_path / MARKED).read_text().splitlines()) == 2  # the project's hook ran


def test_a_copy_codex_reads_but_others_may_write_is_refused(
    tmp_path: Path, managed_dir: Path
) -> None:
    """Codex reads and trusts a group-writable copy; hookwright does not (anyone who can write
    it can sign it), so under the closing policy the relay refuses the call Codex asks about."""
    home, project, env = with_a_marking_hook(tmp_path, CLOSED_CODEX)
    copy = cache(home / ".codex", GUARD)
    os.chmod(copy, 0o666)
    reason = refusal(asked(home, project, env, "PreToolUse", **BASH), "PreToolUse")
    assert f"not starting: {copy}: " in reason and "other users may write it" in reason
    os.chmod(copy, 0o600)
    answer = asked(home, project, env, "PreToolUse", **BASH)
    assert answer == {}, "the copy's own guard is Codex's to run, not the relay's"
    assert (tmp_path / MARKED).exists()


def test_an_unparsable_managed_requirements_file_is_refused_too(
    tmp_path: Path, managed_dir: Path
) -> None:
    """Codex does not start on it; the relay refuses under the closing policy (a Business
    sign-in's copy aside: the user is signed in with an API key here)."""
    home, project, env = with_a_marking_hook(tmp_path, CLOSED_CODEX)
    (home / ".codex" / "auth.json").write_text(json.dumps({"OPENAI_API_KEY": "sk-test"}))
    (managed_dir / "requirements.toml").write_text("hooks = [\n")
    reason = refusal(asked(home, project, env, "PreToolUse", **BASH), "PreToolUse")
    assert f"not starting: {managed_dir / 'requirements.toml'}: invalid TOML" in reason
    assert not (tmp_path / MARKED).exists()
