"""Session transcripts in Claude Code's JSONL line format.

Hooks that read `transcript_path` (to find the last assistant message, count tool calls, ...)
work unchanged: lines have Claude Code's `type`, `uuid`, `parentUuid`, `sessionId`,
`timestamp`, `cwd` and `message` fields, assistant content is a list of `text` / `tool_use`
blocks and tool results are user lines with `tool_result` blocks plus `toolUseResult`.

Each line is written with a single `os.write` on an `O_APPEND` descriptor, so a process killed
at any moment leaves complete lines (and at worst one truncated last line, which `load` skips).
hookwright's own lines (`system` prompts and context, compaction boundaries, rollbacks) are
`type: "system"` lines with a `subtype`, which Claude Code readers ignore.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path
from typing import Any

from hookwright import __version__
from hookwright.private_files import private_dir

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
        self._parent: str | None = None
        private_dir(path.parent)
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def _write(self, line: dict[str, Any]) -> None:
        entry = {
            "parentUuid": self._parent,
            "isSidechain": self.sidechain,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": f"hookwright-{__version__}",
            **line,
            "uuid": str(uuid.uuid4()),
            "timestamp": _now(),
        }
        self._parent = entry["uuid"]
        data = (json.dumps(entry, ensure_ascii=False, default=str) + "\n").encode("utf-8")
        if self._fd < 0:
            raise ValueError(f"transcript {self.path} is closed")
        os.write(self._fd, data)

    def message(
        self,
        message: Message,
        *,
        model: str | None = None,
        tool_data: dict[str, Any] | None = None,
        is_error: bool = False,
    ) -> None:
        role = message.get("role")
        if role == "assistant":
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
            self._write(
                {
                    "type": "assistant",
                    "message": {
                        "id": f"msg_{uuid.uuid4().hex[:24]}",
                        "type": "message",
                        "role": "assistant",
                        "model": model or "",
                        "content": content,
                        "stop_reason": "tool_use" if message.get("tool_calls") else "end_turn",
                    },
                }
            )
        elif role == "tool":
            line: dict[str, Any] = {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": message.get("tool_call_id"),
                            "content": message.get("content") or "",
                            "is_error": is_error,
                        }
                    ],
                },
            }
            if tool_data is not None:
                line["toolUseResult"] = tool_data
            self._write(line)
        elif role == "user":
            self._write(
                {"type": "user", "message": {"role": "user", "content": message["content"]}}
            )
        else:
            self._write(
                {
                    "type": "system",
                    "subtype": "hookwright_system",
                    "content": message.get("content", ""),
                }
            )

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
