"""The audit file written from pre-encoded pieces says exactly what a record built field by
field says; records keep the inputs as they were at dispatch; odd values never stop the
writer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from hookwright import (
    HookEngine,
    HookInput,
    HookResult,
    add_context,
    deny,
    rewrite_input,
)
from hookwright.monitor import audit as audit_module
from hookwright.monitor.audit import AuditRecord

SECRET = 'tok"en\\42'


def lines(path: Path) -> list[str]:
    """The file's lines, split as `hookwright audit` splits them (a U+2028 inside a string
    is not a line break)."""
    return path.read_text().split("\n")[:-1]


def bash(command: Any, use_id: str = "toolu_1", **extra: Any) -> HookInput:
    tool_input = {"command": command, **extra}
    return HookInput(
        "PreToolUse",
        session_id="s1",
        turn_id="turn-1",
        payload={"tool_name": "Bash", "tool_input": tool_input, "tool_use_id": use_id},
    )


def busy_engine(path: Path) -> HookEngine:
    """Hooks answering every way a record can show: nothing, context, rewrite, deny, errors,
    patches with values JSON cannot hold, long texts, secrets, capabilities."""
    engine = HookEngine(audit_path=path)
    engine.audit.add_secret(SECRET)
    engine.add(lambda inp: None, "PreToolUse", name="quiet")
    ctx = engine.add(lambda inp: add_context(f"ctx {SECRET} " + "y" * 3000), "PreToolUse")
    engine.unregister(ctx)
    engine.register(replace(ctx, name="ctx", capabilities=("block", "read")))
    engine.add(
        lambda inp: rewrite_input({**inp.tool_input, "note": "é\u2028"}),
        "PreToolUse",
        name="rewrite",
        mode="chain",
    )
    engine.add(
        lambda inp: deny(f"no {SECRET}") if "rm" in str(inp.tool_input) else None,
        "PreToolUse",
        name="guard",
    )
    engine.add(lambda inp: 1 / 0, "Stop", name="crash")
    engine.add(lambda inp: HookResult(patches={"p": {"s": {1}, "t": (1, "x")}}), "Stop")
    engine.add(lambda inp: None, "Stop", name="quiet-stop")
    return engine


def fire(engine: HookEngine) -> None:
    engine.dispatch_sync(bash("ls"))
    engine.dispatch_sync(bash("rm -rf /", "toolu_2", extra=[1, {"k": SECRET}]))
    engine.dispatch_sync(bash("x" * 2500 + SECRET, "toolu_3"))
    engine.dispatch_sync(bash(f"echo {SECRET}", "toolu_4", nested={"deep": [SECRET, None]}))
    engine.dispatch_sync(HookInput("Stop", session_id="s2", turn_id="turn-2"))
    engine.dispatch_sync(HookInput("Stop"))
    engine.audit.submit(engine.dispatch_sync(bash("ls", "toolu_5")), "s3")


def test_lines_equal_the_records_encoded_field_by_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same dispatches written twice: by the line encoder (no callback) and from
    `AuditRecord`s (a callback is registered) give the same bytes."""
    clock = SimpleNamespace(time=lambda: 1795000000.125, monotonic=time.monotonic)
    monkeypatch.setattr(audit_module, "time", clock)
    plain, with_records = tmp_path / "plain.jsonl", tmp_path / "records.jsonl"
    engine = busy_engine(plain)
    mirror = audit_module.AuditLog(with_records)
    mirror.add_secret(SECRET)
    seen: list[AuditRecord] = []
    mirror.add_callback(seen.append)
    original_submit = engine.audit.submit

    def both(verdict: Any, session_id: Any, inp: Any = None) -> None:
        original_submit(verdict, session_id, inp)
        mirror.submit(verdict, session_id, inp)

    monkeypatch.setattr(engine.audit, "submit", both)
    fire(engine)
    engine.close()
    mirror.close()
    assert lines(plain) == lines(with_records)
    assert len(seen) == len(lines(plain)) == 30
    assert SECRET not in plain.read_text()
    assert json.dumps(SECRET)[1:-1] not in plain.read_text()
    records = [json.loads(line) for line in lines(plain)]
    assert [r["hook"] for r in records[:4]] == ["quiet", "ctx", "rewrite", "guard"]
    assert records[1]["capabilities"] == ["block", "read"]
    assert records[2]["executed_input"] == {"command": "ls", "note": "é\u2028"}
    denied = records[4:8]
    assert [r["executed_input"] for r in denied] == [None] * 4
    assert denied[3]["reason"] == "no ***"
    assert denied[0]["tool_input"]["extra"] == [1, {"k": "***"}]
    assert (
        records[8]["tool_input"]["command"]
        == "x" * 2000 + f"…[{500 + len(SECRET)} more characters]"
    )
    assert records[12]["tool_input"]["nested"] == {"deep": ["***", None]}
    assert records[16]["error"] == "ZeroDivisionError: division by zero"
    assert records[17]["patch"] == {"p": {"s": "{1}", "t": [1, "x"]}}
    assert (records[19]["session_id"], records[26]["session_id"]) == (None, "s3")
    assert records[26]["tool_input"] is None and records[22]["tool_use_id"] == "toolu_5"


