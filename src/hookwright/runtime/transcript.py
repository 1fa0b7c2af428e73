"""Session transcripts in Claude Code's JSONL line format.

Hooks that read `transcript_path` (to find the last assistant message, count tool calls, ...)
work unchanged: lines are compact JSON (`JSON.stringify` bytes, so `grep '"role":"assistant"'`
finds the model's lines) with Claude Code's `type`, `uuid`, `parentUuid`, `sessionId`,
`timestamp`, `cwd` and `message` fields in Claude Code's order; assistant content is a list of
`text` / `tool_use` blocks and tool results are user lines with `tool_result` blocks plus
`toolUseResult`. User lines carry the `promptId` of the prompt they answer, and `cwd` follows
the shell's working directory.

Each line is written with a single `os.write` on an `O_APPEND` descriptor, so a process killed
at any moment leaves complete lines (and at worst one truncated last line, which `load` skips).
hookwright's own lines (`system` prompts and context, compaction boundaries, rollbacks) are
`type: "system"` lines with a `subtype`, which Claude Code readers ignore. Transcripts written
before lines were compact (with spaces after `,` and `:`) load the same way.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from hookwright import __version__
from hookwright.config.private_files import open_append

Message = dict[str, Any]


def _now() -> str:
    return (
        time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
        + f".{int(time.time() * 1000) % 1000:03d}Z"
    )


def project_slug(project_dir: Path) -> str:
    """Claude Code's folder name for a project: the absolute path with `/` and `.` as `-`."""
    return str(project_dir.resolve()).replace("/", "-").replace(".", "-")


def transcript_path(home: Path, project_dir: Path, session_id: str) -> Path:
    return home / ".hookwright" / "projects" / project_slug(project_dir) / f"{session_id}.jsonl"


class Transcript:
    def __init__(self, path: Path, session_id: str, cwd: str, *, sidechain: bool = False) -> None:
        self.path = path
        self.session_id = session_id
        self.cwd = cwd
        self.sidechain = sidechain
        self.prompt_id: str | None = None
        self._parent: str | None = None
        self._assistant: str | None = None
        self._fd = open_append(path)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def _write(
        self,
        body: dict[str, Any],
        extra: dict[str, Any] | None = None,
        *,
        prompt: bool = False,
    ) -> str:
        """Append one line: Claude Code's leading fields, `body`, the line's id and time,
        `extra`, then the session fields. Returns the line's uuid."""
        line_id = str(uuid.uuid4())
        head: dict[str, Any] = {"parentUuid": self._parent, "isSidechain": self.sidechain}
        if prompt and self.prompt_id is not None:
            head["promptId"] = self.prompt_id
        entry = {
            **head,
            **body,
            "uuid": line_id,
            "timestamp": _now(),
            **(extra or {}),
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": f"hookwright-{__version__}",
        }
        self._parent = line_id
        text = json.dumps(entry, ensure_ascii=False, separators=(",", ":"), default=str)
        if self._fd < 0:
            raise ValueError(f"transcript {self.path} is closed")
        os.write(self._fd, (text + "\n").encode("utf-8"))
        return line_id

    def message(
        self,
        message: Message,
        *,
        model: str | None = None,
        tool_data: dict[str, Any] | None = None,
        is_error: bool = False,
        usage: tuple[int, int] | None = None,
    ) -> None:
        """Append `message`; an assistant's `usage` (input and output tokens) is kept with it,
        as Claude Code keeps it."""
        role = message.get("role")
        if role == "assistant":
            recorded = _assistant_message(message, model)
            if usage is not None:
                recorded["usage"] = {"input_tokens": usage[0], "output_tokens": usage[1]}
            body = {"message": recorded, "type": "assistant"}
            self._assistant = self._write(body)
        elif role == "tool":
            block = {
                "tool_use_id": message.get("tool_call_id"),
                "type": "tool_result",
                "content": message.get("content") or "",
                "is_error": is_error,
            }
            extra: dict[str, Any] = {}
            if tool_data is not None:
                extra["toolUseResult"] = tool_data
            if self._assistant is not None:
                extra["sourceToolAssistantUUID"] = self._assistant
            user = {"type": "user", "message": {"role": "user", "content": [block]}}
            self._write(user, extra, prompt=True)
        elif role == "user":
            user = {"type": "user", "message": {"role": "user", "content": message["content"]}}
            self._write(user, prompt=True)
        else:
            body = {
                "type": "system",
                "subtype": "hookwright_system",
                "content": message.get("content", ""),
            }
            self._write(body)

    def compact_boundary(self, summary: str, trigger: str) -> None:
        self._write(
            {
                "type": "system",
                "subtype": "compact_boundary",
                "content": summary,
                "compactMetadata": {"trigger": trigger},
            }
        )

    def rollback(self, keep: int) -> None:
        self._write({"type": "system", "subtype": "rollback", "keep": keep})

    def note(self, text: str, subtype: str = "informational") -> None:
        self._write({"type": "system", "subtype": subtype, "content": text})


