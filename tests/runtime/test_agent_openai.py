"""The agent loop against a real OpenAI-compatible server on 127.0.0.1 (streaming, tool calls,
a transient error retried)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookwright import HookEngine, HookInput, HookResult, deny
from hookwright.runtime.opening import SessionOptions, open_session

from .fake_llm_server import FakeError, FakeLLMServer, FakeReply, FakeToolCall


async def test_run_with_openai_streaming_and_tool_calls(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    (tmp_path / "a.txt").write_text("alpha\n")
    server.queue_openai(
        FakeError(status=429, message="slow down"),
        FakeReply(
            content="Reading both.",
            tool_calls=[
                FakeToolCall("Read", json.dumps({"file_path": "a.txt"}), chunks=3),
                FakeToolCall("Bash", json.dumps({"command": "rm -rf /"}), chunks=2),
            ],
        ),
        FakeReply(content="a.txt says alpha."),
    )
    events: list[dict[str, object]] = []
    engine = HookEngine(audit_path=None)

    def guard(inp: HookInput) -> HookResult | None:
        return deny("not on my watch") if "rm" in inp.tool_input.get("command", "") else None

    engine.add(guard, "PreToolUse", matcher="Bash")
    setup = await open_session(
        SessionOptions(
            tmp_path,
            home=isolated_home,
            model="openai:test-model",
            on_event=events.append,
            engine=engine,
        )
    )
    result = await setup.agent.run("What does a.txt say?")
    await setup.agent.close()
    engine.close()
    assert result.status == "completed"
    assert result.final_text == "a.txt says alpha."
    deltas = "".join(str(e["text"]) for e in events if e["type"] == "text_delta")
    assert "a.txt says alpha." in deltas
    assert any(e["type"] == "notice" and "retry 1" in str(e["text"]) for e in events)
    bodies = [r.body for r in server.requests_for("openai")]
    assert len(bodies) == 3
    assert all(b["stream"] is True and b["model"] == "test-model" for b in bodies)
    assert {t["function"]["name"] for t in bodies[1]["tools"]} >= {"Bash", "Read", "Agent"}
    tool_messages = [m for m in bodies[2]["messages"] if m["role"] == "tool"]
    assert "alpha" in tool_messages[0]["content"]
    assert tool_messages[1]["content"] == "not on my watch"
