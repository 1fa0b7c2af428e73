"""One Claude Code hook event answered by a project's other hooks (`hookwright hook
claude-code`): Claude Code's stdin in, the JSON a Claude Code command hook prints out.

The project is loaded without its Claude Code hooks (Claude Code runs those itself), so no
hook runs twice. Trust is checked before anything is read from the folder: an untrusted
project runs no code and answers nothing but, at SessionStart of a folder with hook folders,
a one-line notice for the user (`systemMessage`). Run by hookwright itself (a hook of
`hookwright run`), the command answers nothing: hookwright already runs those hooks."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from hookwright.config.trust import TrustPolicy
from hookwright.core.events import Event
from hookwright.core.results import Decision, Verdict, failed_dispatch
from hookwright.dialects.claude_code.answer import encode_output_json
from hookwright.host.session import HookSession
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


#: Folders of a project that hold hooks hookwright runs (their presence alone is checked
#: for an untrusted project; nothing in them is read).
HOOK_FOLDERS = (".hookwright", ".openharness", ".picoclaw")
#: What an event answers when nothing changes in Claude Code.
NO_ANSWER = b"{}\n"


def project_for(
    given: Path | None, hook_input: Mapping[str, Any], env_project: str | None = None
) -> Path:
    """`--project`, else the project Claude Code names (`CLAUDE_PROJECT_DIR`), else the
    input's cwd; resolved."""
    if given is not None:
        return given.resolve()
    named = env_project or hook_input.get("cwd")
    return (Path(named) if isinstance(named, str) and named else Path.cwd()).resolve()


def is_trusted(project: Path, home: Path) -> bool:
    """Whether hookwright's trust store trusts `project`; an unreadable store trusts none."""
    try:
        return TrustPolicy.load(home).trusts(project)
    except ValueError:
        return False


def untrusted_answer(event: Event, project: Path) -> bytes:
    """Nothing changes in Claude Code; at SessionStart, a notice when the folder has hooks."""
    if event is not Event.SessionStart:
        return NO_ANSWER
    if not any((project / name).is_dir() for name in HOOK_FOLDERS):
        return NO_ANSWER
    notice = (
        f"hookwright: the hooks of {project} did not run: the folder is not trusted "
        f"(trust it with: hookwright trust {project})"
    )
    return json.dumps({"systemMessage": notice}).encode() + b"\n"


def expressible(verdict: Verdict) -> Verdict:
    """A hook's own tool result (no tool runs) and a renamed tool have no Claude Code field:
    both become a refusal, the tool result's text as the reason."""
    if verdict.event is not Event.PreToolUse or verdict.blocked:
        return verdict
    if verdict.respond is not None:
        text = verdict.respond.content
        return replace(verdict, decision=Decision.deny, reason=text, respond=None)
    if verdict.effects.renamed_tool is not None:
        return replace(verdict, decision=Decision.deny, reason="A hook renamed the tool; not run.")
    return verdict


async def _verdict(project: Path, event: Event, hook_input: dict[str, Any]) -> Verdict:
    session = await HookSession.open(project, exclude_dialects={"claude_code"})
    async with session:
        return await session.relay(event, hook_input)


def failure(event: Event, exc: Exception) -> Verdict:
    return failed_dispatch(event, f"hookwright failed: {' '.join(str(exc).split())}")


def answer(raw: bytes, project: Path | None) -> bytes:
    """The bytes to print for one hook input; raises `HookInputError` on a bad input."""
    if os.environ.get(MARKER):
        return b""
    event, hook_input = parse_input(raw)
    root = project_for(project, hook_input, os.environ.get("CLAUDE_PROJECT_DIR"))
    if not is_trusted(root, Path.home()):
        return untrusted_answer(event, root)
    try:
        verdict = asyncio.run(_verdict(root, event, hook_input))
    except Exception as exc:
        verdict = failure(event, exc)
    return encode_output_json(expressible(verdict))
