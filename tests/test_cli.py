"""The `hookwright` command, run as a real subprocess."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from cli_runner import run_hookwright

DEMO = Path(__file__).resolve().parent.parent / "examples" / "demo"

hookwright = functools.partial(run_hookwright, timeout=60)


def write_project(root: Path) -> Path:
    hooks = root / ".hookwright"
    hooks.mkdir(parents=True)
    (hooks / "guards.py").write_text(
        "from hookwright import deny, add_context, rewrite_input\n"
        "def no_rm(inp):\n"
        "    return deny('rm is blocked: ' + inp.tool_input['command'])\n"
        "def ctx(inp):\n"
        "    return add_context('remember the tests')\n"
        "def boom(inp):\n"
        "    raise RuntimeError('broken hook')\n"
    )
    (hooks / "hooks.yaml").write_text(
        "hooks:\n"
        "  - {name: no-rm, event: PreToolUse, matcher: Bash, if: 'Bash(rm *)',\n"
        "     call: 'guards:no_rm'}\n"
        "  - {name: ctx, event: PreToolUse, call: 'guards:ctx'}\n"
        "  - {name: boom, event: Stop, call: 'guards:boom'}\n"
    )
    return root


def test_hooks_test_prints_exactly_one_json_verdict(tmp_path: Path, isolated_home: Path) -> None:
    project = write_project(tmp_path / "proj")
    data = {"tool_name": "Bash", "tool_input": {"command": "ls && rm -rf build"}}
    proc = hookwright(
        "hooks",
        "test",
        "PreToolUse",
        "--input",
        "-",
        "--project",
        str(project),
        stdin=json.dumps(data),
        home=isolated_home,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 1
    verdict = json.loads(lines[0])
    assert verdict["event"] == "PreToolUse"
    assert verdict["decision"] == "deny"
    assert verdict["reason"] == "rm is blocked: ls && rm -rf build"
    assert verdict["additional_context"] == ["remember the tests"]
    assert verdict["abort"] is None
    assert [(h["name"], h["source"], h["dialect"], h["status"]) for h in verdict["hooks"]] == [
        ("no-rm", "project", "native", "ok"),
        ("ctx", "project", "native", "ok"),
    ]
    assert set(verdict["hooks"][0]) == {
        "name",
        "source",
        "dialect",
        "status",
        "decision",
        "exit_code",
        "error",
        "duration_ms",
    }
    audit = (isolated_home / ".hookwright" / "audit.jsonl").read_text().splitlines()
    assert [json.loads(line)["hook"] for line in audit] == ["no-rm", "ctx"]


def test_hooks_test_reads_an_input_file_and_aliases(tmp_path: Path, isolated_home: Path) -> None:
    project = write_project(tmp_path / "proj")
    (tmp_path / "in.json").write_text(json.dumps({"tool_name": "Read", "tool_input": {}}))
    proc = hookwright(
        "hooks",
        "test",
        "before_tool_dispatch",
        "-i",
        str(tmp_path / "in.json"),
        "-p",
        str(project),
        home=isolated_home,
    )
    verdict = json.loads(proc.stdout)
    assert verdict["decision"] is None
    assert [h["name"] for h in verdict["hooks"]] == ["ctx"]


def test_a_failing_hook_is_reported_not_raised(tmp_path: Path, isolated_home: Path) -> None:
    project = write_project(tmp_path / "proj")
    proc = hookwright("hooks", "test", "Stop", "-p", str(project), home=isolated_home)
    assert proc.returncode == 0
    verdict = json.loads(proc.stdout)
    assert verdict["hooks"][0]["status"] == "error"


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["hooks", "test", "PreToolUze"], None, "unknown event 'PreToolUze'"),
        (["hooks", "test", "PreToolUse", "-i", "-"], "{not json", "input stdin: invalid JSON"),
        (["hooks", "test", "PreToolUse", "-i", "-"], "[1, 2]", "must be a JSON object"),
        (["hooks", "test", "Stop", "-i", "/nonexistent/in.json"], None, "cannot read input"),
        (["hooks", "test", "Stop", "-p", "/nonexistent/dir"], None, "does not exist"),
        (["hooks", "test", "Stop", "-c", "/nonexistent/c.json"], None, "config file"),
        (["schema", "klingon"], None, "unknown schema 'klingon'"),
    ],
)
def test_bad_input_exits_non_zero_with_one_line(
    args: list[str], stdin: str | None, message: str, isolated_home: Path
) -> None:
    proc = hookwright(*args, stdin=stdin, home=isolated_home)
    assert proc.returncode != 0
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("hookwright: error: ")
    assert message in lines[0]


def test_bad_config_is_reported_with_file_and_field(tmp_path: Path, isolated_home: Path) -> None:
    project = write_project(tmp_path / "proj")
    config = project / ".hookwright" / "hooks.yaml"
    config.write_text(
        config.read_text()
        + "  - {name: typo, event: PreToolUse, call: 'guards:no_rm', timeout: -1}\n"
        + "  - {name: ghost, event: NoSuchEvent, call: 'guards:no_rm'}\n"
        + "  - {name: gone, event: Stop, call: 'guards:missing'}\n"
    )
    proc = hookwright("hooks", "test", "Stop", "-p", str(project), home=isolated_home)
    assert proc.returncode == 0
    assert f"{config}: hooks[3].timeout:" in proc.stderr
    assert f"{config}: hooks[4].event:" in proc.stderr
    assert "unknown event 'NoSuchEvent'" in proc.stderr
    assert f"{config}: hooks[5].call: cannot import guards:missing" in proc.stderr
    assert json.loads(proc.stdout)["hooks"][0]["name"] == "boom"


def test_hooks_list_shows_a_table(tmp_path: Path, isolated_home: Path) -> None:
    project = write_project(tmp_path / "proj")
    proc = hookwright("hooks", "list", "-p", str(project), home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    for text in ("PreToolUse", "no-rm", "Bash(rm *)", "project", "Python", "Stop", "boom"):
        assert text in proc.stdout


def test_hooks_list_fits_80_columns_grouped_by_event(tmp_path: Path, isolated_home: Path) -> None:
    project = write_project(tmp_path / "proj")
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    long_command = "python3 scripts/" + "very-long-hook-name-" * 6 + ".py --strict"
    hook = {"type": "command", "command": long_command}
    settings.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}})
    )
    proc = hookwright(
        "hooks", "list", "-p", str(project), home=isolated_home, env={"COLUMNS": "80"}
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, proc.stdout
    assert lines[0] == "PreToolUse"
    headings = [line for line in lines if line and not line.startswith(" ")]
    assert headings[:2] == ["PreToolUse", "Stop"], "each event once, in dispatch order"
    assert any(".hookwright/hooks.yaml:hooks[0]" in line for line in lines), "origin shown"
    assert any("Bash(rm *)" in line for line in lines)
    assert any("command:python3 scripts/very-long" in line and "…" in line for line in lines)


def test_hooks_list_json(tmp_path: Path, isolated_home: Path) -> None:
    project = write_project(tmp_path / "proj")
    proc = hookwright("hooks", "list", "--json", "-p", str(project), home=isolated_home)
    rows = [hook["hookwright"] for hook in json.loads(proc.stdout)["hooks"]]
    assert [(r["event"], r["index"], r["name"]) for r in rows] == [
        ("PreToolUse", None, "no-rm"),
        ("PreToolUse", None, "ctx"),
        ("Stop", None, "boom"),
    ]
    assert rows[0]["if_rule"] == "Bash(rm *)" and rows[0]["matcher"] == "Bash"
    assert rows[0]["origin"].endswith(".hookwright/hooks.yaml:hooks[0]")
    assert not rows[0]["trusted"]


def test_hooks_list_with_no_hooks(tmp_path: Path, isolated_home: Path) -> None:
    proc = hookwright("hooks", "list", "-p", str(tmp_path), home=isolated_home)
    assert proc.returncode == 0
    assert "no hooks configured" in proc.stdout


def test_schema_native_is_json_schema(isolated_home: Path) -> None:
    proc = hookwright("schema", "native", home=isolated_home)
    schema = json.loads(proc.stdout)
    hook = schema["$defs"]["NativeHook"]
    assert {"name", "event", "call", "if"} <= set(hook["properties"])
    assert hook["additionalProperties"] is False


@pytest.mark.parametrize(
    ("asked", "schema"),
    [
        ("claude_code", "claude-code"),  # the audit's `dialect`
        ("Claude Code", "claude-code"),  # the system as `hooks list` names it
        ("Python", "native"),
        ("skill", "skills"),
        ("Gemini CLI", "gemini"),
    ],
)
def test_schema_takes_the_names_every_view_uses(
    isolated_home: Path, asked: str, schema: str
) -> None:
    named = hookwright("schema", asked, home=isolated_home)
    assert named.returncode == 0, named.stderr
    assert named.stdout == hookwright("schema", schema, home=isolated_home).stdout


def test_an_unknown_schema_lists_the_known_ones(isolated_home: Path) -> None:
    proc = hookwright("schema", "bogus", home=isolated_home)
    assert proc.returncode == 2
    assert proc.stderr.startswith("hookwright: error: unknown schema 'bogus' (known: ")


def test_demo_project_denies_rewrites_and_adds_context(isolated_home: Path) -> None:
    deny = hookwright(
        "hooks",
        "test",
        "PreToolUse",
        "-i",
        str(DEMO / "inputs" / "rm.json"),
        "-p",
        str(DEMO),
        home=isolated_home,
    )
    assert json.loads(deny.stdout)["decision"] == "deny"
    push = hookwright(
        "hooks",
        "test",
        "PreToolUse",
        "-i",
        str(DEMO / "inputs" / "push.json"),
        "-p",
        str(DEMO),
        home=isolated_home,
    )
    assert json.loads(push.stdout)["updated_input"] == {
        "command": "echo 'dry run: FORCE=1 git push origin main'"
    }
    start = hookwright(
        "hooks",
        "test",
        "SessionStart",
        "-i",
        str(DEMO / "inputs" / "start.json"),
        "-p",
        str(DEMO),
        home=isolated_home,
    )
    assert json.loads(start.stdout)["additional_context"]


def test_unrecognised_config_file_is_reported(tmp_path: Path, isolated_home: Path) -> None:
    config = tmp_path / "notes.txt"
    config.write_text("just text")
    proc = hookwright(
        "hooks", "test", "Stop", "-c", str(config), "-p", str(tmp_path), home=isolated_home
    )
    assert proc.returncode == 0
    assert f"warning: {config}: no hooks found: not a hook config of any dialect" in proc.stderr


def test_schema_openharness_rejects_unknown_fields(isolated_home: Path) -> None:
    proc = hookwright("schema", "openharness", home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    schema = json.loads(proc.stdout)
    assert schema["additionalProperties"] is False
    assert {"name", "events", "handler"} <= set(schema["required"])


#: schema name -> the demo's config file of that dialect
DEMO_CONFIGS = {
    "native": ".hookwright/hooks.yaml",
    "claude-code": ".claude/settings.json",
    "picoclaw": ".picoclaw/config.json",
    "openharness": ".openharness/hooks/note-dry-runs.yaml",
    "skills": "skills/careful/hooks/hooks.json",
}


@pytest.mark.parametrize("dialect", sorted(DEMO_CONFIGS))
def test_every_dialect_has_a_schema_its_real_config_passes_and_a_typo_fails(
    dialect: str, isolated_home: Path
) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    proc = hookwright("schema", dialect, home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    schema = json.loads(proc.stdout)
    validator = jsonschema.Draft202012Validator(schema)
    validator.check_schema(schema)
    config = yaml.safe_load((DEMO / DEMO_CONFIGS[dialect]).read_text())
    assert list(validator.iter_errors(config)) == []
    broken = _break_first_hook(dialect, config)
    assert list(validator.iter_errors(broken)), f"{dialect}: a typo passes the schema"


def _break_first_hook(dialect: str, config: dict[str, Any]) -> dict[str, Any]:
    """`config` with one wrong value in its first hook, of the kind a typo makes."""
    broken = json.loads(json.dumps(config))
    if dialect == "claude-code":
        event = next(iter(broken["hooks"]))
        broken["hooks"][event][0]["hooks"][0]["type"] = "comand"
    elif dialect == "picoclaw":
        next(iter(broken["hooks"]["processes"].values()))["intercept"] = "after_tool"
    elif dialect == "openharness":
        broken["events"] = ["after_tool_dispatchh"]
    elif dialect == "skills":
        broken["hooks"][0]["timing"] = "after_tool_calls"
    else:
        broken["hooks"][0]["evnt"] = "PreToolUse"
    return broken
