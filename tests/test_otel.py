"""Dispatches and hook runs as OpenTelemetry spans, through the SDK's in-memory exporter: what a
collector would receive, from the engine and end to end from `hookwright run`."""

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

from hookwright import Event, HookEngine, HookInput, HookResult, add_context, deny
from hookwright.config.trust import TrustStore
from hookwright.monitor.otel import DispatchSpans, session_ids, spans_from_environment
from hookwright.monitor.watch import EngineMonitor

OTEL_RUN = Path(__file__).with_name("otel_run.py")
ENDPOINTS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


def traced_engine(exporter: InMemorySpanExporter) -> HookEngine:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    engine = HookEngine(audit_path=None)
    engine.monitor = EngineMonitor(
        engine.audit, DispatchSpans(provider.get_tracer("test"), engine.audit)
    )
    return engine


def bash(command: str, session: str = "sess-1") -> HookInput:
    return HookInput(
        Event.PreToolUse,
        session_id=session,
        turn_id="turn-1",
        payload={"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t1"},
    )


def test_a_dispatch_is_a_span_with_a_child_per_hook_run(exporter: InMemorySpanExporter) -> None:
    engine = traced_engine(exporter)

    @engine.on(Event.PreToolUse, matcher="Bash", name="no-rm")
    def no_rm(inp: HookInput) -> HookResult:
        return deny("no rm")

    @engine.on(Event.PreToolUse, name="note")
    def note(inp: HookInput) -> HookResult:
        return add_context("careful")

    engine.dispatch_sync(bash("rm -rf x"))
    spans = {span.name: span for span in exporter.get_finished_spans()}
    assert set(spans) == {"dispatch PreToolUse", "hook PreToolUse no-rm", "hook PreToolUse note"}
    dispatch = spans["dispatch PreToolUse"]
    trace_id, root_id = session_ids("sess-1")
    assert dispatch.context.trace_id == trace_id
    assert dispatch.parent is not None and dispatch.parent.span_id == root_id
    assert dispatch.attributes["hookwright.decision"] == "deny"
    assert dispatch.attributes["hookwright.hooks"] == 2
    denied = spans["hook PreToolUse no-rm"]
    assert denied.parent is not None and denied.parent.span_id == dispatch.context.span_id
    assert denied.context.trace_id == trace_id
    assert dict(denied.attributes) | {"hookwright.duration_ms": 0} == {
        "hookwright.event": "PreToolUse",
        "hookwright.hook.name": "no-rm",
        "hookwright.dialect": "python",
        "hookwright.source": "in-process",
        "hookwright.status": "ok",
        "hookwright.decision": "deny",
        "hookwright.effect": "deny",
        "hookwright.reason": "no rm",
        "hookwright.tool_name": "Bash",
        "hookwright.tool_use_id": "t1",
        "hookwright.session_id": "sess-1",
        "hookwright.turn_id": "turn-1",
        "hookwright.duration_ms": 0,
    }
    for child in (denied, spans["hook PreToolUse note"]):
        assert dispatch.start_time <= child.start_time <= child.end_time <= dispatch.end_time


def test_a_tool_call_is_an_execute_tool_span_over_its_dispatches(
    exporter: InMemorySpanExporter,
) -> None:
    engine = traced_engine(exporter)
    engine.audit.add_secret("hunter2")

    @engine.on(Event.PreToolUse, name="guard")
    def guard(inp: HookInput) -> HookResult:
        return deny("not with hunter2")

    spans = engine.monitor.spans
    assert isinstance(engine.monitor, EngineMonitor) and spans is not None
    call = {"tool_name": "mcp__files__write", "tool_input": {}, "tool_use_id": "c-1"}
    with spans.tool_call("s-tool", "mcp__files__write", "c-1"):
        engine.dispatch_sync(HookInput(Event.PreToolUse, session_id="s-tool", payload=call))
    engine.dispatch_sync(HookInput(Event.PreToolUse, session_id="s-tool", payload=call))
    finished = exporter.get_finished_spans()
    [tool] = [s for s in finished if s.name == "execute_tool mcp__files__write"]
    inside, outside = [s for s in finished if s.name == "dispatch PreToolUse"]
    trace_id, root_id = session_ids("s-tool")
    assert tool.parent is not None and tool.parent.span_id == root_id
    assert inside.parent is not None and inside.parent.span_id == tool.context.span_id
    assert outside.parent is not None and outside.parent.span_id == root_id
    assert {inside.context.trace_id, tool.context.trace_id} == {trace_id}
    assert tool.start_time <= inside.start_time <= inside.end_time <= tool.end_time
    assert dict(tool.attributes) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "mcp__files__write",
        "gen_ai.tool.call.id": "c-1",
        "gen_ai.tool.type": "extension",
        "hookwright.session_id": "s-tool",
        "hookwright.decision": "deny",
        "hookwright.reason": "not with ***",
    }


