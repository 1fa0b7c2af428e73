"""The audit trail: one record per hook run, written off the dispatch path.

`dispatch` hands the finished verdict to `AuditLog.submit`, which copies the tool inputs and
appends a tuple to a deque. A writer thread turns the queued dispatches into JSON lines in
batches (`audit_lines`) and, when Python callbacks are registered, into `AuditRecord`s for
them, so a slow disk or a slow callback never delays the host.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import os
import threading
import time
import weakref
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from pathlib import Path

from hookwright.core.audit_record import AuditCallback as AuditCallback
from hookwright.core.audit_record import AuditContext as AuditContext
from hookwright.core.audit_record import AuditRecord as AuditRecord
from hookwright.core.effects import failure_fix
from hookwright.core.events import TOOL_EVENTS, HookInput
from hookwright.core.home import user_home
from hookwright.core.logs import LazyLogger
from hookwright.core.redaction import redact, redact_json, register
from hookwright.core.results import HookResult, Status, Verdict, effect_of
from hookwright.core.verdict_chain import tiered, verdict_chain
from hookwright.monitor.audit_chain import ChainedFile, RotationRule
from hookwright.monitor.audit_lines import (
    ENCODER,
    STDERR_TAIL,
    Call,
    LineEncoder,
    about_text,
    added_text,
    call_facts,
    cap_text,
    clean,
    snapshot,
    utf8,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol, TypeAlias

    from hookwright.core.audit_detail import CutBy

log = LazyLogger("hookwright.monitor.audit")


#: Size past which the audit file is rotated, and how many rotated files are kept: at 5,000
#: records a second (some 3 MB/s) 25 files of 1 GB hold over two hours; at a team's usual
#: rate they hold weeks, one file a day (`DEFAULT_ROLLOVER`).
DEFAULT_MAX_BYTES = 1_000_000_000
DEFAULT_KEEP = 24
#: Age (seconds) past which the file is rotated (0: no limit), and the daily rollover.
DEFAULT_MAX_AGE = 0
DEFAULT_ROLLOVER = "daily"
ROLLOVERS = ("daily", "none")


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        return max(0, int(value))
    except ValueError:
        log.warning("%s=%r is not a whole number; using %d", name, value, default)
        return default


def _env_rollover() -> bool:
    value = os.environ.get("HOOKWRIGHT_AUDIT_ROLLOVER", "").strip().lower() or DEFAULT_ROLLOVER
    if value not in ROLLOVERS:
        log.warning(
            "HOOKWRIGHT_AUDIT_ROLLOVER=%r is not one of %s; using %s",
            value,
            ", ".join(ROLLOVERS),
            DEFAULT_ROLLOVER,
        )
        value = DEFAULT_ROLLOVER
    return value == "daily"


#: Where `getpass.getuser` looks for the user's name, in its order.
_USER_VARIABLES = ("LOGNAME", "USER", "LNAME", "USERNAME")


def _user() -> str | None:
    """The name `getpass.getuser()` answers, without importing `getpass` (which imports
    `termios` at its top, for a password prompt an audit never shows): the first of its
    variables set, else the password database's entry for this uid."""
    for name in _USER_VARIABLES:
        user = os.environ.get(name)
        if user:
            return user
    try:
        import pwd
    except ImportError:
        return None
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return None


def rotate(path: Path, keep: int) -> None:
    """`path` becomes `path.1`, `path.1` becomes `path.2`, ...; the one past `keep` goes.
    Names are moved, never followed: a link at any of them is renamed or replaced as a link."""
    for index in range(keep, 0, -1):
        older = path.with_name(f"{path.name}.{index}")
        newer = path if index == 1 else path.with_name(f"{path.name}.{index - 1}")
        if os.path.lexists(newer):
            os.replace(newer, older)
    if keep == 0:
        path.unlink(missing_ok=True)


