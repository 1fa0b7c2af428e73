"""The transport interface: `MockTransport` and the generic `Handler(transport, codec)`."""

from __future__ import annotations

from pathlib import Path

from tests.dialects.test_fifth_dialect import LineCodec, tool_call

from hookwright.core.events import Event
from hookwright.core.results import Decision, Status
from hookwright.core.spec import HookSpec
from hookwright.dialects.base import Handler
from hookwright.engine.kernel import HookEngine
from hookwright.transports.base import Block, Caps, Envelope, Failure, MockTransport, Output, Reply
from hookwright.transports.process import ProcessTransport


def engine_over(transport: MockTransport, tmp_path: Path) -> HookEngine:
    engine = HookEngine()
    codec = LineCodec(tmp_path / "never-run.py")
    engine.register(
        HookSpec(name="mock", event=Event.PreToolUse, handler=Handler(transport, codec))
    )
    return engine


async def test_a_mock_transport_answers_in_place_of_a_process(tmp_path: Path) -> None:
    async def answer(envelope: Envelope) -> Reply:
        return Output("DENY mocked\n", code=0)

    transport = MockTransport(answer)
    engine = engine_over(transport, tmp_path)
    verdict = await engine.dispatch(tool_call("Bash"))
    await engine.aclose()
    assert (verdict.decision, verdict.reason) == (Decision.deny, "mocked")
    (sent,) = transport.sent
    assert sent.body == b'{"ev": "PreToolUse", "tool": "Bash"}\n'
    assert transport.closed


async def test_a_transport_that_raises_reaches_the_codec_as_a_failure(tmp_path: Path) -> None:
    def broken(envelope: Envelope) -> Reply:
        raise RuntimeError("wire cut")

    engine = engine_over(MockTransport(broken), tmp_path)
    verdict = await engine.dispatch(tool_call("Bash"))
    await engine.aclose()
    (result,) = verdict.results
    assert (result.status, result.error) == (Status.error, "line hook error: wire cut")


async def test_the_process_transport_reports_what_the_process_did() -> None:
    async with ProcessTransport() as transport:
        ok = await transport.handle(Envelope(body=b"hi", command="cat; echo oops >&2"))
        blocked = await transport.handle(
            Envelope(command="echo no >&2; exit 2", caps=Caps(block_exit=2))
        )
        slow = await transport.handle(Envelope(command="sleep 5", timeout=0.2))
        missing = await transport.handle(Envelope(argv=("/nonexistent/hook",)))
    assert isinstance(ok, Output) and (ok.text, ok.code, ok.stderr) == ("hi", 0, "oops\n")
    assert isinstance(blocked, Block) and blocked.reason == "no\n"
    assert isinstance(slow, Failure) and slow.kind == "timeout"
    assert isinstance(missing, Failure) and missing.kind == "unstarted"
