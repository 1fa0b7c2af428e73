"""One Gemini CLI hook event answered by a project's other hooks (`hookwright hook gemini`):
Gemini's stdin in, the JSON a Gemini command hook prints out.

The same bridge as Claude Code's (`claude_hook`), in Gemini's words: the project is opened
without its Gemini hooks (Gemini runs those itself), so a Claude Code guard, an OpenHarness
hook and a Python hook of the project govern Gemini. Hooks see Gemini's tools under Claude
Code's names (`run_shell_command` is `Bash`), its events as the canonical ones (BeforeTool is
PreToolUse, BeforeAgent UserPromptSubmit, AfterAgent Stop, BeforeModel PreModelCall), and the
answer is Gemini's (`dialects.gemini.verdict`). The project is `--project`, else the
``GEMINI_PROJECT_DIR`` Gemini sets, else the input's `cwd`.

An input that cannot be read is a `HookInputError`: the command says why on stderr and exits
2, which Gemini treats as a block (a tool call whose arguments hookwright cannot read is not
let through unjudged)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final

from hookwright.bridges.claude_hook import (
    HookInputError,
    HooksFailed,
    Relayed,
    failure,
    project_for,
    relay_once,
    settle,
)
from hookwright.config.safeparse import ParseError, load_json_text
from hookwright.core.events import Event
from hookwright.core.home import user_home
from hookwright.dialects.gemini.events import TOOLS
from hookwright.dialects.gemini.verdict import encode_output_json
from hookwright.host.open import store_policy
from hookwright.host.tool_alias import ToolAlias
from hookwright.host.toolmap import ToolMap
from hookwright.transports.marker import MARKER

__all__ = ["RELAYED", "HookInputError", "HooksFailed", "answer"]

#: The dialect the bridge leaves to Gemini itself.
EXCLUDED = frozenset({"gemini"})
#: Gemini's events hookwright answers, and the canonical event each runs. AfterModel (fired
#: once per streamed chunk), BeforeToolSelection (fired with BeforeModel, at the one
#: PreModelCall) and PreCompress (fired before every model call, compacting or not) are not.
RELAYED: Mapping[str, Event] = MappingProxyType(
    {
        "SessionStart": Event.SessionStart,
        "BeforeAgent": Event.UserPromptSubmit,
        "BeforeModel": Event.PreModelCall,
        "BeforeTool": Event.PreToolUse,
        "AfterTool": Event.PostToolUse,
        "AfterAgent": Event.Stop,
        "Notification": Event.Notification,
        "SessionEnd": Event.SessionEnd,
    }
)
#: Gemini's tools as hooks see them (Claude Code's names and argument names).
GEMINI_TOOLS: Final = ToolMap(
    ToolAlias(gemini, claude, {new: old for old, new in renames.items()})
    for claude, (gemini, renames) in TOOLS.items()
)
_COMMON = ("session_id", "transcript_path", "cwd")


def parse_input(raw: bytes) -> tuple[str, dict[str, Any]]:
    """Gemini's event name and its input, read within hookwright's JSON bounds."""
    try:
        data = load_json_text(raw, where="stdin")
    except ParseError as exc:
        raise HookInputError(f"stdin is not a JSON hook input: {exc.reason}") from None
    if not isinstance(data, dict):
        raise HookInputError("stdin is not a JSON object")
    name = data.get("hook_event_name")
    if not isinstance(name, str):
        raise HookInputError(f"hook_event_name is not an event name: {name!r:.80}")
    return name, data


def canonical_input(event_name: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """Gemini's input in the shape hooks of the canonical event read."""
    common = {key: data[key] for key in _COMMON if isinstance(data.get(key), str)}
    return {**common, **_fields(event_name, data)}


def _fields(event_name: str, data: Mapping[str, Any]) -> dict[str, Any]:
    if event_name in ("BeforeTool", "AfterTool"):
        fields: dict[str, Any] = {
            "tool_name": _text(data.get("tool_name")),
            "tool_input": _object(data, "tool_input"),
        }
        if event_name == "AfterTool":
            fields["tool_response"] = _tool_output(data.get("tool_response"))
        return fields
    if event_name == "BeforeAgent":
        return {"prompt": _text(data.get("prompt"))}
    if event_name == "AfterAgent":
        return {
            "stop_hook_active": data.get("stop_hook_active") is True,
            "last_assistant_message": _text(data.get("prompt_response")),
            "turn_prompt": _text(data.get("prompt")),
        }
    if event_name == "BeforeModel":
        return _model_request(_object(data, "llm_request"))
    if event_name == "SessionStart":
        return {"source": _text(data.get("source")) or "startup"}
    if event_name == "SessionEnd":
        return {"reason": _text(data.get("reason")) or "exit"}
    return {
        "notification_type": _text(data.get("notification_type")),
        "message": _text(data.get("message")),
    }


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _object(data: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    return dict(value) if isinstance(value, dict) else {}


def _tool_output(response: Any) -> str:
    """What the model reads of a Gemini tool result (`llmContent`), as text."""
    if isinstance(response, dict):
        content = response.get("llmContent")
        return content if isinstance(content, str) else ""
    return _text(response)


def _model_request(request: Mapping[str, Any]) -> dict[str, Any]:
    messages = [
        {"role": "assistant" if m.get("role") == "model" else "user", "content": m["content"]}
        for m in request.get("messages") or []
        if isinstance(m, dict) and isinstance(m.get("content"), str)
    ]
    return {"model": _text(request.get("model")), "messages": messages}


def answer(raw: bytes, project: Path | None) -> bytes:
    """The bytes to print for one Gemini hook input; raises `HookInputError` on an input that
    cannot be read and `HooksFailed` when a hook failed where nothing blocked."""
    if os.environ.get(MARKER):
        return b""
    event_name, data = parse_input(raw)
    event = RELAYED.get(event_name)
    if event is None:
        return b""
    hook_input = canonical_input(event_name, data)
    root = project_for(project, hook_input, os.environ.get("GEMINI_PROJECT_DIR"))
    home = user_home()
    policy = store_policy(home)  # read once: the session opens with it
    trusted = policy is not None and policy.trusts(root)
    try:
        relayed = asyncio.run(
            relay_once(
                root, home, event, hook_input, EXCLUDED, GEMINI_TOOLS, "hook gemini", trust=policy
            )
        )
    except Exception as exc:
        relayed = Relayed(failure(event, exc))
    verdict, failed = settle(relayed, root, trusted)
    if failed is not None:
        raise HooksFailed(failed)
    return encode_output_json(verdict, event_name)