#: A protocol, for the type checker alone (a process that answers one event loads no
#: `typing`): `AuditLog` follows it.
if TYPE_CHECKING:

    class AuditSink(Protocol):
        """What the monitor's watchers need of an audit: somewhere to submit a dispatch's runs,
        and the secret values never to show."""

        @property
        def secrets(self) -> AbstractSet[str]: ...

        @property
        def active(self) -> bool:
            """Whether it records anything (a file, a callback): a monitor with nothing else to do
            skips the end of a dispatch when it does not."""
            ...

        def submit(
            self, verdict: Verdict, session_id: str | None, inp: HookInput | None = None
        ) -> None: ...


def default_audit_path() -> Path:
    override = os.environ.get("HOOKWRIGHT_AUDIT_LOG")
    if override:
        return Path(override)
    return user_home() / ".hookwright" / "audit.jsonl"


class AuditLog:
    """Collects verdicts and writes one record per hook run.

    `max_pending` bounds memory if the writer falls behind; verdicts past it are dropped and
    counted in `dropped`. The file is created 0600 (its folder 0700 when hookwright creates
    it), opened without following a link at its name (a link there is a logged write error),
    written as a hash chain (`audit_chain`) and rotated once it reaches `max_bytes`
    (``HOOKWRIGHT_AUDIT_MAX_BYTES``, default 1 GB), once its first record is `max_age`
    seconds old (``HOOKWRIGHT_AUDIT_MAX_AGE``, default 0: no limit) and, with `daily`
    (``HOOKWRIGHT_AUDIT_ROLLOVER``, ``daily`` by default or ``none``), at the first record of
    a new UTC day, keeping `keep` rotated files (``HOOKWRIGHT_AUDIT_KEEP``, default 24).
    """

    def __init__(
        self,
        path: Path | None,
        *,
        max_pending: int = 10_000,
        flush_interval: float = 0.05,
        max_bytes: int | None = None,
        keep: int | None = None,
        max_age: float | None = None,
        daily: bool | None = None,
    ) -> None:
        self.path = path
        self.rotation = RotationRule(
            max_bytes=_env_int("HOOKWRIGHT_AUDIT_MAX_BYTES", DEFAULT_MAX_BYTES)
            if max_bytes is None
            else max_bytes,
            keep=_env_int("HOOKWRIGHT_AUDIT_KEEP", DEFAULT_KEEP) if keep is None else keep,
            max_age=_env_int("HOOKWRIGHT_AUDIT_MAX_AGE", DEFAULT_MAX_AGE)
            if max_age is None
            else max_age,
            daily=_env_rollover() if daily is None else daily,
        )
        self._file = None if path is None else ChainedFile(path, self.rotation, rotate)
        #: Who and what writes the records (`describe`).
        self.about = AuditContext(user=_user(), hookwright_version=_version())
        self.callbacks: list[AuditCallback] = []
        #: It writes a file or has a callback (set by `add_callback`): read on every dispatch,
        #: so an attribute rather than a property.
        self.active = path is not None
        self.dropped = 0
        self.written = 0
        self._secrets: set[str] = set()
        self._secret_values: tuple[str, ...] = ()
        self._lines = LineEncoder(self._redact, self._redact_json)
        self._lines.about = about_text(self.about)
        self._pending: collections.deque[_Pending | AuditRecord] = collections.deque()
        self._max_pending = max_pending
        self._interval = flush_interval
        #: Rung (released) to wake the writer before its interval is up: a bare lock, whose
        #: wait with a timeout is the interpreter's own, where an `Event`'s is Python code.
        self._bell = threading.Lock()
        self._bell.acquire()
        #: A batch is being written (read by `flush`, which waits on `_drained`).
        self._busy = False
        self._drained = threading.Event()
        self._closed = False
        self._thread: threading.Thread | None = None
        #: Records are written by the thread that flushes or closes the log (`write_on_close`).
        self._on_close = False
        self._lock = threading.Lock()
        #: Every record is marked ``"test": true`` (`hookwright hooks test`).
        self.test = False

    @property
    def max_bytes(self) -> int:
        return self.rotation.max_bytes

    @property
    def keep(self) -> int:
        return self.rotation.keep

    def describe(
        self, *, project: str | None = None, host: str | None = None, model: str | None = None
    ) -> None:
        """Set what every record written from now on says about its project, its host and
        its model (a None leaves that field as it is)."""
        about = self.about
        self.about = replace(
            about,
            project=about.project if project is None else project,
            host=about.host if host is None else host,
            model=about.model if model is None else model,
        )
        self._lines.about = about_text(self.about)

    def add_callback(self, callback: AuditCallback) -> None:
        self.callbacks.append(callback)
        self.active = True

    @property
    def secrets(self) -> AbstractSet[str]:
        """The registered secret values (read-only view)."""
        return self._secrets

    def add_secret(self, value: str) -> None:
        """Never write `value` to the audit: it is replaced by `***` (`hookwright.core.redaction`,
        which the debug trace then redacts too)."""
        if value and value not in self._secrets:
            self._secrets.add(value)
            # A tuple, replaced whole: the writer thread iterates it while hosts add secrets.
            self._secret_values = (*self._secret_values, value)
            self._lines.secrets = self._secret_values
            register(value)

    def submit(
        self, verdict: Verdict, session_id: str | None, inp: HookInput | None = None
    ) -> None:
        """Queue one record per hook run of `verdict`; `inp`, the dispatched input, gives the
        records their turn, tool call and inputs. The dispatch thread only copies the tool
        inputs (so later changes to them do not reach the records) and appends a tuple."""
        if not verdict.runs or not self.active:
            return
        turn_id = call = None
        if inp is not None:
            turn_id = inp.turn_id
            if inp.event in TOOL_EVENTS:
                try:
                    call = _call_of(inp, verdict.updated_input)
                except Exception:
                    # An input another thread changes while it is copied: nothing may raise
                    # into the host, so the dispatch goes unrecorded and is counted.
                    self.dropped += 1
                    log.exception("audit: the tool input could not be copied")
                    return
        self._enqueue((verdict, session_id, time.time(), turn_id, call))

    def note(self, record: AuditRecord) -> None:
        """Write a record that is not a hook run (a host reporting an effect it could not
        apply)."""
        if self.active:
            self._enqueue(record)

    def _enqueue(self, item: _Pending | AuditRecord) -> None:
        if len(self._pending) >= self._max_pending:
            self.dropped += 1
            return
        self._pending.append(item)
        if self._thread is None:
            if self._on_close:
                _live_logs.add(self)  # written at exit if never closed, as the writer's are
            else:
                self._start()

    def write_on_close(self) -> None:
        """Keep the records until `flush` or `close`, and write them then on the calling
        thread: for a process that answers one event and closes its session right after,
        which has nothing to write meanwhile (no writer thread to start, wake and hand the
        records to). A writer already started stays in charge."""
        self._on_close = True

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
            self._bell.acquire(timeout=self._interval)
            try:
                self._drain()
            except Exception:
                log.exception("audit writer: a batch of records was lost")
            if not self._pending:
                self._drained.set()
                if self._closed:
                    return

    def _drain_here(self) -> None:
        """What the writer does with the pending records, done by the calling thread
        (`write_on_close`): nothing a record holds may raise into the caller."""
        with self._lock:
            try:
                self._drain()
            except Exception:
                log.exception("audit: a batch of records was lost")
            if self._file is not None:
                self._file.release()

    def _drain(self) -> None:
        if not self._pending:
            # Nothing came since the last batch: the file is closed until something does.
            if self._file is not None:
                self._file.release()
            return
        self._busy = True
        try:
            pending = self._pending
            batch = [pending.popleft() for _ in range(len(pending))]
            if self.callbacks or self.test:
                self._write_records(batch)
            else:
                self._write_lines(batch)
        finally:
            self._busy = False

    def _write_lines(self, batch: list[_Pending | AuditRecord]) -> None:
        """The usual case, no callback: lines assembled by the `LineEncoder`."""
        out: list[bytes] = []
        count = 0
        for item in batch:
            mark = len(out)
            try:
                if isinstance(item, AuditRecord):
                    out.append(_body(self._redacted(item)))
                    count += 1
                elif (item[0].terminal and item[0].cut) or tiered(item[0].runs):
                    # Tiers, shadow hooks and the hooks a terminal answer kept from running
                    # add fields and records the line encoder does not write.
                    records = self._records(*item)
                    out += [_body(record) for record in records]
                    count += len(records)
                else:
                    count += self._lines.add(out, *item)
            except Exception:
                del out[mark:]
                self.dropped += 1
                log.exception("audit: a record could not be built and was dropped")
        self._append_bodies(out)
        self.written += count

    def _write_records(self, batch: list[_Pending | AuditRecord]) -> None:
        """With callbacks: an `AuditRecord` per hook run, for the callbacks and the file."""
        records: list[AuditRecord] = []
        lines: list[bytes] = []
        for item in batch:
            try:
                built = (
                    [self._redacted(item)]
                    if isinstance(item, AuditRecord)
                    else self._records(*item)
                )
                if self.path is not None:
                    lines += [_body(record) for record in built]
            except Exception:
                self.dropped += 1
                log.exception("audit: a record could not be built and was dropped")
                continue
            records += built
        self._append_bodies(lines)
        for record in records:
            self.written += 1
            for callback in self.callbacks:
                try:
                    callback(record)
                except Exception:
                    log.exception("audit callback %r failed", callback)

    def _redacted(self, record: AuditRecord) -> AuditRecord:
        return replace(
            record,
            reason=self._redact(record.reason),
            test=self.test,
            about=record.about or self.about,
        )

    def _redact(self, text: str | None) -> str | None:
        return None if text is None else redact(text, self._secret_values)

    def _redact_json(self, text: str) -> str:
        """`text`, JSON, with each secret as it is written inside a JSON string replaced."""
        return redact_json(text, self._secret_values)

    def _records(
        self,
        verdict: Verdict,
        session_id: str | None,
        ts: float,
        turn_id: str | None,
        call: Call | None,
    ) -> list[AuditRecord]:
        facts = call_facts(verdict, turn_id, call)
        turn, tool_name, use_id, tool_input, executed = facts
        shared = _CallFacts(
            turn_id=turn,
            tool_name=tool_name,
            tool_use_id=use_id,
            tool_input=clean(tool_input, self._redact, cap=True),
            executed_input=clean(executed, self._redact, cap=True),
        )
        records = [
            self._record(verdict, result, session_id, ts, shared) for result in verdict.results
        ]
        if tiered(verdict.runs):
            chain = verdict_chain(verdict.runs)
            records = [
                replace(
                    record,
                    tier=result.hook.tier if result.hook else None,
                    shadow=result.hook.shadow if result.hook else False,
                    chain=chain,
                )
                for record, result in zip(records, verdict.results, strict=True)
            ]
        if verdict.terminal and verdict.cut:
            records += self._cut_records(verdict, session_id, ts, shared)
        return records

    def _cut_records(
        self, verdict: Verdict, session_id: str | None, ts: float, call: _CallFacts
    ) -> list[AuditRecord]:
        """One record (status ``cut``) per selected hook the verdict's terminal answer kept
        from running, naming the hook whose answer it was (`cut_by`)."""
        by = cut_by(verdict)
        return [
            AuditRecord(
                ts=ts,
                event=verdict.event.value,
                hook=spec.name,
                source=spec.source,
                dialect=spec.dialect,
                status="cut",
                decision=None,
                duration_ms=0.0,
                exit_code=None,
                reason=self._redact(f"not run: {by.hook!r}'s {by.decision} ended the dispatch"),
                error=None,
                stderr_tail=None,
                session_id=session_id,
                origin=spec.origin,
                turn_id=call.turn_id,
                tool_name=call.tool_name,
                tool_use_id=call.tool_use_id,
                tool_input=call.tool_input,
                test=self.test,
                about=self.about,
                tier=spec.tier,
                cut_by=replace(by, hook=self._redact(by.hook) or by.hook),
            )
            for spec in verdict.cut
        ]

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
            capabilities=spec.capabilities if spec else None,
            patch=clean(result.patches, self._redact, cap=False) if result.patches else None,
            effect=effect_of(result) if acted else None,
            turn_id=call.turn_id,
            tool_name=call.tool_name,
            tool_use_id=call.tool_use_id,
            tool_input=call.tool_input,
            executed_input=call.executed_input,
            context=self._redact(cap_text(added_text(result))),
            test=self.test,
            about=self.about,
            fix=self._redact(failure_fix(result.effects)),
            own_word=result.own_word,
        )

    def _append_bodies(self, bodies: list[bytes]) -> None:
        if self._file is None or not bodies:
            return
        try:
            self._file.append(bodies)
        except OSError as exc:
            log.warning("cannot write audit log %s: %s", self.path, exc)

    def flush(self, timeout: float = 5.0) -> None:
        """Wait until every submitted verdict is written."""
        if self._thread is None:
            if self._on_close:
                self._drain_here()
            return
        deadline = time.monotonic() + timeout
        while self._pending or self._busy:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            self._drained.clear()
            self._ring()
            self._drained.wait(min(remaining, self._interval))

    def _ring(self) -> None:
        """Wake the writer (a bell already rung stays rung)."""
        with contextlib.suppress(RuntimeError):
            self._bell.release()

    def close(self) -> None:
        self.flush()
        self._closed = True
        self._ring()
        thread = self._thread
        if thread is not None:
            thread.join(timeout=5.0)
        if self._file is not None and (thread is None or not thread.is_alive()):
            self._file.release()
        _live_logs.discard(self)