def _assistant_message(message: Message, model: str | None) -> dict[str, Any]:
    """An OpenAI-format assistant message as the Anthropic message Claude Code records."""
    content: list[dict[str, Any]] = []
    if message.get("content"):
        content.append({"type": "text", "text": message["content"]})
    for call in message.get("tool_calls") or []:
        function = call.get("function", {})
        try:
            arguments = json.loads(function.get("arguments") or "{}")
        except json.JSONDecodeError:
            arguments = {"_raw": function.get("arguments")}
        content.append(
            {
                "type": "tool_use",
                "id": call.get("id"),
                "name": function.get("name"),
                "input": arguments,
            }
        )
    return {
        "id": f"msg_{uuid.uuid4().hex[:24]}",
        "type": "message",
        "role": "assistant",
        "model": model or "",
        "content": content,
        "stop_reason": "tool_use" if message.get("tool_calls") else "end_turn",
    }


#: Token counts of an assistant line's ``usage`` that make up the context it leaves.
_CONTEXT_USAGE = (
    "input_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "output_tokens",
)


@dataclass(frozen=True, slots=True)
class LastResponse:
    """The last model answer of a transcript: when (seconds since the epoch) and the context
    tokens its usage counts (None: the line has no usage)."""

    at: float
    context_tokens: int | None


def last_response(path: Path) -> LastResponse | None:
    """The transcript's last assistant line (None: it has none, or cannot be read)."""
    try:
        raw_lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for raw in reversed(raw_lines):
        try:
            line = json.loads(raw)
            if line.get("type") != "assistant":
                continue
            at = datetime.fromisoformat(str(line["timestamp"]).replace("Z", "+00:00"))
        except (ValueError, KeyError, AttributeError):
            continue
        usage = (line.get("message") or {}).get("usage")
        tokens = None
        if isinstance(usage, dict):
            tokens = sum(v for k in _CONTEXT_USAGE if isinstance(v := usage.get(k), int))
        return LastResponse(at.timestamp(), tokens)
    return None


def load(path: Path) -> list[Message]:
    """Rebuild the OpenAI-format history from a transcript (for `--resume`)."""
    messages: list[Message] = []
    try:
        raw_lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        raise ValueError(f"no transcript at {path}") from None
    for raw in raw_lines:
        try:
            line = json.loads(raw)
        except json.JSONDecodeError:
            continue
        if not isinstance(line, dict):
            continue
        kind = line.get("type")
        if kind == "system":
            subtype = line.get("subtype")
            if subtype == "hookwright_system":
                messages.append({"role": "system", "content": line.get("content", "")})
            elif subtype == "compact_boundary":
                messages = [m for m in messages if m["role"] == "system"][:1]
                messages.append({"role": "user", "content": line.get("content", "")})
            elif subtype == "rollback":
                del messages[int(line.get("keep", len(messages))) :]
            continue
        message = line.get("message")
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if kind == "user" and isinstance(content, str):
            messages.append({"role": "user", "content": content})
        elif kind == "user" and isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    messages.append(
                        {
                            "role": "tool",
                            "tool_call_id": block.get("tool_use_id"),
                            "content": block.get("content", ""),
                        }
                    )
        elif kind == "assistant" and isinstance(content, list):
            text = "".join(b.get("text", "") for b in content if b.get("type") == "text")
            calls = [
                {
                    "id": b.get("id"),
                    "type": "function",
                    "function": {
                        "name": b.get("name"),
                        "arguments": json.dumps(b.get("input", {})),
                    },
                }
                for b in content
                if b.get("type") == "tool_use"
            ]
            assistant: Message = {"role": "assistant", "content": text or (None if calls else "")}
            if calls:
                assistant["tool_calls"] = calls
            messages.append(assistant)
    return messages


def fork(source: Path, target: Path, session_id: str) -> None:
    """Start the transcript of a forked session at `target` with every line of `source`, each
    under the new `session_id` (as ``claude --resume ID --fork-session`` starts its new file);
    a line that is not a JSON object is left out."""
    lines: list[str] = []
    for raw in source.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            line = json.loads(raw)
        except json.JSONDecodeError:
            continue
        if isinstance(line, dict):
            line = {**line, "sessionId": session_id} if "sessionId" in line else line
            lines.append(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
    fd = open_append(target)
    try:
        os.write(fd, "".join(lines).encode("utf-8"))
    finally:
        os.close(fd)
