"""Hook scripts in the styles people publish, each in Python and in bash."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from .conftest import Harness, cmd, group
from .expect import TOOL

Style = Callable[[Harness], str]

EXIT2 = {
    "python": lambda h: h.py(
        "data = json.load(sys.stdin)\n"
        "if 'rm -rf' in data['tool_input'].get('command', ''):\n"
        "    print('Dangerous command blocked', file=sys.stderr)\n"
        "    sys.exit(2)\n"
    ),
    "bash": lambda h: h.sh(
        "input=$(cat)\n"
        'if echo "$input" | grep -q "rm -rf"; then\n'
        '  echo "Dangerous command blocked" >&2\n'
        "  exit 2\n"
        "fi\n"
        "exit 0\n"
    ),
}
LEGACY_APPROVE = {
    "python": lambda h: h.py("json.load(sys.stdin)\nprint(json.dumps({'decision': 'approve'}))\n"),
    "bash": lambda h: h.sh('cat >/dev/null\necho \'{"decision": "approve"}\'\n'),
}
PERMISSION_DECISION = {
    "python": lambda h: h.py(
        "data = json.load(sys.stdin)\n"
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse',\n"
        "    'permissionDecision': 'deny',\n"
        "    'permissionDecisionReason': 'no rm in ' + data['cwd']}}))\n"
    ),
    "bash": lambda h: h.sh(
        "cat >/dev/null\n"
        "cat <<JSON\n"
        '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",'
        ' "permissionDecisionReason": "no rm in $CLAUDE_PROJECT_DIR"}}\n'
        "JSON\n"
    ),
}
PERMISSION_REQUEST = {
    "python": lambda h: h.py(
        "data = json.load(sys.stdin)\n"
        "behavior = 'allow' if data['tool_input']['command'].startswith('npm') else 'deny'\n"
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PermissionRequest',\n"
        "    'decision': {'behavior': behavior}}}))\n"
    ),
    "bash": lambda h: h.sh(
        'if cat | grep -q \'"command":"npm\'; then b=allow; else b=deny; fi\n'
        'printf \'{"hookSpecificOutput": {"hookEventName": "PermissionRequest", '
        '"decision": {"behavior": "%s"}}}\' "$b"\n'
    ),
}
STOP_BLOCK = {
    "python": lambda h: h.py(
        "data = json.load(sys.stdin)\n"
        "if data.get('stop_hook_active'):\n"
        "    sys.exit(0)\n"
        "print(json.dumps({'decision': 'block', 'reason': 'Run the tests first'}))\n"
    ),
    "bash": lambda h: h.sh(
        "input=$(cat)\n"
        'if echo "$input" | grep -q \'"stop_hook_active":true\'; then exit 0; fi\n'
        'echo \'{"decision": "block", "reason": "Run the tests first"}\'\n'
    ),
}
SESSION_CONTEXT = {
    "python": lambda h: h.py(
        "json.load(sys.stdin)\n"
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'SessionStart',\n"
        "    'additionalContext': 'Branch: main'}}))\n"
    ),
    "bash": lambda h: h.sh(
        "cat >/dev/null\n"
        'jq_free=\'{"hookSpecificOutput": {"hookEventName": "SessionStart", '
        '"additionalContext": "Branch: main"}}\'\n'
        'echo "$jq_free"\n'
    ),
}
LANGS = ["python", "bash"]


@pytest.mark.parametrize("lang", LANGS)
async def test_exit_2_with_stderr(h: Harness, lang: str) -> None:
    h.hooks(group("PreToolUse", cmd(EXIT2[lang](h)), matcher="Bash"))
    blocked = await h.fire("PreToolUse", **TOOL)
    assert blocked.decision is not None and blocked.decision.value == "deny"
    assert blocked.reason is not None and blocked.reason.endswith("]: Dangerous command blocked\n")
    fine = await h.fire_tool(command="ls")
    assert fine.decision is None


@pytest.mark.parametrize("lang", LANGS)
async def test_legacy_approve_auto_approves(h: Harness, lang: str) -> None:
    h.hooks(group("PreToolUse", cmd(LEGACY_APPROVE[lang](h))))
    verdict = await h.fire("PreToolUse", **TOOL)
    assert verdict.decision is not None and verdict.decision.value == "allow"


@pytest.mark.parametrize("lang", LANGS)
async def test_permission_decision_with_reason(h: Harness, lang: str) -> None:
    h.hooks(group("PreToolUse", cmd(PERMISSION_DECISION[lang](h))))
    verdict = await h.fire("PreToolUse", **TOOL)
    assert verdict.decision is not None and verdict.decision.value == "deny"
    assert verdict.reason == f"no rm in {h.project}"


@pytest.mark.parametrize("lang", LANGS)
async def test_permission_request_behavior(h: Harness, lang: str) -> None:
    h.hooks(group("PermissionRequest", cmd(PERMISSION_REQUEST[lang](h))))
    allowed = await h.fire_tool("PermissionRequest", command="npm test")
    denied = await h.fire_tool("PermissionRequest", command="curl x | sh")
    assert [allowed.decision, denied.decision] == ["allow", "deny"]


@pytest.mark.parametrize("lang", LANGS)
async def test_stop_block_respects_stop_hook_active(h: Harness, lang: str) -> None:
    h.hooks(group("Stop", cmd(STOP_BLOCK[lang](h))))
    first = await h.fire("Stop", stop_hook_active=False, last_assistant_message="done")
    again = await h.fire("Stop", stop_hook_active=True, last_assistant_message="done")
    assert first.decision == "block" and first.reason == "Run the tests first"
    assert again.decision is None


@pytest.mark.parametrize("lang", LANGS)
async def test_session_start_additional_context(h: Harness, lang: str) -> None:
    h.hooks(group("SessionStart", cmd(SESSION_CONTEXT[lang](h)), matcher="startup"))
    verdict = await h.fire("SessionStart", source="startup", model="m")
    assert verdict.additional_context == ["Branch: main"]
    resumed = await h.fire("SessionStart", source="resume", model="m")
    assert resumed.runs == []


@pytest.mark.parametrize("lang", LANGS)
async def test_silent_logger(h: Harness, lang: str) -> None:
    log = h.project / "tool-log.jsonl"
    script = (
        h.py(f"open({str(log)!r}, 'a').write(sys.stdin.read())\n")
        if lang == "python"
        else h.sh(f"cat >> {log}\n")
    )
    h.hooks(group("PostToolUse", cmd(script)))
    verdict = await h.fire("PostToolUse", **TOOL, tool_response={"stdout": "x"}, iteration=3)
    assert verdict.decision is None and not verdict.additional_context
    assert verdict.results[0].status.value == "ok"
    logged = json.loads(log.read_text())
    assert logged["hook_event_name"] == "PostToolUse"
    assert logged["tool_response"] == {"stdout": "x"}
    assert "iteration" not in logged


@pytest.mark.parametrize("lang", LANGS)
async def test_stateful_hook_under_home(h: Harness, lang: str) -> None:
    script = (
        h.py(
            "sys.stdin.read()\n"
            "path = os.path.join(os.environ['HOME'], '.hook-state', 'count')\n"
            "os.makedirs(os.path.dirname(path), exist_ok=True)\n"
            "n = int(open(path).read()) + 1 if os.path.exists(path) else 1\n"
            "open(path, 'w').write(str(n))\n"
            "if n > 2:\n"
            "    print(json.dumps({'decision': 'block', 'reason': f'{n} prompts'}))\n"
        )
        if lang == "python"
        else h.sh(
            "cat >/dev/null\n"
            'mkdir -p "$HOME/.hook-state"\n'
            'n=$(( $(cat "$HOME/.hook-state/count" 2>/dev/null || echo 0) + 1 ))\n'
            'echo "$n" > "$HOME/.hook-state/count"\n'
            'if [ "$n" -gt 2 ]; then echo "{\\"decision\\": \\"block\\", '
            '\\"reason\\": \\"$n prompts\\"}"; fi\n'
        )
    )
    h.hooks(group("UserPromptSubmit", cmd(script)))
    verdicts = [await h.fire("UserPromptSubmit", prompt=f"p{i}") for i in range(3)]
    assert [v.decision for v in verdicts] == [None, None, "block"]
    assert verdicts[2].reason == "3 prompts"
    assert (h.home / ".hook-state" / "count").read_text().strip() == "3"
