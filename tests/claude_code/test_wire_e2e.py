"""End to end through `hookwright chat`: the exact bytes a Claude Code command hook reads on
every event the reference agent fires, with OpenHarness and PicoClaw hooks running on the same
events in the same project.

A bash hook on every Claude Code event copies its stdin to a file; each line must be the JSON
Claude Code would write, byte for byte (compact, Claude Code's field order, UTF-8), and must hold
no other dialect's keys. A `grep -q '"command":"rm'` guard, as people write them against Claude
Code's compact JSON, must fire.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path
from typing import Any

import yaml

from cli_runner import run_hookwright

CLAUDE_EVENTS = [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "SubagentStart",
    "SubagentStop",
    "Stop",
    "PreCompact",
    "PostCompact",
    "SessionEnd",
]

COPY_STDIN = '#!/usr/bin/env bash\ncat >> "$CLAUDE_PROJECT_DIR/stdin.log"\n'
RM_GUARD = (
    "#!/usr/bin/env bash\n"
    'if grep -q \'"command":"rm\'; then\n'
    '  echo "no rm here" >&2\n'
    "  exit 2\n"
    "fi\n"
)
OH_CONTEXT_PATCH = """\
import json, sys
json.load(sys.stdin)
print(json.dumps({"hookSpecificOutput": {"patch": {"context": {"meta": {"from": "oh"}}}}}))
"""
OH_SEES = """\
import json, sys
data = json.load(sys.stdin)
with open("oh-seen.jsonl", "a") as fh:
    fh.write(json.dumps(data) + "\\n")
"""
PICOCLAW_PROCESS = """\
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method = message["method"]
    if method == "hook.hello":
        result = {"ok": True}
    elif method == "hook.approve_tool":
        result = {"approved": True}
    else:
        result = {"action": "continue"}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\\n")
    sys.stdout.flush()
