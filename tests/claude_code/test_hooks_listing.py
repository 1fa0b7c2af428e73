"""`hookwright hooks list --json` against the shape of Claude Code 2.1.332's hooks listing
(its `get_hooks_listing` answer), summarised in data/hooks_listing_2.1.332.json: every field
it prints is one of Claude Code's with Claude Code's JSON type, every field Claude Code
always sends is there, and hookwright's own facts stay under each hook's `hookwright` key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_runner import run_hookwright as hookwright
from hookwright.cli.hooks_listing import hooks_listing
from hookwright.cli.hooktable import HookRow

SCHEMA: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "hooks_listing_2.1.332.json").read_text()
)
JSON_TYPES: dict[str, Any] = {
    "string": str,
    "number": (int, float),
    "boolean": bool,
    "object": dict,
    "array": list,
}


def shape_errors(value: dict[str, Any], shape: str, where: str) -> list[str]:
    """How `value` differs from the schema's object `shape` (hooks may carry `hookwright`)."""
    fields: dict[str, Any] = SCHEMA[shape]
    extra = set(value) - set(fields) - ({"hookwright"} if shape == "hook" else set())
    errors = [f"{where}.{name}: not in Claude Code's listing" for name in sorted(extra)]
    for name, field in fields.items():
        at = f"{where}.{name}"
        if name not in value:
            errors += [] if field.get("optional") else [f"{at}: missing"]
            continue
        item = value[name]
        if field["type"] == "true":
            errors += [] if item is True else [f"{at}: {item!r} is not true"]
            continue
        wanted = JSON_TYPES[field["type"]]
        if not isinstance(item, wanted) or (field["type"] == "number" and isinstance(item, bool)):
            errors.append(f"{at}: {item!r} is not a {field['type']}")
        elif "shape" in field:
            errors += shape_errors(item, field["shape"], at)
        elif "items" in field:
            for i, element in enumerate(item):
                errors += shape_errors(element, field["items"], f"{at}[{i}]")
    return errors


def write_project(root: Path) -> Path:
    """Claude Code settings hooks, a hookwright Python hook and a settings file that does
    not parse."""
    (root / ".claude").mkdir(parents=True)
    guard = {"type": "command", "command": "./guard.sh", "if": "Bash(rm *)", "timeout": 7}
    settings = {
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [guard]}],
            "Stop": [{"hooks": [{"type": "command", "command": "echo done"}]}],
        }
    }
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    (root / ".claude" / "settings.local.json").write_text("{not json")
    guard_sh = root / "guard.sh"
    guard_sh.write_text("#!/bin/sh\nexit 0\n")
    guard_sh.chmod(0o755)
    (root / ".hookwright").mkdir()
    (root / ".hookwright" / "guards.py").write_text("def ctx(inp):\n    return None\n")
    (root / ".hookwright" / "hooks.yaml").write_text(
        "hooks:\n  - {name: ctx, event: PreToolUse, call: 'guards:ctx'}\n"
    )
    return root


def listing(project: Path, home: Path) -> dict[str, Any]:
    proc = hookwright("hooks", "list", "--json", "-p", str(project), home=home)
    assert proc.returncode == 1, proc.stderr  # the broken settings file
    assert "could not be read or parsed" in proc.stderr
    answer: dict[str, Any] = json.loads(proc.stdout)
    return answer


def test_the_listing_has_claude_codes_fields_and_types(tmp_path: Path, isolated_home: Path) -> None:
    project = write_project(tmp_path / "proj")
    untrusted = listing(project, isolated_home)
    assert shape_errors(untrusted, "listing", "listing") == []
    assert untrusted["hooks"] and all(hook["disabled"] is True for hook in untrusted["hooks"])

    assert hookwright("trust", str(project), home=isolated_home).returncode == 0
    trusted = listing(project, isolated_home)
    assert shape_errors(trusted, "listing", "listing") == []
    assert all("disabled" not in hook for hook in trusted["hooks"])
    [error] = trusted["errors"]
    assert error["file"].endswith("settings.local.json") and error["path"] == ""


