"""`hookwright run` end to end against what Claude Code 2.1.240 (`-p`) writes, byte for byte.

A command hook on every event the run fires appends its raw stdin to a log and its working
directory to another; the model is scripted. Every line must be exactly the JSON Claude Code
sends for the same run (measured with the real CLI): `prompt_id` on everything after the
prompt, `effort` on tool and stop events, Claude Code's Bash and Write results, the shell's
working directory after `cd`, `SessionEnd` reason `other`. Ids and durations are read from the
log; everything else is spelled out.
"""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from pathlib import Path
from typing import Any

import yaml

from cli_runner import run_hookwright

EVENTS = [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Stop",
    "SessionEnd",
]
DUMP = (
    "#!/usr/bin/env bash\n"
    'pwd >> "$CLAUDE_PROJECT_DIR/.claude/cwd.log"\n'
    'cat >> "$CLAUDE_PROJECT_DIR/.claude/stdin.log"\n'
)
#: A Stop hook as people write them: grep the transcript for the model's lines, take the last.
LAST_ASSISTANT = (
    "#!/usr/bin/env bash\n"
    'transcript=$(sed -n \'s/.*"transcript_path":"\\([^"]*\\)".*/\\1/p\')\n'
    'grep \'"role":"assistant"\' "$transcript" | tail -n 1 \\\n'
    '  | grep -o \'"text":"[^"]*"\' > "$CLAUDE_PROJECT_DIR/.claude/last.txt"\n'
)
FRESH = "(file state is current in your context \u2014 no need to Read it back)"


def bash(call_id: str, command: str) -> dict[str, Any]:
    return {"id": call_id, "name": "Bash", "arguments": {"command": command}}


