"""The tool calls `hookwright replay` replays, read from recorded files: session transcripts
(the reference agent's, Claude Code's lines) and audit files.

A transcript gives every call the model made (tool, input, session, time, working folder); the
audit gives what the hooks of that time decided about it (one record per hook run) and the
input they received. A call both hold is one call: its input and decision come from the audit.
A call the audit does not hold was decided by no hook (``none``).

Recorded files are untrusted: a line that is too long, not JSON, nested too deep or not a
record is skipped with a one-line warning naming its file and line, never an exception.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hookwright.core.events import Event
from hookwright.core.words import counted
from hookwright.monitor.audit_chain import record_time

#: A recorded line longer than this (bytes) is skipped.
LINE_LIMIT = 4_000_000
#: How deep a recorded tool input may nest; a deeper one is skipped.
MAX_DEPTH = 64
#: Warnings printed one by one; the rest are counted.
NAMED_WARNINGS = 20
_CHUNK = 1 << 20
#: Audit dispatches whose records are gathered at a time (`Recording`).
AUDIT_WINDOW = 1024

#: The events a recorded call is replayed on: every tool call's PreToolUse (transcripts and
#: audit), and the PermissionRequest dispatches the audit recorded.
REPLAYED_EVENTS = (Event.PreToolUse, Event.PermissionRequest)
#: Decisions from least to most strict: several hooks' decisions merge to the strictest.
_STRICTNESS = ("none", "allow", "ask", "defer", "block", "deny")


@dataclass(frozen=True, slots=True)
class RecordedCall:
    """One recorded dispatch of a tool call, and what the hooks decided then."""

    session_id: str
    tool_use_id: str | None
    event: Event
    tool_name: str
    tool_input: Mapping[str, Any]
    #: Unix seconds, when the recording says.
    ts: float | None
    #: The project the audit names, else the transcript's working folder.
    project: str | None
    cwd: str | None
    transcript: str | None
    #: The merged decision then (``none``: no hook decided), and the hooks that made it.
    decision: str = "none"
    decided_by: tuple[str, ...] = ()
    #: Where it was read: ``file:line``.
    where: str = "?"


@dataclass(slots=True)
class Warnings:
    """One-line warnings about recorded lines that were skipped."""

    lines: list[str] = field(default_factory=list)
    count: int = 0

    def add(self, where: str, what: str) -> None:
        self.count += 1
        if self.count <= NAMED_WARNINGS:
            self.lines.append(f"hookwright: warning: {where}: {what}, skipped")

    def summary(self) -> str | None:
        hidden = self.count - len(self.lines)
        more = counted(hidden, "more line")
        return f"hookwright: warning: {more} skipped" if hidden > 0 else None


def _lines(path: Path, warnings: Warnings) -> Iterator[tuple[str, Any]]:
    """(``file:line``, parsed value) for each line of `path` that is JSON."""
    with path.open("rb") as handle:
        number = 0
        while True:
            raw = handle.readline(LINE_LIMIT + 1)
            if not raw:
                return
            number += 1
            where = f"{path}:{number}"
            if len(raw) > LINE_LIMIT and not raw.endswith(b"\n"):
                while (rest := handle.readline(_CHUNK)) and not rest.endswith(b"\n"):
                    pass
                warnings.add(where, f"line longer than {LINE_LIMIT:,} bytes")
                continue
            if not raw.strip():
                continue
            try:
                yield where, json.loads(raw.decode("utf-8", errors="replace"))
            except RecursionError:
                warnings.add(where, "JSON nested too deep")
            except ValueError:
                warnings.add(where, "not JSON")


def _depth_over(value: Any, limit: int) -> bool:
    """Whether `value` nests deeper than `limit` (checked without recursion)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
    return False


def _is_audit(line: Mapping[str, Any]) -> bool:
    return isinstance(line.get("event"), str) and isinstance(line.get("hook"), str)


def _is_transcript(line: Mapping[str, Any]) -> bool:
    return line.get("type") in ("user", "assistant", "system") and "message" in line


def _tool_uses(line: Mapping[str, Any]) -> list[dict[str, Any]]:
    message = line.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if line.get("type") != "assistant" or not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _transcript_calls(
    line: Mapping[str, Any], path: Path, where: str, warnings: Warnings
) -> Iterator[RecordedCall]:
    """The calls of one assistant line of the transcript at `path` (an absolute path)."""
    session = _text(line.get("sessionId")) or path.stem
    cwd = _text(line.get("cwd"))
    for block in _tool_uses(line):
        name, tool_input = block.get("name"), block.get("input")
        if not isinstance(name, str) or not isinstance(tool_input, dict):
            warnings.add(where, "tool call without a name or an input object")
            continue
        if _depth_over(tool_input, MAX_DEPTH):
            warnings.add(where, f"tool input nested deeper than {MAX_DEPTH}")
            continue
        yield RecordedCall(
            session_id=session,
            tool_use_id=_text(block.get("id")),
            event=Event.PreToolUse,
            tool_name=name,
            tool_input=tool_input,
            ts=record_time(line.get("timestamp")),
            project=cwd,
            cwd=cwd,
            transcript=str(path),
            where=where,
        )


