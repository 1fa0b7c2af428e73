"""What `hookwright audit` selects and how it prints it: the filters (`--since`, `--until`,
`--decision`, `--project`, `--hook`, `--event`, `--tier`, `--session`), the summary (counts
per day, hook and decision) and the export formats (JSON lines, CSV)."""

from __future__ import annotations

import csv
import json
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TextIO

from hookwright.core.audit_record import iso_utc
from hookwright.core.systems import effect_words, recorded_own_event
from hookwright.monitor.audit_chain import record_time

Record = dict[str, Any]
FORMATS = ("text", "jsonl", "csv")
#: The CSV columns: a record's fields in the file's order (nested values as JSON text).
CSV_COLUMNS = (
    "ts",
    "session_id",
    "turn_id",
    "event",
    "hook",
    "source",
    "dialect",
    "status",
    "decision",
    "effect",
    "reason",
    "error",
    "exit_code",
    "duration_ms",
    "tool_name",
    "tool_use_id",
    "tool_input",
    "executed_input",
    "context",
    "project",
    "host",
    "user",
    "model",
    "hookwright_version",
    "tier",
    "chain",
    "permission",
    "cut_by",
)
_AGO = re.compile(r"^(\d+)([smhdw])$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


class BadTime(ValueError):
    """A `--since`/`--until` value that is neither a time nor a duration."""


def parse_time(text: str, now: float | None = None) -> float:
    """`2026-11-24`, `2026-11-24T10:00`, `2026-11-24T10:00:00Z` (UTC unless the text gives an
    offset), or a duration back from now: `30m`, `2h`, `7d`, `1w`."""
    text = text.strip()
    ago = _AGO.match(text)
    if ago:
        return (time.time() if now is None else now) - int(ago[1]) * _UNIT_SECONDS[ago[2]]
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise BadTime(
            f"{text!r} is not a time (2026-11-24, 2026-11-24T10:00Z) or a duration (30m, 2h, 7d)"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.timestamp()


@dataclass(slots=True, frozen=True)
class Query:
    """Which records `hookwright audit` keeps; a None keeps every value."""

    session: str | None = None
    since: float | None = None
    until: float | None = None
    decision: str | None = None
    project: str | None = None
    hook: str | None = None
    event: str | None = None
    tier: str | None = None

    def keeps(self, record: Record) -> bool:
        if self.session and not str(record.get("session_id") or "").startswith(self.session):
            return False
        if self.since is not None or self.until is not None:
            when = record_time(record.get("ts"))
            if when is None:
                return False
            if self.since is not None and when < self.since:
                return False
            if self.until is not None and when >= self.until:
                return False
        if self.decision and self.decision not in (record.get("decision"), record.get("effect")):
            return False
        if self.project and not _under(record.get("project"), self.project):
            return False
        return all(
            wanted is None or record.get(name) == wanted
            for name, wanted in (("hook", self.hook), ("event", self.event), ("tier", self.tier))
        )

    def describe(self) -> str:
        """The filters given, as on the command line (for "no records match ...")."""
        given = [
            f"--{name} {value}"
            for name, value in (
                ("session", self.session),
                ("decision", self.decision),
                ("project", self.project),
                ("hook", self.hook),
                ("event", self.event),
                ("tier", self.tier),
            )
            if value
        ]
        given += [
            f"--{name} {iso_day_time(value)}"
            for name, value in (("since", self.since), ("until", self.until))
            if value is not None
        ]
        return " ".join(given)


def _under(project: object, wanted: str) -> bool:
    """The record's project is `wanted` or a folder under it."""
    if not isinstance(project, str):
        return False
    wanted = wanted.rstrip("/") or "/"
    return project == wanted or project.startswith(wanted.rstrip("/") + "/")


def iso_day_time(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def day_of(record: Record) -> str:
    when = record_time(record.get("ts"))
    return "?" if when is None else datetime.fromtimestamp(when, UTC).strftime("%Y-%m-%d")


#: A decision of one hook on one tool call: (session, tool call id, hook, decision).
_CallDecision = tuple[str, str, str, str]


class Summary:
    """Counts of records per UTC day, hook and decision (the effect when no decision).

    A hook that decides a tool call's permission is two records: its own run, and the
    permission outcome (`event` ``Permission``, `permission.by` ``hook``) restating that same
    decision under its name for the same call. That is one decision, counted once: the
    outcome is counted only when the run's record is not among those summed (filtered out,
    or in a file not read)."""

    def __init__(self) -> None:
        self.counts: Counter[tuple[str, str, str]] = Counter()
        #: The text table's counts: per day, hook and the decision in the words the hook's
        #: records say it in (`deny_tool (deny)`, a Gemini CLI `block (deny)` apart from its
        #: `deny`), each said as every view says it (`effect_words`).
        self.said: Counter[tuple[str, str, str]] = Counter()
        self._runs: set[_CallDecision] = set()
        self._restated: dict[_CallDecision, str] = {}

    def add(self, record: Record) -> None:
        cut = record.get("status") == "cut"  # a hook kept from running: neither ran nor decided
        decision = "cut" if cut else str(record.get("decision") or record.get("effect") or "none")
        hook = str(record.get("hook"))
        call = _call_decision(record, hook, decision)
        if call is not None and _restates_a_hook(record):
            self._restated[call] = day_of(record)
            return
        if call is not None:
            self._runs.add(call)
        self.counts[(day_of(record), hook, decision)] += 1
        self.said[(day_of(record), hook, _words(record, decision))] += 1

    def _count_restated(self) -> None:
        """Count the permission outcomes whose hook's own record was not summed, once."""
        for call, day in self._restated.items():
            if call not in self._runs:
                self.counts[(day, call[2], call[3])] += 1
                self.said[(day, call[2], call[3])] += 1
        self._restated.clear()

    def write(self, out: TextIO, fmt: str) -> None:
        self._count_restated()
        rows = sorted(self.counts.items())
        if fmt == "jsonl":
            for (day, hook, decision), count in rows:
                line = {"day": day, "hook": hook, "decision": decision, "count": count}
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
            return
        if fmt == "csv":
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(("day", "hook", "decision", "count"))
            writer.writerows((*key, count) for key, count in rows)
            return
        said = sorted(self.said.items())
        width = max((len(hook) for (_, hook, _), _ in said), default=4)
        wide = max([14, *(len(words) for (_, _, words), _ in said)])  # `not approved (deny)`
        out.write(f"{'day':<10}  {'hook':<{width}}  {'decision':<{wide}}  count\n")
        for (day, hook, words), count in said:
            out.write(f"{day:<10}  {hook:<{width}}  {words:<{wide}}  {count:>5}\n")


def _words(record: Record, decision: str) -> str:
    """A record's decision in the words of its hook's system (`effect_words`); a permission
    outcome's, canonically."""
    dialect, word = record.get("dialect"), record.get("own_word")
    if record.get("event") == "Permission" or not isinstance(dialect, str):
        return decision
    own = recorded_own_event(str(record.get("event")), dialect)
    return effect_words(decision, dialect, own, word if isinstance(word, str) else None)


def _call_decision(record: Record, hook: str, decision: str) -> _CallDecision | None:
    """The call and decision a record is about; None for one not about a tool call."""
    session, call = record.get("session_id"), record.get("tool_use_id")
    if not isinstance(session, str) or not isinstance(call, str):
        return None
    return (session, call, hook, decision)


def _restates_a_hook(record: Record) -> bool:
    """A permission outcome that a hook decided: the hook's own record says it too."""
    permission = record.get("permission")
    by_hook = isinstance(permission, dict) and permission.get("by") == "hook"
    return record.get("event") == "Permission" and by_hook


def csv_printer(out: TextIO) -> Callable[[Record], None]:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)

    def emit(record: Record) -> None:
        cells = [_cell(record.get(name)) for name in CSV_COLUMNS]
        when = record_time(record.get("ts"))
        cells[0] = "" if when is None else iso_utc(when)
        writer.writerow(cells)
        out.flush()

    return emit


def _cell(value: Any) -> Any:
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return "" if value is None else value
