"""The seed documents (docs/hooks/hook-json-protocol.md, v0.2.6) replayed against the engine in
`protocol: seed`, which sends what PicoClaw v0.2.6's code sent: a hook written against them must
work unchanged.

The seed's examples are abbreviated (the complete flow prints no `meta`, no `channel`), so a
sent message matches a seed line when every field the seed shows is present with the same value;
the fields the seed leaves out are listed and checked separately. Where the documents print
what the code never sent (`DOCUMENTED_ONLY`: an empty `tools` list, `role` in an LLM response,
`graceful_terminal: false`, meta `Source`/`TracePath` swapped), the code wins.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from picoclaw_support import (
    Pico,
    after_tool,
    approve_tool,
    before_llm,
    before_tool,
    meta_input,
)

from hookwright.core.events import Event
from hookwright.core.results import Decision

# The "Complete Flow Example" of the seed, verbatim.
SEED_FLOW = r"""
{"jsonrpc":"2.0","id":1,"method":"hook.hello","params":{"name":"my_hook","version":1,"modes":["tool","approve"]}}
{"jsonrpc":"2.0","id":1,"result":{"ok":true,"name":"my_hook"}}
{"jsonrpc":"2.0","id":2,"method":"hook.before_llm","params":{"model":"claude-sonnet","messages":[{"role":"user","content":"hello"}],"tools":[]}}
{"jsonrpc":"2.0","id":2,"result":{"action":"continue"}}
{"jsonrpc":"2.0","id":3,"method":"hook.before_tool","params":{"tool":"bash","arguments":{"command":"ls"}}}
{"jsonrpc":"2.0","id":3,"result":{"action":"continue"}}
{"jsonrpc":"2.0","id":4,"method":"hook.approve_tool","params":{"tool":"bash","arguments":{"command":"ls"}}}
{"jsonrpc":"2.0","id":4,"result":{"approved":true}}
{"jsonrpc":"2.0","id":5,"method":"hook.after_tool","params":{"tool":"bash","arguments":{"command":"ls"},"result":{"for_llm":"file1.txt\nfile2.txt"},"duration":5000000}}
{"jsonrpc":"2.0","id":5,"result":{"action":"continue"}}
{"jsonrpc":"2.0","id":6,"method":"hook.after_llm","params":{"model":"claude-sonnet","response":{"role":"assistant","content":"Files listed"}}}
{"jsonrpc":"2.0","id":6,"result":{"action":"continue"}}
"""  # noqa: E501


#: Fields the documents print that v0.2.6's code never sent (Go's omitempty, no `role` field).
DOCUMENTED_ONLY = {"hook.before_llm": ("tools",), "hook.after_llm": ("response.role",)}


def code_form(method: str, params: dict[str, Any]) -> dict[str, Any]:
    """A documented params object without the fields the code never sent."""
    out = json.loads(json.dumps(params))
    for path in DOCUMENTED_ONLY.get(method, ()):
        *parents, last = path.split(".")
        holder = out
        for part in parents:
            holder = holder[part]
        holder.pop(last, None)
    return out


def flow() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    lines = [json.loads(line) for line in SEED_FLOW.strip().splitlines()]
    return [m for m in lines if "method" in m], [m for m in lines if "method" not in m]


def missing(sent: Any, seed: Any, path: str = "") -> list[str]:
    """Where `sent` lacks or differs from a field `seed` shows (dicts: the seed's keys only)."""
    if isinstance(seed, dict):
        if not isinstance(sent, dict):
            return [f"{path}: expected an object"]
        out: list[str] = []
        for key, value in seed.items():
            if key not in sent:
                out.append(f"{path}.{key}: absent")
            else:
                out.extend(missing(sent[key], value, f"{path}.{key}"))
        return out
    if isinstance(seed, list):
        if not isinstance(sent, list) or len(sent) != len(seed):
            return [f"{path}: {sent!r} != {seed!r}"]
        return [e for s, v in zip(sent, seed, strict=True) for e in missing(s, v, path)]
    return [] if sent == seed and type(sent) is type(seed) else [f"{path}: {sent!r} != {seed!r}"]


def extras(sent: dict[str, Any], seed: dict[str, Any]) -> set[str]:
    return set(sent) - set(seed)


def test_missing_detects_differences() -> None:
    assert missing({"a": 1, "b": {"c": 2, "d": 3}}, {"b": {"c": 2}}) == []
    assert missing({"a": 1}, {"a": 2}) == [".a: 1 != 2"]
    assert missing({"a": True}, {"a": 1}) == [".a: True != 1"]
    assert missing({}, {"a": None}) == [".a: absent"]
    assert missing({"l": [{"x": 1, "y": 2}]}, {"l": [{"x": 1}]}) == []


async def test_complete_flow_replayed_line_by_line(pico: Pico) -> None:
    requests, replies = flow()
    by_method = {
        request["method"]: [{"result": reply["result"]}]
        for request, reply in zip(requests, replies, strict=True)
    }
    hook = pico.hook("my_hook", {"hello": by_method.pop("hook.hello")[0], "methods": by_method})
    # The seed's hook declares modes [tool, approve] yet receives before_llm/after_llm; modes
    # gate methods in PicoClaw and here, so replaying the whole flow needs the llm mode too.
    pico.load(
        {
            "processes": {
                "my_hook": hook.config(intercept=["before_llm", "before_tool", "approve_tool"])
            }
        }
    )
    verdicts = [
        await pico.engine.dispatch(
            before_llm(messages=[{"role": "user", "content": "hello"}], tools=[])
        ),
        await pico.engine.dispatch(before_tool("bash", command="ls")),
        await pico.engine.dispatch(approve_tool("bash", command="ls")),
        await pico.engine.dispatch(
            after_tool("bash", content="file1.txt\nfile2.txt", duration_ms=5, command="ls")
        ),
        await pico.engine.dispatch(
            meta_input(
                Event.PostModelCall,
                model="claude-sonnet",
                response={"content": "Files listed", "tool_calls": []},
            )
        ),
    ]
    sent = hook.messages()
    assert len(sent) == len(requests)
    hello, *calls = sent
    assert hello == {
        **requests[0],
        "params": {**requests[0]["params"], "modes": hello["params"]["modes"]},
    }
    assert hello["params"]["modes"] == ["llm", "tool", "approve"]
    for ours, seed in zip(calls, requests[1:], strict=True):
        assert ours["jsonrpc"] == "2.0" and ours["id"] == seed["id"]
        assert ours["method"] == seed["method"]
        documented = code_form(seed["method"], seed["params"])
        assert missing(ours["params"], documented) == [], seed["method"]
    for ours, seed in zip(calls, requests[1:], strict=True):
        documented = code_form(seed["method"], seed["params"])
        assert extras(ours["params"], documented) == {"meta", "channel", "chat_id"}
    after = calls[3]["params"]["result"]
    assert after == {
        "for_llm": "file1.txt\nfile2.txt",
        "silent": False,
        "is_error": False,
        "async": False,
    }
    # Every reply was `continue` or an approval: nothing changes, the tool is allowed.
    assert [v.decision for v in verdicts] == [None, None, Decision.allow, None, None]
    assert all(v.updated_input is None and v.updated_output is None for v in verdicts)


async def test_flow_hello_with_the_seed_modes_is_exactly_the_seed_line(pico: Pico) -> None:
    requests, _ = flow()
    hook = pico.hook("my_hook")
    pico.load({"processes": {"my_hook": hook.config(intercept=["before_tool", "approve_tool"])}})
    await pico.engine.dispatch(before_llm())
    await pico.engine.dispatch(before_tool("bash", command="ls"))
    hello, call = hook.messages()
    assert hello == requests[0]
    assert call["method"] == "hook.before_tool" and call["id"] == 2


# The detailed examples ----------------------------------------------------------------------


SEED_BEFORE_LLM = {
    "meta": {
        "AgentID": "agent-1",
        "TurnID": "turn-1",
        "ParentTurnID": "",
        "SessionKey": "session-1",
        "Iteration": 1,
        "TracePath": "turn.llm.request",
        "Source": "runTurn",
    },
    "model": "claude-sonnet",
    "messages": [{"role": "user", "content": "hello"}],
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "echo",
                "description": "echo text",
                "parameters": {"type": "object"},
            },
        }
    ],
    "options": {"temperature": 0.7},
    "channel": "cli",
    "chat_id": "chat-1",
}


