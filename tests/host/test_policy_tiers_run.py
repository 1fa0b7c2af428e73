"""Tiers and shadow mode through `hookwright run` with the scripted model: a project hook of
every dialect cannot loosen the organisation's deny (the tool does not run, and the project's
hook, in a lower tier, does not run either), and a hook in shadow mode decides without effect
(the tool runs, the audit holds what it would have decided)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from cli_runner import run_hookwright
from hookwright.dialects.codex.config import LayerFiles, layer_hooks
from hookwright.dialects.codex.review import review_key, trusted_hash

#: The organisation's guard: a hook of the user's file the managed policy runs first.
ORG_GUARD = """\
hooks:
  - name: org-guard
    event: PreToolUse
    matcher: Bash
    call: org:deny_bash
"""
ORG_MODULE = """\
from hookwright import deny


def deny_bash(inp):
    return deny("the organisation forbids Bash")
"""
MANAGED_POLICY = {"tiers": {"managed-prepend": {"hooks": ["org-guard"]}}}

#: Each dialect's project hook answers "allow" and leaves a mark when it runs.
NATIVE_ALLOW = """\
hooks:
  - name: project-allow
    event: PreToolUse
    matcher: Bash
    priority: -100
    call: allow:allow_all
"""
OPENHARNESS_ALLOW = """\
name: project-allow
events: [before_tool_dispatch]
matcher: "Bash"
handler:
  type: command
  command: {command}
  timeout_seconds: 10
"""
PICOCLAW_ALLOW = r"""
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method = message["method"]
    if method in ("hook.before_tool", "hook.approve_tool"):
        open(sys.argv[1], "a").write(method + "\n")
    result = {"ok": True} if method == "hook.hello" else (
        {"approved": True} if method == "hook.approve_tool" else {"action": "continue"})
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
    sys.stdout.flush()
"""
DIALECTS = ["claude_code", "picoclaw", "openharness", "native", "codex", "gemini"]


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _allow_script(mark: Path) -> str:
    """A command hook that leaves `mark` and allows the call (in Claude Code's words, which
    OpenHarness reads as its own `decision`)."""
    answer = {
        "decision": "allow",
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"},
    }
    return (
        "import json, pathlib, sys\nsys.stdin.read()\n"
        f"pathlib.Path({str(mark)!r}).touch()\nprint(json.dumps({answer!r}))\n"
    )


def _codex_hook(project: Path, home: Path, mark: Path) -> None:
    """A reviewed Codex hook (its `trusted_hash` in the user's `config.toml`, as Codex wants)."""
    _write(project / "allow.py", _allow_script(mark))
    hook = {"type": "command", "command": f"{sys.executable} {project / 'allow.py'}"}
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}
    _write(project / ".codex" / "hooks.json", json.dumps({"hooks": hooks}))
    declared = layer_hooks(LayerFiles("project", project / ".codex", None), [])
    reviews = [
        f'[hooks.state.{json.dumps(review_key(spec))}]\ntrusted_hash = "{trusted_hash(spec)}"\n'
        for spec in declared
    ]
    _write(home / ".codex" / "config.toml", "".join(reviews))


def _gemini_hook(project: Path, home: Path, mark: Path) -> None:
    """A Gemini CLI hook in a folder Gemini CLI trusts."""
    _write(project / "allow.py", _allow_script(mark))
    hook = {"type": "command", "command": f"{sys.executable} {project / 'allow.py'}"}
    hooks = {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [hook]}]}
    _write(project / ".gemini" / "settings.json", json.dumps({"hooks": hooks}))
    trusted = {str(project): "TRUST_FOLDER"}
    _write(home / ".gemini" / "trustedFolders.json", json.dumps(trusted))