def test_session_end_sends_the_sessions_root_span(exporter: InMemorySpanExporter) -> None:
    engine = traced_engine(exporter)
    engine.on(Event.PreToolUse, name="noop")(lambda inp: None)
    engine.dispatch_sync(bash("ls", session="s-root"))
    engine.dispatch_sync(HookInput(Event.SessionEnd, session_id="s-root"))
    [root] = [s for s in exporter.get_finished_spans() if s.name == "session"]
    trace_id, root_id = session_ids("s-root")
    assert (root.context.trace_id, root.context.span_id, root.parent) == (trace_id, root_id, None)
    [dispatch] = [s for s in exporter.get_finished_spans() if s.name.startswith("dispatch")]
    assert root.start_time <= dispatch.start_time and dispatch.end_time <= root.end_time


def test_secrets_never_reach_the_collector(exporter: InMemorySpanExporter) -> None:
    engine = traced_engine(exporter)
    engine.audit.add_secret("hunter2")

    @engine.on(Event.Stop, name="leaky")
    def leaky(inp: HookInput) -> HookResult:
        return HookResult(decision=None, reason="token hunter2 used")

    engine.dispatch_sync(HookInput(Event.Stop, session_id="s"))
    hook = next(s for s in exporter.get_finished_spans() if s.name.startswith("hook"))
    assert hook.attributes["hookwright.reason"] == "token *** used"


def test_no_spans_without_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENDPOINTS:
        monkeypatch.delenv(name, raising=False)
    engine = HookEngine(audit_path=None)
    assert engine.monitor.spans is None
    assert spans_from_environment(engine.audit) is None
    assert not engine.audit.active


# End to end: `hookwright run` ------------------------------------------------------------------

GUARD_YAML = """\
name: guard
events: [before_tool_dispatch]
matcher: "Bash"
handler:
  type: command
  command: python3 .openharness/hooks/guard.py ${secrets.API_TOKEN}
  timeout_seconds: 30
"""

GUARD_PY = """\
import json, sys
envelope = json.load(sys.stdin)
if "rm -rf" in envelope["tool_input"]["command"]:
    print(json.dumps({"decision": "block", "reason": "refused with token " + sys.argv[1]}))
"""

NATIVE_YAML = """\
hooks:
  - name: tool-note
    event: PostToolUse
    call: notes:tool_note
"""

NOTES_PY = """\
from hookwright import add_context


def tool_note(inp):
    return add_context("noted " + inp.tool_name)
"""

SCRIPT = """\
model: scripted
turns:
  - content: "cleaning"
    tool_calls:
      - name: Bash
        arguments: {command: "rm -rf build/"}
  - content: "listing"
    tool_calls:
      - name: Bash
        arguments: {command: "echo hi"}
  - content: "done"
"""


@pytest.fixture
def project(tmp_path: Path, isolated_home: Path) -> Path:
    root = tmp_path / "project"
    (root / ".openharness" / "hooks").mkdir(parents=True)
    (root / ".openharness" / "hooks" / "guard.yaml").write_text(GUARD_YAML)
    (root / ".openharness" / "hooks" / "guard.py").write_text(GUARD_PY)
    (root / ".hookwright").mkdir()
    (root / ".hookwright" / "hooks.yaml").write_text(NATIVE_YAML)
    (root / ".hookwright" / "notes.py").write_text(NOTES_PY)
    (root / "script.yaml").write_text(SCRIPT)
    TrustStore(isolated_home).trust(root)
    return root


