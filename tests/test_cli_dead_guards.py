"""Config mistakes that would widen or kill a guard are errors, through the real command line:
`hooks validate` names the file, field, bad value and fix and exits 1; `hooks list` exits 1
when a config file cannot be read; a group whose matcher is misspelled never runs as a
catch-all; a broken JSON answer is named by `--explain`, `--debug` and the audit."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from cli_runner import hookwright_rows, run_hookwright

hookwright = functools.partial(run_hookwright, timeout=60)


def claude_project(root: Path, groups: list[dict[str, Any]], event: str = "PreToolUse") -> Path:
    (root / ".claude").mkdir(parents=True)
    settings = root / ".claude" / "settings.json"
    settings.write_text(json.dumps({"hooks": {event: groups}}))
    return root


def problems(proc: Any) -> list[str]:
    return [
        line.strip()
        for line in proc.stdout.splitlines()
        if line.strip().startswith(("error:", "warning:"))
    ]


def validate(project: Path, home: Path, *extra: str) -> Any:
    return hookwright("hooks", "validate", "-p", str(project), *extra, home=home)


def marker(path: Path) -> dict[str, Any]:
    return {"type": "command", "command": f"touch {path}"}


def test_a_misspelled_matcher_is_an_error_naming_field_value_and_fix(
    tmp_path: Path, isolated_home: Path
) -> None:
    hook = {"type": "command", "command": "true"}
    project = claude_project(tmp_path / "p", [{"matchr": "Bash|Write|Edit", "hooks": [hook]}])
    proc = validate(project, isolated_home)
    assert proc.returncode == 1, proc.stdout
    assert problems(proc) == [
        "error: hooks.PreToolUse[0].matchr: unknown field (did you mean 'matcher'?) with value "
        '"Bash|Write|Edit"; the group has no matcher: not loaded, since without it the hooks '
        "would run on every tool"
    ]


def test_misspelled_handler_keys_are_errors(tmp_path: Path, isolated_home: Path) -> None:
    groups = [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "true", "timout": 5}]},
        {"matcher": "Bash", "hooks": [{"typ": "command", "command": "true"}]},
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "true", "iff": "Bash(rm *)"}]},
    ]
    proc = validate(claude_project(tmp_path / "p", groups), isolated_home)
    assert proc.returncode == 1
    assert problems(proc) == [
        "error: hooks.PreToolUse[0].hooks[0].timout: unknown field (did you mean 'timeout'?) "
        "with value 5",
        "error: hooks.PreToolUse[1].hooks[0].typ: unknown field (did you mean 'type'?) with "
        'value "command"; missing hook type: not loaded',
        "error: hooks.PreToolUse[2].hooks[0].iff: unknown field (did you mean 'if'?) with value "
        '"Bash(rm *)": not loaded, since without it the hooks would run on every tool',
    ]


def test_dead_commands_matchers_and_urls_are_found(tmp_path: Path, isolated_home: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "plain.sh").write_text("#!/bin/sh\n")
    groups = [
        {
            "matcher": "bash|mcp__files__read",
            "hooks": [
                {"type": "command", "command": "./guard.sh"},
                {"type": "command", "command": '"$CLAUDE_PROJECT_DIR"/plain.sh --strict'},
                {"type": "command", "command": "python3 -c pass"},
            ],
        },
        {
            "matcher": "Bash",
            "hooks": [
                {"type": "http", "url": "not-a-url"},
                {"type": "http", "url": "http://10.1.2.3:8080/hook"},
                {"type": "http", "url": "http://127.0.0.1:8080/hook"},
            ],
        },
    ]
    claude_project(project, groups)
    proc = validate(project, isolated_home)
    assert proc.returncode == 1
    fix = (
        "hook requests reach no private or special-purpose address; run the hook server on "
        "loopback (127.0.0.1 or ::1) or forward a loopback port to it (ssh -L, a local proxy)"
    )
    assert sorted(problems(proc)) == sorted(
        [
            f"error: hooks.PreToolUse[0].hooks[0].command: {project}/guard.sh does not exist "
            '(command "./guard.sh")',
            f"error: hooks.PreToolUse[0].hooks[1].command: {project}/plain.sh is not executable "
            '(command "\\"$CLAUDE_PROJECT_DIR\\"/plain.sh --strict"); fix: chmod +x '
            f"{project}/plain.sh",
            "error: hooks.PreToolUse[0].matcher: matcher \"bash|mcp__files__read\" names 'bash', "
            "a tool no host knows (did you mean 'Bash'?); tool names are case-sensitive",
            'error: hooks.PreToolUse[1].hooks[0].url: malformed URL "not-a-url": expected '
            "http(s)://host[:port]/path",
            'error: hooks.PreToolUse[1].hooks[1].url: URL "http://10.1.2.3:8080/hook" is '
            f"refused: address 10.1.2.3 is in blocked network 10.0.0.0/8; {fix}",
        ]
    )


def test_an_unknown_tool_without_a_likeness_is_a_warning(
    tmp_path: Path, isolated_home: Path
) -> None:
    hook = {"type": "command", "command": "true"}
    project = claude_project(tmp_path / "p", [{"matcher": "deploy_app", "hooks": [hook]}])
    proc = validate(project, isolated_home)
    assert proc.returncode == 0
    assert problems(proc) == [
        "warning: hooks.PreToolUse[0].matcher: matcher \"deploy_app\" names 'deploy_app', a "
        "tool no host knows (a tool of your own host?)"
    ]


def test_settings_that_cannot_be_read_fail_list_and_validate(
    tmp_path: Path, isolated_home: Path
) -> None:
    broken = tmp_path / "broken"
    (broken / ".claude").mkdir(parents=True)
    (broken / ".claude" / "settings.json").write_text('{"hooks": {')
    dangling = tmp_path / "dangling"
    (dangling / ".claude").mkdir(parents=True)
    (dangling / ".claude" / "settings.json").symlink_to(tmp_path / "gone.json")
    for project in (broken, dangling):
        settings = project / ".claude" / "settings.json"
        listed = hookwright("hooks", "list", "-p", str(project), home=isolated_home)
        assert listed.returncode == 1
        assert listed.stdout.strip() == "no hooks loaded"
        assert listed.stderr.splitlines()[-1] == (
            "hookwright: error: 1 hook config file could not be read or parsed, so their "
            f"hooks are not listed: {settings}"
        )
        assert validate(project, isolated_home).returncode == 1


def test_a_config_file_that_is_not_yaml_is_an_error(tmp_path: Path, isolated_home: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    config = tmp_path / "guards.yaml"
    config.write_text("hooks: [\n")
    proc = validate(project, isolated_home, "--config", str(config))
    assert proc.returncode == 1
    [line] = problems(proc)
    assert line.startswith("error: not a hook config: does not parse as YAML: invalid YAML:")
    listed = hookwright("hooks", "list", "-p", str(project), "-c", str(config), home=isolated_home)
    assert listed.returncode == 1


def test_a_misspelled_matcher_never_runs_as_a_catch_all(
    tmp_path: Path, isolated_home: Path
) -> None:
    """A Write call: the group meant for Bash (its matcher misspelled) must not run; the
    correctly written Write guard does; both hosts' reports list it as not run."""
    widened, guarded = tmp_path / "widened", tmp_path / "guarded"
    project = claude_project(
        tmp_path / "p",
        [
            {"matchr": "Bash", "hooks": [marker(widened)]},
            {"matcher": "Write", "hooks": [marker(guarded)]},
        ],
    )
    call = json.dumps({"tool_name": "Write", "tool_input": {"file_path": "a", "content": ""}})
    proc = hookwright(
        "hooks",
        "test",
        "PreToolUse",
        "-i",
        "-",
        "-p",
        str(project),
        "--explain",
        stdin=call,
        home=isolated_home,
    )
    assert proc.returncode == 0, proc.stderr
    assert guarded.exists() and not widened.exists()
    assert "hooks.PreToolUse[0].matchr: unknown field" in proc.stderr
    hookwright("trust", str(project), home=isolated_home)
    listed = hookwright("hooks", "list", "--json", "-p", str(project), home=isolated_home)
    [row] = [row for row in hookwright_rows(listed.stdout) if row["not_run"]]
    # Listings shorten a long command: the row is the misspelled group's touch of `widened`.
    name = row["name"].removesuffix("…")
    assert f"command:touch {widened}".startswith(name) and row["not_run"] == "not_bound"
    assert "hooks.PreToolUse[0].matchr: unknown field (did you mean 'matcher'?)" in row["note"]


