"""The audit trail: one record per hook run, written off the dispatch path.

`dispatch` hands the finished verdict to `AuditLog.submit`, which only appends it to a deque.
A writer thread turns verdicts into records, writes them as JSONL and calls the Python
callbacks, so a slow disk or a slow callback never delays the host.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import json
import logging
import os
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from hookwright.events import INPUT_FIELD, TOOL_EVENTS, HookInput
from hookwright.private_files import open_private
from hookwright.results import Decision, HookResult, Status, Verdict, effect_of

log = logging.getLogger("hookwright.audit")

STDERR_TAIL = 2000
#: Longest text kept for a hook's added context, and for each string of a recorded tool input.
TEXT_CAP = 2000
_ENCODER = json.JSONEncoder(ensure_ascii=False, default=str)


@dataclass(slots=True, frozen=True)
class AuditRecord:
    ts: float
    event: str
    hook: str
    source: str
    dialect: str
    status: str
    decision: str | None
    duration_ms: float
    exit_code: int | None
    reason: str | None
    error: str | None
    stderr_tail: str | None
    session_id: str | None
    origin: str | None
    #: The capabilities the hook declared (OpenHarness), else None.
    capabilities: tuple[str, ...] | None = None
    #: The patches the hook applied, by scope (OpenHarness `hookSpecificOutput.patch`).
    patch: dict[str, Any] | None = None
    #: What the hook did, in one word (`deny`, `rewrite input`, `context`, `prompt`, `error`,
    #: ...), or None when it had no effect.
    effect: str | None = None
    #: The turn the dispatch belongs to, and on tool events the call it was about.
    turn_id: str | None = None
    tool_name: str | None = None
    tool_use_id: str | None = None
    #: The tool input the hooks of this dispatch received (tool events).
    tool_input: dict[str, Any] | None = None
    #: The input the call goes on with after this dispatch's rewrites (PreToolUse and
    #: PermissionRequest), None when the call was not let through (denied, deferred, answered).
    executed_input: dict[str, Any] | None = None
    #: The text this hook added for the model: its additional context, or the prompts a
    #: skill hook injected.
    context: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _RECORD_FIELDS}


_RECORD_FIELDS = tuple(f.name for f in fields(AuditRecord))

AuditCallback = Callable[[AuditRecord], None]


#: Size past which the audit file is rotated, and how many rotated files are kept.
DEFAULT_MAX_BYTES = 50_000_000
DEFAULT_KEEP = 5


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        return max(0, int(value))
    except ValueError:
        log.warning("%s=%r is not a whole number; using %d", name, value, default)
        return default


def rotate(path: Path, keep: int) -> None:
    """`path` becomes `path.1`, `path.1` becomes `path.2`, ...; the one past `keep` goes."""
    for index in range(keep, 0, -1):
        older = path.with_name(f"{path.name}.{index}")
        newer = path if index == 1 else path.with_name(f"{path.name}.{index - 1}")
        if newer.exists():
            os.replace(newer, older)
    if keep == 0:
        path.unlink(missing_ok=True)


def default_audit_path() -> Path:
    override = os.environ.get("HOOKWRIGHT_AUDIT_LOG")
    if override:
        return Path(override)
    return Path.home() / ".hookwright" / "audit.jsonl"


class AuditLog:
    """Collects verdicts and writes one record per hook run.

    `max_pending` bounds memory if the writer falls behind; verdicts past it are dropped and
    counted in `dropped`. The file is created 0600 (its folder 0700 when hookwright creates
    it) and rotated once it reaches `max_bytes` (``HOOKWRIGHT_AUDIT_MAX_BYTES``, default 50 MB),
    keeping `keep` rotated files (``HOOKWRIGHT_AUDIT_KEEP``, default 5).
    """

    def __init__(
        self,
        path: Path | None,
        *,
        max_pending: int = 10_000,
        flush_interval: float = 0.05,
        max_bytes: int | None = None,
        keep: int | None = None,
    ) -> None:
        self.path = path
        self.max_bytes = (
            _env_int("HOOKWRIGHT_AUDIT_MAX_BYTES", DEFAULT_MAX_BYTES)
            if max_bytes is None
            else max_bytes
        )
        self.keep = _env_int("HOOKWRIGHT_AUDIT_KEEP", DEFAULT_KEEP) if keep is None else keep
        self.callbacks: list[AuditCallback] = []
        self.dropped = 0
        self.written = 0
        self._secrets: set[str] = set()
        self._pending: collections.deque[_Pending | AuditRecord] = collections.deque()
        self._max_pending = max_pending
        self._interval = flush_interval
        self._wake = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._closed = False
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def active(self) -> bool:
        return self.path is not None or bool(self.callbacks)

    def add_callback(self, callback: AuditCallback) -> None:
        self.callbacks.append(callback)

    @property
    def secrets(self) -> AbstractSet[str]:
        """The registered secret values (read-only view)."""
        return self._secrets

    def add_secret(self, value: str) -> None:
        """Never write `value` to the audit: it is replaced by `***`."""
        if value:
            self._secrets.add(value)

    def submit(
        self, verdict: Verdict, session_id: str | None, inp: HookInput | None = None
    ) -> None:
        """Queue one record per hook run of `verdict`; `inp`, the dispatched input, gives the
        records their turn, tool call and inputs."""
        if verdict.runs:
            self._enqueue((verdict, session_id, time.time(), inp))

    def note(self, record: AuditRecord) -> None:
        """Write a record that is not a hook run (a host reporting an effect it could not
        apply)."""
        self._enqueue(record)

    def _enqueue(self, item: _Pending | AuditRecord) -> None:
        if not self.active:
            return
        if len(self._pending) >= self._max_pending:
            self.dropped += 1
            return
        self._pending.append(item)
        if self._thread is None:
            self._start()

    def _start(self) -> None:
        with self._lock:
            if self._thread is not None:
                return
            thread = threading.Thread(target=self._run, name="hookwright-audit", daemon=True)
            self._thread = thread
            thread.start()
            _live_logs.add(self)

    def _run(self) -> None:
        """The writer: nothing a record holds may end it (a bad one is dropped and counted)."""
        while True:
            self._wake.wait(self._interval)
            self._wake.clear()
            try:
                self._drain()
            except Exception:
                log.exception("audit writer: a batch of records was lost")
            if self._closed and not self._pending:
                return

    def _drain(self) -> None:
        if not self._pending:
            return
        self._idle.clear()
        try:
            records: list[AuditRecord] = []
            while self._pending:
                item = self._pending.popleft()
                try:
                    if isinstance(item, AuditRecord):
                        records.append(replace(item, reason=self._redact(item.reason)))
                    else:
                        records.extend(self._records(*item))
                except Exception:
                    self.dropped += 1
                    log.exception("audit: a record could not be built and was dropped")
            self._write(records)
        finally:
            self._idle.set()

    def _redact(self, text: str | None) -> str | None:
        if text is None or not self._secrets:
            return text
        for secret in self._secrets:
            text = text.replace(secret, "***")
        return text

    def _records(
        self, verdict: Verdict, session_id: str | None, ts: float, inp: HookInput | None
    ) -> list[AuditRecord]:
        call = _CallFacts.of(verdict, inp, self._redact_value)
        return [self._record(verdict, result, session_id, ts, call) for result in verdict.results]

    def _record(
        self,
        verdict: Verdict,
        result: HookResult,
        session_id: str | None,
        ts: float,
        call: _CallFacts,
    ) -> AuditRecord:
        spec = result.hook
        stderr = result.stderr[-STDERR_TAIL:] if result.stderr else None
        acted = result.has_effect or result.status is not Status.ok
        return AuditRecord(
            ts=ts,
            event=verdict.event.value,
            hook=spec.name if spec else "?",
            source=spec.source if spec else "?",
            dialect=spec.dialect if spec else "?",
            status=result.status.value,
            decision=result.decision.value if result.decision else None,
            duration_ms=round(result.duration_ms, 3),
            exit_code=result.exit_code,
            reason=self._redact(result.reason),
            error=self._redact(result.error),
            stderr_tail=self._redact(stderr),
            session_id=session_id,
            origin=spec.origin if spec else None,
            capabilities=_capabilities(spec.meta) if spec else None,
            patch=self._redact_value(result.patches) if result.patches else None,
            effect=effect_of(result) if acted else None,
            turn_id=call.turn_id,
            tool_name=call.tool_name,
            tool_use_id=call.tool_use_id,
            tool_input=call.tool_input,
            executed_input=call.executed_input,
            context=self._redact(_cap(_added_text(result))),
        )

    def _redact_value(self, value: Any) -> Any:
        """`value` with every registered secret in its strings written as `***`."""
        if isinstance(value, str):
            return self._redact(value)
        if isinstance(value, dict):
            return {str(k): self._redact_value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self._redact_value(v) for v in value]
        return value

    def _write(self, records: list[AuditRecord]) -> None:
        if self.path is not None and records:
            try:
                self._append("".join(_encode(r) + "\n" for r in records))
            except OSError as exc:
                log.warning("cannot write audit log %s: %s", self.path, exc)
        for record in records:
            self.written += 1
            for callback in self.callbacks:
                try:
                    callback(record)
                except Exception:
                    log.exception("audit callback %r failed", callback)

    def _append(self, text: str) -> None:
        assert self.path is not None
        if self.max_bytes > 0:
            with contextlib.suppress(FileNotFoundError):
                if self.path.stat().st_size >= self.max_bytes:
                    rotate(self.path, self.keep)
        with open_private(self.path, "a") as fh:
            fh.write(text)

    def flush(self, timeout: float = 5.0) -> None:
        """Wait until every submitted verdict is written."""
        if self._thread is None:
            return
        deadline = time.monotonic() + timeout
        while (self._pending or not self._idle.is_set()) and time.monotonic() < deadline:
            self._wake.set()
            time.sleep(0.005)

    def close(self) -> None:
        self.flush()
        self._closed = True
        self._wake.set()
        thread = self._thread
        if thread is not None:
            thread.join(timeout=5.0)
        _live_logs.discard(self)


_Pending = tuple[Verdict, str | None, float, HookInput | None]


def _encode(record: AuditRecord) -> str:
    """One JSON line; values JSON cannot hold are written as their text."""
    return _ENCODER.encode(record.to_dict())


def _cap(text: str | None) -> str | None:
    if text is None or len(text) <= TEXT_CAP:
        return text
    return text[:TEXT_CAP] + f"…[{len(text) - TEXT_CAP} more characters]"


def _capped(value: Any) -> Any:
    """A tool input with every long string cut to `TEXT_CAP` characters."""
    if isinstance(value, str):
        return _cap(value)
    if isinstance(value, dict):
        return {str(k): _capped(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_capped(v) for v in value]
    return value


def _added_text(result: HookResult) -> str | None:
    prompts = result.effects.prompt_injections if result.effects else ()
    texts = [result.additional_context] if result.additional_context else []
    texts += [prompt.content for prompt in prompts]
    return "\n\n".join(texts) if texts else None


@dataclass(slots=True, frozen=True)
class _CallFacts:
    """What every record of one dispatch shares: its turn and, on tool events, the call."""

    turn_id: str | None = None
    tool_name: str | None = None
    tool_use_id: str | None = None
    tool_input: dict[str, Any] | None = None
    executed_input: dict[str, Any] | None = None

    @classmethod
    def of(
        cls, verdict: Verdict, inp: HookInput | None, redact: Callable[[Any], Any]
    ) -> _CallFacts:
        if inp is None:
            return cls()
        if inp.event not in TOOL_EVENTS:
            return cls(turn_id=inp.turn_id)
        use_id = inp.payload.get("tool_use_id")
        tool_input = redact(_capped(inp.tool_input))
        executed = None
        if inp.event in INPUT_FIELD and _lets_call_through(verdict):
            after = verdict.updated_input if verdict.updated_input is not None else inp.tool_input
            executed = redact(_capped(after))
        return cls(
            turn_id=inp.turn_id,
            tool_name=inp.tool_name,
            tool_use_id=str(use_id) if use_id is not None else None,
            tool_input=tool_input,
            executed_input=executed,
        )


def _lets_call_through(verdict: Verdict) -> bool:
    """Whether the tool call goes on after this verdict (`continue: false` still runs it)."""
    return not (
        verdict.blocked
        or verdict.decision is Decision.defer
        or verdict.respond is not None
        or verdict.abort is not None
    )


def _capabilities(meta: Mapping[str, Any]) -> tuple[str, ...] | None:
    declared = meta.get("capabilities")
    if isinstance(declared, list | tuple | frozenset | set):
        return tuple(sorted(str(c) for c in declared))
    return None


_live_logs: weakref.WeakSet[AuditLog] = weakref.WeakSet()


@atexit.register
def _flush_all() -> None:
    for audit in list(_live_logs):
        audit.flush(timeout=2.0)
