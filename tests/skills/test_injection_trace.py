"""Every skill prompt hook injection leaves one line in the terminal of `run` and `chat`
(skill, hook, checkpoint, the start of the prompt) and one `skill_prompt` object in `--json`,
through the real command."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_hookwright

SCRIPT = """\
turns:
  - content: looking
    tool_calls: [{name: Bash, arguments: {command: "echo hi"}}]
  - content: all done
"""


def skill_project(root: Path) -> Path:
    hooks = root / "skills" / "tidy" / "hooks"
    hooks.mkdir(parents=True)
    entries = [
        ("on-input", "after_user_input", True),
        ("each-round", "before_each_agent", False),
        ("after-bash", "after_tool_call", False),
    ]
    (hooks / "hooks.json").write_text(
        json.dumps(
            {
                "hooks": [
                    {
                        "name": name,
                        "file": f"{name}.md",
                        "timing": timing,
                        "role": "system",
                        "persistent": persistent,
                    }
                    for name, timing, persistent in entries
                ]
            }
        )
    )
    for name, _, _ in entries:
        (hooks / f"{name}.md").write_text(f"Prompt of {name}: " + "x" * 200 + "\n")
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(echo *)"]}})
    )
    (root / "script.yaml").write_text(SCRIPT)
    return root


def args(project: Path, command: list[str]) -> list[str]:
    return [
        *command,
        "-p",
        str(project),
        "--trust",
        "--skill",
        "tidy",
        "--model",
        f"scripted:{project / 'script.yaml'}",
    ]


def trace_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("✚ ")]


def test_run_prints_one_line_per_injection(tmp_path: Path, isolated_home: Path) -> None:
    project = skill_project(tmp_path / "proj")
    proc = run_hookwright(*args(project, ["run", "go"]), home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    lines = trace_lines(proc.stdout)
    # after_user_input once, before_each_agent on both rounds, after_tool_call after the Bash.
    # the skill's timing next to the canonical event, the hook, the skill and its file
    assert [line.partition(": Prompt of ")[0] for line in lines] == [
        "✚ after_user_input (UserPromptSubmit) on-input (skill tidy, "
        "skills/tidy/hooks/on-input.md): system prompt, kept",
        "✚ before_each_agent (PreAgentStep) each-round (skill tidy, "
        "skills/tidy/hooks/each-round.md): system prompt",
        "✚ after_tool_call (PostToolBatch) after-bash (skill tidy, "
        "skills/tidy/hooks/after-bash.md): system prompt",
        "✚ before_each_agent (PreAgentStep) each-round (skill tidy, "
        "skills/tidy/hooks/each-round.md): system prompt",
    ]
    assert all(line.endswith("…") for line in lines)
    assert all(len(line.partition(": Prompt of ")[2]) < 60 for line in lines), "abbreviated"
    output = proc.stdout
    assert output.index("✚ after_tool_call (PostToolBatch) after-bash") > output.index("⎿ hi")


def test_json_has_a_skill_prompt_object_per_injection(tmp_path: Path, isolated_home: Path) -> None:
    project = skill_project(tmp_path / "proj")
    proc = run_hookwright(*args(project, ["run", "go", "--json"]), home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    injected = [e for e in events if e["type"] == "skill_prompt"]
    assert [(e["skill"], e["hook"], e["timing"], e["persistent"]) for e in injected] == [
        ("tidy", "on-input", "after_user_input", True),
        ("tidy", "each-round", "before_each_agent", False),
        ("tidy", "after-bash", "after_tool_call", False),
        ("tidy", "each-round", "before_each_agent", False),
    ]
    assert injected[0]["content"] == "Prompt of on-input: " + "x" * 200
    assert injected[0]["role"] == "system"


def test_chat_prints_the_injections_of_each_prompt(tmp_path: Path, isolated_home: Path) -> None:
    project = skill_project(tmp_path / "proj")
    proc = run_hookwright(*args(project, ["chat"]), stdin="go\n", home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    lines = trace_lines(proc.stdout)
    assert len(lines) == 4
    assert lines[0].startswith("✚ after_user_input (UserPromptSubmit) on-input (skill tidy, ")
