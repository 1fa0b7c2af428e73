"""One Claude Code hook event answered by a project's other hooks (`hookwright hook
claude-code`): Claude Code's stdin in, the JSON a Claude Code command hook prints out.

The project is loaded without its Claude Code hooks (Claude Code runs those itself), so no
hook runs twice. Only folders in hookwright's trust store are bound; an untrusted project runs
no code and answers nothing. Run by hookwright itself (a hook of `hookwright run`), the command
answers nothing: hookwright already runs those hooks."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from hookwright.dialects.claude_code.answer import encode_output_json
from hookwright.events import Event
from hookwright.host.session import HookSession, tool_result_from_value
from hookwright.results import Decision, Verdict, failed_dispatch
from hookwright.transports.adoption import MARKER


class HookInputError(Exception):
    """Claude Code's stdin is not a hook input: one line."""


def parse_input(raw: bytes) -> tuple[Event, dict[str, Any]]:
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise HookInputError(f"stdin is not a JSON hook input: {exc}") from None
    if not isinstance(data, dict):
        raise HookInputError("stdin is not a JSON object")
    name = data.get("hook_event_name")
    try:
        return Event(str(name)), data
    except ValueError:
        raise HookInputError(f"unknown hook_event_name {name!r}") from None


def project_for(given: Path | None, hook_input: Mapping[str, Any]) -> Path:
    """`--project`, else the project Claude Code names, else the input's cwd."""
    if given is not None:
        return given
    named = os.environ.get("CLAUDE_PROJECT_DIR") or hook_input.get("cwd")
    return Path(named) if isinstance(named, str) and named else Path.cwd()


def expressible(verdict: Verdict) -> Verdict:
    """A hook's own tool result (no tool runs) and a renamed tool have no Claude Code field:
    both become a refusal, the tool result's text as the reason."""
    if verdict.event is not Event.PreToolUse or verdict.blocked:
        return verdict
    if verdict.respond is not None:
        text = tool_result_from_value(verdict.respond).content
        return replace(verdict, decision=Decision.deny, reason=str(text), respond=None)
    if verdict.payload_updates.get("tool_name"):
        return replace(verdict, decision=Decision.deny, reason="A hook renamed the tool; not run.")
    return verdict


async def _verdict(project: Path, event: Event, hook_input: dict[str, Any]) -> Verdict:
    session = await HookSession.open(project, exclude_dialects={"claude_code"})
    async with session:
        return await session.relay(event, hook_input)


def answer(raw: bytes, project: Path | None) -> bytes:
    """The bytes to print for one hook input; raises `HookInputError` on a bad input."""
    if os.environ.get(MARKER):
        return b""
    event, hook_input = parse_input(raw)
    try:
        verdict = asyncio.run(_verdict(project_for(project, hook_input), event, hook_input))
    except Exception as exc:
        verdict = failed_dispatch(event, f"hookwright failed: {' '.join(str(exc).split())}")
    return encode_output_json(expressible(verdict))
