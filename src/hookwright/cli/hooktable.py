"""The hooks of a project or session, grouped by event: one entry per hook, two short lines
each (what and when, and how it fails; where it was declared), and a third for a hook that
fails closed (what closed it), so the listing reads at 80 columns; a longer line wraps under
its own text, never cut."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.text import Text

from hookwright.config.loading import timeout_grace
from hookwright.config.policy import FailurePolicy
from hookwright.core.events import Event
from hookwright.core.home import user_home
from hookwright.core.spec import HookSpec
from hookwright.engine.kernel import HookEngine
from hookwright.host.failure_policy import OPEN, FailureMode, failure_mode, untrusted_failure_mode
from hookwright.host.labels import own_event, system_name
from hookwright.host.not_run import NOT_BOUND_FIX, NotRun, NotRunReason

NOT_TRUSTED = "not trusted: will not run"
#: What each reason a hook will not run reads as in the listing.
NOT_RUN_NOTES: dict[NotRunReason, str] = {
    "untrusted": NOT_TRUSTED,
    "not_bound": f"will not run: {NOT_BOUND_FIX}",
    "missing_command": "fails when it runs: missing command",
    "not_executable": "fails when it runs: command not executable",
}


@dataclass(frozen=True, slots=True)
class HookRow:
    """One listed hook; `event` "-" for a hook only its code can place; `not_run` why a
    declared hook will not run, or why a registered one fails when it runs (its program is
    missing or not executable; None for a hook that runs); `fails` whether its failure lets
    the action go on (open) or blocks it (closed), `closed_by` the policy rule (file and
    `rules[<i>]`) or the hook's own field that closed it."""

    event: str
    index: int | None
    name: str
    source: str
    dialect: str
    matcher: str
    if_rule: str
    mode: str
    timeout: float | None
    origin: str
    trusted: bool
    note: str
    not_run: NotRunReason | None = None
    fails: str = "open"
    closed_by: str | None = None
    once: bool = False
    tier: str | None = None
    #: What the engine allows beyond the hook's own `timeout` (OpenHarness: the handler's
    #: `timeout_seconds` ends it first, the engine's deadline is this much later).
    grace: float | None = None
    #: The event in the words of the hook's author, when they differ from `event`.
    own_event: str | None = None
    #: Where the entry line points instead of `origin` (a load error's file: its note names
    #: the field, said once).
    shown_origin: str | None = None


def is_plumbing(spec: HookSpec) -> bool:
    """A dialect's carrier for its own machinery (PicoClaw's config watch): registered in
    process, never dispatched, declared in no file; not a hook to list."""
    return not spec.enabled and spec.source == "in-process" and spec.origin is None


def bound_row(
    event: Event, index: int, spec: HookSpec, policy: FailurePolicy, failing: NotRun | None = None
) -> HookRow:
    """A hook on the engine; `failing`: why it fails when it runs (its program is missing or
    not executable), said on its row with the path and the fix."""
    mode = failure_mode(spec, policy)
    note = spec.description or ""
    if failing is not None:
        said = f"{NOT_RUN_NOTES[failing.reason]}: {failing.path}; {failing.fix}"
        note = f"{said}; {note}" if note else said
    return HookRow(
        event=event.value,
        index=index,
        name=spec.name,
        source=spec.source,
        dialect=spec.dialect,
        matcher=spec.shown_matcher() or "*",
        if_rule=spec.if_rule.source if spec.if_rule else "",
        mode=spec.mode,
        timeout=spec.timeout,
        origin=spec.origin or "",
        trusted=True,
        note=note,
        not_run=failing.reason if failing is not None else None,
        fails=mode.fails,
        closed_by=mode.closed_by,
        once=spec.once,
        tier=spec.tier,
        grace=timeout_grace(spec),
        own_event=own_event(spec),
    )


def not_run_row(event: Event | None, item: NotRun, policy: FailurePolicy) -> HookRow:
    """A declared hook that will not run on `event` (None: an event only its code knows): it
    fails closed only where the policy stands a blocking guard in for an untrusted hook."""
    hook, why = item.hook, NOT_RUN_NOTES[item.reason]
    if item.detail is not None:
        why = f"will not run: {item.detail}"
    mode: FailureMode = OPEN
    if item.reason == "untrusted":
        mode = untrusted_failure_mode(hook, event, policy)
    return HookRow(
        event=event.value if event is not None else "-",
        index=None,
        name=hook.name,
        source=hook.source,
        dialect=hook.dialect,
        matcher=hook.matcher or "*",
        if_rule=hook.if_rule or "",
        mode=hook.mode,
        timeout=hook.timeout,
        grace=hook.grace,
        origin=hook.origin,
        trusted=item.reason != "untrusted",
        note=f"{why}; {hook.note}" if hook.note else why,
        not_run=item.reason,
        fails=mode.fails,
        closed_by=mode.closed_by,
        own_event=hook.own_event(event) if event is not None else None,
        shown_origin=item.file if item.error is not None else None,
    )