"""

FOREIGN = {
    "openharness_context",
    "channel",
    "chat_id",
    "workspace_id",
    "run_id",
    "project_dir",
    "iteration",
    "tool_result",
    "messages",
    "tools",
    "options",
    "trigger_type",
    "run_status",
    "permission_prompt",
    "turn_id",
    "round",
    "first",
}


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


TURNS: list[dict[str, Any]] = [
    {
        "content": "",
        "tool_calls": [
            call("Bash", command="echo héllo"),
            call("Read", file_path="missing.txt"),
            call("Bash", command="rm -rf build"),
            call("Bash", command="touch nope.txt"),
            call("Agent", prompt="Say hi", description="greet", subagent_type="Explore"),
        ],
    },
    {"content": "Sub: hi."},
    {"match": "no rm here", "content": "done ✓"},
    {"content": "Second answer."},
    {"content": "Third answer."},
    {"content": "Summary of the talk."},
]


def write_project(tmp: Path) -> Path:
    project = tmp / "project"
    claude = project / ".claude"
    (claude / "hooks").mkdir(parents=True)
    (claude / "hooks" / "copy.sh").write_text(COPY_STDIN)
    (claude / "hooks" / "rm-guard.sh").write_text(RM_GUARD)
    for script in ("copy.sh", "rm-guard.sh"):
        (claude / "hooks" / script).chmod(0o755)
    copy = {"type": "command", "command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/copy.sh'}
    guard = {"type": "command", "command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/rm-guard.sh'}
    hooks: dict[str, Any] = {event: [{"hooks": [copy]}] for event in CLAUDE_EVENTS}
    hooks["PreToolUse"].append({"matcher": "Bash", "hooks": [guard]})
    # settings.local.json: these hooks run after the project's OpenHarness chain hooks.
    (claude / "settings.local.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(echo *)", "Agent"]}, "hooks": hooks})
    )
    oh = project / ".openharness" / "hooks"
    (oh / "scripts").mkdir(parents=True)
    (oh / "scripts" / "patch.py").write_text(OH_CONTEXT_PATCH)
    (oh / "scripts" / "sees.py").write_text(OH_SEES)
    for name, script, events, capabilities in (
        ("patch-context", "patch.py", ["before_context_compact"], ["rewrite_context"]),
        ("sees-context", "sees.py", ["before_context_compact", "before_tool_dispatch"], []),
    ):
        doc = {
            "name": name,
            "events": events,
            "handler": {
                "type": "command",
                "command": f'"{sys.executable}" ./.openharness/hooks/scripts/{script}',
            },
            "capabilities": capabilities,
        }
        (oh / f"{name}.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    (project / ".picoclaw").mkdir()
    (tmp / "pico.py").write_text(PICOCLAW_PROCESS)
    pico = {
        "hooks": {
            "enabled": True,
            "processes": {
                "pico": {
                    "command": [sys.executable, str(tmp / "pico.py")],
                    "intercept": ["before_tool", "after_tool", "approve_tool"],
                }
            },
        }
    }
    (project / ".picoclaw" / "config.json").write_text(json.dumps(pico))
    return project


#: Three prompts (enough history to compact), then a manual compaction.
PROMPTS = "Please do the task.\nAnd now?\nOne more?\n/compact\n"


def compact(**fields: Any) -> bytes:
    """The line `JSON.stringify` writes for `fields`, in the given order."""
    return json.dumps(fields, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def test_command_hooks_read_claude_code_bytes_on_every_event(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = write_project(tmp_path)
    script = tmp_path / "model.yaml"
    script.write_text(yaml.safe_dump({"turns": TURNS}, sort_keys=False, allow_unicode=True))
    proc = run_hookwright(
        "chat",
        "--project",
        str(project),
        "--model",
        f"scripted:{script}",
        "--trust",
        "--json",
        stdin=PROMPTS,
        home=isolated_home,
    )
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    session, transcript = events[0]["session_id"], events[0]["transcript"]
    ids = [e["id"] for e in events if e["type"] == "tool_call" and not e.get("agent_id")]
    raw = (project / "stdin.log").read_bytes()
    lines = raw.splitlines(keepends=True)
    records = [json.loads(line) for line in lines]

    for line, record in zip(lines, records, strict=True):
        assert compact(**record) == line  # compact, newline-terminated, UTF-8 as is
        assert not set(record) & FOREIGN, record
    assert "héllo".encode() in raw and b"\\u" not in raw

    base = {"session_id": session, "transcript_path": transcript, "cwd": str(project)}
    by_event: dict[str, list[bytes]] = {}
    for line, record in zip(lines, records, strict=True):
        by_event.setdefault(record["hook_event_name"], []).append(line)
    assert set(by_event) == set(CLAUDE_EVENTS)
    prompt_ids = [json.loads(line)["prompt_id"] for line in by_event["UserPromptSubmit"]]
    compaction_id = json.loads(by_event["PreCompact"][0])["prompt_id"]
    assert len({*prompt_ids, compaction_id}) == 4
    assert all(str(uuid.UUID(p, version=4)) == p for p in [*prompt_ids, compaction_id])
    turn = {**base, "prompt_id": prompt_ids[0], "permission_mode": "default"}
    tool = {**turn, "effort": {"level": "high"}}
    compacting = {**base, "prompt_id": compaction_id}

    assert by_event["SessionStart"] == [
        compact(**base, hook_event_name="SessionStart", source="startup"),
        compact(**compacting, hook_event_name="SessionStart", source="compact", model="scripted"),
    ]
    assert by_event["UserPromptSubmit"] == [
        compact(
            **base,
            prompt_id=prompt_id,
            permission_mode="default",
            hook_event_name="UserPromptSubmit",
            prompt=prompt,
        )
        for prompt_id, prompt in zip(prompt_ids, PROMPTS.splitlines()[:3], strict=True)
    ]
    assert by_event["PreToolUse"][:3] == [
        compact(
            **tool,
            hook_event_name="PreToolUse",
            tool_name="Bash",
            tool_input={"command": "echo héllo"},
            tool_use_id=ids[0],
        ),
        compact(
            **tool,
            hook_event_name="PreToolUse",
            tool_name="Read",
            tool_input={"file_path": str(project / "missing.txt")},
            tool_use_id=ids[1],
        ),
        compact(
            **tool,
            hook_event_name="PreToolUse",
            tool_name="Bash",
            tool_input={"command": "rm -rf build"},
            tool_use_id=ids[2],
        ),
    ]
    [permission] = [
        r for r in by_event["PermissionRequest"] if json.loads(r)["tool_name"] == "Bash"
    ]
    suggestions = json.loads(permission)["permission_suggestions"]
    assert permission == compact(
        **tool,
        hook_event_name="PermissionRequest",
        tool_name="Bash",
        tool_input={"command": "touch nope.txt"},
        permission_suggestions=suggestions,
    )
    post = json.loads(by_event["PostToolUse"][0])
    assert list(post) == [
        "session_id",
        "transcript_path",
        "cwd",
        "prompt_id",
        "permission_mode",
        "effort",
        "hook_event_name",
        "tool_name",
        "tool_input",
        "tool_response",
        "tool_use_id",
        "duration_ms",
    ]
    assert post["tool_response"] == {
        "stdout": "héllo",
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
    }
    failure = json.loads(by_event["PostToolUseFailure"][0])
    assert list(failure)[6:] == [
        "hook_event_name",
        "tool_name",
        "tool_input",
        "tool_use_id",
        "error",
        "is_interrupt",
        "duration_ms",
    ]
    [sub_start] = [json.loads(line) for line in by_event["SubagentStart"]]
    assert list(sub_start) == [
        "session_id",
        "transcript_path",
        "cwd",
        "prompt_id",
        "agent_id",
        "agent_type",
        "hook_event_name",
    ]
    assert (sub_start["agent_type"], sub_start["prompt_id"]) == ("Explore", prompt_ids[0])
    [sub_stop] = [json.loads(line) for line in by_event["SubagentStop"]]
    assert list(sub_stop) == [
        "session_id",
        "transcript_path",
        "cwd",
        "prompt_id",
        "permission_mode",
        "agent_id",
        "agent_type",
        "effort",
        "hook_event_name",
        "stop_hook_active",
        "agent_transcript_path",
        "last_assistant_message",
        "background_tasks",
        "session_crons",
    ]
    assert by_event["Stop"][0] == compact(
        **tool,
        hook_event_name="Stop",
        stop_hook_active=False,
        last_assistant_message="done ✓",
        background_tasks=[],
        session_crons=[],
    )
    assert by_event["PreCompact"] == [
        compact(
            **compacting, hook_event_name="PreCompact", trigger="manual", custom_instructions=None
        )
    ]
    assert by_event["PostCompact"] == [
        compact(
            **compacting,
            hook_event_name="PostCompact",
            trigger="manual",
            compact_summary="Summary of the talk.",
        )
    ]
    assert by_event["SessionEnd"] == [
        compact(**compacting, hook_event_name="SessionEnd", reason="prompt_input_exit")
    ]

    [denied] = [e for e in events if e["type"] == "tool_result" and e["id"] == ids[2]]
    assert "no rm here" in denied["content"] and denied["skipped"] == "denied by hook"
    # the second OpenHarness hook of the chain saw the first one's context patch
    seen = [json.loads(line) for line in (project / "oh-seen.jsonl").read_text().splitlines()]
    [compaction] = [s for s in seen if s["hook_event_name"] == "before_context_compact"]
    assert compaction["context"]["meta"] == {"from": "oh"}


ANSWERING_HOOK = """\
import json, sys
from hookwright import Event, Verdict
from hookwright.dialects.claude_code import encode_output_json
from hookwright.core.results import Decision, HookResult

