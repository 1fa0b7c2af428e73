"""`hookwright chat` in a real pseudo-terminal: slash commands and Ctrl-C."""

from __future__ import annotations

import json
import shutil
import signal
import time
from pathlib import Path

from bounds import eventually
from terminal import Terminal

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo"


def write_project(root: Path, turns: str) -> Path:
    hooks = root / ".hookwright"
    hooks.mkdir(parents=True)
    (hooks / "ctx.py").write_text(
        "import json, os\n"
        "from hookwright import add_context\n"
        "def start(inp):\n"
        "    with open(os.environ['STARTS'], 'a') as f:\n"
        "        f.write(json.dumps([inp.session_id, inp.payload.get('source')]) + '\\n')\n"
        "    return add_context('chat hook ran')\n"
        "def interrupted(inp):\n"
        "    with open(os.environ['STARTS'], 'a') as f:\n"
        "        f.write(json.dumps(['interrupted', inp.session_id, inp.turn_id]) + '\\n')\n"
    )
    (hooks / "hooks.yaml").write_text(
        "hooks:\n  - {name: starter, event: SessionStart, call: 'ctx:start'}\n"
        "  - {name: interrupted, event: Interrupt, call: 'ctx:interrupted'}\n"
    )
    script = root / "script.yaml"
    script.write_text(turns)
    return script


def transcripts(home: Path) -> list[Path]:
    return [p for p in (home / ".hookwright").rglob("*.jsonl") if p.stem != "audit"]


def chat(project: Path, script: Path, home: Path, starts: Path) -> Terminal:
    return Terminal(
        ["chat", "--project", str(project), "--trust", "--model", f"scripted:{script}"],
        home,
        project,
        extra_env={"STARTS": str(starts)},
    )


