"""`hookwright run` / `chat` / `trust` as real subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_runner import run_hookwright as hookwright

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo"
DEMO_SCRIPT = f"scripted:{DEMO / '.hookwright' / 'script.yaml'}"


def test_untrusted_run_says_how_to_trust_and_runs_no_project_hook(
    isolated_home: Path,
) -> None:
    proc = hookwright(
        "run", "go", "--project", str(DEMO), "--json", "--model", DEMO_SCRIPT, home=isolated_home
    )
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


def test_no_model_configured_exits_2_and_says_how(tmp_path: Path, isolated_home: Path) -> None:
    for command in (["run", "hi"], ["chat"]):
        proc = hookwright(*command, "--project", str(tmp_path), home=isolated_home, stdin="")
        assert proc.returncode == 2, proc.stderr
        [line] = proc.stderr.strip().splitlines()
        assert line.startswith("hookwright: error: No model is configured. Pass --model")
        assert proc.stdout == ""


def test_unknown_skill_is_an_error_for_run_and_chat(tmp_path: Path, isolated_home: Path) -> None:
    (tmp_path / "skills" / "tidy").mkdir(parents=True)
    for command in (["run", "hi"], ["chat"]):
        proc = hookwright(
            *command,
            "--project",
            str(tmp_path),
            "--model",
            DEMO_SCRIPT,
            "--skill",
            "tidy",
            "--skill",
            "tiddy",
            home=isolated_home,
            stdin="",
        )
        assert proc.returncode == 2, proc.stderr
        [line] = proc.stderr.strip().splitlines()
        assert f"unknown skill tiddy: not in {tmp_path / 'skills'} (available: tidy)" in line


@pytest.mark.parametrize("backend", ["openai", "anthropic"])
def test_a_missing_sdk_is_one_line_naming_the_extra(
    backend: str, tmp_path: Path, isolated_home: Path
) -> None:
    code = (
        f"import sys; sys.modules[{backend!r}] = None; "
        "from hookwright.cli.app import main; "
        f"sys.argv = ['hookwright', 'run', 'hi', '-p', {str(tmp_path)!r}, "
        f"'--model', '{backend}:some-model']; main()"
    )
    env = {**os.environ, "HOME": str(isolated_home), f"{backend.upper()}_API_KEY": "k"}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == (
        f"hookwright: error: --model {backend}:some-model needs the {backend} package, an "
        f"optional extra: pip install 'hookwright[{backend}]'\n"
    )


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