BROKEN = (
    '{"hookSpecificOutput": {"hookEventName": "PreToolUse", permissionDecision: "deny", '
    '"permissionDecisionReason": "oops"}}'
)
NOT_JSON = (
    "stdout looks like JSON but is not: invalid JSON: Expecting property name enclosed in "
    "double quotes (line 1 column 56)"
)


def test_a_broken_json_answer_is_named_by_explain_debug_and_the_audit(
    tmp_path: Path, isolated_home: Path
) -> None:
    script = tmp_path / "answer.sh"
    script.write_text(f"#!/bin/sh\ncat > /dev/null\nprintf '%s' '{BROKEN}'\n")
    script.chmod(0o755)
    hook = {"type": "command", "command": str(script)}
    project = claude_project(tmp_path / "p", [{"matcher": "Bash", "hooks": [hook]}])
    call = json.dumps({"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}})
    args = ("hooks", "test", "PreToolUse", "-i", "-", "-p", str(project))
    explained = hookwright(*args, "--explain", stdin=call, home=isolated_home)
    assert f"ran, no decision, exit 0 — {NOT_JSON}" in explained.stderr
    verdict = json.loads(explained.stdout)
    assert verdict["decision"] is None  # Claude Code reads such output as plain text
    assert verdict["hooks"][0]["error"] == NOT_JSON
    debugged = hookwright("--debug", *args, stdin=call, home=isolated_home)
    assert f"error: {NOT_JSON}" in debugged.stderr
    audit = (isolated_home / ".hookwright" / "audit.jsonl").read_text().splitlines()
    assert [json.loads(line)["error"] for line in audit] == [NOT_JSON, NOT_JSON]


def test_a_misspelled_picoclaw_key_is_an_error_and_an_unknown_one_a_warning(
    tmp_path: Path, isolated_home: Path
) -> None:
    """PicoClaw ignores keys it does not know (and so does loading): `intercep` leaves a
    process that intercepts nothing, so `validate` names it as an error with its value."""
    project = tmp_path / "p"
    (project / ".picoclaw").mkdir(parents=True)
    process = {"command": ["python3", "guard.py"], "intercep": ["before_tool"], "colour": "red"}
    hooks = {"hooks": {"enabled": True, "processes": {"guard": process}}}
    (project / ".picoclaw" / "config.json").write_text(json.dumps(hooks))
    proc = validate(project, isolated_home)
    assert proc.returncode == 1, proc.stdout
    found = problems(proc)
    assert (
        "error: hooks.processes.guard.intercep: unknown field (did you mean 'intercept'?) "
        'with value ["before_tool"]'
    ) in found
    assert 'warning: hooks.processes.guard.colour: unknown field with value "red"' in found


def test_an_http_hook_outside_allowed_http_hook_urls_is_an_error_naming_the_fix(
    tmp_path: Path, isolated_home: Path
) -> None:
    """Claude Code blocks an http hook whose URL matches no `allowedHttpHookUrls` pattern (the
    list joined across settings files): a guard that never runs, so `validate` names the hook,
    the files that set the list and a pattern that would allow it, trusted or not."""
    user = isolated_home / ".claude" / "settings.json"
    user.parent.mkdir(parents=True)
    user.write_text(json.dumps({"allowedHttpHookUrls": ["https://hooks.example/*"]}))
    groups = [
        {
            "matcher": "Bash",
            "hooks": [
                {"type": "http", "url": "http://127.0.0.1:8080/guard"},
                {"type": "http", "url": "https://hooks.example/guard"},
            ],
        }
    ]
    project = claude_project(tmp_path / "p", groups)
    expected = [
        "error: hooks.PreToolUse[0].hooks[0].url: URL http://127.0.0.1:8080/guard is not "
        'allowed by allowedHttpHookUrls (patterns: "https://hooks.example/*"; set in '
        f"{user}): Claude Code blocks this hook, so the guard never runs; to allow it, add a "
        'pattern that matches it, such as "http://127.0.0.1:8080/*", to allowedHttpHookUrls'
    ]
    for trust in ((), ("--trust",)):
        proc = validate(project, isolated_home, *trust)
        assert proc.returncode == 1, proc.stdout
        assert problems(proc) == expected
    settings = project / ".claude" / "settings.json"
    allowed = json.loads(settings.read_text())
    allowed["allowedHttpHookUrls"] = ["http://127.0.0.1:8080/*"]
    settings.write_text(json.dumps(allowed))
    assert validate(project, isolated_home, "--trust").returncode == 0


def broken_answer_project(root: Path, **handler: Any) -> Path:
    script = root / "answer.sh"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(f"#!/bin/sh\ncat > /dev/null\nprintf '%s' '{BROKEN}'\n")
    script.chmod(0o755)
    hook = {"type": "command", "command": str(script), **handler}
    project = claude_project(root / "p", [{"matcher": "Bash", "hooks": [hook]}])
    (project / "build").mkdir()
    return project


def test_a_broken_json_answer_of_a_guard_that_fails_closed_blocks_the_call(
    tmp_path: Path, isolated_home: Path
) -> None:
    """Under a policy that closes PreToolUse, an answer that looks like JSON and does not
    parse is the guard's failure: `hookwright run` does not run `rm -rf build`, and the model,
    `--explain` and the audit say why in the same words."""
    project = broken_answer_project(tmp_path)
    (project / ".hookwright").mkdir()
    policy = "rules:\n  - fail: closed\n    events: [PreToolUse]\n"
    (project / ".hookwright" / "policy.yaml").write_text(policy)
    script = tmp_path / "script.yaml"
    call = {"name": "Bash", "arguments": {"command": "rm -rf build"}}
    script.write_text(json.dumps({"turns": [{"tool_calls": [call]}, {"content": "done"}]}))
    model = f"scripted:{script}"
    args = ("run", "-p", str(project), "-m", model, "--trust", "--json", "go")
    ran = hookwright(*args, home=isolated_home)
    assert ran.returncode == 0, ran.stderr
    assert (project / "build").is_dir()
    # The hook is named by its command, cut at the dialect's name limit on a long tmp path.
    blocked = (
        f"' (Claude Code, {project}/.claude/settings.json:hooks.PreToolUse[0].hooks[0]) "
        f"failed: {NOT_JSON}"
    )
    events = [json.loads(line) for line in ran.stdout.splitlines()]
    [result] = [e for e in events if e["type"] == "tool_result"]
    assert result["is_error"] and blocked in result["content"]
    assert "hook 'command:" in result["content"]
    audit = (isolated_home / ".hookwright" / "audit.jsonl").read_text().splitlines()
    [record] = [r for r in map(json.loads, audit) if r["event"] == "PreToolUse"]
    assert (record["status"], record["decision"], record["error"]) == ("error", "deny", NOT_JSON)
    assert record["reason"].startswith("hook 'command:") and record["reason"].endswith(blocked)
    payload = json.dumps({"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}})
    test = ("hooks", "test", "PreToolUse", "-i", "-", "-p", str(project), "--explain")
    explained = hookwright(*test, stdin=payload, home=isolated_home)
    assert f"error, exit 0 — {NOT_JSON}" in explained.stderr
    assert json.loads(explained.stdout)["decision"] == "deny"


def test_a_broken_json_answer_of_a_hook_with_on_failure_block_blocks_and_is_named(
    tmp_path: Path, isolated_home: Path
) -> None:
    """Claude Code's `onFailure: "block"` counts JSON that does not parse as a failure: the
    call is denied with Claude Code's words, and `--explain` still names the parser's."""
    project = broken_answer_project(tmp_path, onFailure="block")
    payload = json.dumps({"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}})
    test = (
        "hooks",
        "test",
        "PreToolUse",
        "-i",
        "-",
        "-p",
        str(project),
        "--explain",
        "--claude-code-version",
        "2.1.332",
    )
    explained = hookwright(*test, stdin=payload, home=isolated_home)
    verdict = json.loads(explained.stdout)
    assert verdict["decision"] == "deny"
    assert verdict["reason"].startswith(
        f'[{tmp_path / "answer.sh"}]: failed; blocking because onFailure is "block"\n'
        "Hook output looks like a JSON object but is not valid JSON"
    )
    assert f"error, exit 0 — {NOT_JSON}; [" in explained.stderr
