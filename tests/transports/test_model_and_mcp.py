"""The model transport (a hook asks the session's evaluator) and the MCP transport (a hook
calls a tool on the session's MCP client): every outcome is a reply, never an exception."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from hookwright.engine.hook_requests import McpToolReply
from hookwright.transports.base import Envelope, Failure, Output
from hookwright.transports.mcp import McpTransport
from hookwright.transports.model import ModelTransport


async def test_the_model_transport_sends_the_request_and_returns_the_text() -> None:
    asked: list[object] = []

    async def model(request: object) -> str:
        asked.append(request)
        return '{"ok": true}'

    reply = await ModelTransport().handle(Envelope(json={"prompt": "p"}, model=model))
    assert isinstance(reply, Output) and reply.text == '{"ok": true}'
    assert asked == [{"prompt": "p"}]


async def test_without_a_model_nothing_starts() -> None:
    reply = await ModelTransport().handle(Envelope(json="request"))
    assert reply == Failure("unstarted", "no model configured")


async def test_a_slow_model_times_out_and_a_broken_one_fails_with_its_cause() -> None:
    async def slow(request: object) -> str:
        await asyncio.sleep(5)
        return "late"

    async def broken(request: object) -> str:
        raise LookupError("agent_not_found: reviewer")

    async def wordless(request: object) -> int:
        return 7

    transport = ModelTransport()
    late = await transport.handle(Envelope(model=slow, timeout=0.05))
    failed = await transport.handle(Envelope(model=broken))
    odd = await transport.handle(Envelope(model=wordless))
    assert isinstance(late, Failure) and (late.kind, late.reason) == (
        "timeout",
        "timed out after 0.05s",
    )
    assert isinstance(failed, Failure) and failed.kind == "error"
    assert failed.reason == "agent_not_found: reviewer"
    assert isinstance(failed.cause, LookupError)
    assert isinstance(odd, Failure) and odd.reason == "evaluator returned int"


@dataclass
class Client:
    answer: Any

    async def __call__(
        self, server: str, tool: str, arguments: Mapping[str, Any], timeout: float
    ) -> McpToolReply:
        self.call = (server, tool, dict(arguments), timeout)
        if isinstance(self.answer, BaseException):
            raise self.answer
        reply: McpToolReply = self.answer
        return reply


def call(client: Client | None) -> Envelope:
    return Envelope(json={"q": 1}, url="srv", method="check", timeout=3.0, mcp=client)


async def test_the_mcp_transport_calls_the_named_tool() -> None:
    ok, marked = Client(McpToolReply("fine")), Client(McpToolReply("boom", is_error=True))
    transport = McpTransport()
    answered = await transport.handle(call(ok))
    refused = await transport.handle(call(marked))
    assert ok.call == ("srv", "check", {"q": 1}, 3.0)
    assert isinstance(answered, Output) and (answered.text, answered.code) == ("fine", 0)
    assert isinstance(refused, Output) and (refused.text, refused.code) == ("boom", 1)


@pytest.mark.parametrize(
    ("client", "kind", "reason"),
    [
        (None, "unstarted", "MCP server 'srv' is not connected"),
        (Client(LookupError("srv")), "unstarted", "MCP server 'srv' is not connected"),
        (Client(TimeoutError()), "timeout", "no answer within 3 s"),
        (Client(RuntimeError("socket closed\ntrace")), "error", "socket closed"),
    ],
    ids=["no-client", "not-connected", "timeout", "error"],
)
async def test_mcp_failures_are_replies(client: Client | None, kind: str, reason: str) -> None:
    reply = await McpTransport().handle(call(client))
    assert isinstance(reply, Failure) and (reply.kind, reply.reason) == (kind, reason)