def test_help_hooks_and_unknown_commands_stay_out_of_the_model(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "repo"
    script = write_project(project, "turns:\n  - content: the answer\n")
    starts = tmp_path / "starts.jsonl"
    term = chat(project, script, isolated_home, starts)
    term.expect("› ")
    term.send("/help")
    term.expect("/clear")
    term.send("/hooks")
    term.expect("starter")
    term.send("/frobnicate now")
    term.expect("unknown command /frobnicate")
    term.send("hello")
    term.expect("the answer")
    term.send("/exit")
    assert term.close() == 0
    assert "SessionStart" in term.output and ".hookwright/hooks.yaml" in term.output
    sent = [
        json.loads(line)["message"]["content"]
        for path in transcripts(isolated_home)
        for line in path.read_text().splitlines()
        if json.loads(line).get("type") == "user"
    ]
    assert sent == ["hello"], "only the prompt reaches the conversation"


def test_clear_starts_a_new_session(tmp_path: Path, isolated_home: Path) -> None:
    project = tmp_path / "repo"
    script = write_project(project, "turns:\n  - content: first\n  - content: second\n")
    starts = tmp_path / "starts.jsonl"
    term = chat(project, script, isolated_home, starts)
    term.expect("› ")
    term.send("one")
    term.expect("first")
    term.send("/clear")
    term.send("two")
    term.send("/exit")
    assert term.close() == 0
    (old, old_source), (new, new_source) = [json.loads(x) for x in starts.read_text().splitlines()]
    assert (old_source, new_source) == ("startup", "clear")
    assert old != new
    prompts = {}
    for path in transcripts(isolated_home):
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        prompts[path.stem] = [x["message"]["content"] for x in lines if x.get("type") == "user"]
    assert prompts == {old: ["one"], new: ["two"]}, "the new session starts with no history"


def test_ctrl_c_interrupts_the_turn_and_a_second_exits(tmp_path: Path, isolated_home: Path) -> None:
    project = tmp_path / "repo"
    marker, running = tmp_path / "slept", tmp_path / "running"
    command = f"touch {running}; sleep 30; touch {marker}"
    script = write_project(
        project,
        "turns:\n"
        f"  - tool_calls: [{{name: Bash, arguments: {{command: '{command}'}}}}]\n"
        "  - content: after the interruption\n",
    )
    starts = tmp_path / "starts.jsonl"
    term = chat(project, script, isolated_home, starts)
    term.expect("› ")
    term.send("slow")
    term.expect("Allow? [y/n]")
    term.send("y")
    assert eventually(running.exists), "the command started"
    term.proc.send_signal(signal.SIGINT)
    term.expect("interrupted by user")
    term.send("go on")
    term.expect("after the interruption")
    term.expect("› ")
    term.proc.send_signal(signal.SIGINT)
    term.expect("Ctrl-C again")
    term.proc.send_signal(signal.SIGINT)
    assert term.close() == 0
    assert not marker.exists(), "the interrupted command was killed"
    (transcript,) = transcripts(isolated_home)
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    users = [x["message"]["content"] for x in lines if x.get("type") == "user"]
    assert "[Request interrupted by user]" in json.dumps(users)
    records = [json.loads(line) for line in starts.read_text().splitlines()]
    interrupted = [record for record in records if record[0] == "interrupted"]
    assert len(interrupted) == 1, "one Ctrl-C during the turn, one Interrupt"
    assert interrupted[0][1] == transcript.stem and interrupted[0][2]


def test_ctrl_c_at_the_permission_question_interrupts_only_the_turn(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "repo"
    marker = tmp_path / "made"
    script = write_project(
        project,
        "turns:\n"
        f"  - tool_calls: [{{name: Bash, arguments: {{command: 'touch {marker}'}}}}]\n"
        "  - content: still here\n",
    )
    term = chat(project, script, isolated_home, tmp_path / "starts.jsonl")
    term.send("make it")
    term.expect("Allow? [y/n]")
    term.proc.send_signal(signal.SIGINT)
    term.expect("interrupted by user")
    term.send("and now")
    term.expect("still here")
    term.send("/exit")
    assert term.close() == 0
    assert not marker.exists()


def test_hooks_names_systems_own_events_and_grace_and_hides_plumbing(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "demo"
    shutil.copytree(DEMO, project)
    script = project / ".hookwright" / "script.yaml"
    term = chat(project, script, isolated_home, tmp_path / "starts.jsonl")
    term.expect("› ")
    term.send("/hooks")
    term.expect("PostToolUseFailure")
    term.send("/exit")
    assert term.close() == 0
    listing = term.output[term.output.index("/hooks") :]
    assert "picoclaw-config-watch" not in listing
    assert "as before_tool — .picoclaw/config.json:hooks.processes.redact-secrets" in listing
    assert "OpenHarness · project · chain · 10s +2s · fails open" in listing
    assert "as after_tool_dispatch — .openharness/hooks/note-dry-runs.yaml:events[0]" in listing
    assert "Python · project" in listing
    assert "native ·" not in listing and "claude_code ·" not in listing


def test_after_an_interrupted_turn_one_ctrl_c_at_the_prompt_does_not_exit(
    tmp_path: Path, isolated_home: Path
) -> None:
    project, running = tmp_path / "repo", tmp_path / "running"
    command = f"touch {running}; sleep 30"
    script = write_project(
        project,
        f"turns:\n  - tool_calls: [{{name: Bash, arguments: {{command: '{command}'}}}}]\n",
    )
    term = chat(project, script, isolated_home, tmp_path / "starts.jsonl")
    term.expect("› ")
    term.send("slow")
    term.expect("Allow? [y/n]")
    term.send("y")
    assert eventually(running.exists), "the command started"
    term.proc.send_signal(signal.SIGINT)
    term.expect("interrupted by user")
    term.expect("› ")
    term.proc.send_signal(signal.SIGINT)
    term.expect("Ctrl-C again")
    time.sleep(0.5)
    assert term.proc.poll() is None, "one Ctrl-C at the prompt left the chat"
    term.proc.send_signal(signal.SIGINT)
    assert term.close() == 0