def test_a_record_keeps_the_input_as_it_was_when_the_dispatch_returned(
    tmp_path: Path,
) -> None:
    """A host (or a later hook) changing the tool input, or the rewritten input, in place
    after the dispatch does not change the records still waiting to be written."""
    path = tmp_path / "audit.jsonl"
    engine = HookEngine(audit_path=path)
    rewritten: dict[str, Any] = {"command": "git push --dry-run", "args": ["-v"]}
    engine.add(lambda inp: rewrite_input(rewritten), "PreToolUse", name="dry")
    engine.add(lambda inp: None, "PostToolUse", name="quiet")
    tool_input: dict[str, Any] = {"command": "git push", "env": {"A": "1"}}
    first = HookInput(
        "PreToolUse",
        session_id="s1",
        payload={"tool_name": "Bash", "tool_input": tool_input, "tool_use_id": "toolu_1"},
    )
    verdict = engine.dispatch_sync(first)
    tool_input["command"] = "changed"
    tool_input["env"]["A"] = "changed"
    assert verdict.updated_input is not None
    verdict.updated_input["args"].append("changed")
    rewritten["command"] = "changed"
    tool_input["flat"] = "added"
    engine.dispatch_sync(
        HookInput(
            "PostToolUse",
            session_id="s1",
            payload={"tool_name": "Bash", "tool_input": tool_input, "tool_use_id": "toolu_1"},
        )
    )
    engine.close()
    pre, post = (json.loads(line) for line in lines(path))
    assert pre["tool_input"] == {"command": "git push", "env": {"A": "1"}}
    assert pre["executed_input"] == {"command": "git push --dry-run", "args": ["-v"]}
    assert post["tool_input"] == {"command": "changed", "env": {"A": "changed"}, "flat": "added"}


def test_a_value_that_contains_itself_is_written_with_a_placeholder(tmp_path: Path) -> None:
    """A patch or a tool input holding itself (or nested past any sane depth) is written with a
    placeholder, in the file and in the callbacks' records; the writer keeps going."""
    path = tmp_path / "audit.jsonl"
    engine = HookEngine(audit_path=path)
    seen: list[AuditRecord] = []
    loop: dict[str, Any] = {"name": "loop"}
    loop["self"] = loop
    cycle: list[Any] = ["start"]
    cycle.append(cycle)
    deep: list[Any] = []
    for _ in range(5000):
        deep = [deep]
    engine.add(lambda inp: HookResult(patches={"ctx": loop}), "PreToolUse", name="patch")
    engine.add(lambda inp: None, "Stop", name="after")
    for with_callback in (False, True):
        if with_callback:
            engine.add_audit_callback(seen.append)
        payload = {"tool_name": "Bash", "tool_input": {"cycle": cycle, "deep": deep}}
        engine.dispatch_sync(HookInput("PreToolUse", session_id="s1", payload=payload))
        engine.dispatch_sync(HookInput("Stop", session_id="s1"))
        engine.audit.flush()
    engine.close()
    records = [json.loads(line) for line in lines(path)]
    assert [r["hook"] for r in records] == ["patch", "after", "patch", "after"]
    for record in (records[0], records[2]):
        assert record["patch"] == {"ctx": {"name": "loop", "self": "[circular reference]"}}
        assert record["tool_input"]["cycle"] == ["start", "[circular reference]"]
        depth, value = 0, record["tool_input"]["deep"]
        while isinstance(value, list):
            depth, value = depth + 1, value[0]
        assert value == "[nested too deep]" and depth < 100
    assert seen[0].patch == {"ctx": {"name": "loop", "self": "[circular reference]"}}
    assert engine.audit.dropped == 0


def test_records_are_written_when_the_process_exits_without_closing(tmp_path: Path) -> None:
    """A program that dispatches and exits without `close()` still leaves every record."""
    path = tmp_path / "audit.jsonl"
    script = (
        "from hookwright import HookEngine, HookInput\n"
        "engine = HookEngine()\n"
        "engine.add(lambda inp: None, 'Stop', name='last')\n"
        "for index in range(500):\n"
        "    engine.dispatch_sync(HookInput('Stop', session_id=f's{index}'))\n"
    )
    env = {**os.environ, "HOOKWRIGHT_AUDIT_LOG": str(path)}
    subprocess.run([sys.executable, "-c", script], env=env, check=True, timeout=60)
    sessions = [json.loads(line)["session_id"] for line in lines(path)]
    assert sessions == [f"s{index}" for index in range(500)]


class _Unreadable(dict[str, Any]):
    """A tool input that cannot be walked (as one another thread changes mid-copy)."""

    def items(self) -> Any:
        raise RuntimeError("dictionary changed size during iteration")


def test_an_input_that_cannot_be_copied_costs_its_record_not_the_dispatch(
    tmp_path: Path,
) -> None:
    path = tmp_path / "audit.jsonl"
    engine = HookEngine(audit_path=path)
    seen: list[Any] = []
    engine.add(lambda inp: seen.append(inp.tool_input["command"]), "PreToolUse", name="h")
    odd = HookInput(
        "PreToolUse", payload={"tool_name": "Bash", "tool_input": _Unreadable(command="ls")}
    )
    assert not engine.dispatch_sync(odd).blocked
    engine.dispatch_sync(bash("pwd"))
    engine.close()
    assert seen == ["ls", "pwd"]
    assert [json.loads(line)["tool_input"] for line in lines(path)] == [{"command": "pwd"}]
    assert engine.audit.dropped == 1
