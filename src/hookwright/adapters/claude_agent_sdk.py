"""A project's hooks governing a claude-agent-sdk agent
(``pip install 'hookwright[claude-agent-sdk]'``).

    hooks = await ClaudeSDKHooks.open(project, ClaudeAgentOptions(cwd=project), tool_map=...)
    async with hooks, ClaudeSDKClient(hooks.options) as client:
        await client.query("Tidy up and publish.")
        async for message in client.receive_response(): ...
    # Stopping a running turn: `await hooks.interrupt(client)` (the Interrupt hooks run).

The SDK's CLI runs the agent loop and applies hook answers itself, with Claude Code's own
semantics. `options` are yours plus one `HookMatcher` callback per event the SDK can call back
for: each relays the CLI's hook input to the project's hooks (`FrameworkSession.relay`) and
answers with what a Claude Code hook would print (`encode_output`). `can_use_tool` runs the
PermissionRequest hooks when the CLI would ask for permission, then your own `can_use_tool`
(whose answer is audited as the person's, on channel ``callback``); approval gates (PicoClaw
`approve_tool`), which see every call in the reference agent, are asked with each PreToolUse the
hooks let run, and not again when the CLI then prompts, so `allowed_tools` does not turn them
off (it does keep prompt-only PermissionRequest hooks from running, as in Claude Code: a warning
says which). SessionStart fires before the first prompt (its context goes with that prompt's),
SessionEnd when the adapter closes. When the CLI reads settings files itself (`setting_sources`
None or not empty), the Claude Code dialect is not loaded, so no hook runs twice. Skill prompt
hooks (`skills=`) reach the model through the prompt's context (after_user_input); the CLI has
no model-call point for the other timings, which are reported.

The gate callbacks (UserPromptSubmit, PreToolUse) are sent with ``on_failure="block"`` so
the CLI blocks when a callback fails; that needs Claude Code 2.1.295 or later. With an older
CLI (read from ``--version`` before connecting), `on_failure="negotiate"` (the default) sends
them without it and warns; `on_failure="require"` refuses to open.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, cast

from hookwright.adapters._extras import needs_extra
from hookwright.core.events import Event
from hookwright.core.results import Decision, Verdict, failed_dispatch
from hookwright.dialects.claude_code import encode_output
from hookwright.host import (
    DEFAULT_STOP_BLOCK_CAP,
    Abilities,
    Ask,
    FrameworkSession,
)

with needs_extra(__name__, "claude-agent-sdk", "claude_agent_sdk"):
    from claude_agent_sdk import (
        CanUseTool,
        ClaudeAgentOptions,
        ClaudeSDKClient,
        HookContext,
        HookJSONOutput,
        HookMatcher,
        PermissionResult,
        PermissionResultAllow,
        PermissionResultDeny,
        ToolPermissionContext,
    )
    from claude_agent_sdk import HookInput as CLIHookInput
    from claude_agent_sdk.types import HookEvent

    from hookwright.adapters._claude_cli_version import (
        ON_FAILURE_MINIMUM,
        Version,
        parse_version,
        probe,
        shown,
    )


#: The events the SDK calls back for (PermissionRequest is answered in `can_use_tool`).
RELAYED: tuple[HookEvent, ...] = (
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "Notification",
)
#: The CLI blocks these when a callback fails (`on_failure="block"`).
GATES = frozenset({"UserPromptSubmit", "PreToolUse"})
CAP_ENV = "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"
#: How long the CLI waits for a callback; hooks have their own, shorter timeouts.
CALLBACK_TIMEOUT = 600.0
#: "negotiate": leave ``on_failure`` out (with a warning) for a CLI older than 2.1.295;
#: "require": refuse to open with such a CLI.
OnFailure = Literal["negotiate", "require"]


class ClaudeCLITooOld(RuntimeError):
    """The Claude Code CLI cannot block on a failed hook callback (`on_failure="require"`)."""


class ClaudeSDKHooks:
    """One claude-agent-sdk session governed by a project's hooks; run the SDK with
    `options`."""

    def __init__(
        self,
        session: FrameworkSession,
        given: ClaudeAgentOptions,
        cap: int,
        *,
        block_on_failure: bool = True,
    ) -> None:
        self.session = session
        self._theirs: CanUseTool | None = given.can_use_tool
        self._block_on_failure = block_on_failure
        self.options = replace(
            given,
            hooks=self._hooks(given.hooks or {}),
            can_use_tool=self._can_use_tool,
            env={**given.env, CAP_ENV: str(cap)},
        )
        self._warn_allowed_tools(given.allowed_tools)

    @classmethod
    async def open(
        cls,
        project_dir: Path,
        options: ClaudeAgentOptions | None = None,
        *,
        cli_reads_settings: bool | None = None,
        on_failure: OnFailure = "negotiate",
        cli_version: str | None = None,
        **hook_options: Any,
    ) -> ClaudeSDKHooks:
        """`hook_options` are `FrameworkSession.open`'s: `skills` and `HookSession.open`'s
        (tool_map, trust, stop_block_cap, ...). `cli_reads_settings` overrides what
        `options.setting_sources` says (a custom transport does not pass it to its CLI);
        `cli_version` overrides the version read from the CLI (``<cli> --version``). Raises
        `ClaudeCLITooOld` with ``on_failure="require"`` and a CLI older than 2.1.295."""
        given = options or ClaudeAgentOptions(cwd=project_dir)
        known = parse_version(cli_version) if cli_version else await asyncio.to_thread(probe, given)
        unblocking = _negotiated(known, on_failure)
        reads = given.setting_sources != [] if cli_reads_settings is None else cli_reads_settings
        if reads:
            excluded = hook_options.get("exclude_dialects", ())
            hook_options["exclude_dialects"] = (*excluded, "claude_code")
        abilities = Abilities(
            "claude-agent-sdk", ask_user=given.can_use_tool is not None, model_calls=False
        )
        opened = await asyncio.to_thread(
            FrameworkSession.open, project_dir, abilities, **hook_options
        )
        if unblocking is not None:
            opened.unexpressed(Event.PreToolUse, unblocking)
        cap = hook_options.get("stop_block_cap", DEFAULT_STOP_BLOCK_CAP)
        return cls(opened, given, cap, block_on_failure=unblocking is None)

    async def aclose(self) -> None:
        """SessionEnd, then the hook processes stop."""
        await self.session.aclose()

    async def __aenter__(self) -> ClaudeSDKHooks:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def interrupt(self, client: ClaudeSDKClient) -> None:
        """Interrupt the running turn the SDK's way (`client.interrupt()`), then run the
        Interrupt hooks (once per turn). The CLI has no hook event for an interruption, and
        cancelling a task that reads `client.receive_response()` does not reach the adapter:
        this is the one interruption the project's hooks can hear of."""
        await client.interrupt()
        await asyncio.to_thread(self.session.interrupted)

    def _hooks(self, theirs: Mapping[HookEvent, list[HookMatcher]]) -> dict[HookEvent, Any]:
        merged: dict[HookEvent, list[HookMatcher]] = {k: list(v) for k, v in theirs.items()}
        for event in RELAYED:
            gate = event in GATES and self._block_on_failure
            failure: Literal["block"] | None = "block" if gate else None
            matcher = HookMatcher(hooks=[self._relay], timeout=CALLBACK_TIMEOUT, on_failure=failure)
            merged.setdefault(event, []).append(matcher)
        return merged

    def _warn_allowed_tools(self, allowed: list[str]) -> None:
        """The CLI allows `allowed_tools` without a permission prompt, so the PermissionRequest
        hooks that fire only on a prompt (Claude Code's) never run for them, as in Claude Code
        itself; approval gates still do (`FrameworkSession.relay`). Said, never silent."""
        engine = self.session.hooks.session.engine
        prompting = [
            spec.origin or spec.name
            for spec in engine.hooks(Event.PermissionRequest)
            if spec.dialect == "claude_code"
        ]
        if allowed and prompting:
            what = (
                f"PermissionRequest hooks ({', '.join(prompting)}) for allowed_tools "
                f"({', '.join(allowed)}): the CLI allows those tools without a prompt"
            )
            self.session.unexpressed(Event.PermissionRequest, what)

    async def _relay(
        self, hook_input: CLIHookInput, tool_use_id: str | None, context: HookContext
    ) -> HookJSONOutput:
        data: dict[str, Any] = dict(hook_input)
        try:
            event = Event(data["hook_event_name"])
        except (KeyError, ValueError):
            return cast(HookJSONOutput, {})
        try:
            verdict = await asyncio.to_thread(self.session.relay, event, data)
            answer = encode_output(self._expressible(verdict))
        except Exception as exc:
            answer = encode_output(failed_dispatch(event, f"hookwright failed: {exc}"))
        return cast(HookJSONOutput, answer)

    def _expressible(self, verdict: Verdict) -> Verdict:
        """What Claude Code has no field for is reported: rewritten event fields other than
        the tool input are left out, a hook's tool result (`respond`) becomes a refusal whose
        text is that result, and a renamed tool is refused."""
        rewritten = sorted(set(verdict.payload_updates) - {"tool_name", "tool_input"})
        what = f"rewriting {', '.join(rewritten)}"
        if rewritten and self.session.unexpressed(verdict.event, what):
            refusal = failed_dispatch(verdict.event, f"hookwright refused: {what} is not applied")
            if refusal.blocked:  # a gate: refused; elsewhere the rest of the verdict applies
                return refusal
        if verdict.event is not Event.PreToolUse:
            return verdict
        if verdict.respond is not None:
            result = self.session.shown(Event.PreToolUse, verdict.respond)
            what = "a tool result without running the tool (it reaches the model as a refusal)"
            self.session.unexpressed(Event.PreToolUse, what)
            return replace(verdict, decision=Decision.deny, reason=result.content, respond=None)
        renamed = verdict.payload_updates.get("tool_name")
        if renamed and not verdict.blocked:
            self.session.unexpressed(Event.PreToolUse, f"running {renamed} instead of the tool")
            return replace(
                verdict, decision=Decision.deny, reason="A hook renamed the tool; not run."
            )
        return verdict

    async def _can_use_tool(
        self, tool_name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResult:
        ask = Ask(tool_name, tool_input, context.decision_reason)
        call_id = context.tool_use_id or ""
        step = await asyncio.to_thread(self.session.permission, ask, call_id)
        if step.run is not None:
            return PermissionResultAllow(updated_input=dict(step.run.tool_input))
        if step.ask is not None and self._theirs is not None:
            given = await self._theirs(tool_name, tool_input, context)
            self.session.answered(ask, call_id, isinstance(given, PermissionResultAllow))
            return given
        answer = step.answer
        return PermissionResultDeny(message=answer.content if answer else "Permission denied.")


def _negotiated(version: Version | None, on_failure: OnFailure) -> str | None:
    """None when the gate callbacks carry ``on_failure="block"``: unless the CLI is known to
    be older than 2.1.295 (an unknown version, from a custom transport or no CLI found, keeps
    it: the SDK then refuses a CLI that does not say it honours it). Else what the session
    reports (a warning and an audit record), or `ClaudeCLITooOld` with "require"."""
    if version is None or version >= ON_FAILURE_MINIMUM:
        return None
    minimum = shown(ON_FAILURE_MINIMUM)
    if on_failure == "require":
        raise ClaudeCLITooOld(
            f"Claude Code {shown(version)} is older than {minimum} and cannot block when a "
            f"hook callback fails (onFailure); update Claude Code to {minimum} or later"
        )
    return (
        f'on_failure="block" (Claude Code {shown(version)} is older than {minimum}: a gate '
        "callback the CLI cannot reach or that times out does not block; hookwright's own "
        f"failures still deny; update Claude Code to {minimum} or later, or open with "
        "on_failure='require' to refuse older CLIs)"
    )