def test_hooks_of_every_dialect_are_listed_with_claude_codes_field_names(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = write_project(tmp_path / "proj")
    hookwright("trust", str(project), home=isolated_home)
    answer = listing(project, isolated_home)
    by_text = {hook["commandText"]: hook for hook in answer["hooks"]}
    guard = by_text["./guard.sh"]
    assert (guard["event"], guard["matcher"], guard["type"], guard["contentLabel"]) == (
        "PreToolUse",
        "Bash",
        "command",
        "Command",
    )
    assert (guard["condition"], guard["timeout"], guard["source"]) == (
        "Bash(rm *)",
        7,
        "projectSettings",
    )
    assert guard["hookwright"]["dialect"] == "claude_code"
    assert guard["hookwright"]["origin"].endswith(
        ".claude/settings.json:hooks.PreToolUse[0].hooks[0]"
    )
    ctx = by_text["ctx"]
    assert (ctx["event"], ctx["matcher"], ctx["hookwright"]["name"]) == ("PreToolUse", "", "ctx")
    assert ctx["type"] == ctx["hookwright"]["dialect"] != "claude_code"
    assert [hook["event"] for hook in answer["hooks"]] == ["PreToolUse", "PreToolUse", "Stop"]
    assert [(e["name"], e["hookCount"], e["supportsMatcher"]) for e in answer["events"]] == [
        ("PreToolUse", 2, True),
        ("Stop", 1, False),
    ]
    catalog = {event["name"] for event in answer["eventCatalog"]}
    assert {"PreToolUse", "PreModelSwitch", "PreSkillShellCommand"} <= catalog
    assert answer["policy"]["policyHookCount"] == 0


def test_the_schema_check_names_what_differs() -> None:
    """The checker the tests above rely on fails on a missing, an unknown and a mistyped
    field."""
    hook = {"event": "Stop", "matcher": "", "disabled": False, "extraField": 1}
    errors = shape_errors(hook, "hook", "h")
    assert "h.extraField: not in Claude Code's listing" in errors
    assert "h.source: missing" in errors and "h.disabled: False is not true" in errors
    assert shape_errors({"timeout": True}, "hook", "h").count("h.timeout: True is not a number")


def row(**fields: Any) -> HookRow:
    base: dict[str, Any] = {
        "event": "PreToolUse",
        "index": 1,
        "name": "command:./check.sh",
        "source": "user",
        "dialect": "claude_code",
        "matcher": "Bash",
        "if_rule": "",
        "mode": "parallel",
        "timeout": None,
        "origin": "settings.json:hooks.PreToolUse[0].hooks[0]",
        "trusted": True,
        "note": "",
    }
    return HookRow(**{**base, **fields})


def test_rows_are_grouped_by_matcher_and_display_strings_reveal_control_characters() -> None:
    rows = [
        row(name="command:a", matcher="Bash"),
        row(name="command:b\x1b[2J", matcher="Edit", once=True),
        row(name="command:c", matcher="Bash", not_run="missing_command"),
        row(name="command:d", event="Stop", matcher="*", not_run="not_bound"),
    ]
    answer = hooks_listing(rows)
    assert shape_errors(answer, "listing", "listing") == []
    hooks = answer["hooks"]
    assert isinstance(hooks, list)
    assert [(h["matcher"], h["commandText"]) for h in hooks] == [
        ("Bash", "a"),
        ("Bash", "c"),
        ("Edit", "b\\u001b[2J"),
        ("", "d"),
    ]
    assert [("runsOnce" in h, h.get("disabled")) for h in hooks] == [
        (False, None),
        (False, None),  # a missing program still runs, and fails
        (True, None),
        (False, True),
    ]
    assert hooks[3]["hookwright"]["not_run"] == "not_bound"
    assert hooks[0]["source"] == "userSettings" and hooks[0]["hookwright"]["source"] == "user"
