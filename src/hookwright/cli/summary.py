"""`hookwright run --summary`: at the end of the run, per hook, what it did to this run (from the
audit records of the session), in one screen."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from hookwright.cli.records import cut_text, describe
from hookwright.core.events import TOOL_EVENTS
from hookwright.core.spec import HookSpec
from hookwright.host.labels import event_words, hook_file, own_event, short_name, system_name
from hookwright.monitor.audit import AuditRecord

#: Most distinct actions listed for one hook.
MOST_ACTIONS = 3
#: Width of the hook column.
NAME_WIDTH = 22


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
    #: Why it did not run where nothing cut it: "no Bash call reached it", "its event never
    #: fired" (`_unreached`).
    unreached: str = "its event never fired"
    #: The calls an earlier hook's answer kept it from (`cut` records), in words.
    cut: list[str] = field(default_factory=list)

    def add(self, record: dict[str, Any]) -> None:
        if record.get("status") == "cut":
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
        for spec in hooks:
            if not spec.enabled:
                continue
            key = (spec.name, spec.dialect)
            line = self._declared.setdefault(
                key, HookLine(*key, file=_file(spec, project_dir), unreached=_unreached(spec))
            )
            if own := own_event(spec):
                line.own_events[spec.event.value] = own

    def __call__(self, record: AuditRecord) -> None:
        # A permission outcome and a hook reported as not run at open are records of the
        # session, not runs of a hook (the audit keeps them; stderr said the second already).
        if record.event == "Permission" or record.status == "not_run":
            return
        with self._lock:
            self._records.append(record.to_dict())

    def lines(self) -> list[HookLine]:
        """One line per hook, those that ran first, in the order they first ran."""
        by_hook = {
            key: HookLine(
                *key, own_events=dict(line.own_events), file=line.file, unreached=line.unreached
            )
            for key, line in self._declared.items()
        }
        with self._lock:
            records = list(self._records)
        ran: dict[tuple[str, str], HookLine] = {}
        for record in records:
            key = (record["hook"], record["dialect"])
            line = ran.get(key)
            if line is None:
                line = ran[key] = by_hook.pop(key, HookLine(*key))
            line.add(record)
        return [*ran.values(), *by_hook.values()]

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


def _unreached(spec: HookSpec) -> str:
    """Why a hook that nothing cut did not run: a tool hook's matcher selected no call that
    came (``no Bash call reached it``), or its event never came with it selected."""
    matcher = spec.shown_matcher() if spec.event in TOOL_EVENTS else None
    if matcher and matcher != "*":
        return f"no {matcher} call reached it"
    return "its event never fired"


def _listed(phrases: list[str]) -> list[str]:
    """The first `MOST_ACTIONS` phrases, and how many more there are."""
    shown = phrases[:MOST_ACTIONS]
    more = [f"{len(phrases) - len(shown)} more"] if len(phrases) > len(shown) else []
    return [*shown, *more]


def _did(line: HookLine) -> Text:
    if not line.runs:
        return Text("did not run: " + "; ".join(_listed(line.cut) or [line.unreached]), style="dim")
    text = Text(", ".join(line.events) + ": ", style="dim")
    parts = _listed(line.actions)
    if line.quiet:
        parts.append("ran, no decision " + ("once" if line.quiet == 1 else f"{line.quiet} times"))
    parts += _listed(line.cut)
    text.append("; ".join(parts))
    return text
