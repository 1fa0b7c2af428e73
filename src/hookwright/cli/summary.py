"""`hookwright run --summary`: at the end of the run, per hook, what it did to this run (from the
audit records of the session), or why it did not run (from the engine's selection on each
dispatch, `skip_tally`), in one screen. A tool is named as the hook read it (`spawn_agent` to a
Codex hook, `Agent` to a Claude Code hook, for one call)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from hookwright.cli.records import clip, cut_text, describe
from hookwright.cli.skip_tally import Skipped, SkipTally
from hookwright.core.events import TOOL_EVENTS, Event
from hookwright.core.spec import HookSpec
from hookwright.dialects.tool_views import call_seen
from hookwright.engine.selection import Check
from hookwright.host.labels import event_words, hook_file, own_event, short_name, system_name
from hookwright.monitor.audit import AuditRecord

if TYPE_CHECKING:
    from hookwright.engine.kernel import HookEngine

#: Most distinct actions listed for one hook.
MOST_ACTIONS = 3
#: Width of the hook column.
NAME_WIDTH = 22
#: Most distinct reasons kept for one hook (a model calling ever new tool names makes more):
#: past it, what a reason saw is counted, not named.
MOST_SKIPS = 256
#: Longest value shown of what a check saw (a tool name).
SEEN_WIDTH = 40


@dataclass(slots=True)
class HookLine:
    name: str
    dialect: str
    events: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    runs: int = 0
    quiet: int = 0
    #: Canonical event -> the event in its author's words (a skill's timing, a PicoClaw
    #: method), where they differ.
    own_events: dict[str, str] = field(default_factory=dict)
    #: The file the hook came from.
    file: str | None = None
    #: The events it is registered on, canonical (`Event.value`), in declaration order.
    declared: list[str] = field(default_factory=list)
    #: The dispatches the engine did not run it on, and why (`SkipTally`), with their count.
    skipped: dict[Skipped, int] = field(default_factory=dict)
    #: The calls an earlier hook's answer kept it from (`cut` records), in words.
    cut: list[str] = field(default_factory=list)
    #: The events of those calls, canonical: they fired.
    cut_events: set[str] = field(default_factory=set)

    def add(self, record: dict[str, Any]) -> None:
        if record.get("status") == "cut":
            self.cut_events.add(record["event"])
            if (text := cut_text(record)) not in self.cut:
                self.cut.append(text)
            return
        self.runs += 1
        event = event_words(record["event"], self.own_events.get(record["event"]))
        if event not in self.events:
            self.events.append(event)
        if record.get("effect") is None:
            self.quiet += 1
            return
        action = describe(record)
        if action not in self.actions:
            self.actions.append(action)


class RunSummary:
    """Collects the session's audit records (an audit callback, called on the writer thread)
    and prints the table once the engine is closed. Disabled specs (process carriers, hooks
    with `enabled: false`) are never dispatched and not listed."""

    def __init__(self, hooks: Sequence[HookSpec], project_dir: Path | None = None) -> None:
        self._records: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._declared: dict[tuple[str, str], HookLine] = {}
        self._skipped: dict[tuple[str, str], dict[Skipped, int]] = {}
        for spec in hooks:
            if not spec.enabled:
                continue
            key = (spec.name, spec.dialect)
            line = self._declared.setdefault(key, HookLine(*key, file=_file(spec, project_dir)))
            if spec.event.value not in line.declared:
                line.declared.append(spec.event.value)
            if own := own_event(spec):
                line.own_events[spec.event.value] = own

    def watch(self, engine: HookEngine) -> None:
        """Learn from `engine` why it does not run a hook on each dispatch from now on."""
        engine.monitor = SkipTally(engine.monitor, engine.explain, self._skip)

    def _skip(self, spec: HookSpec, skipped: Skipped) -> None:
        with self._lock:
            counts = self._skipped.setdefault((spec.name, spec.dialect), {})
            if skipped not in counts and len(counts) >= MOST_SKIPS:
                skipped = replace(skipped, seen=None)  # counted, not named
            counts[skipped] = counts.get(skipped, 0) + 1

    def __call__(self, record: AuditRecord) -> None:
        # A permission outcome and a hook reported as not run at open are records of the
        # session, not runs of a hook (the audit keeps them; stderr said the second already).
        if record.event == "Permission" or record.status == "not_run":
            return
        with self._lock:
            self._records.append(_as_read(record.to_dict()))

    def lines(self) -> list[HookLine]:
        """One line per hook, those that ran first, in the order they first ran; then those
        declared at start; then those registered later (a skill's frontmatter hooks) that the
        engine considered and did not run."""
        by_hook = {
            key: HookLine(
                *key, own_events=dict(line.own_events), file=line.file, declared=line.declared
            )
            for key, line in self._declared.items()
        }
        with self._lock:
            records = list(self._records)
            skipped = {key: dict(counts) for key, counts in self._skipped.items()}
        ran: dict[tuple[str, str], HookLine] = {}
        for record in records:
            key = (record["hook"], record["dialect"])
            line = ran.get(key)
            if line is None:
                line = ran[key] = by_hook.pop(key, HookLine(*key))
            line.add(record)
        later = [HookLine(*key) for key in skipped if key not in ran and key not in by_hook]
        lines = [*ran.values(), *by_hook.values(), *later]
        for line in lines:
            line.skipped = skipped.get((line.name, line.dialect), {})
        return lines

    def print(self, console: Console, session_id: str) -> None:
        table = Table(
            title="What each hook did in this run",
            title_justify="left",
            box=box.SIMPLE_HEAD,
            pad_edge=False,
        )
        table.add_column("hook", max_width=NAME_WIDTH, overflow="fold")
        table.add_column("system", no_wrap=True)
        table.add_column("what it did", overflow="fold")
        for line in self.lines():
            table.add_row(_name(line.name), _system(line), _did(line))
        console.print(table)
        console.print(
            Text(f"Every hook run: hookwright audit --session {session_id}", style="dim"),
            soft_wrap=True,
        )


def _as_read(record: dict[str, Any]) -> dict[str, Any]:
    """`record` with its call named as its hook read it, the input that ran too: a Codex
    hook's `spawn_agent` and `message` for the host's `Agent` and `prompt`, a Gemini CLI
    hook's `run_shell_command` for `Bash` (`tool_views`)."""
    tool, dialect = record.get("tool_name"), record.get("dialect")
    if not isinstance(tool, str) or not isinstance(dialect, str):
        return record
    name, shown = call_seen(dialect, tool, record.get("tool_input"))
    read = {**record, "tool_name": name, "tool_input": shown}
    if record.get("executed_input") is not None:
        read["executed_input"] = call_seen(dialect, tool, record["executed_input"])[1]
    return read


def _name(name: str) -> str:
    """A command hook is named by the script it runs; another long name keeps its end."""
    name = short_name(name)
    return name if len(name) <= NAME_WIDTH else "…" + name[-(NAME_WIDTH - 1) :]


def _file(spec: HookSpec, project_dir: Path | None) -> str | None:
    """The hook's file by its last two parts (`.claude/settings.json`), to fit the column."""
    file = hook_file(spec, project_dir)
    return str(Path(*Path(file).parts[-2:])) if file else None


def _system(line: HookLine) -> Text:
    """The system as its users call it, the hook's file under it."""
    text = Text(system_name(line.dialect))
    if line.file:
        text.append(f"\n{line.file}", style="dim")
    return text


def _seen(counts: dict[str | None, int]) -> str:
    """``Bash ×2, Read``: what the deciding check read, in the order first seen (the first
    `MOST_ACTIONS`, then how many more). A value is the model's or a hook's (a tool name): it
    is shown printable and clipped."""
    shown = [
        clip("".join(c if c.isprintable() else "?" for c in seen or "other"), SEEN_WIDTH)
        + (f" ×{n}" if n > 1 else "")
        for seen, n in islice(counts.items(), MOST_ACTIONS)
    ]
    rest = sum(counts.values()) - sum(islice(counts.values(), MOST_ACTIONS))
    return ", ".join(shown) + (f" and {rest} more" if rest else "")


def _times(words: str, times: int) -> str:
    return words if times == 1 else f"{words} ×{times}"


def _why(
    line: HookLine, check: Check, event: str, rule: str | None, seen: dict[str | None, int]
) -> str:
    """Why the engine did not run `line`'s hook on the dispatches of `event` it names."""
    words = event_words(event, line.own_events.get(event))
    if check is Check.matcher:
        if Event(event) in TOOL_EVENTS:
            return f"its matcher {rule!r} matched no call ({_seen(seen)})"
        return f"its matcher {rule!r} did not match {words} ({_seen(seen)})"
    if check is Check.if_rule:
        return f"its `if` {rule!r} was false on {_seen(seen)}"
    on = _times(words, sum(seen.values()))
    return {
        Check.once: f"`once`: not run again on {on}",
        Check.condition: f"its condition was false on {on}",
        Check.scope: f"{on} fired for another session or agent",
        Check.dedup: f"an identical hook ran in its place on {on}",
        Check.held: f"{on} fired for other hooks only",
    }[check]


def _skips(line: HookLine) -> list[str]:
    """Why the engine did not run the hook, per check and event; then each event of it that
    never fired."""
    grouped: dict[tuple[Check, str, str | None], dict[str | None, int]] = {}
    for skip, n in line.skipped.items():
        seen = grouped.setdefault((skip.check, skip.event, skip.rule), {})
        seen[skip.seen] = seen.get(skip.seen, 0) + n
    reasons = [_why(line, *key, seen) for key, seen in grouped.items()]
    fired = {event for _check, event, _rule in grouped} | line.cut_events
    for event in line.declared:
        if event not in fired:
            reasons.append(f"{event_words(event, line.own_events.get(event))} never fired")
    return reasons


def _listed(phrases: list[str]) -> list[str]:
    """The first `MOST_ACTIONS` phrases, and how many more there are."""
    shown = phrases[:MOST_ACTIONS]
    more = [f"{len(phrases) - len(shown)} more"] if len(phrases) > len(shown) else []
    return [*shown, *more]


def _did(line: HookLine) -> Text:
    if not line.runs:
        return Text("did not run: " + "; ".join(_listed([*line.cut, *_skips(line)])), style="dim")
    text = Text(", ".join(line.events) + ": ", style="dim")
    parts = _listed(line.actions)
    if line.quiet:
        parts.append("ran, no decision " + ("once" if line.quiet == 1 else f"{line.quiet} times"))
    parts += _listed(line.cut)
    once = [skip for skip in line.skipped if skip.check is Check.once]
    parts += [_why(line, Check.once, skip.event, None, {None: line.skipped[skip]}) for skip in once]
    text.append("; ".join(parts))
    return text
