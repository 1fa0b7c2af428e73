"""`SyncHookSession`: the host API for synchronous hosts (a framework's sync tool wrapper, a
callback API), usable from any thread, including one whose event loop is running.

The session and its hook processes live on a loop of their own, in a daemon thread; every call
hops to it and waits. When a call cannot be dispatched (the session is closed, the call comes
from the session's own loop, hookwright itself failed), gates fail closed: a tool call is
denied, a prompt blocked, a model call failed, each with a clear reason, and nothing raises
into the host. Other checkpoints then have no effect.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from hookwright.core.events import Event
from hookwright.core.logs import LazyLogger
from hookwright.core.results import Verdict, failed_dispatch
from hookwright.host.decisions import (
    Checkpoint,
    CompactDecision,
    CompactedDecision,
    Deny,
    EndTurn,
    ModelRequest,
    ModelRequestDecision,
    ModelResponseDecision,
    PermissionDecision,
    SessionStartDecision,
    StopDecision,
    ToolDecision,
    ToolResult,
    ToolResultDecision,
)
from hookwright.host.not_run import NotRun
from hookwright.host.session import HookSession

T = TypeVar("T")
log = LazyLogger("hookwright.host")
#: How long a call waits for its hooks at most; hooks have their own, shorter timeouts.
CALL_TIMEOUT = 600.0


class _LoopThread:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="hookwright-host")
        self.thread.daemon = True
        self.thread.start()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        if threading.current_thread() is not self.thread:
            self.thread.join(timeout=5.0)
        if not self.loop.is_running():
            self.loop.close()


class SyncHookSession:
    """The same checkpoints as `HookSession`, as blocking calls."""

    def __init__(self, session: HookSession, runner: _LoopThread) -> None:
        self.session = session
        self._runner = runner
        self._closed = False

    @classmethod
    def open(cls, project_dir: Path, **options: Any) -> SyncHookSession:
        """`HookSession.open(project_dir, **options)` on a loop of its own, begun (hook
        processes started). Raises what `HookSession.open` raises (e.g. a bad trust file)."""
        runner = _LoopThread()

        async def opened() -> HookSession:
            session = await HookSession.open(project_dir, **options)
            await session.begin()
            return session

        try:
            session = asyncio.run_coroutine_threadsafe(opened(), runner.loop).result(CALL_TIMEOUT)
        except BaseException:
            runner.stop()
            raise
        return cls(session, runner)

    @property
    def diagnostics(self) -> tuple[str, ...]:
        return self.session.diagnostics

    @property
    def skipped(self) -> tuple[NotRun, ...]:
        """Every declared hook that will not run, and why (`HookSession.skipped`)."""
        return self.session.skipped

    def _call(
        self,
        event: Event,
        work: Callable[[], Coroutine[Any, Any, T]],
        fallback: Callable[[str], T],
    ) -> T:
        if self._closed:
            return fallback(f"hookwright could not run the {event.value} hooks: session closed")
        if threading.current_thread() is self._runner.thread:
            return fallback(
                f"hookwright could not run the {event.value} hooks: called from the session's "
                "own event loop (use the async HookSession there)"
            )
        future: Future[T] = asyncio.run_coroutine_threadsafe(work(), self._runner.loop)
        try:
            return future.result(CALL_TIMEOUT)
        except Exception as exc:
            future.cancel()
            return fallback(f"hookwright could not run the {event.value} hooks: {exc}")

    # Checkpoints ----------------------------------------------------------------------------

    def start(self, source: str = "startup", model: str | None = None) -> SessionStartDecision:
        return self._call(
            Event.SessionStart,
            lambda: self.session.start(source, model),
            lambda _: SessionStartDecision(),
        )

    def prompt(self, prompt: str) -> Checkpoint:
        return self._call(
            Event.UserPromptSubmit,
            lambda: self.session.prompt(prompt),
            lambda why: Checkpoint(end=EndTurn("blocked", why)),
        )

    def checkpoint(self, event: Event, **payload: Any) -> Checkpoint:
        return self._call(event, lambda: self.session.checkpoint(event, **payload), _no_effect)

    def before_tool(
        self, tool_name: str, tool_input: Mapping[str, Any], tool_use_id: str, **payload: Any
    ) -> ToolDecision:
        return self._call(
            Event.PreToolUse,
            lambda: self.session.before_tool(tool_name, tool_input, tool_use_id, **payload),
            lambda why: ToolDecision(Deny(why, why)),
        )

    def permission(
        self,
        tool_name: str,
        tool_input: Mapping[str, Any],
        tool_use_id: str,
        *,
        prompt: bool,
        gates_asked: bool = False,
    ) -> PermissionDecision:
        return self._call(
            Event.PermissionRequest,
            lambda: self.session.permission(
                tool_name, tool_input, tool_use_id, prompt=prompt, gates_asked=gates_asked
            ),
            lambda why: PermissionDecision("deny", message=why, reason=why),
        )

    def after_tool(
        self,
        tool_name: str,
        tool_input: Mapping[str, Any],
        tool_use_id: str,
        result: ToolResult,
        *,
        duration_ms: float,
        error: str | None = None,
    ) -> ToolResultDecision:
        return self._call(
            Event.PostToolUse,
            lambda: self.session.after_tool(
                tool_name, tool_input, tool_use_id, result, duration_ms=duration_ms, error=error
            ),
            lambda _: ToolResultDecision(result),
        )

    def tool_batch(self, calls: Sequence[Mapping[str, Any]]) -> Checkpoint:
        return self._call(Event.PostToolBatch, lambda: self.session.tool_batch(calls), _no_effect)

    def model_request(
        self, request: ModelRequest, *, iteration: int = 0, model_ref: str | None = None
    ) -> ModelRequestDecision:
        return self._call(
            Event.PreModelCall,
            lambda: self.session.model_request(request, iteration=iteration, model_ref=model_ref),
            lambda why: ModelRequestDecision(request, EndTurn("failed", why, failure="hook_error")),
        )

    def model_response(
        self, request: ModelRequest, response: Mapping[str, Any], **options: Any
    ) -> ModelResponseDecision:
        return self._call(
            Event.PostModelCall,
            lambda: self.session.model_response(request, response, **options),
            lambda _: ModelResponseDecision(),
        )

    def stop(self, last_assistant_message: str, **payload: Any) -> StopDecision:
        return self._call(
            Event.Stop,
            lambda: self.session.stop(last_assistant_message, **payload),
            lambda _: StopDecision(),
        )

    def pre_compact(
        self, trigger: str, instructions: str, messages: Sequence[Mapping[str, Any]]
    ) -> CompactDecision:
        return self._call(
            Event.PreCompact,
            lambda: self.session.pre_compact(trigger, instructions, messages),
            lambda why: CompactDecision(skip=why),
        )

    def post_compact(self, trigger: str, summary: str) -> CompactedDecision:
        return self._call(
            Event.PostCompact,
            lambda: self.session.post_compact(trigger, summary),
            lambda _: CompactedDecision(),
        )

    def interrupt(self) -> None:
        """`HookSession.interrupt`: the Interrupt hooks are told; when they cannot run (the
        session closed), a warning says why (there is nothing to refuse)."""
        self._call(Event.Interrupt, self.session.interrupt, log.warning)

    def relay(self, event: Event, hook_input: Mapping[str, Any]) -> Verdict:
        """`HookSession.relay`; when the hooks cannot run, a gate is denied with why."""
        return self._call(
            event,
            lambda: self.session.relay(event, hook_input),
            lambda why: failed_dispatch(event, why),
        )

    def close(self, reason: str | None = "other") -> None:
        """Fire SessionEnd (unless `reason` is None), stop hook processes, stop the loop."""
        if self._closed:
            return
        self._call(Event.SessionEnd, lambda: self.session.aclose(reason), lambda _: None)
        self._closed = True
        self._runner.stop()

    def __enter__(self) -> SyncHookSession:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _no_effect(_: str) -> Checkpoint:
    return Checkpoint()
