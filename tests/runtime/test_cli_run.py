"""`hookwright run` / `chat` / `trust` as real subprocesses."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_hookwright as hookwright

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo"


def test_demo_shows_every_hook_decision(isolated_home: Path) -> None:
    proc = hookwright(
        "run", "Clean, publish, read.", "--project", str(DEMO), "--trust", home=isolated_home
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "PreToolUse no-destructive-rm (native, project): deny" in out
    assert "PreToolUse force-dry-run (native, project): rewrite input" in out
    assert "SessionStart project-facts (native, project): context" in out
    assert "dry run: git push origin main" in out
    assert "Done:" in out


def test_json_stream_is_one_event_per_line(isolated_home: Path) -> None:
    proc = hookwright("run", "go", "--project", str(DEMO), "--trust", "--json", home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "session_start"
    assert kinds[-1] == "session_end"
    decisions = [(e["hook"], e["effect"]) for e in events if e["type"] == "hook_result"]
    assert ("no-destructive-rm", "deny") in decisions
    assert ("force-dry-run", "rewrite input") in decisions
    results = [e for e in events if e["type"] == "tool_result"]
    assert results[0]["skipped"] == "denied by hook"
    assert events[-2]["type"] == "turn_end"
    assert events[-2]["status"] == "completed"


def test_untrusted_run_says_how_to_trust_and_runs_no_project_hook(
    isolated_home: Path,
) -> None:
    proc = hookwright("run", "go", "--project", str(DEMO), "--json", home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    assert "not trusted" in proc.stderr
    assert f"hookwright trust {DEMO}" in proc.stderr
    assert "--trust" in proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [e for e in events if e["type"] == "hook_result"] == []


def test_trust_command_remembers_the_folder(isolated_home: Path) -> None:
    proc = hookwright("trust", str(DEMO), home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    stored = json.loads((isolated_home / ".hookwright" / "trust.json").read_text())
    assert stored == {"trusted": [str(DEMO.resolve())]}
    run = hookwright("run", "go", "--project", str(DEMO), "--json", home=isolated_home)
    assert "not trusted" not in run.stderr
    assert '"hook_result"' in run.stdout


def test_bad_model_and_mode_exit_2_with_one_line(tmp_path: Path, isolated_home: Path) -> None:
    for args, message in (
        (["--model", "gpt4"], "unknown model 'gpt4'"),
        (["--permission-mode", "yolo"], "unknown permission mode 'yolo'"),
        (["--model", f"scripted:{tmp_path / 'missing.yaml'}"], "missing.yaml"),
        (["--project", str(tmp_path / "nowhere")], "does not exist"),
    ):
        proc = hookwright("run", "hi", *args, home=isolated_home)
        assert proc.returncode == 2, (args, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1, proc.stderr
        assert message in lines[0]


def test_no_model_configured_says_how(tmp_path: Path, isolated_home: Path) -> None:
    proc = hookwright("run", "hi", "--project", str(tmp_path), home=isolated_home)
    assert proc.returncode == 0
    assert "No model is configured" in proc.stdout


def test_chat_reads_prompts_until_eof(tmp_path: Path, isolated_home: Path) -> None:
    script = tmp_path / "s.yaml"
    script.write_text("turns:\n  - content: first answer\n  - content: second answer\n")
    proc = hookwright(
        "chat",
        "--project",
        str(tmp_path),
        "--model",
        f"scripted:{script}",
        "--json",
        home=isolated_home,
        stdin="hello\n\nagain\n",
    )
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    ends = [e["text"] for e in events if e["type"] == "turn_end"]
    assert ends == ["first answer", "second answer"]
    assert events[-1] == {
        "type": "session_end",
        "session_id": events[0]["session_id"],
        "reason": "prompt_input_exit",
    }