async def test_before_llm_example_params_match_the_seed_exactly(pico: Pico) -> None:
    hook = pico.hook("h")
    pico.load({"processes": {"h": hook.config(intercept=["before_llm"])}})
    inp = before_llm(tools=SEED_BEFORE_LLM["tools"], options={"temperature": 0.7})
    await pico.engine.dispatch(inp)
    (params,) = hook.params("hook.before_llm")
    # v0.2.6 had no `context` object and left `graceful_terminal: false` out (omitempty)
    assert params == SEED_BEFORE_LLM
    assert list(params) == list(SEED_BEFORE_LLM)


async def test_after_llm_before_tool_approve_examples(pico: Pico) -> None:
    hook = pico.hook("h")
    pico.load(
        {"processes": {"h": hook.config(intercept=["before_llm", "before_tool", "approve_tool"])}}
    )
    tool_call = {
        "id": "tc-1",
        "type": "function",
        "function": {"name": "echo", "arguments": '{"text":"hi"}'},
    }
    await pico.engine.dispatch(
        meta_input(
            Event.PostModelCall,
            model="claude-sonnet",
            response={"content": "Hi!", "tool_calls": [tool_call]},
        )
    )
    await pico.engine.dispatch(before_tool("echo_text", text="hello"))
    await pico.engine.dispatch(approve_tool("bash", command="rm -rf /"))
    meta = {"AgentID": "agent-1", "TurnID": "turn-1", "SessionKey": "session-1"}
    seed_after_llm = {
        "meta": meta,
        "model": "claude-sonnet",
        "response": {"role": "assistant", "content": "Hi!", "tool_calls": [tool_call]},
        "channel": "cli",
        "chat_id": "chat-1",
    }
    (sent_after_llm,) = hook.params("hook.after_llm")
    documented = code_form("hook.after_llm", seed_after_llm)
    assert missing(sent_after_llm, documented) == []
    # PicoClaw's LLMResponse has no `role`; `reasoning` and `reasoning_details` are never omitted
    assert sent_after_llm["response"] == {
        **documented["response"],
        "finish_reason": "",
        "reasoning": "",
        "reasoning_details": None,
    }
    seed_before_tool = {
        "meta": meta,
        "tool": "echo_text",
        "arguments": {"text": "hello"},
        "channel": "cli",
        "chat_id": "chat-1",
    }
    assert missing(hook.params("hook.before_tool")[0], seed_before_tool) == []
    seed_approve = {**seed_before_tool, "tool": "bash", "arguments": {"command": "rm -rf /"}}
    (sent_approve,) = hook.params("hook.approve_tool")
    assert missing(sent_approve, seed_approve) == []
    assert sent_approve["meta"]["TracePath"] == "turn.tool.approve"
    assert sent_approve["meta"]["Source"] == "runTurn"