command = json.load(sys.stdin)["tool_input"]["command"]
verdict = Verdict(Event.PreToolUse)
if command.startswith("rm"):
    verdict.absorb(HookResult(decision=Decision.deny, reason="rm is not allowed here"))
else:
    rewrite = {"command": "echo rewritten > out.txt"}
    verdict.absorb(HookResult(decision=Decision.allow, updated_input=rewrite))
sys.stdout.buffer.write(encode_output_json(verdict))
"""


def test_a_hook_printing_an_encoded_verdict_drives_the_agent(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "answer.py").write_text(ANSWERING_HOOK)
    hook = {
        "type": "command",
        "command": f'{sys.executable} "$CLAUDE_PROJECT_DIR"/.claude/answer.py',
    }
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    turns = [
        {
            "content": "",
            "tool_calls": [
                call("Bash", command="rm -rf src"),
                call("Bash", command="touch original.txt"),
            ],
        },
        {"match": "rm is not allowed here", "content": "finished"},
    ]
    script = tmp_path / "model.yaml"
    script.write_text(yaml.safe_dump({"turns": turns}, sort_keys=False))
    proc = run_hookwright(
        "run",
        "go",
        "--project",
        str(project),
        "--model",
        f"scripted:{script}",
        "--trust",
        "--json",
        home=isolated_home,
    )
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    denied, rewritten = [e for e in events if e["type"] == "tool_result"]
    assert (denied["content"], denied["skipped"]) == ("rm is not allowed here", "denied by hook")
    assert rewritten["is_error"] is False and rewritten["skipped"] is None
    assert (project / "out.txt").read_text() == "rewritten\n"
    assert not (project / "original.txt").exists()