def write_project(tmp_path: Path, turns: list[dict[str, Any]]) -> Path:
    project = tmp_path / "project"
    hooks_dir = project / ".claude" / "hooks"
    hooks_dir.mkdir(parents=True)
    for name, text in (("dump.sh", DUMP), ("last.sh", LAST_ASSISTANT)):
        (hooks_dir / name).write_text(text)
        (hooks_dir / name).chmod(0o755)
    dump = {"type": "command", "command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/dump.sh'}
    last = {"type": "command", "command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/last.sh'}
    hooks: dict[str, Any] = {event: [{"hooks": [dump]}] for event in EVENTS}
    hooks["Stop"].append({"hooks": [last]})
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    script = tmp_path / "model.yaml"
    script.write_text(yaml.safe_dump({"turns": turns}, sort_keys=False))
    return project


def hookwright_run(project: Path, home: Path) -> subprocess.CompletedProcess[str]:
    script = project.parent / "model.yaml"
    proc = run_hookwright(
        "run",
        "go",
        "--project",
        str(project),
        "--model",
        f"scripted:{script}",
        "--trust",
        "--permission-mode",
        "bypassPermissions",
        "--json",
        home=home,
    )
    assert proc.returncode == 0, proc.stderr
    return proc


def run(project: Path, home: Path) -> list[dict[str, Any]]:
    """The run's JSON event stream."""
    proc = hookwright_run(project, home)
    return [json.loads(line) for line in proc.stdout.splitlines()]


def js(**fields: Any) -> bytes:
    """The line Claude Code writes for `fields`, in the given order."""
    return json.dumps(fields, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


TURNS: list[dict[str, Any]] = [
    {"content": "", "tool_calls": [bash("t1", "mkdir -p sub && cd sub")]},
    {"content": "", "tool_calls": [bash("t2", "pwd; echo err >&2; echo out")]},
    {"content": "", "tool_calls": [bash("t3", "echo bad >&2; exit 3")]},
    {
        "content": "",
        "tool_calls": [
            {"id": "t4", "name": "Write", "arguments": {"file_path": "new.txt", "content": "hi\n"}}
        ],
    },
    {"content": "done"},
]


def test_a_run_writes_claude_codes_bytes_on_every_event(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = write_project(tmp_path, TURNS)
    events = run(project, isolated_home)
    lines = (project / ".claude" / "stdin.log").read_bytes().splitlines(keepends=True)
    records = [json.loads(line) for line in lines]
    session, transcript = events[0]["session_id"], events[0]["transcript"]
    prompt_id = records[1]["prompt_id"]
    assert str(uuid.UUID(prompt_id, version=4)) == prompt_id
    sub = project / "sub"
    real_sub = os.path.realpath(sub)
    base = {"session_id": session, "transcript_path": transcript}
    turn = {"prompt_id": prompt_id, "permission_mode": "bypassPermissions"}
    tool = {**turn, "effort": {"level": "high"}}

    def at(cwd: Path, **fields: Any) -> dict[str, Any]:
        return {**base, "cwd": str(cwd), **fields}

    def post(index: int) -> int:
        return int(records[index]["duration_ms"])

    cd_input = {"command": "mkdir -p sub && cd sub"}
    mixed = {"command": "pwd; echo err >&2; echo out"}
    failing = {"command": "echo bad >&2; exit 3"}
    write = {"file_path": "new.txt", "content": "hi\n"}
    observed_write = {"file_path": str(sub / "new.txt"), "content": "hi\n"}
    bash_result = {"stderr": "", "interrupted": False, "isImage": False}
    written = {
        "type": "create",
        "filePath": "new.txt",
        "content": "hi\n",
        "structuredPatch": [],
        "originalFile": None,
        "userModified": False,
    }
    assert lines == [
        js(**at(project), hook_event_name="SessionStart", source="startup"),
        js(**at(project), **turn, hook_event_name="UserPromptSubmit", prompt="go"),
        js(**at(project), **tool, hook_event_name="PreToolUse", tool_name="Bash",
           tool_input=cd_input, tool_use_id="t1"),
        js(**at(sub), **tool, hook_event_name="PostToolUse", tool_name="Bash",
           tool_input=cd_input,
           tool_response={"stdout": "", **bash_result, "noOutputExpected": True},
           tool_use_id="t1", duration_ms=post(3)),
        js(**at(sub), **tool, hook_event_name="PostToolBatch", tool_calls=[
            {"tool_name": "Bash", "tool_input": cd_input, "tool_use_id": "t1",
             "tool_response": "(Bash completed with no output)"}]),
        js(**at(sub), **tool, hook_event_name="PreToolUse", tool_name="Bash",
           tool_input=mixed, tool_use_id="t2"),
        js(**at(sub), **tool, hook_event_name="PostToolUse", tool_name="Bash",
           tool_input=mixed,
           tool_response={"stdout": f"{real_sub}\nerr\nout", **bash_result,
                          "noOutputExpected": False},
           tool_use_id="t2", duration_ms=post(6)),
        js(**at(sub), **tool, hook_event_name="PostToolBatch", tool_calls=[
            {"tool_name": "Bash", "tool_input": mixed, "tool_use_id": "t2",
             "tool_response": f"{real_sub}\nerr\nout"}]),
        js(**at(sub), **tool, hook_event_name="PreToolUse", tool_name="Bash",
           tool_input=failing, tool_use_id="t3"),
        js(**at(sub), **tool, hook_event_name="PostToolUseFailure", tool_name="Bash",
           tool_input=failing, tool_use_id="t3", error="Exit code 3\nbad", is_interrupt=False,
           duration_ms=post(9)),
        js(**at(sub), **tool, hook_event_name="PostToolBatch", tool_calls=[
            {"tool_name": "Bash", "tool_input": failing, "tool_use_id": "t3",
             "tool_response": "Exit code 3\nbad"}]),
        js(**at(sub), **tool, hook_event_name="PreToolUse", tool_name="Write",
           tool_input=observed_write, tool_use_id="t4"),
        js(**at(sub), **tool, hook_event_name="PostToolUse", tool_name="Write",
           tool_input=observed_write, tool_response=written, tool_use_id="t4",
           duration_ms=post(12)),
        js(**at(sub), **tool, hook_event_name="PostToolBatch", tool_calls=[
            {"tool_name": "Write", "tool_input": write, "tool_use_id": "t4",
             "tool_response": f"File created successfully at: new.txt {FRESH}"}]),
        js(**at(sub), **tool, hook_event_name="Stop", stop_hook_active=False,
           last_assistant_message="done", background_tasks=[], session_crons=[]),
        js(**at(sub), prompt_id=prompt_id, hook_event_name="SessionEnd", reason="other"),
    ]  # fmt: skip
    hook_dirs = (project / ".claude" / "cwd.log").read_text().splitlines()
    assert hook_dirs == [str(project)] * 3 + [real_sub] * 13
    assert (sub / "new.txt").read_text() == "hi\n"
    assert (project / ".claude" / "last.txt").read_text() == '"text":"done"\n'


def test_the_transcript_is_compact_claude_code_jsonl(tmp_path: Path, isolated_home: Path) -> None:
    project = write_project(tmp_path, TURNS)
    events = run(project, isolated_home)
    raw = Path(events[0]["transcript"]).read_text().splitlines()
    lines = [json.loads(line) for line in raw]
    prompt_id = json.loads((project / ".claude" / "stdin.log").read_text().splitlines()[1])[
        "prompt_id"
    ]

    for text, line in zip(raw, lines, strict=True):
        assert text == json.dumps(line, ensure_ascii=False, separators=(",", ":"))
    talk = [line for line in lines if line["type"] in ("user", "assistant")]
    assert [list(line)[:5] for line in talk if line["type"] == "user"] == [
        ["parentUuid", "isSidechain", "promptId", "type", "message"]
    ] * 5
    assert {line["promptId"] for line in talk if line["type"] == "user"} == {prompt_id}
    assert [list(line)[:4] for line in talk if line["type"] == "assistant"] == [
        ["parentUuid", "isSidechain", "message", "type"]
    ] * 5
    assert talk[0]["message"] == {"role": "user", "content": "go"}
    assert [line["cwd"] for line in talk] == [str(project)] * 2 + [str(project / "sub")] * 8
    result = talk[2]
    assert result["message"]["content"] == [
        {
            "tool_use_id": "t1",
            "type": "tool_result",
            "content": "(Bash completed with no output)",
            "is_error": False,
        }
    ]
    assert result["sourceToolAssistantUUID"] == talk[1]["uuid"]
    assistant = [text for text in raw if '"role":"assistant"' in text]
    assert len(assistant) == 5
    assert json.loads(assistant[-1])["message"]["content"] == [{"type": "text", "text": "done"}]


def test_hooks_run_in_the_project_once_the_shell_directory_is_gone(
    tmp_path: Path, isolated_home: Path
) -> None:
    turns: list[dict[str, Any]] = [
        {"content": "", "tool_calls": [bash("t1", "mkdir gone && cd gone")]},
        {"content": "", "tool_calls": [bash("t2", "rmdir ../gone")]},
        {"content": "", "tool_calls": [bash("t3", "pwd")]},
        {"content": "done"},
    ]
    project = write_project(tmp_path, turns)
    run(project, isolated_home)
    records = [
        json.loads(line) for line in (project / ".claude" / "stdin.log").read_text().splitlines()
    ]
    hook_dirs = (project / ".claude" / "cwd.log").read_text().splitlines()
    gone, here = str(project / "gone"), str(project)

    seen = [(r["hook_event_name"], r.get("tool_use_id"), r["cwd"]) for r in records]
    assert seen[2:] == [
        ("PreToolUse", "t1", here),
        ("PostToolUse", "t1", gone),
        ("PostToolBatch", None, gone),
        ("PreToolUse", "t2", gone),
        ("PostToolUseFailure", "t2", gone),
        ("PostToolBatch", None, gone),
        ("PreToolUse", "t3", gone),
        ("PostToolUse", "t3", here),
        ("PostToolBatch", None, here),
        ("Stop", None, here),
        ("SessionEnd", None, here),
    ]
    assert hook_dirs[3:6] == [os.path.realpath(gone)] * 3
    assert set(hook_dirs[6:]) == {os.path.realpath(project)}
    assert records[6]["error"].startswith("Exit code 1\npwd: error retrieving current directory")
    assert records[9]["tool_response"]["stdout"] == os.path.realpath(project)


def test_settings_effort_level_reaches_the_hooks(tmp_path: Path, isolated_home: Path) -> None:
    project = write_project(
        tmp_path, [{"content": "", "tool_calls": [bash("t1", "true")]}, {"content": "done"}]
    )
    (project / ".claude" / "settings.local.json").write_text(json.dumps({"effortLevel": "low"}))
    user_settings = isolated_home / ".claude" / "settings.json"
    user_settings.parent.mkdir(exist_ok=True)
    user_settings.write_text(json.dumps({"effortLevel": "huge"}))

    proc = hookwright_run(project, isolated_home)
    records = [
        json.loads(line) for line in (project / ".claude" / "stdin.log").read_text().splitlines()
    ]

    assert f"{user_settings}: effortLevel: expected one of low, medium" in proc.stderr
    assert {r["hook_event_name"]: r.get("effort") for r in records} == {
        "SessionStart": None,
        "UserPromptSubmit": None,
        "PreToolUse": {"level": "low"},
        "PostToolUse": {"level": "low"},
        "PostToolBatch": {"level": "low"},
        "Stop": {"level": "low"},
        "SessionEnd": None,
    }
