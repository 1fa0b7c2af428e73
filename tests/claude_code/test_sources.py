"""Spec §1.2-§1.4, §2, §3: where hooks come from, policy, permissive parsing, matchers, timeouts
and dedup."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from hookwright import Event

from .conftest import Harness, cmd, group
from .expect import TOOL


def marker_hook(h: Harness, name: str) -> dict[str, Any]:
    """A hook that appends `name` to a file, so tests can see which hooks ran."""
    log = h.project / "ran.log"
    return cmd(h.py(f"sys.stdin.read()\nopen({str(log)!r}, 'a').write({name!r} + '\\n')\n"))


def ran(h: Harness) -> list[str]:
    log = h.project / "ran.log"
    return sorted(log.read_text().split()) if log.exists() else []


# Sources --------------------------------------------------------------------------------------


async def test_every_settings_source_loads_with_its_label(h: Harness) -> None:
    for kind in ("user", "project", "local", "managed"):
        h.settings(group("Stop", marker_hook(h, kind)), kind=kind)
    dropins = h.managed / "managed-settings.d"
    dropins.mkdir()
    (dropins / "10-extra.json").write_text(
        json.dumps({"hooks": group("Stop", marker_hook(h, "dropin"))})
    )
    flag = h.project / "extra-settings.json"
    flag.write_text(json.dumps({"hooks": group("Stop", marker_hook(h, "flag"))}))
    h.config_files.append(flag)
    result = h.load()
    assert result.diagnostics == []
    assert sorted(s.source for s in result.specs) == sorted(
        ["user", "project", "local", "managed", "managed", "project"]
    )
    assert all(s.dialect == "claude_code" and s.mode == "parallel" for s in result.specs)
    await h.fire("Stop", stop_hook_active=False)
    assert ran(h) == ["dropin", "flag", "local", "managed", "project", "user"]


def test_origin_names_file_and_field_path(h: Harness) -> None:
    path = h.settings({"PreToolUse": [{"matcher": "Bash", "hooks": [cmd("true"), cmd("false")]}]})
    result = h.load()
    assert [s.origin for s in result.specs] == [
        f"{path}:hooks.PreToolUse[0].hooks[0]",
        f"{path}:hooks.PreToolUse[0].hooks[1]",
    ]


def test_config_files_of_other_dialects_are_left_alone(h: Harness) -> None:
    picoclaw = h.project / "config.json"
    picoclaw.write_text(json.dumps({"hooks": {"enabled": True, "processes": {}}}))
    h.config_files.append(picoclaw)
    assert h.load().specs == [] and h.diagnostics == []


def test_invalid_json_file_is_one_diagnostic_and_others_load(h: Harness) -> None:
    h.settings(group("Stop", cmd("true")), kind="user")
    bad = h.project / ".claude" / "settings.json"
    bad.parent.mkdir(parents=True, exist_ok=True)
    bad.write_text('{"hooks": {')
    result = h.load()
    assert len(result.specs) == 1
    [diagnostic] = result.diagnostics
    assert diagnostic.file == str(bad) and diagnostic.message.startswith("invalid JSON")


# Permissive parsing ---------------------------------------------------------------------------

BAD: list[tuple[str, dict[str, Any], str]] = [
    ("unknown-event", {"BeforeEverything": []}, "hooks.BeforeEverything: unknown event"),
    ("groups-not-a-list", {"Stop": {"hooks": []}}, "hooks.Stop: expected a list"),
    ("group-not-an-object", {"Stop": ["x"]}, "hooks.Stop[0]: expected a matcher group"),
    ("hooks-missing", {"Stop": [{"matcher": "x"}]}, "hooks.Stop[0].hooks: expected a list"),
    (
        "matcher-not-a-string",
        {"PreToolUse": [{"matcher": 1, "hooks": []}]},
        "hooks.PreToolUse[0].matcher: matcher must be a string",
    ),
    (
        "handler-not-an-object",
        {"Stop": [{"hooks": ["echo"]}]},
        "hooks.Stop[0].hooks[0]: expected a hook object",
    ),
    (
        "missing-type",
        {"Stop": [{"hooks": [{"command": "x"}]}]},
        "hooks.Stop[0].hooks[0].type: missing hook type",
    ),
    (
        "unknown-type",
        {"Stop": [{"hooks": [{"type": "script", "command": "x"}]}]},
        "hooks.Stop[0].hooks[0].type: unknown hook type 'script'",
    ),
    (
        "bad-timeout",
        {"Stop": [{"hooks": [cmd("x", timeout=-1)]}]},
        "hooks.Stop[0].hooks[0].timeout: Input should be greater than 0",
    ),
    (
        "missing-command",
        {"Stop": [{"hooks": [{"type": "command"}]}]},
        "hooks.Stop[0].hooks[0].command: Field required",
    ),
    (
        "http-on-SessionStart",
        {"SessionStart": [{"hooks": [{"type": "http", "url": "http://x"}]}]},
        "hooks.SessionStart[0].hooks[0].type: SessionStart does not accept http hooks",
    ),
    (
        "prompt-on-Notification",
        {"Notification": [{"hooks": [{"type": "prompt", "prompt": "p"}]}]},
        "Notification does not accept prompt hooks",
    ),
    (
        "mcp-tool-without-server",
        {"Stop": [{"hooks": [{"type": "mcp_tool", "tool": "t"}]}]},
        "hooks.Stop[0].hooks[0].server: Field required",
    ),
    (
        "bad-if",
        {"PreToolUse": [{"hooks": [cmd("x", **{"if": "Bash(git"})]}]},
        "hooks.PreToolUse[0].hooks[0].if: permission rule",
    ),
    (
        "plugin-root-in-settings",
        {"Stop": [{"hooks": [cmd("${CLAUDE_PLUGIN_ROOT}/run.sh")]}]},
        "hooks.Stop[0].hooks[0].command: hook '${CLAUDE_PLUGIN_ROOT}/run.sh' references",
    ),
]


@pytest.mark.parametrize(("hooks", "message"), [r[1:] for r in BAD], ids=[r[0] for r in BAD])
async def test_bad_piece_is_diagnosed_and_skipped(
    h: Harness, hooks: dict[str, Any], message: str
) -> None:
    good = marker_hook(h, "good")
    path = h.settings({**hooks, "PostToolUse": [{"hooks": [good]}]})
    result = h.load()
    errors = [str(d) for d in result.diagnostics if d.severity == "error"]
    assert len(errors) == 1 and message in errors[0], result.diagnostics
    assert errors[0].startswith(f"error: {path}: ")
    assert [s.event for s in result.specs] == [Event.PostToolUse]
    await h.fire("PostToolUse", **TOOL, tool_response={})
    assert ran(h) == ["good"]


def test_unknown_handler_keys_are_accepted(h: Harness) -> None:
    h.hooks(group("Stop", cmd("true", asyncRewake=True, rewakeMessage="m", description="d")))
    assert h.result is not None
    assert len(h.result.specs) == 1 and h.diagnostics == []


def test_timeout_in_milliseconds_warns(h: Harness) -> None:
    path = h.settings(group("Stop", cmd("true", timeout=30000)))
    result = h.load()
    [warning] = result.diagnostics
    assert warning.severity == "warning" and warning.file == str(path)
    assert warning.path == "hooks.Stop[0].hooks[0].timeout"
    assert "looks like milliseconds" in warning.message
    assert result.specs[0].timeout == 30000


@pytest.mark.parametrize(
    ("event", "hook", "expected"),
    [
        ("PreToolUse", cmd("x"), 600),
        ("UserPromptSubmit", cmd("x"), 30),
        ("MessageDisplay", cmd("x"), 10),
        ("Stop", {"type": "prompt", "prompt": "p"}, 30),
        ("Stop", {"type": "agent", "prompt": "p"}, 60),
        ("PostToolUse", {"type": "http", "url": "http://127.0.0.1/"}, 600),
        ("PreToolUse", cmd("x", timeout=5), 5),
        ("SessionEnd", cmd("x"), 1.5),
        ("SessionEnd", cmd("x", timeout=120), 60),
    ],
)
def test_default_timeouts(h: Harness, event: str, hook: dict[str, Any], expected: float) -> None:
    h.hooks(group(event, hook))
    assert h.result is not None and h.result.specs[0].timeout == expected


def test_session_end_budget_from_the_environment(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS", "5000")
    h.hooks(group("SessionEnd", cmd("x")))
    assert h.result is not None and h.result.specs[0].timeout == 5


# Matchers -------------------------------------------------------------------------------------

MATCHERS: list[tuple[str, str, str, dict[str, Any], bool]] = [
    ("exact", "PreToolUse", "Bash", {**TOOL}, True),
    ("exact-not-prefix", "PreToolUse", "Bash", {**TOOL, "tool_name": "BashOutput"}, False),
    ("list", "PreToolUse", "Edit|Write", {**TOOL, "tool_name": "Write"}, True),
    ("regex-unanchored", "PreToolUse", "Edit.*", {**TOOL, "tool_name": "NotebookEdit"}, True),
    ("alias", "PreToolUse", "Task", {**TOOL, "tool_name": "Agent"}, True),
    ("star", "PreToolUse", "*", {**TOOL}, True),
    ("session-source", "SessionStart", "resume", {"source": "startup"}, False),
    ("no-matcher-support-ignored", "Stop", "NeverMatches", {"stop_hook_active": False}, True),
    (
        "file-changed-basename",
        "FileChanged",
        ".envrc|.env",
        {"file_path": "/p/sub/.envrc", "event": "change"},
        True,
    ),
    (
        "file-changed-other-file",
        "FileChanged",
        "package_json",
        {"file_path": "/p/package_json.bak", "event": "change"},
        False,
    ),
    ("stop-failure-narrow", "StopFailure", "rate_limit", {"error": "rate_limit"}, True),
    ("invalid-regex-never-matches", "PreToolUse", "Bash(", {**TOOL}, False),
]


@pytest.mark.parametrize(
    ("event", "matcher", "payload", "fires"),
    [m[1:] for m in MATCHERS],
    ids=[m[0] for m in MATCHERS],
)
async def test_matcher(
    h: Harness, event: str, matcher: str, payload: dict[str, Any], fires: bool
) -> None:
    h.hooks(group(event, marker_hook(h, "hit"), matcher=matcher))
    await h.fire(event, **payload)
    assert ran(h) == (["hit"] if fires else [])


def test_invalid_matcher_regex_warns(h: Harness) -> None:
    h.hooks(group("PreToolUse", cmd("x"), matcher="Bash("))
    assert any("hooks.PreToolUse[0].matcher: invalid matcher regex" in d for d in h.diagnostics)


async def test_if_rule_filters_tool_calls(h: Harness) -> None:
    h.hooks(group("PreToolUse", {**marker_hook(h, "push"), "if": "Bash(git push *)"}))
    await h.fire_tool(command="git status")
    assert ran(h) == []
    await h.fire_tool(command="git add . && git push origin main")
    assert ran(h) == ["push"]


async def test_if_on_a_non_tool_event_never_runs(h: Harness) -> None:
    h.hooks(group("Stop", {**marker_hook(h, "stop"), "if": "Bash"}))
    assert any("'if' is only evaluated on tool events" in d for d in h.diagnostics)
    await h.fire("Stop", stop_hook_active=False)
    assert ran(h) == []


# Dedup ----------------------------------------------------------------------------------------


async def test_same_command_in_user_and_project_runs_once(h: Harness) -> None:
    hook = marker_hook(h, "once")
    h.settings(group("Stop", hook), kind="user")
    h.settings(group("Stop", hook), kind="project")
    h.load()
    verdict = await h.fire("Stop", stop_hook_active=False)
    assert ran(h) == ["once"] and len(verdict.runs) == 1


async def test_different_if_is_a_different_hook(h: Harness) -> None:
    hook = marker_hook(h, "x")
    h.hooks({"PreToolUse": [{"hooks": [hook, {**hook, "if": "Bash(rm *)"}]}]})
    await h.fire("PreToolUse", **TOOL)
    assert ran(h) == ["x", "x"]


async def test_settings_and_plugin_dedup_by_default(h: Harness) -> None:
    hook = marker_hook(h, "dup")
    h.plugin("formatter", group("Stop", hook))
    h.settings(group("Stop", hook))
    h.load()
    await h.fire("Stop", stop_hook_active=False)
    assert ran(h) == ["dup"]


@pytest.mark.parametrize("how", ["settings", "option"])
async def test_settings_and_plugin_dedup_can_be_turned_off(h: Harness, how: str) -> None:
    hook = marker_hook(h, "dup")
    h.plugin("formatter", group("Stop", hook))
    if how == "settings":
        h.settings(group("Stop", hook), hookwrightDedupAcrossSources=False)
        h.load()
    else:
        h.settings(group("Stop", hook))
        h.load(dedup_across_sources=False)
    await h.fire("Stop", stop_hook_active=False)
    assert ran(h) == ["dup", "dup"]


async def test_plugin_root_commands_in_two_plugins_both_run(h: Harness) -> None:
    for name in ("one", "two"):
        root = h.plugin(name, group("Stop", cmd("bash ${CLAUDE_PLUGIN_ROOT}/run.sh")))
        (root / "run.sh").write_text(f"echo {name} >> {h.project / 'ran.log'}\n")
    h.load()
    await h.fire("Stop", stop_hook_active=False)
    assert ran(h) == ["one", "two"]


# Plugins --------------------------------------------------------------------------------------


async def test_plugin_placeholders_are_substituted_and_exported(h: Harness) -> None:
    out = h.project / "plugin-env"
    root = h.plugin(
        "guard",
        group("Stop", cmd("bash ${CLAUDE_PLUGIN_ROOT}/hooks/run.sh ${CLAUDE_PLUGIN_DATA}")),
        where="home",
    )
    (root / "hooks" / "run.sh").write_text(
        f'printf "%s\\n" "$1" "$CLAUDE_PLUGIN_ROOT" "$CLAUDE_PLUGIN_DATA" > {out}\n'
    )
    h.load()
    assert h.result is not None and h.result.specs[0].source == "plugin"
    await h.fire("Stop", stop_hook_active=False)
    data = h.home / ".claude" / "plugins" / "data" / "guard"
    assert out.read_text().split("\n")[:3] == [str(data), str(root), str(data)]
    assert data.is_dir()


async def test_exec_form_substitutes_placeholders_in_args(h: Harness) -> None:
    out = h.project / "args"
    script = h.project / ".claude" / "hooks" / "args.py"
    script.write_text(f"import sys\nopen({str(out)!r}, 'w').write(' '.join(sys.argv[1:]))\n")
    h.hooks(group("Stop", cmd(sys.executable, args=[str(script), "${CLAUDE_PROJECT_DIR}", "a b"])))
    await h.fire("Stop", stop_hook_active=False)
    assert out.read_text() == f"{h.project} a b"


async def test_plugin_manifest_name_and_disabled_plugin(h: Harness) -> None:
    root = h.plugin("dir-name", group("Stop", marker_hook(h, "manifest")))
    (root / ".claude-plugin").mkdir()
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "real-name"}))
    h.plugin("off", group("Stop", marker_hook(h, "off")))
    h.settings(None, enabledPlugins={"off@market": False})
    h.load()
    await h.fire("Stop", stop_hook_active=False)
    assert ran(h) == ["manifest"]


def test_plugin_manifest_pointing_at_default_hooks_file(h: Harness) -> None:
    root = h.plugin("dup", group("Stop", cmd("true")))
    (root / ".claude-plugin").mkdir()
    (root / ".claude-plugin" / "plugin.json").write_text(
        json.dumps({"hooks": "./hooks/hooks.json"})
    )
    h.load()
    assert any("Duplicate hooks file detected" in d for d in h.diagnostics)
    assert h.result is not None and len(h.result.specs) == 1


# Policy ---------------------------------------------------------------------------------------


def write_all_sources(h: Harness, **by_kind: dict[str, Any]) -> None:
    for kind in ("managed", "user", "project", "local"):
        h.settings(group("Stop", marker_hook(h, kind)), kind=kind, **by_kind.get(kind, {}))
    h.plugin("plug", group("Stop", marker_hook(h, "plugin")))


POLICY: list[tuple[str, dict[str, dict[str, Any]], list[str]]] = [
    ("none", {}, ["local", "managed", "plugin", "project", "user"]),
    ("user-disables", {"user": {"disableAllHooks": True}}, ["managed"]),
    (
        "project-false-beats-user-true",
        {"user": {"disableAllHooks": True}, "project": {"disableAllHooks": False}},
        ["local", "managed", "plugin", "project", "user"],
    ),
    (
        "local-beats-project",
        {"project": {"disableAllHooks": False}, "local": {"disableAllHooks": True}},
        ["managed"],
    ),
    ("managed-disables-everything", {"managed": {"disableAllHooks": True}}, []),
    (
        "managed-false-beats-user",
        {"managed": {"disableAllHooks": False}, "user": {"disableAllHooks": True}},
        ["local", "managed", "plugin", "project", "user"],
    ),
    ("managed-only", {"managed": {"allowManagedHooksOnly": True}}, ["managed"]),
    (
        "managed-only-ignored-outside-managed",
        {"project": {"allowManagedHooksOnly": True}},
        ["local", "managed", "plugin", "project", "user"],
    ),
]


@pytest.mark.parametrize(
    ("settings", "expected"), [p[1:] for p in POLICY], ids=[p[0] for p in POLICY]
)
async def test_policy(h: Harness, settings: dict[str, dict[str, Any]], expected: list[str]) -> None:
    write_all_sources(h, **settings)
    h.load()
    await h.fire("Stop", stop_hook_active=False)
    assert ran(h) == expected


def test_policy_skips_are_reported(h: Harness) -> None:
    write_all_sources(h, user={"disableAllHooks": True})
    h.load()
    assert any("4 hooks not loaded because of disableAllHooks" in d for d in h.diagnostics)
