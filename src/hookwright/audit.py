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
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hookwright.private_files import open_private
from hookwright.results import HookResult, Verdict

if TYPE_CHECKING:
    from hookwright.spec import HookSpec

log = logging.getLogger("hookwright.audit")

STDERR_TAIL = 2000
#: json's C encoder with `json.dumps(..., ensure_ascii=False, default=str)`'s settings, built
#: once instead of per call, and without the circular-reference check (records are trees; a
#: cycle in a hook's patch recurses until RecursionError and then goes through `json.dumps`).
_make_c_encoder = getattr(json.encoder, "c_make_encoder", None)
_encode_row: Callable[[Any, int], Sequence[str]] | None = (
    _make_c_encoder(None, str, json.encoder.encode_basestring, None, ": ", ", ", False, False, True)
    if _make_c_encoder is not None
    else None
)


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
    capabilities: tuple[str, ...] | None
    #: The patches the hook applied, by scope (OpenHarness `hookSpecificOutput.patch`).
    patch: dict[str, Any] | None

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _RECORD_FIELDS}


_RECORD_FIELDS = tuple(f.name for f in fields(AuditRecord))

AuditCallback = Callable[[AuditRecord], None]

#: A hook's name, source, dialect, origin and declared capabilities, as records carry them.
_SpecFields = tuple[str, str, str, str | None, tuple[str, ...] | None]
_NO_SPEC: _SpecFields = ("?", "?", "?", None, None)
_SPEC_CACHE_SIZE = 4096


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
        self._pending: collections.deque[tuple[Verdict, str | None, float] | AuditRecord] = (
            collections.deque()
        )
        self._max_pending = max_pending
        self._interval = flush_interval
        self._wake = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._closed = False
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._spec_cache: dict[int, tuple[HookSpec, _SpecFields]] = {}

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

    def submit(self, verdict: Verdict, session_id: str | None) -> None:
        if verdict.runs:
            self._enqueue((verdict, session_id, time.time()))

    def note(self, record: AuditRecord) -> None:
        """Write a record that is not a hook run (a host reporting an effect it could not
        apply)."""
        self._enqueue(record)

    def _enqueue(self, item: tuple[Verdict, str | None, float] | AuditRecord) -> None:
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
        while True:
            self._wake.wait(self._interval)
            self._wake.clear()
            self._drain()
            if self._closed and not self._pending:
                return

    def _drain(self) -> None:
        if not self._pending:
            return
        self._idle.clear()
        try:
            lines: list[str] = []
            records: list[AuditRecord] = []
            count = 0
            while self._pending:
                rows = self._item_rows(self._pending.popleft())
                count += len(rows)
                if self.path is not None:
                    lines.append("".join(map(_jsonl, rows)))
                if self.callbacks:
                    records.extend(AuditRecord(**row) for row in rows)
            self._write("".join(lines), records, count)
        finally:
            self._idle.set()

    def _item_rows(
        self, item: tuple[Verdict, str | None, float] | AuditRecord
    ) -> list[dict[str, Any]]:
        """The records of one pending item as dicts. Each batch is encoded as it is read so
        only its text is held, not thousands of dicts (which costs more than encoding)."""
        if isinstance(item, AuditRecord):
            return [replace(item, reason=self._redact(item.reason)).to_dict()]
        return self._rows(*item)

    def _redact(self, text: str | None) -> str | None:
        if text is None or not self._secrets:
            return text
        for secret in self._secrets:
            text = text.replace(secret, "***")
        return text

    def _rows(self, verdict: Verdict, session_id: str | None, ts: float) -> list[dict[str, Any]]:
        event = verdict.event.value
        return [self._row(event, result, session_id, ts) for result in verdict.results]

    def _row(
        self, event: str, result: HookResult, session_id: str | None, ts: float
    ) -> dict[str, Any]:
        """One hook run's `AuditRecord` fields, in field order, as a dict: the file gets it
        encoded as it is and only callbacks get the frozen record built from it."""
        hook, source, dialect, origin, capabilities = self._spec_fields(result.hook)
        stderr = result.stderr[-STDERR_TAIL:] if result.stderr else None
        return {
            "ts": ts,
            "event": event,
            "hook": hook,
            "source": source,
            "dialect": dialect,
            "status": result.status._value_,
            "decision": result.decision._value_ if result.decision else None,
            "duration_ms": round(result.duration_ms, 3),
            "exit_code": result.exit_code,
            "reason": self._redact(result.reason),
            "error": self._redact(result.error),
            "stderr_tail": self._redact(stderr),
            "session_id": session_id,
            "origin": origin,
            "capabilities": capabilities,
            "patch": self._redact_value(result.patches) if result.patches else None,
        }

    def _spec_fields(self, spec: HookSpec | None) -> _SpecFields:
        """name, source, dialect, origin, capabilities of `spec`, computed once per spec."""
        if spec is None:
            return _NO_SPEC
        cached = self._spec_cache.get(id(spec))
        if cached is not None and cached[0] is spec:
            return cached[1]
        if len(self._spec_cache) >= _SPEC_CACHE_SIZE:
            self._spec_cache.clear()
        values = (spec.name, spec.source, spec.dialect, spec.origin, _capabilities(spec.meta))
        self._spec_cache[id(spec)] = (spec, values)
        return values

    def _redact_value(self, value: Any) -> Any:
        """`value` with every registered secret in its strings written as `***`."""
        if isinstance(value, str):
            return self._redact(value)
        if isinstance(value, dict):
            return {str(k): self._redact_value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self._redact_value(v) for v in value]
        return value

    def _write(self, text: str, records: list[AuditRecord], count: int) -> None:
        if self.path is not None and text:
            try:
                self._append(text)
            except OSError as exc:
                log.warning("cannot write audit log %s: %s", self.path, exc)
        self.written += count
        for record in records:
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


def _jsonl(row: dict[str, Any]) -> str:
    """`json.dumps(row, ensure_ascii=False, default=str)`, newline-terminated."""
    try:
        if _encode_row is None:
            raise RecursionError
        return "".join(_encode_row(row, 0)) + "\n"
    except (RecursionError, ValueError):
        return json.dumps(row, ensure_ascii=False, default=str) + "\n"


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