def collect(
    engine: HookEngine,
    not_run: Sequence[NotRun],
    only: Event | None = None,
    policy: FailurePolicy | None = None,
) -> list[HookRow]:
    """The engine's hooks in dispatch order per event, then the declared ones that will not
    run there (`OpenedProject.not_run`: the report every host gets), each with how it fails
    under `policy` (`OpenedProject.failure_policy`)."""
    policy = policy or FailurePolicy()
    rows: list[HookRow] = []
    failing = {item.hook.origin: item for item in not_run if item.registered}
    not_run = [item for item in not_run if not item.registered]  # the bound rows list these
    for event in Event:
        if only is not None and event is not only:
            continue
        specs = enumerate((s for s in engine.hooks(event) if not is_plumbing(s)), 1)
        rows += [
            bound_row(event, i, spec, policy, failing.get(spec.origin) if spec.origin else None)
            for i, spec in specs
        ]
        rows += [not_run_row(event, item, policy) for item in not_run if event in item.hook.events]
    rows += [not_run_row(None, item, policy) for item in not_run if not item.hook.events]
    return rows


def _shorter_origin(origin: str, project: Path | None) -> str:
    if project is not None:
        prefix = f"{project}/"
        if origin.startswith(prefix):
            return origin[len(prefix) :]
    home = f"{user_home()}/"
    return "~/" + origin[len(home) :] if origin.startswith(home) else origin


#: Each line of an entry starts this many columns in (the first with the hook's number), and
#: a wrapped line goes on this far in.
INDENT = 5
#: The characters of a hook's name kept however long the rest of its first line.
NAME_KEPT = 40


def _fitted_name(name: str, rest: int, width: int) -> str:
    """The hook's name, cut with "…" where the whole first line would not fit in `width`
    columns beside the `rest` of it (a long command: the file and `--json` name it whole),
    but never below `NAME_KEPT` characters."""
    room = max(width - INDENT - rest, NAME_KEPT)
    return name if len(name) <= room else name[: room - 1] + "…"


def _entry(row: HookRow, project: Path | None, width: int) -> list[tuple[Text, Text]]:
    """The entry's lines at `width` columns, each its lead (the number, or blanks) and its
    text."""
    when = row.matcher if not row.if_rule else f"{row.matcher} if {row.if_rule}"
    system = system_name(row.dialect)
    # A skill's source is "skill" too: the word once
    facts = [system, row.source, row.mode] if row.source != system else [system, row.mode]
    if row.timeout and row.grace:
        facts.append(f"{row.timeout - row.grace:g}s +{row.grace:g}s")
    elif row.timeout:
        facts.append(f"{row.timeout:g}s")
    facts.append(f"fails {row.fails}")
    said = " · ".join(facts)
    name = _fitted_name(row.name, len(when) + len(said) + 4, width)
    first = Text.assemble(
        (name, "yellow" if row.not_run else "bold"), "  ", (when, "cyan"), "  ", (said, "dim")
    )
    lines = [(Text(f"  {row.index or '-':>2} ", "dim"), first)]
    blank = Text(" " * INDENT)
    where = _shorter_origin(row.shown_origin or row.origin, project)
    own = f"as {row.own_event}" if row.own_event else ""
    details = [part for part in (own, where, row.note) if part]
    if details:
        style = "yellow" if row.not_run else "dim"
        lines.append((blank, Text(" — ".join(details), style=style)))
    if row.closed_by:
        lines.append((blank, Text(f"closed by {_shorter_origin(row.closed_by, project)}", "dim")))
    return lines


def _print_wrapped(console: Console, lead: Text, text: Text) -> None:
    """`lead` then `text`, wrapped at the console's width with each further line `INDENT`
    columns in: a long note (Gemini CLI's "not trusted" and its fix) is shown whole, in a
    terminal of 80 columns as in a pipe."""
    width = max(console.width - INDENT, 20)
    for i, part in enumerate(text.wrap(console, width, overflow="fold")):
        part.rstrip()
        console.print(lead + part if i == 0 else Text(" " * INDENT) + part, no_wrap=True)


def print_rows(console: Console, rows: Sequence[HookRow], project: Path | None = None) -> None:
    """Each event as a heading with its hooks under it."""
    current: str | None = None
    for row in rows:
        if row.event != current:
            current = row.event
            heading = "(event chosen by the hook's code)" if current == "-" else current
            console.print(Text(heading, style="bold magenta"))
        for lead, text in _entry(row, project, console.width):
            _print_wrapped(console, lead, text)