async def test_after_tool_example(pico: Pico) -> None:
    hook = pico.hook("h")
    pico.load({"processes": {"h": hook.config(intercept=["after_tool"])}})
    await pico.engine.dispatch(after_tool("echo_text", content="echoed: hello", text="hello"))
    (params,) = hook.params("hook.after_tool")
    assert params["duration"] == 15_000_000
    # The seed prints media: [], artifact_tags: [], response_handled: false; PicoClaw's code
    # omits them when empty (spec §5) and so do we.
    assert params["result"] == {
        "for_llm": "echoed: hello",
        "silent": False,
        "is_error": False,
        "async": False,
    }


@pytest.mark.parametrize(
    ("reply", "decision", "reason"),
    [
        ({"approved": True}, Decision.allow, None),
        ({"approved": False, "reason": "危险命令,禁止执行"}, Decision.deny, "危险命令,禁止执行"),
    ],
)
async def test_approve_examples(
    pico: Pico, reply: dict[str, Any], decision: Decision, reason: str | None
) -> None:
    hook = pico.hook("h", {"methods": {"hook.approve_tool": [{"result": reply}]}})
    pico.load({"processes": {"h": hook.config(intercept=["approve_tool"])}})
    verdict = await pico.engine.dispatch(approve_tool("bash", command="rm -rf /"))
    assert (verdict.decision, verdict.reason) == (decision, reason)