def hookwright_run(project: Path, mode: str, env: dict[str, str]) -> tuple[Any, str, str]:
    out = project.parent / f"{mode}.json"
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "HOOKWRIGHT_"))}
    done = subprocess.run(
        [
            *(sys.executable, str(OTEL_RUN), str(out), mode, "run", "go"),
            *("--project", str(project), "--model", f"scripted:{project / 'script.yaml'}"),
            *("--permission-mode", "bypassPermissions", "--json"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**base, "API_TOKEN": "tok-SECRET-42", **env},
        cwd=project,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text()), done.stdout, done.stderr


def test_hookwright_run_sends_one_trace_per_session(project: Path) -> None:
    collector = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"}
    dumped, stdout, _ = hookwright_run(project, "memory", collector)
    spans = dumped["spans"]
    by_id = {s["span_id"]: s for s in spans}
    [root] = [s for s in spans if s["name"] == "session"]
    session_id = root["attributes"]["hookwright.session_id"]
    trace_id, root_id = session_ids(session_id)
    assert (root["trace_id"], root["span_id"], root["parent_id"]) == (trace_id, root_id, None)
    assert {s["trace_id"] for s in spans} == {trace_id}
    dispatches = [s for s in spans if s["name"].startswith("dispatch ")]
    hooks = [s for s in spans if s["name"].startswith("hook ")]
    # a tool call's dispatches hang under its `execute_tool` span, itself under the root
    parents = [by_id.get(d["parent_id"], root) for d in dispatches]
    assert dispatches and all(p["name"].startswith("execute_tool ") for p in parents)
    assert all(p["parent_id"] == root_id for p in parents)
    assert all(by_id[h["parent_id"]]["name"].startswith("dispatch ") for h in hooks)
    assert sorted(h["name"] for h in hooks) == [
        "hook PostToolUse tool-note",
        "hook PreToolUse guard",
        "hook PreToolUse guard",
    ]
    [blocked] = [h for h in hooks if h["attributes"].get("hookwright.decision") == "deny"]
    assert blocked["attributes"]["hookwright.reason"] == "refused with token ***"
    assert blocked["attributes"]["hookwright.dialect"] == "openharness"
    assert blocked["attributes"]["hookwright.tool_name"] == "Bash"
    assert blocked["attributes"]["hookwright.session_id"] == session_id
    assert by_id[blocked["parent_id"]]["attributes"]["hookwright.decision"] == "deny"
    assert "tok-SECRET-42" not in json.dumps(spans)
    assert stdout  # the run itself went on as usual
    assert Path(project.parent / "audit.jsonl").exists() is False


TOOL_SCRIPT = """\
model: scripted
turns:
  - content: "three calls"
    tool_calls:
      - name: Bash
        arguments: {command: "rm -rf build/"}
      - name: Bash
        arguments: {command: "echo hi"}
      - name: Bash
        arguments: {command: "exit 3"}
  - content: "done"
"""


def test_each_tool_call_of_a_run_is_an_execute_tool_span_over_its_hooks(project: Path) -> None:
    (project / "script.yaml").write_text(TOOL_SCRIPT)
    collector = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"}
    spans = hookwright_run(project, "memory", collector)[0]["spans"]
    by_id = {s["span_id"]: s for s in spans}
    [root] = [s for s in spans if s["name"] == "session"]
    tools = [s for s in spans if s["name"] == "execute_tool Bash"]
    assert len(tools) == 3 and all(t["parent_id"] == root["span_id"] for t in tools)
    denied, echoed, failed = sorted(tools, key=lambda t: t["start"])
    for tool in tools:
        attributes = tool["attributes"]
        assert attributes["gen_ai.operation.name"] == "execute_tool"
        assert (attributes["gen_ai.tool.name"], attributes["gen_ai.tool.type"]) == (
            "Bash",
            "function",
        )
    under: dict[int, list[str]] = {}
    for tool in tools:
        children = [s for s in spans if s["parent_id"] == tool["span_id"]]
        call_id = tool["attributes"]["gen_ai.tool.call.id"]
        assert all(c["attributes"]["hookwright.tool_use_id"] == call_id for c in children)
        assert all(tool["start"] <= c["start"] <= c["end"] <= tool["end"] for c in children)
        under[tool["span_id"]] = sorted(c["name"] for c in children)
    assert under[denied["span_id"]] == ["dispatch PreToolUse"]
    assert under[echoed["span_id"]] == ["dispatch PostToolUse", "dispatch PreToolUse"]
    assert under[failed["span_id"]] == ["dispatch PreToolUse"]
    hooks = [s for s in spans if s["name"].startswith("hook ")]
    grandparents = {by_id[by_id[h["parent_id"]]["parent_id"]]["name"] for h in hooks}
    assert hooks and grandparents == {"execute_tool Bash"}
    assert denied["attributes"]["hookwright.decision"] == "deny"
    assert denied["attributes"]["hookwright.reason"] == "refused with token ***"
    assert "hookwright.decision" not in echoed["attributes"]
    assert (echoed["status"], failed["status"]) == ("UNSET", "ERROR")
    assert failed["attributes"]["error.type"] == "tool_error"
    names = {name for s in spans for name in s["attributes"]}
    assert not [name for name in names if "guardrail" in name]
    assert {n for n in names if n.startswith("gen_ai.")} == {
        "gen_ai.operation.name",
        "gen_ai.tool.name",
        "gen_ai.tool.call.id",
        "gen_ai.tool.type",
    }
    assert "tok-SECRET-42" not in json.dumps(spans)


def test_without_the_environment_nothing_is_imported_and_nothing_changes(project: Path) -> None:
    plain, plain_out, _ = hookwright_run(project, "plain", {})
    assert plain == {"spans": [], "otel_modules": []}
    collector = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"}
    missing, missing_out, stderr = hookwright_run(project, "no-extra", collector)
    assert missing == {"spans": [], "otel_modules": []}
    assert "hookwright[otel] is not installed" in stderr
    assert _model_facing(plain_out) == _model_facing(missing_out)


def _model_facing(stdout: str) -> list[Any]:
    """The run's events without the ids and times that differ between runs."""
    events = [json.loads(line) for line in stdout.splitlines()]
    return [e.get("type") for e in events]
