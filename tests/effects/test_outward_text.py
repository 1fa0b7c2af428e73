"""Hook-supplied text on its way to the model, the operator and the audit: every `${secrets}`
value redacted, every text capped with a visible marker (real OpenHarness hooks, the reference
agent, the scripted model)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from hookwright.core.outward import TEXT_CAP

from .support import call, reply, run_once, write_script

SECRET = "s3cr3t-value-4711"
ECHO: list[dict[str, Any]] = [
    {"content": "", "tool_calls": [call("Bash", command="echo tool-said-this")]},
    {"content": "done"},
]


def secret_hook(
    root: Path, name: str, events: list[str], body: str, capabilities: list[str] | None = None
) -> None:
    """An OpenHarness command hook that gets `${secrets.T}` as argv[2]."""
    hooks = root / ".openharness" / "hooks"
    script, log = write_script(hooks / "scripts", name, "secret = sys.argv[2]\n" + body)
    command = f'"{sys.executable}" "{script}" "{log}" ${{secrets.T}}'
    data: dict[str, Any] = {
        "name": name,
        "events": events,
        "handler": {"type": "command", "command": command},
    }
    if capabilities:
        data["capabilities"] = capabilities
    hooks.mkdir(parents=True, exist_ok=True)
    (hooks / f"{name}.yaml").write_text(yaml.safe_dump(data))


def answer(fields: str, exit_code: int = 0) -> str:
    """A script body printing the JSON object whose Python source is `fields` (it may use
    `secret`)."""
    return f"print(json.dumps({fields}))\nsys.exit({exit_code})\n"


async def test_a_hook_echoing_its_secret_everywhere_leaks_it_nowhere(
    tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("T", SECRET)
    root = tmp_path / "workspace"
    notes = (
        "{'systemMessage': 'note ' + secret, "
        "'hookSpecificOutput': {'additionalContext': 'context ' + secret}}"
    )
    secret_hook(root, "a-model-notes", ["before_model_call"], answer(notes))
    secret_hook(root, "b-tool-notes", ["after_tool_dispatch"], answer(notes))
    secret_hook(
        root,
        "c-blocker",
        ["after_tool_dispatch"],
        answer("{'decision': 'block', 'reason': 'blocked ' + secret}"),
    )
    live = await run_once(root, isolated_home, ECHO)
    live.setup.engine.audit.flush()
    requests = json.dumps([request.messages for request in live.calls])
    assert "note ***" in requests and "context ***" in requests and "blocked ***" in requests
    assert SECRET not in requests
    audit = (isolated_home / ".hookwright" / "audit.jsonl").read_text()
    assert "blocked ***" in audit
    assert SECRET not in audit
    assert SECRET not in json.dumps(live.events, default=str)


async def test_a_tool_output_rewrite_carrying_the_secret_reaches_the_model_redacted(
    tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("T", SECRET)
    root = tmp_path / "workspace"
    secret_hook(
        root,
        "rewriter",
        ["after_tool_dispatch"],
        answer("{'hookSpecificOutput': {'patch': {'tool_output': 'output ' + secret}}}"),
        capabilities=["rewrite_tool_response"],
    )
    live = await run_once(root, isolated_home, ECHO)
    assert [m["content"] for m in live.calls[1].messages if m["role"] == "tool"] == ["output ***"]


async def test_a_huge_block_reason_is_capped_for_the_model_and_the_audit(
    tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("T", SECRET)
    root = tmp_path / "workspace"
    secret_hook(
        root,
        "blocker",
        ["after_tool_dispatch"],
        reply({"decision": "block", "reason": "x" * 5_000_000}),
    )
    live = await run_once(root, isolated_home, ECHO)
    live.setup.engine.audit.flush()
    [tool] = [m["content"] for m in live.calls[1].messages if m["role"] == "tool"]
    assert len(tool) < TEXT_CAP + 1000
    assert "more characters truncated by hookwright" in tool
    [record] = [
        json.loads(line)
        for line in (isolated_home / ".hookwright" / "audit.jsonl").read_text().splitlines()
        if json.loads(line)["hook"] == "blocker"
    ]
    assert len(record["reason"]) < TEXT_CAP + 1000
    assert record["reason"].endswith("more characters truncated by hookwright]")
