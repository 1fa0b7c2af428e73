"""`execute_tool` spans for hosts that run the tool and relay its events to hookwright: each
event answered by its own `hookwright hook claude-code` process, or all by one engine (as the
daemon does). The call's span is sent once, by the process that sees the call end, with the
id every process derives; each dispatch of the call hangs under it, each hook run under its
dispatch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from hookwright import Event
from hookwright.config.trust import TrustPolicy, TrustStore
from hookwright.host import HookSession
from hookwright.monitor.otel import DispatchSpans, session_ids
from hookwright.monitor.otel_relay import tool_span_id
from hookwright.monitor.watch import EngineMonitor

OTEL_RUN = Path(__file__).with_name("otel_run.py")
SESSION = "relay-session"
HOOKS = """\
hooks:
  - {name: guard, event: PreToolUse, matcher: Bash, call: "guards:guard"}
  - {name: after, event: PostToolUse, call: "guards:after"}
  - {name: failed, event: PostToolUseFailure, call: "guards:after"}
"""
GUARDS = """\
from hookwright import add_context, allow, deny


def guard(inp):
    if "rm -rf" in inp.tool_input["command"]:
        return deny("no rm -rf")
    return allow("fine")


def after(inp):
    return add_context("seen")
"""


@pytest.fixture
def project(tmp_path: Path, isolated_home: Path) -> Path:
    root = tmp_path / "project"
    (root / ".hookwright").mkdir(parents=True)
    (root / ".hookwright" / "hooks.yaml").write_text(HOOKS)
    (root / ".hookwright" / "guards.py").write_text(GUARDS)
    TrustStore(isolated_home).trust(root)
    return root


def event(name: str, call_id: str, command: str, **more: Any) -> dict[str, Any]:
    return {
        "session_id": SESSION,
        "hook_event_name": name,
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": call_id,
        **more,
    }


def hook_process(project: Path, home: Path, stdin: dict[str, Any]) -> list[dict[str, Any]]:
    """One `hookwright hook claude-code` process with an in-memory exporter: its spans."""
    out = project.parent / f"spans-{stdin['hook_event_name']}-{stdin['tool_use_id']}.json"
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "HOOKWRIGHT_"))}
    stdin = {**stdin, "cwd": str(project)}
    done = subprocess.run(
        [sys.executable, str(OTEL_RUN), str(out), "memory", "hook", "claude-code"],
        input=json.dumps(stdin),
        capture_output=True,
        text=True,
        timeout=120,
        env={**base, "HOME": str(home), "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"},
        cwd=project,
    )
    assert done.returncode == 0, done.stderr
    spans: list[dict[str, Any]] = json.loads(out.read_text())["spans"]
    return spans


def test_each_event_in_its_own_process_hangs_under_one_execute_tool_span(
    project: Path, isolated_home: Path
) -> None:
    trace_id, root_id = session_ids(SESSION)
    tool_id = tool_span_id(SESSION, "toolu_1")
    before = hook_process(project, isolated_home, event("PreToolUse", "toolu_1", "ls"))
    assert not [s for s in before if s["name"].startswith("execute_tool")], "not ended yet"
    [pre] = [s for s in before if s["name"] == "dispatch PreToolUse"]
    assert (pre["trace_id"], pre["parent_id"]) == (trace_id, tool_id)
    [guard] = [s for s in before if s["name"] == "hook PreToolUse guard"]
    assert guard["parent_id"] == pre["span_id"]

    post = event("PostToolUse", "toolu_1", "ls", tool_response={"stdout": ""}, duration_ms=1500)
    after = hook_process(project, isolated_home, post)
    [tool] = [s for s in after if s["name"] == "execute_tool Bash"]
    [dispatch] = [s for s in after if s["name"] == "dispatch PostToolUse"]
    assert (tool["trace_id"], tool["span_id"], tool["parent_id"]) == (trace_id, tool_id, root_id)
    assert dispatch["parent_id"] == tool_id
    assert tool["attributes"]["gen_ai.operation.name"] == "execute_tool"
    assert tool["attributes"]["gen_ai.tool.call.id"] == "toolu_1"
    assert tool["attributes"]["gen_ai.tool.type"] == "function"
    # the host's duration_ms: the span starts when the tool did, before the PostToolUse
    assert dispatch["start"] - tool["start"] >= 1_400_000_000
    assert tool["end"] >= dispatch["end"]


def test_a_refused_call_ends_at_its_pretooluse(project: Path, isolated_home: Path) -> None:
    spans = hook_process(project, isolated_home, event("PreToolUse", "toolu_2", "rm -rf /"))
    [tool] = [s for s in spans if s["name"] == "execute_tool Bash"]
    [pre] = [s for s in spans if s["name"] == "dispatch PreToolUse"]
    assert tool["span_id"] == tool_span_id(SESSION, "toolu_2") == pre["parent_id"]
    assert tool["attributes"]["hookwright.decision"] == "deny"
    assert tool["attributes"]["hookwright.reason"] == "no rm -rf"
    assert tool["start"] <= pre["start"]


def test_a_failed_tool_is_an_error_span(project: Path, isolated_home: Path) -> None:
    failed = event("PostToolUseFailure", "toolu_3", "false", error="exit 1")
    [tool] = [
        s for s in hook_process(project, isolated_home, failed) if s["name"] == "execute_tool Bash"
    ]
    assert tool["status"] == "ERROR" and tool["attributes"]["error.type"] == "tool_error"


def test_no_tool_use_id_no_execute_tool_span(project: Path, isolated_home: Path) -> None:
    stdin = event("PreToolUse", "", "rm -rf /")
    spans = hook_process(project, isolated_home, {**stdin, "tool_use_id": None})
    assert not [s for s in spans if s["name"].startswith("execute_tool")]
    [pre] = [s for s in spans if s["name"] == "dispatch PreToolUse"]
    assert pre["parent_id"] == session_ids(SESSION)[1]


async def test_one_engine_answering_every_event_starts_the_span_at_pretooluse(
    project: Path, isolated_home: Path
) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trust = TrustPolicy(everything=True)
    session = await HookSession.open(project, home=isolated_home, trust=trust)
    engine = session.engine
    engine.monitor = EngineMonitor(
        engine.audit, DispatchSpans(provider.get_tracer("test"), engine.audit)
    )
    async with session:
        await session.relay(Event.PreToolUse, event("PreToolUse", "toolu_4", "ls"))
        post = event("PostToolUse", "toolu_4", "ls", tool_response={}, duration_ms=1)
        await session.relay(Event.PostToolUse, post)
    spans = exporter.get_finished_spans()
    [tool] = [s for s in spans if s.name == "execute_tool Bash"]
    dispatches = [s for s in spans if s.name.startswith("dispatch ")]
    assert {s.parent.span_id for s in dispatches if s.parent} == {tool.context.span_id}
    [pre] = [s for s in dispatches if s.name == "dispatch PreToolUse"]
    assert tool.start_time is not None and pre.start_time is not None
    assert tool.start_time <= pre.start_time
    assert tool.attributes is not None and tool.attributes["hookwright.decision"] == "allow"
