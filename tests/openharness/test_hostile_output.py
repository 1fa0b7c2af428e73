"""Command output crafted to make the unified-output reader slow or crash: it is read in
linear time and a bad answer is one failed hook, not a stalled or crashed dispatch."""

from __future__ import annotations

import time

from hookwright import Decision, HookEngine, Status

from .helpers import Workspace, install_ws, reply_script, tool_call


async def test_five_megabytes_of_braces_fail_the_hook_in_seconds(
    ws: Workspace, engine: HookEngine
) -> None:
    body = "import sys\nsys.stdin.read()\nsys.stdout.write('{' * 5_000_000)\n"
    ws.command_hook("a.yaml", "braces", ["before_tool_dispatch"], body)
    ws.command_hook(
        "b.yaml", "blocker", ["before_tool_dispatch"], reply_script({"decision": "block"})
    )
    install_ws(engine, ws)
    started = time.monotonic()
    verdict = await engine.dispatch(tool_call(command="ls"))
    assert time.monotonic() - started < 10
    failed = verdict.results[0]
    assert failed.status is Status.error
    assert "no JSON object found" in (failed.error or "")
    assert verdict.decision is Decision.deny


async def test_prose_around_the_object_is_still_read(ws: Workspace, engine: HookEngine) -> None:
    body = (
        "import sys\nsys.stdin.read()\n"
        "print('note: { not json yet ' + ' ' * 100000)\n"
        'print(\'{"decision": "block", "reason": "nope"} trailing } text\')\n'
    )
    ws.command_hook("a.yaml", "prose", ["before_tool_dispatch"], body)
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="ls"))
    assert "invalid JSON" in (verdict.results[0].error or "")  # first `{` to last `}`, as upstream


async def test_deep_or_huge_json_answers_are_clear_errors(
    ws: Workspace, engine: HookEngine
) -> None:
    deep = "import sys\nsys.stdin.read()\nprint('{\"a\": ' + '[' * 100000 + ']' * 100000 + '}')\n"
    huge = "import sys\nsys.stdin.read()\nprint('{\"a\": ' + '9' * 5000 + '}')\n"
    ws.command_hook("a.yaml", "deep", ["before_tool_dispatch"], deep)
    ws.command_hook("b.yaml", "huge", ["before_tool_dispatch"], huge)
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="ls"))
    errors = sorted(result.error or "" for result in verdict.results)
    assert "nesting is deeper than 200 levels" in errors[0] + errors[1]
    assert "more than 4300 digits" in errors[0] + errors[1]
    assert all(result.status is Status.error for result in verdict.results)