def _project_hook(dialect: str, project: Path, mark: Path, home: Path) -> None:
    if dialect == "codex":
        _codex_hook(project, home, mark)
    elif dialect == "gemini":
        _gemini_hook(project, home, mark)
    elif dialect == "native":
        _write(project / ".hookwright" / "hooks.yaml", NATIVE_ALLOW)
        body = "import pathlib\nfrom hookwright import allow\n\n\ndef allow_all(inp):\n"
        body += f"    pathlib.Path({str(mark)!r}).touch()\n    return allow('project says yes')\n"
        _write(project / ".hookwright" / "allow.py", body)
    elif dialect == "claude_code":
        _write(project / "allow.py", _allow_script(mark))
        hook = {"type": "command", "command": f"{sys.executable} {project / 'allow.py'}"}
        settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
        _write(project / ".claude" / "settings.json", json.dumps(settings))
    elif dialect == "openharness":
        _write(project / "allow.py", _allow_script(mark))
        command = f"{sys.executable} {project / 'allow.py'}"
        yaml = OPENHARNESS_ALLOW.format(command=command)
        _write(project / ".openharness" / "hooks" / "project-allow.yaml", yaml)
    else:
        _write(project / "plugin.py", PICOCLAW_ALLOW)
        process = {
            "command": [sys.executable, str(project / "plugin.py"), str(mark)],
            "intercept": ["before_tool", "approve_tool"],
        }
        config = {"hooks": {"enabled": True, "processes": {"allow": process}}}
        _write(project / ".picoclaw" / "config.json", json.dumps(config))


def _run(
    tmp_path: Path, home: Path, project: Path, command: str
) -> tuple[Any, list[dict[str, Any]]]:
    script = tmp_path / "script.json"
    call = {"name": "Bash", "arguments": {"command": command}}
    script.write_text(json.dumps({"turns": [{"tool_calls": [call]}, {"content": "done"}]}))
    audit = tmp_path / "audit.jsonl"
    proc = run_hookwright(
        "run",
        "go",
        "-p",
        str(project),
        "--json",
        "--trust",
        "--permission-mode",
        "bypassPermissions",
        "--model",
        f"scripted:{script}",
        home=home,
        env={
            "HOOKWRIGHT_AUDIT_LOG": str(audit),
            "HOOKWRIGHT_MANAGED_POLICY": str(tmp_path / "managed.yaml"),
        },
    )
    records = (
        [json.loads(line) for line in audit.read_text().splitlines()] if audit.exists() else []
    )
    return proc, records


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_project_hook_cannot_loosen_the_managed_deny(
    dialect: str, tmp_path: Path, isolated_home: Path
) -> None:
    _write(isolated_home / ".hookwright" / "hooks.yaml", ORG_GUARD)
    _write(isolated_home / ".hookwright" / "org.py", ORG_MODULE)
    _write(tmp_path / "managed.yaml", json.dumps(MANAGED_POLICY))
    project, ran, project_ran = tmp_path / "proj", tmp_path / "bash-ran", tmp_path / "project-ran"
    _project_hook(dialect, project, project_ran, isolated_home)
    proc, records = _run(tmp_path, isolated_home, project, f"touch {ran}")
    assert proc.returncode == 0, proc.stderr
    assert not ran.exists()
    assert not project_ran.exists()  # the lower tier never ran after the managed deny
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    (result,) = [e for e in events if e["type"] == "tool_result"]
    assert result["is_error"] and "the organisation forbids Bash" in result["content"]
    (guard,) = [r for r in records if r["hook"] == "org-guard" and r["event"] == "PreToolUse"]
    assert guard["decision"] == "deny" and guard["tier"] == "managed-prepend"
    assert guard["chain"] == [
        {"hook": "org-guard", "decision": "deny", "change": "tightened", "tier": "managed-prepend"}
    ]


def test_a_shadow_hook_decides_without_effect(tmp_path: Path, isolated_home: Path) -> None:
    project, ran = tmp_path / "proj", tmp_path / "bash-ran"
    shadow_guard = ORG_GUARD.replace("call: org:deny_bash", "call: org:deny_bash\n    mode: shadow")
    _write(project / ".hookwright" / "hooks.yaml", shadow_guard)
    _write(project / ".hookwright" / "org.py", ORG_MODULE)
    proc, records = _run(tmp_path, isolated_home, project, f"touch {ran}")
    assert proc.returncode == 0, proc.stderr
    assert ran.exists()
    (guard,) = [r for r in records if r["hook"] == "org-guard" and r["event"] == "PreToolUse"]
    assert guard["shadow"] is True and guard["decision"] == "deny"
    assert guard["chain"] == []
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    (line,) = [e for e in events if e["type"] == "hook_result"]
    assert line["shadow"] is True and line["decision"] == "deny"


