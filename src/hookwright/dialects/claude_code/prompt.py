"""Prompt and agent hooks (spec §1.3, §7.4): a model judges the event.

The model must answer ``{"ok": true}`` or ``{"ok": false, "reason": "...", "impossible"?:
true}`` (the Nov-2025 ``{"decision": "approve"|"block", "reason"}`` shape is accepted too).
hookwright has no model of its own here: the hook asks its session's evaluator
(`RunContext.services.evaluator`) with a `HookModelRequest` of kind ``prompt`` or ``agent`` (an
agent may use read-only tools), through the model transport (`transports/model.py`). Without
a model, or when the model fails, the hook is a non-blocking error and the event goes on.
"""

from __future__ import annotations

from typing import Any

from hookwright.config.safeparse import ParseError, load_json_text
from hookwright.core.events import Event, HookInput
from hookwright.core.results import Decision, HookResult, Status
from hookwright.core.run_context import RunContext
from hookwright.dialects.base import Handler
from hookwright.dialects.claude_code.config import AgentHook, PromptHook
from hookwright.dialects.claude_code.notes import attach_notes, blocking_error
from hookwright.dialects.claude_code.stdin import encode_body
from hookwright.dialects.claude_code.tables import (
    PROMPT_CONTINUE_ON_BLOCK,
    PROMPT_ENDS_TURN,
    PROMPT_NO_EFFECT,
)
from hookwright.engine.hook_requests import HookModelRequest, ModelKind
from hookwright.engine.services import services_of
from hookwright.transports.base import Envelope, Failure, Output, Reply
from hookwright.transports.model import ModelTransport

DEFAULT_BLOCK_REASON = "Blocked by prompt hook"
_FENCE = "```"


def build_prompt(template: str, inp: HookInput) -> str:
    """`$ARGUMENTS` becomes the input JSON; without it the JSON is appended."""
    payload = encode_body(inp).decode("utf-8")
    if "$ARGUMENTS" in template:
        return template.replace("$ARGUMENTS", payload)
    return f"{template}\n\n{payload}"


def _unfenced(text: str) -> str:
    """`text` without a Markdown code fence around it (```` ```json ... ``` ````)."""
    body = text.strip()
    if body.startswith(_FENCE):
        language = len(_FENCE)
        while language < len(body) and body[language].isascii() and body[language].isalpha():
            language += 1
        body = body[language:].lstrip()
    if body.endswith(_FENCE):
        body = body[: -len(_FENCE)].rstrip()
    return body


def _reply_object(text: str) -> dict[str, Any] | None:
    body = _unfenced(text)
    start, end = body.find("{"), body.rfind("}")
    if start == -1 or end < start:
        return None
    try:
        value = load_json_text(body[start : end + 1])
    except ParseError:
        return None
    return value if isinstance(value, dict) else None


def decode_prompt_reply(event: Event, text: str, *, continue_on_block: bool) -> HookResult:
    """The model's answer as a result (§7.4)."""
    data = _reply_object(text)
    if data is None:
        return HookResult(status=Status.error, error=f"prompt hook reply is not JSON: {text[:200]}")
    ok = data.get("ok")
    if ok is None and data.get("decision") in ("approve", "block"):
        ok = data["decision"] == "approve"
    if not isinstance(ok, bool):
        return HookResult(status=Status.error, error="prompt hook reply has no boolean 'ok'")
    if ok or event in PROMPT_NO_EFFECT:
        return HookResult()
    reason = data.get("reason") if isinstance(data.get("reason"), str) else None
    reason = reason or DEFAULT_BLOCK_REASON
    if event in (Event.Stop, Event.SubagentStop):
        if data.get("impossible") is True:
            return HookResult(reason=reason)
        return HookResult(decision=Decision.block, reason=reason)
    decision = Decision.deny if event is Event.PreToolUse else Decision.block
    result = HookResult(decision=decision, reason=reason)
    ends_turn = event in PROMPT_ENDS_TURN
    if ends_turn and not (continue_on_block and event in PROMPT_CONTINUE_ON_BLOCK):
        result.abort = "turn"
    return result


class PromptCodec:
    """The codec of one `prompt` or `agent` hook, run as `Handler(ModelTransport(),
    PromptCodec(...))`: the request to the session's model travels in the envelope, whose wait
    the engine bounds (the hook's timeout is in the request)."""

    def __init__(self, config: PromptHook | AgentHook, *, timeout: float) -> None:
        self.config = config
        self.kind: ModelKind = "agent" if isinstance(config, AgentHook) else "prompt"
        self.timeout = timeout
        #: Agent hooks behave as if continueOnBlock were set (§7.4).
        self.continue_on_block = self.kind == "agent" or (
            isinstance(config, PromptHook) and config.continueOnBlock
        )

    def encode(self, inp: HookInput, ctx: RunContext) -> Envelope | HookResult:
        evaluator = services_of(ctx).evaluator
        if evaluator is None:
            return HookResult(
                status=Status.error, error=f"no model configured for {self.kind} hooks"
            )
        request = HookModelRequest(
            kind=self.kind,
            prompt=build_prompt(self.config.prompt, inp),
            model=self.config.model,
            agent=None,
            timeout=ctx.timeout if ctx.timeout is not None else self.timeout,
        )
        return Envelope(json=request, model=evaluator)

    def decode(
        self, reply: Reply, sent: Envelope, inp: HookInput, ctx: RunContext
    ) -> HookResult | None:
        if isinstance(reply, Failure) and reply.timed_out:
            return HookResult(status=Status.timeout, error=f"{self.kind} hook {reply.reason}")
        if not isinstance(reply, Output):
            return HookResult(status=Status.error, error=f"{self.kind} hook failed: {reply.reason}")
        result = decode_prompt_reply(
            inp.event, reply.text, continue_on_block=self.continue_on_block
        )
        return self._worded(inp, result)

    async def aclose(self) -> None:
        return None

    def _worded(self, inp: HookInput, result: HookResult) -> HookResult:
        """A block reads as Claude Code words it: ``[<prompt>]: <reason>`` for a prompt hook,
        ``Agent hook condition was not met: <reason>`` for an agent hook."""
        label = self.config.prompt
        if result.decision in (Decision.deny, Decision.block) and result.reason:
            if self.kind == "agent":
                result.reason = f"Agent hook condition was not met: {result.reason}"
            else:
                result.reason = f"[{label}]: {result.reason}"
            if inp.event is Event.PreToolUse:
                result.add_effects(tool_message=blocking_error(inp, result.reason))
        return attach_notes(inp, result, command=label, plain=False)


def prompt_handler(config: PromptHook | AgentHook, *, timeout: float) -> Handler:
    """One prompt or agent hook as an engine handler: the model transport and its codec."""
    return Handler(ModelTransport(), PromptCodec(config, timeout=timeout))