#: (verdict, session_id, time, turn_id, call): one dispatch waiting for the writer.
_Pending: TypeAlias = "tuple[Verdict, str | None, float, str | None, Call | None]"


def cut_by(verdict: Verdict) -> CutBy:
    """The hook whose answer made `verdict` terminal, and that answer: the first applied
    (not shadow) result after which the merged verdict was terminal. A verdict never turns
    non-terminal again, and the dispatch ends after that result's stage."""
    from hookwright.core.audit_detail import CutBy  # made for a cut record alone

    merged = Verdict(verdict.event)
    for result in verdict.results:
        spec = result.hook
        if spec is None or spec.shadow:
            continue
        merged.absorb(result)
        if merged.terminal:
            return CutBy(hook=spec.name, decision=effect_of(result))
    return CutBy(hook="?", decision="answer")


def _call_of(inp: HookInput, updated: dict[str, Any] | None) -> Call:
    payload = inp.payload
    return (
        payload.get("tool_name"),
        payload.get("tool_use_id"),
        snapshot(inp.tool_input),
        None if updated is None else snapshot(updated),
    )


def _body(record: AuditRecord) -> bytes:
    """The record's line without its closing brace (the chain closes it); values JSON cannot
    hold are written as their text."""
    return utf8(ENCODER.encode(record.to_dict())[:-1])


def _version() -> str:
    from hookwright import __version__

    return __version__


@dataclass(slots=True, frozen=True)
class _CallFacts:
    """What every record of one dispatch shares: its turn and, on tool events, the call."""

    turn_id: str | None = None
    tool_name: str | None = None
    tool_use_id: str | None = None
    tool_input: dict[str, Any] | None = None
    executed_input: dict[str, Any] | None = None


_live_logs: weakref.WeakSet[AuditLog] = weakref.WeakSet()


@atexit.register
def _flush_all() -> None:
    for audit in list(_live_logs):
        audit.flush(timeout=2.0)