def test_the_policy_puts_a_tier_in_shadow(tmp_path: Path, isolated_home: Path) -> None:
    _write(tmp_path / "managed.yaml", json.dumps({"tiers": {"project": {"mode": "shadow"}}}))
    project, ran = tmp_path / "proj", tmp_path / "bash-ran"
    deny = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "project guard",
        }
    }
    _write(
        project / "deny.py", f"import json, sys\nsys.stdin.read()\nprint(json.dumps({deny!r}))\n"
    )
    hook = {"type": "command", "command": f"{sys.executable} {project / 'deny.py'}"}
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
    _write(project / ".claude" / "settings.json", json.dumps(settings))
    proc, records = _run(tmp_path, isolated_home, project, f"touch {ran}")
    assert proc.returncode == 0, proc.stderr
    assert ran.exists()
    (guard,) = [r for r in records if r["dialect"] == "claude_code" and r["event"] == "PreToolUse"]
    assert guard["shadow"] is True and guard["decision"] == "deny"
    assert guard["tier"] == "project"


#: Each dialect's guard that refuses every Bash call, declared in shadow mode by its own field.
SHADOW_DENY_ANSWER = {
    "decision": "block",
    "reason": "shadow guard",
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "shadow guard",
    },
}
PICOCLAW_DENY = r"""
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method = message["method"]
    result = {"ok": True} if method == "hook.hello" else (
        {"approved": False, "reason": "shadow guard"} if method == "hook.approve_tool"
        else {"action": "continue"})
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
    sys.stdout.flush()
"""


def _shadow_guard(dialect: str, project: Path) -> None:
    script = f"import json, sys\nsys.stdin.read()\nprint(json.dumps({SHADOW_DENY_ANSWER!r}))\n"
    command = f"{sys.executable} {project / 'deny.py'}"
    if dialect == "claude_code":
        _write(project / "deny.py", script)
        hook = {"type": "command", "command": command, "hookwright": {"mode": "shadow"}}
        settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
        _write(project / ".claude" / "settings.json", json.dumps(settings))
    elif dialect == "openharness":
        _write(project / "deny.py", script)
        yaml = OPENHARNESS_ALLOW.format(command=command).replace("project-allow", "shadow-deny")
        _write(project / ".openharness" / "hooks" / "deny.yaml", yaml + "mode: shadow\n")
    else:
        _write(project / "plugin.py", PICOCLAW_DENY)
        process = {
            "command": [sys.executable, str(project / "plugin.py")],
            "intercept": ["approve_tool"],
            "mode": "shadow",
        }
        config = {"hooks": {"enabled": True, "processes": {"deny": process}}}
        _write(project / ".picoclaw" / "config.json", json.dumps(config))


@pytest.mark.parametrize("dialect", ["claude_code", "openharness", "picoclaw"])
def test_each_dialects_own_shadow_field_decides_without_effect(
    dialect: str, tmp_path: Path, isolated_home: Path
) -> None:
    project, ran = tmp_path / "proj", tmp_path / "bash-ran"
    _shadow_guard(dialect, project)
    proc, records = _run(tmp_path, isolated_home, project, f"touch {ran}")
    assert proc.returncode == 0, proc.stderr
    assert ran.exists(), "a shadow guard's deny was applied"
    (guard,) = [r for r in records if r["dialect"] == dialect and r.get("decision")]
    assert guard["shadow"] is True and guard["decision"] == "deny"
    assert "shadow guard" in guard["reason"]


def test_an_unknown_mode_in_the_extension_key_enforces_and_warns(
    tmp_path: Path, isolated_home: Path
) -> None:
    project, ran = tmp_path / "proj", tmp_path / "bash-ran"
    _shadow_guard("claude_code", project)
    settings_file = project / ".claude" / "settings.json"
    settings_file.write_text(settings_file.read_text().replace('"shadow"', '"shadwo"'))
    proc, records = _run(tmp_path, isolated_home, project, f"touch {ran}")
    assert not ran.exists(), "a typo in mode turned the guard off"
    assert "hookwright.mode: expected shadow or enforce, got 'shadwo'" in proc.stdout + proc.stderr
    (guard,) = [r for r in records if r["dialect"] == "claude_code" and r.get("decision")]
    assert guard["decision"] == "deny" and not guard.get("shadow")
