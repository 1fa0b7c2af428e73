"""The command line's own manners, through the real `python -m hookwright`: version,
completion, help text, usage errors, suggestions, stdin prompts, sessions and trust."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cli_runner import run_hookwright as hookwright
from hookwright import __version__


def test_version(isolated_home: Path) -> None:
    proc = hookwright("--version", home=isolated_home)
    assert (proc.returncode, proc.stdout) == (0, f"hookwright {__version__}\n")


def test_shell_completion_completes_commands(isolated_home: Path) -> None:
    proc = hookwright(
        home=isolated_home,
        env={
            "_HOOKWRIGHT_COMPLETE": "complete_bash",
            "COMP_WORDS": "hookwright unt",
            "COMP_CWORD": "1",
        },
    )
    assert proc.stdout.split() == ["untrust"]
    # The script is for the shell hookwright runs in (under `make`, sh, which completion does
    # not support); typer's own switch turns that detection off, so the shell named is used.
    script = hookwright(
        "--show-completion",
        "bash",
        home=isolated_home,
        env={"_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"},
    )
    assert "_HOOKWRIGHT_COMPLETE" in script.stdout


@pytest.mark.parametrize(
    "command", [["run"], ["chat"], ["serve"], ["hooks", "list"], ["hooks", "test"], ["trust"]]
)
def test_help_names_values_not_python_types(command: list[str], isolated_home: Path) -> None:
    proc = hookwright(*command, "--help", home=isolated_home)
    assert proc.returncode == 0
    assert not re.search(r"<(str|bool|int|float|path|list)", proc.stdout), proc.stdout
    assert "╭" not in proc.stdout


def test_run_help_shows_metavars(isolated_home: Path) -> None:
    text = hookwright("run", "--help", home=isolated_home).stdout
    for fragment in ("--config FILE", "--skill NAME", "--project DIR", "--model MODEL"):
        assert fragment in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["hooks", "list", "--bogus"],
            "No such option: --bogus (see: hookwright hooks list --help)",
        ),
        (["hooks", "lst"], "No such command 'lst'. Did you mean 'list'?"),
        (["run"], "Missing argument 'PROMPT'."),
        (["run", "x", "--max-turns", "0"], "Invalid value for '--max-turns'"),
    ],
)
def test_usage_errors_are_one_line(args: list[str], message: str, isolated_home: Path) -> None:
    proc = hookwright(*args, home=isolated_home)
    assert proc.returncode == 2
    assert len(proc.stderr.splitlines()) == 1, proc.stderr
    assert proc.stderr.startswith("hookwright: error: ")
    assert message in proc.stderr


def test_did_you_mean_for_events_and_fields(tmp_path: Path, isolated_home: Path) -> None:
    proc = hookwright("hooks", "test", "pretooluse", home=isolated_home)
    assert proc.returncode == 2
    assert "unknown event 'pretooluse' (did you mean 'PreToolUse'?)" in proc.stderr
    config = tmp_path / ".hookwright" / "hooks.yaml"
    config.parent.mkdir()
    config.write_text(
        "hooks:\n"
        "  - {name: a, event: PreTolUse, call: 'x:y'}\n"
        "  - {name: b, event: Stop, mathcer: Bash, call: 'x:y'}\n"
    )
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"hooks": {"PostToolUsed": []}}')
    listed = hookwright("hooks", "list", "-p", str(tmp_path), home=isolated_home)
    assert (
        "hooks[0].event: Value error, unknown event 'PreTolUse' (did you mean 'PreToolUse'?)"
        in listed.stderr
    )
    assert "hooks[1].mathcer: unknown field (did you mean 'matcher'?)" in listed.stderr
    assert "unknown event 'PostToolUsed' (did you mean 'PostToolUse'?); skipped" in listed.stderr


def scripted(tmp_path: Path, answer: str) -> str:
    script = tmp_path / "script.yaml"
    script.write_text(f"turns:\n  - content: {answer}\n")
    return f"scripted:{script}"


def transcript_prompts(home: Path) -> dict[str, list[str]]:
    found = {}
    for path in (home / ".hookwright" / "projects").rglob("*.jsonl"):
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        found[path.stem] = [x["message"]["content"] for x in lines if x.get("type") == "user"]
    return found


def test_run_dash_reads_the_prompt_from_stdin(tmp_path: Path, isolated_home: Path) -> None:
    model = scripted(tmp_path, "ok")
    proc = hookwright(
        "run",
        "-",
        "-p",
        str(tmp_path),
        "--model",
        model,
        "--json",
        home=isolated_home,
        stdin="line one\nline two\n",
    )
    assert proc.returncode == 0, proc.stderr
    assert list(transcript_prompts(isolated_home).values()) == [["line one\nline two"]]
    empty = hookwright(
        "run", "-", "-p", str(tmp_path), "--model", model, home=isolated_home, stdin=""
    )
    assert empty.returncode == 2
    assert "no prompt on stdin" in empty.stderr


def test_sessions_lists_resumable_sessions_newest_first(
    tmp_path: Path, isolated_home: Path
) -> None:
    assert "no sessions" in hookwright("sessions", "-p", str(tmp_path), home=isolated_home).stdout
    model = scripted(tmp_path, "ok")
    for prompt in ("first prompt", "second prompt"):
        proc = hookwright("run", prompt, "-p", str(tmp_path), "--model", model, home=isolated_home)
        assert proc.returncode == 0, proc.stderr
    listed = json.loads(
        hookwright("sessions", "-p", str(tmp_path), "--json", home=isolated_home).stdout
    )
    assert [s["first_prompt"] for s in listed] == ["second prompt", "first prompt"]
    assert {s["session_id"] for s in listed} == set(transcript_prompts(isolated_home))
    text = hookwright("sessions", "-p", str(tmp_path), home=isolated_home).stdout
    assert listed[0]["session_id"] in text and "first prompt" in text
    resumed = hookwright(
        "run",
        "again",
        "-p",
        str(tmp_path),
        "--model",
        model,
        "--resume",
        listed[1]["session_id"],
        home=isolated_home,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert transcript_prompts(isolated_home)[listed[1]["session_id"]] == ["first prompt", "again"]


def test_trust_refuses_root_and_home_without_force(tmp_path: Path, isolated_home: Path) -> None:
    for folder in ("/", str(isolated_home)):
        proc = hookwright("trust", folder, home=isolated_home)
        assert proc.returncode == 2
        assert "pass --force if you mean it" in proc.stderr
    assert not (isolated_home / ".hookwright" / "trust.json").exists()
    forced = hookwright("trust", str(isolated_home), "--force", home=isolated_home)
    assert forced.returncode == 0, forced.stderr
    listed = hookwright("trust", "--list", home=isolated_home).stdout.splitlines()
    assert listed == [str(isolated_home.resolve())]


def test_untrust_and_list(tmp_path: Path, isolated_home: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    for folder in (one, two):
        assert hookwright("trust", str(folder), home=isolated_home).returncode == 0
    assert hookwright("trust", "--list", home=isolated_home).stdout.split() == [
        str(one.resolve()),
        str(two.resolve()),
    ]
    proc = hookwright("untrust", str(one), home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    assert hookwright("trust", "--list", home=isolated_home).stdout.split() == [str(two.resolve())]
    again = hookwright("untrust", str(one), home=isolated_home)
    assert again.returncode == 2
    assert "is not in the trust list" in again.stderr
    stored = json.loads((isolated_home / ".hookwright" / "trust.json").read_text())
    assert stored == {"trusted": [str(two.resolve())]}