def _audit_call(record: Mapping[str, Any], where: str, warnings: Warnings) -> RecordedCall | None:
    """The call one audit record is about (None for records of other events, and for the
    records `hooks test` wrote)."""
    event = record.get("event")
    if event not in REPLAYED_EVENTS or record.get("test") is True:
        return None
    name, tool_input = record.get("tool_name"), record.get("tool_input")
    if not isinstance(name, str) or not isinstance(tool_input, dict):
        warnings.add(where, f"{event} record without a tool name or an input object")
        return None
    if _depth_over(tool_input, MAX_DEPTH):
        warnings.add(where, f"tool input nested deeper than {MAX_DEPTH}")
        return None
    decision = _text(record.get("decision"))
    project = _text(record.get("project"))
    return RecordedCall(
        session_id=_text(record.get("session_id")) or "?",
        tool_use_id=_text(record.get("tool_use_id")),
        event=Event(event),
        tool_name=name,
        tool_input=tool_input,
        ts=record_time(record.get("ts")),
        project=project,
        cwd=project,
        transcript=None,
        decision=decision if decision in _STRICTNESS else "none",
        decided_by=(str(record["hook"]),) if decision in _STRICTNESS[1:] else (),
        where=where,
    )


def stricter(first: str, second: str) -> str:
    return max(first, second, key=_STRICTNESS.index)


CallKey = tuple[str, str, Event]


def _key(call: RecordedCall) -> CallKey:
    """One dispatch: the records of its hooks share the call's id (else its time)."""
    return (call.session_id, call.tool_use_id or f"at {call.ts}", call.event)


def _merge_audit(found: RecordedCall, more: RecordedCall) -> RecordedCall:
    """Two hooks' records of one dispatch as one call: the strictest decision, and every hook
    that made it."""
    decision = stricter(found.decision, more.decision)
    names = [
        *(found.decided_by if found.decision == decision else ()),
        *(more.decided_by if more.decision == decision else ()),
    ]
    decided_by = tuple(dict.fromkeys(names))
    return replace(found, decision=decision, decided_by=decided_by)


@dataclass(slots=True)
class Recording:
    """Reads recorded files line by line, in bounded memory however long the audit is.

    Transcript files are read first and their calls kept (the audit's records of a call are
    matched to its transcript line); then the audit files stream. A dispatch's records are
    written together, so one whose key has left the last `AUDIT_WINDOW` dispatches read is
    complete: a call only the audit holds is handed on then, and a transcript's call takes what
    the audit recorded for it. The transcripts' calls follow the audit's."""

    transcript: dict[CallKey, RecordedCall] = field(default_factory=dict)
    warnings: Warnings = field(default_factory=Warnings)
    _pending: OrderedDict[CallKey, RecordedCall] = field(default_factory=OrderedDict)

    def calls(self, paths: Iterable[Path]) -> Iterator[RecordedCall]:
        """Every recorded call of `paths`; raises `OSError` for a file that cannot be read."""
        resolved = [path.resolve() for path in paths]
        audits = [path for path in resolved if _audit_file(path)]
        for path in [*(p for p in resolved if p not in audits), *audits]:
            yield from self._read(path)
        while self._pending:
            yield from self._settle(*self._pending.popitem(last=False))
        yield from self.transcript.values()

    def _read(self, path: Path) -> Iterator[RecordedCall]:
        """Read one recorded file (transcript or audit lines, told apart line by line)."""
        for where, line in _lines(path, self.warnings):
            if not isinstance(line, dict):
                self.warnings.add(where, "not a transcript line or an audit record")
            elif _is_audit(line):
                yield from self._audit_line(line, where)
            elif _is_transcript(line):
                for call in _transcript_calls(line, path, where, self.warnings):
                    self.transcript.setdefault(_key(call), call)
            elif "type" not in line:
                self.warnings.add(where, "not a transcript line or an audit record")

    def _audit_line(self, record: Mapping[str, Any], where: str) -> Iterator[RecordedCall]:
        call = _audit_call(record, where, self.warnings)
        if call is None:
            return
        key = _key(call)
        found = self._pending.get(key)
        self._pending[key] = call if found is None else _merge_audit(found, call)
        if found is None and len(self._pending) > AUDIT_WINDOW:
            yield from self._settle(*self._pending.popitem(last=False))

    def _settle(self, key: CallKey, audited: RecordedCall) -> Iterator[RecordedCall]:
        """A complete dispatch of the audit: its transcript call takes the recorded input and
        decision; one no transcript holds is handed on."""
        call = self.transcript.get(key)
        if call is None:
            yield audited
            return
        self.transcript[key] = replace(
            call,
            tool_input=audited.tool_input,
            decision=audited.decision,
            decided_by=audited.decided_by,
            project=audited.project or call.project,
        )


def _audit_file(path: Path) -> bool:
    """Whether the first JSON line of `path` is an audit record (read again in order later)."""
    for _, line in _lines(path, Warnings()):
        return isinstance(line, dict) and _is_audit(line)
    return False