# Plugin tool injection, written exactly as the seed shows -------------------------------------

PLUGIN_HOOK = """
import json, sys

def handle_before_llm(params: dict) -> dict:
    tools = params.get("tools", [])

    # Add plugin tool definition
    tools.append({
        "type": "function",
        "function": {
            "name": "my_plugin_tool",
            "description": "Plugin provided tool",
            "parameters": {
                "type": "object",
                "properties": {
                    "input": {"type": "string", "description": "Input content"}
                },
                "required": ["input"]
            }
        }
    })

    return {
        "action": "modify",
        "request": {
            "model": params["model"],
            "messages": params["messages"],
            "tools": tools,
            "options": params.get("options", {})
        }
    }

def handle_before_tool(params: dict) -> dict:
    tool = params.get("tool", "")

    if tool == "my_plugin_tool":
        # Implement tool logic here
        args = params.get("arguments", {})
        input_text = args.get("input", "")

        # Return result directly, no need to register in ToolRegistry
        return {
            "action": "respond",
            "result": {
                "for_llm": f"Plugin tool executed successfully, input: {input_text}",
                "media": ["media://chart-1"],
                "response_handled": True,
                "silent": False,
                "is_error": False
            }
        }

    return {"action": "continue"}

HANDLERS = {"hook.before_llm": handle_before_llm, "hook.before_tool": handle_before_tool}

for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    handler = HANDLERS.get(msg["method"])
    result = handler(msg["params"]) if handler else {"ok": True}
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
"""

PLUGIN_TOOL_NAME = "my_plugin_tool"
ECHO = {"type": "function", "function": {"name": "echo", "description": "echo", "parameters": {}}}


def plugin_config(tmp_path: Path, protocol: str) -> dict[str, Any]:
    script = tmp_path / "plugin_hook.py"
    script.write_text(PLUGIN_HOOK)
    return {
        "protocol": protocol,
        "processes": {
            "plugin": {
                "command": [sys.executable, str(script)],
                "intercept": ["before_llm", "before_tool"],
            }
        },
    }


async def test_seed_plugin_tool_is_injected_and_answered(pico: Pico, tmp_path: Path) -> None:
    pico.load(plugin_config(tmp_path, "seed"))
    request = await pico.engine.dispatch(before_llm(tools=[ECHO]))
    assert request.updated_input is not None
    tools = request.updated_input["tools"]
    assert [t["function"]["name"] for t in tools] == ["echo", PLUGIN_TOOL_NAME]
    assert tools[1]["function"]["parameters"]["required"] == ["input"]
    assert request.updated_input["messages"] == [{"role": "user", "content": "hello"}]

    call = await pico.engine.dispatch(before_tool(PLUGIN_TOOL_NAME, input="weather"))
    assert call.terminal
    assert call.respond is not None and call.respond.data == {
        "for_llm": "Plugin tool executed successfully, input: weather",
        "for_user": "",
        "silent": False,
        "is_error": False,
        "async": False,
        "media": ["media://chart-1"],
        "artifact_tags": [],
        "response_handled": True,
    }
    assert call.effects.skip_approval is True

    other = await pico.engine.dispatch(before_tool("echo", text="x"))
    assert other.respond is None and other.decision is None


async def test_current_protocol_restores_injected_tools(
    pico: Pico, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    pico.load(plugin_config(tmp_path, "current"))
    request = await pico.engine.dispatch(before_llm(tools=[ECHO]))
    assert request.updated_input is not None
    assert request.updated_input["tools"] == [ECHO]
    assert "hook plugin: tool definitions changed; tools restored" in caplog.text
    call = await pico.engine.dispatch(before_tool(PLUGIN_TOOL_NAME, input="x"))
    assert call.respond is not None
