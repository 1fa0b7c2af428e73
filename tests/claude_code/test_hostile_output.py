"""Hook output crafted to make scanning slow: every scan of it is linear, so a hook answer is
decoded in seconds (these inputs took minutes with the old backtracking patterns)."""

from __future__ import annotations

import json
import shlex
import sys
import time

from .conftest import Harness, cmd, group
from .expect import TOOL
from .test_prompt_hooks import Model, prompt

STDERR_LINE = 5_000_000


async def test_a_five_megabyte_stderr_line_on_exit_2_blocks_in_seconds(h: Harness) -> None:
    script = h.py(
        "sys.stdin.read()\n"
        f"sys.stderr.write('a' * {STDERR_LINE} + ': No such file or directory')\n"
        "sys.exit(2)\n"
    )
    h.hooks(group("PreToolUse", cmd(script, timeout=30)))
    started = time.monotonic()
    verdict = await h.fire("PreToolUse", **TOOL)
    assert time.monotonic() - started < 10
    assert verdict.decision == "deny"
    # the 5 MB reason reaches the model capped (outward-text cap), with the marker
    assert (
        verdict.reason is not None and "more characters truncated by hookwright" in verdict.reason
    )
    assert len(verdict.reason) < 100_000
    assert verdict.results[0].error is None  # not mistaken for a missing script


async def test_a_missing_script_is_still_found_after_a_long_line(h: Harness) -> None:
    command = f"{shlex.quote(sys.executable)} .claude/hooks/missing.py"
    wrapper = h.sh(f"printf '%*s\\n' 2000000 '' >&2\n{command}\n")
    h.hooks(group("PreToolUse", cmd(wrapper + " .claude/hooks/missing.py", timeout=30)))
    started = time.monotonic()
    verdict = await h.fire("PreToolUse", **TOOL)
    assert time.monotonic() - started < 10
    assert verdict.decision == "deny"
    assert [n.kind for n in verdict.results[0].effects.notices] == ["script_missing"]
    assert "missing.py" in (verdict.results[0].error or "")


async def test_a_fenced_prompt_reply_padded_with_whitespace_decodes_in_seconds(
    h: Harness,
) -> None:
    reply = "```json\n" + json.dumps({"ok": False, "reason": "unsafe"}) + " " * 2_000_000 + "```"
    h.use_model(Model(reply))
    h.hooks(group("Stop", prompt()))
    started = time.monotonic()
    verdict = await h.fire("Stop", stop_hook_active=False)
    assert time.monotonic() - started < 10
    assert verdict.decision == "block"
    assert verdict.reason is not None and verdict.reason.endswith("]: unsafe")


async def test_a_prompt_reply_of_whitespace_and_backticks_is_an_error_in_seconds(
    h: Harness,
) -> None:
    h.use_model(Model("x" + " \t" * 1_000_000 + "``"))
    h.hooks(group("Stop", prompt()))
    started = time.monotonic()
    verdict = await h.fire("Stop", stop_hook_active=False)
    assert time.monotonic() - started < 10
    assert verdict.decision is None
    assert "not JSON" in (verdict.results[0].error or "")


async def test_deeply_nested_json_stdout_is_text_not_a_crash(h: Harness) -> None:
    script = h.py("sys.stdin.read()\nprint('{\"a\": ' + '[' * 100000)\n")
    h.hooks(group("SessionStart", cmd(script, timeout=30)))
    verdict = await h.fire("SessionStart", source="startup")
    assert h.audit()[0]["status"] == "ok"
    [context] = verdict.additional_context
    assert context.startswith('{"a": [[[')
