"""`hookwright run` (channel `cli`) with a PicoClaw hook that answers a tool call with media and
`response_handled`: the channel is internal, so PicoClaw queues the media on its bus, counts the
response as not handled, and the model reads the result and answers."""

from __future__ import annotations

import json
import os
from pathlib import Path

import yaml

from cli_runner import run_cli

from .pico import PicoProject, answer, received

RESULT = {
    "for_llm": "media queued",
    "for_user": "Here is your report",
    "media": ["media://report.pdf"],
    "response_handled": True,
    "silent": False,
    "is_error": False,
}


def test_handled_media_on_the_cli_channel_is_queued_and_the_model_answers(
    pico_project: PicoProject, tmp_path: Path
) -> None:
    log = pico_project.process(
        "sender",
        {"before_tool": [answer({"action": "respond", "result": RESULT})]},
        intercept=["before_tool", "approve_tool"],
    )
    tool_call = {"name": "Bash", "arguments": {"command": "touch original.txt"}}
    script = tmp_path / "model.yaml"
    turns = [
        {"content": "", "tool_calls": [tool_call]},
        {"match": r"media queued\n\[media://report\.pdf\]", "content": "The report is on its way."},
    ]
    script.write_text(yaml.safe_dump({"turns": turns}))
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HOOKWRIGHT_", "CLAUDE_"))}
    command = ["run", "Send me the report"]
    options = ["--project", str(pico_project.root), "--model", f"scripted:{script}"]
    done = run_cli(
        [*command, *options, "--permission-mode", "bypassPermissions", "--trust", "--json"],
        {**env, "HOME": str(home)},
        stdin="",
    )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    [to_user] = [e for e in events if e["type"] == "to_user"]
    assert (to_user["text"], to_user["media"]) == ("Here is your report", ["media://report.pdf"])
    [result] = [e for e in events if e["type"] == "tool_result"]
    assert (result["content"], result["is_error"]) == ("media queued\n[media://report.pdf]", False)
    [end] = [e for e in events if e["type"] == "turn_end"]
    assert (end["status"], end["text"]) == ("completed", "The report is on its way.")
    [before] = received(log, "hook.before_tool")
    assert (before["tool"], before["arguments"], before["channel"]) == (
        "Bash",
        {"command": "touch original.txt"},
        "cli",
    )
    assert received(log, "hook.approve_tool") == []  # respond skips the approval
    assert not (pico_project.root / "original.txt").exists()
