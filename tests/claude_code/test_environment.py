"""Spec §1.5, §3, §5, §8: what a command hook receives (stdin, environment, cwd, shell,
CLAUDE_ENV_FILE) and the 10,000-character output cap."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookwright import Event, HookInput

from .conftest import Harness, cmd, group
from .expect import TOOL

DUMP = (
    "raw = sys.stdin.read()\n"
    "env = {{k: v for k, v in os.environ.items() if k.startswith(('CLAUDE', 'OTEL'))}}\n"
    "json.dump({{'stdin': raw, 'env': env, 'cwd': os.getcwd()}}, open({out!r}, 'w'))\n"
)


def dump_hook(h: Harness, out: Path) -> str:
    return h.py(DUMP.format(out=str(out)))


async def test_stdin_is_the_claude_code_input(h: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_EXPORTER", "x")
    out = h.project / "seen.json"
    sub = h.project / "sub"
    sub.mkdir()
    h.hooks(group("PostToolUse", cmd(dump_hook(h, out))))
    inp = HookInput(
        Event.PostToolUse,
        session_id="sess-1",
        turn_id="turn-9",
        cwd=str(sub),
        permission_mode="default",
        transcript_path="/t.jsonl",
        payload={
            **TOOL,
            "tool_response": {"stdout": "ok"},
            "tool_result": {"content": "ok", "is_error": False},
            "duration_ms": 5,
            "iteration": 0,
            "channel": "cli",
            "run_id": "r",
        },
    )
    await h.dispatch(inp)
    seen = json.loads(out.read_text())
    assert seen["stdin"].endswith("}\n") and seen["stdin"].count("\n") == 1
    assert json.loads(seen["stdin"]) == {
        "session_id": "sess-1",
        "cwd": str(sub),
        "transcript_path": "/t.jsonl",
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        **TOOL,
        "tool_response": {"stdout": "ok"},
        "duration_ms": 5,
    }
    assert seen["cwd"] == str(sub)
    assert seen["env"] == {
        "CLAUDE_PROJECT_DIR": str(h.project),
        "CLAUDECODE": "1",
        "CLAUDE_CODE_SESSION_ID": "sess-1",
    }


async def test_message_display_keeps_its_turn_id(h: Harness) -> None:
    out = h.project / "seen.json"
    h.hooks(group("MessageDisplay", cmd(dump_hook(h, out))))
    inp = HookInput(
        Event.MessageDisplay,
        session_id="s",
        turn_id="t-1",
        cwd=str(h.project),
        payload={"message_id": "m", "index": 0, "final": True, "delta": "hi"},
    )
    await h.dispatch(inp)
    assert json.loads(json.loads(out.read_text())["stdin"])["turn_id"] == "t-1"


@pytest.mark.parametrize(("shell", "name"), [(None, "sh"), ("bash", "bash")])
async def test_shell_form_shell(h: Harness, shell: str | None, name: str) -> None:
    out = h.project / "shell"
    fields = {"shell": shell} if shell else {}
    h.hooks(group("Stop", cmd(f'echo "$0" > {out}', **fields)))
    await h.fire("Stop", stop_hook_active=False)
    assert out.read_text().strip() == name


@pytest.mark.parametrize("event", ["SessionStart", "Setup", "CwdChanged", "FileChanged"])
async def test_env_file_events(h: Harness, event: str) -> None:
    writer = cmd('cat >/dev/null; echo "export NODE_ENV=test" >> "$CLAUDE_ENV_FILE"')
    silent = cmd('test -n "$CLAUDE_ENV_FILE"')
    h.hooks(group(event, writer, silent))
    verdict = await h.fire(event, source="startup", file_path="/p/.envrc", event="change")
    [path] = verdict.effects.env_files
    env_file = Path(path)
    assert env_file.parent == h.home / ".hookwright" / "claude-env" / "s1"
    assert env_file.name.startswith("hook-") and env_file.suffix == ".sh"
    assert env_file.read_text() == "export NODE_ENV=test\n"
    assert [r.status.value for r in verdict.results] == ["ok", "ok"]


async def test_no_env_file_on_other_events(h: Harness) -> None:
    h.hooks(group("PreToolUse", cmd('test -z "$CLAUDE_ENV_FILE" || exit 2')))
    verdict = await h.fire("PreToolUse", **TOOL)
    assert verdict.decision is None and not verdict.effects.env_files


async def test_two_hooks_get_two_env_files(h: Harness) -> None:
    h.hooks(
        group(
            "SessionStart",
            cmd('echo "export A=1" >> "$CLAUDE_ENV_FILE"'),
            cmd('echo "export B=2" >> "$CLAUDE_ENV_FILE"'),
        )
    )
    verdict = await h.fire("SessionStart", source="startup")
    files = sorted(Path(p).read_text() for p in verdict.effects.env_files)
    assert files == ["export A=1\n", "export B=2\n"]


@pytest.mark.parametrize(("length", "capped"), [(10_000, False), (10_001, True)])
async def test_output_cap(h: Harness, length: int, capped: bool) -> None:
    text = "a" * length
    out = {
        "systemMessage": text,
        "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": text},
    }
    h.hooks(group("UserPromptSubmit", cmd(h.emit(out))))
    verdict = await h.fire("UserPromptSubmit", prompt="p")
    [context] = verdict.additional_context
    [message] = verdict.system_messages
    if not capped:
        assert context == message == text
        return
    assert len(context) < 10_000 and context.startswith("a" * 2000)
    path = Path(context.rsplit("saved to ", 1)[1].rstrip("]"))
    assert path.read_text() == text
    assert message == context
