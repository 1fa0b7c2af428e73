"""Each OpenHarness hook is `Handler(transport, OpenHarnessCodec)`, and the dialect's two
transport stages: the workspace lease around a process, and the prompt files read before the
model is asked (the lease released first)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hookwright.dialects.base import Handler
from hookwright.dialects.openharness.agents import AgentError
from hookwright.dialects.openharness.codec import OpenHarnessCodec
from hookwright.dialects.openharness.lease import LeasedTransport
from hookwright.dialects.openharness.loader import load_workspace
from hookwright.dialects.openharness.prompt import PromptFilesTransport, PromptPlan
from hookwright.dialects.openharness.schema import PromptSource
from hookwright.engine.hook_requests import HookModelRequest
from hookwright.engine.host_seams import LeaseMode, WorkspaceLease
from hookwright.transports.base import Envelope, Failure, MockTransport, Output, Reply
from hookwright.transports.http import HttpTransport
from hookwright.transports.model import ModelTransport
from hookwright.transports.process import ProcessTransport

from .helpers import Workspace


@dataclass
class Access:
    """A host's workspace access that lends `copy` and records what happens, in order."""

    copy: Path
    events: list[str] = field(default_factory=list)

    async def __call__(self, root: Path, mode: LeaseMode) -> WorkspaceLease:
        self.events.append(f"lease {mode}")
        return Lent(self.copy, self)


@dataclass
class Lent:
    root: Path
    access: Access

    async def release(self, *, dirty: bool = False) -> None:
        self.access.events.append(f"release dirty={dirty}")


def test_every_handler_type_is_a_transport_and_the_openharness_codec(ws: Workspace) -> None:
    for name, handler in (
        ("a-command", {"type": "command", "command": "exit 0"}),
        ("b-http", {"type": "http", "url": "http://127.0.0.1:9/x"}),
        ("c-prompt", {"type": "prompt", "prompt": {"inline": "Review."}}),
    ):
        ws.hook(f"{name}.yaml", {"name": name, "events": ["run_completed"], "handler": handler})
    specs = load_workspace(ws.root, home=ws.home, environ={}).specs
    handlers = [spec.handler for spec in specs]
    assert all(isinstance(h, Handler) and isinstance(h.codec, OpenHarnessCodec) for h in handlers)
    command, http, prompt = (h.transport for h in handlers if isinstance(h, Handler))
    assert isinstance(command, LeasedTransport) and isinstance(command.inner, ProcessTransport)
    assert isinstance(http, HttpTransport)
    assert isinstance(prompt, PromptFilesTransport) and isinstance(prompt.inner, ModelTransport)


async def test_the_lease_moves_the_process_into_its_root_and_is_released(tmp_path: Path) -> None:
    root, copy = tmp_path / "ws", tmp_path / "copy"
    access = Access(copy)

    def ran(envelope: Envelope) -> Reply:
        access.events.append(f"run in {envelope.cwd}")
        return Output("{}", code=0)

    leased = LeasedTransport(MockTransport(ran), root)
    await leased.handle(Envelope(cwd=root / "tools", files=access))
    await leased.handle(Envelope(cwd=root / "tools"))
    assert access.events == [
        "lease read",
        f"run in {copy / 'tools'}",
        "release dirty=False",
        f"run in {root / 'tools'}",
    ]


async def test_a_lease_that_cannot_be_had_is_a_failure_before_anything_runs(
    tmp_path: Path,
) -> None:
    async def offline(root: Path, mode: LeaseMode) -> WorkspaceLease:
        raise OSError("sandbox offline")

    inner = MockTransport(lambda envelope: Output())
    reply = await LeasedTransport(inner, tmp_path).handle(Envelope(files=offline))
    assert isinstance(reply, Failure) and reply.kind == "unstarted"
    assert reply.reason == "workspace file access failed: sandbox offline"
    assert inner.sent == []


def plan(root: Path, **fields: str) -> PromptPlan:
    source = PromptSource(file=".openharness/prompts/review.md")
    return PromptPlan(source, root, "review", {"tool_name": "Bash"}, 5.0, **fields)


async def test_prompt_files_are_read_under_the_lease_released_before_the_model(
    tmp_path: Path,
) -> None:
    copy = tmp_path / "copy"
    (copy / ".openharness" / "prompts").mkdir(parents=True)
    (copy / ".openharness" / "prompts" / "review.md").write_text("LEASED")
    access = Access(copy)

    def model(envelope: Envelope) -> Reply:
        request = envelope.json
        assert isinstance(request, HookModelRequest)
        access.events.append(f"ask {request.prompt.split(chr(10))[0]}")
        return Output("{}")

    transport = PromptFilesTransport(MockTransport(model))
    reply = await transport.handle(Envelope(json=plan(tmp_path / "ws"), files=access))
    assert reply == Output("{}")
    assert access.events == ["lease read", "release dirty=False", "ask LEASED"]


async def test_an_unknown_agent_fails_with_its_cause_and_asks_no_model(tmp_path: Path) -> None:
    inner = MockTransport(lambda envelope: Output("{}"))
    reply = await PromptFilesTransport(inner).handle(Envelope(json=plan(tmp_path, agent="ghost")))
    assert isinstance(reply, Failure) and isinstance(reply.cause, AgentError)
    assert reply.cause.code == "agent_not_found" and inner.sent == []
