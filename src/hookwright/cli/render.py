"""How agent events look in a terminal (rich) or to scripts (`--json`: one JSON object a line).

In a terminal each event is a marker and a text whose continuation lines stay indented under
it, and spinners say what is going on; without one (a pipe, a log file) each event is exactly
one plain line and nothing animates."""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.console import Console
from rich.status import Status
from rich.table import Table
from rich.text import Text

from hookwright.cli.skill_events import skill_event
from hookwright.core.systems import effect_words, event_words

#: How much of a hook's added context the terminal shows.
CONTEXT_CHARS = 160
#: How much of a skill hook's injected prompt the terminal shows.
SKILL_PROMPT_CHARS = 48
#: The last lines of a failed hook's stderr (a Python hook's traceback) the terminal shows.
STDERR_LINES = 8
#: The first lines of a tool's result the terminal shows (the rest are counted), and the
#: characters of each.
RESULT_LINES = 8
RESULT_LINE_CHARS = 300


class JsonRenderer:
    def __call__(self, event: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(event, ensure_ascii=False, default=str) + "\n")
        sys.stdout.flush()


def _short(value: Any, limit: int = 120) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _tail_lines(text: Any, count: int) -> list[str]:
    """The last `count` non-blank lines of `text` (none when it is not a string)."""
    if not isinstance(text, str):
        return []
    return [line.rstrip() for line in text.splitlines() if line.strip()][-count:]


def _result_lines(content: str) -> str:
    """A tool's result for a terminal: its first lines as lines (a Read's numbered lines stay
    apart), then how many more there are."""
    lines = [line.rstrip().expandtabs(2) for line in content.strip("\n").splitlines()] or [""]
    shown = [
        line if len(line) <= RESULT_LINE_CHARS else line[: RESULT_LINE_CHARS - 1] + "…"
        for line in lines[:RESULT_LINES]
    ]
    hidden = len(lines) - len(shown)
    if hidden:
        shown.append(f"… {hidden} more line{'s' if hidden > 1 else ''}")
    return "\n".join(shown)


def _result_line(content: str) -> str:
    """A tool's result on one plain line; when cut, how many lines it had."""
    text = _short(content, RESULT_LINE_CHARS)
    if text.endswith("…") and len(lines := content.strip("\n").splitlines()) > 1:
        text += f" ({len(lines)} lines)"
    return text


def _tool_text(name: str, tool_input: Any) -> str:
    """``Bash(ls -la)`` for a one-string input such as a command, else the JSON input."""
    if isinstance(tool_input, dict) and len(tool_input) == 1:
        (value,) = tool_input.values()
        if isinstance(value, str):
            return f"{name}({_short(value, 300)})"
    return f"{name}({_short(tool_input, 300)})"


DECISION_STYLES = {"deny": "bold red", "block": "bold red", "ask": "yellow", "allow": "green"}


class RichRenderer:
    """Streams assistant text, shows tool calls and results, and says which hook decided what."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(highlight=False)
        self._streaming = False
        self._status: Status | None = None
        self._reasons_shown: set[str] = set()
        #: (hook, error) of the failed hooks whose line this turn showed: a notice carrying the
        #: same failure's record (OpenHarness `hook.notice`) is not said again.
        self._failures_shown: set[tuple[str, str]] = set()
        #: Whether this run said how to allow a call no one could be asked about (said once).
        self._allow_hint_said = False

    @property
    def _animated(self) -> bool:
        return self.console.is_terminal and not self.console.is_dumb_terminal

    def _line(self, marker: str, body: Text, style: str = "") -> None:
        """One event: in a terminal, wrapped with a hanging indent; otherwise one line."""
        self._stop_spinner()
        self._end_stream()
        if not self.console.is_terminal:
            self.console.print(Text(marker, style=style) + body, soft_wrap=True)
            return
        grid = Table.grid(padding=0)
        grid.add_column(no_wrap=True, style=style)
        grid.add_column(overflow="fold")
        grid.add_row(marker, body)
        self.console.print(grid)

    def _spin(self, text: str) -> None:
        if self._status is None:
            self._status = self.console.status(Text(text))
            self._status.start()
        else:
            self._status.update(Text(text))

    def _stop_spinner(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None

    def _session_header(self, event: dict[str, Any]) -> None:
        """Which model runs, and where the transcript and the audit trail go."""
        lines = [f"session {event['session_id']}"]
        if event.get("model"):
            lines.append(f"model       {event['model']}")
        lines.append(f"transcript  {event['transcript']}")
        lines.append(f"audit       {event.get('audit') or 'off'}")
        for line in lines:
            self._line("", Text(line, style="dim"))

    def _hooks_running(self, event: dict[str, Any]) -> None:
        """A spinner while hooks run, saying their status messages (Claude Code's
        ``statusMessage``); where no spinner can show, each message is a line."""
        messages = list(dict.fromkeys(event.get("status") or []))
        text = " · ".join(messages) or f"running {event['event']} hooks…"
        if messages and not self._animated:
            self._line("⋯ ", Text(text), "dim")
        if self._animated:
            self._end_stream()
            self._spin(text)

    def _end_stream(self) -> None:
        if self._streaming:
            self.console.print()
            self._streaming = False

    def __call__(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        prefix = f"[{event['agent_id']}] " if event.get("agent_id") else ""
        if kind == "text_delta":
            self._stop_spinner()
            self.console.print(Text(event["text"]), end="")
            self._streaming = True
        elif kind == "model_request":
            if self._animated and not prefix:
                self._end_stream()
                self._spin("thinking…")
        elif kind == "hooks_running":
            self._hooks_running(event)
        elif kind == "hooks_done":
            self._stop_spinner()
        else:
            self._show(kind, prefix, event)

    def _show(self, kind: str, prefix: str, event: dict[str, Any]) -> None:
        if kind == "tool_call":
            body = Text(_tool_text(event["name"], event["input"]), style="bold cyan")
            self._line(f"{prefix}⏺ ", body, "cyan")
        elif kind == "tool_rewritten":
            body = Text(_tool_text(event["name"], event["input"]), style="cyan")
            self._line(f"{prefix}  ↳ ran ", body, "magenta")
        elif kind == "tool_result":
            self._tool_result(prefix, event)
        elif kind == "hook_result":
            self._hook_result(prefix, event)
        elif kind == "permission":
            self._permission(prefix, event)
        elif kind == "notice":
            if (event.get("hookName"), event.get("errorMessage")) not in self._failures_shown:
                self._line(f"{prefix}! ", Text(event["text"], style="yellow"), "yellow")
        elif kind == "skill_prompt":
            self._skill_prompt(prefix, event)
        elif kind == "compact":
            text = f"context compacted ({event['trigger']}, {event['dropped']} messages summarized)"
            self._line(f"{prefix}⟳ ", Text(text, style="blue"), "blue")
        elif kind == "error":
            body = Text(f"{event['kind']}: {event['message']}", style="bold red")
            self._line(f"{prefix}✗ ", body, "bold red")
        elif kind == "prompt_blocked":
            self._line("", Text(event["message"], style="bold red"))
        elif kind == "command_output":
            self._line("", Text(event["text"]))
        elif kind == "turn_end" and not prefix:
            self._turn_end(event)
        elif kind == "session_start" and not prefix:
            self._session_header(event)

    def _skill_prompt(self, prefix: str, event: dict[str, Any]) -> None:
        """One line per injection, as a hook's line names its hook: the skill's timing next
        to the canonical event, the hook, its system (the skill) and file, then the role and
        the start of the prompt."""
        timing = event["timing"]
        canonical = skill_event(timing)
        said = event_words(canonical.value, timing) if canonical else timing
        where = ", ".join(filter(None, (f"skill {event.get('skill') or '-'}", event.get("file"))))
        kept = ", kept" if event.get("persistent") else ""
        body = Text.assemble(
            (f"{event['hook']} ", "bold"),
            (f"({where}): ", "dim"),
            (f"{event['role']} prompt{kept}: ", "blue"),
            (_short(event["content"], SKILL_PROMPT_CHARS), "dim"),
        )
        self._line(f"{prefix}✚ {said} ", body, "blue")

    def _tool_result(self, prefix: str, event: dict[str, Any]) -> None:
        multiline = self.console.is_terminal
        content = (_result_lines if multiline else _result_line)(event["content"])
        skipped = event.get("skipped")
        if event["is_error"] and event["content"].strip() in self._reasons_shown:
            content = "(reason above)"
        note = f" [{skipped}]" if skipped else ""
        style = "red" if event["is_error"] else "dim"
        self._line(f"{prefix}  ⎿ ", Text(content + note, style=style), style)

    def _hook_result(self, prefix: str, event: dict[str, Any]) -> None:
        decision = event.get("decision")
        what = event.get("effect") or decision or "note"
        what = effect_words(
            what, event.get("dialect"), event.get("own_event"), event.get("own_word")
        )
        if event.get("shadow"):
            what = f"shadow, would {what}, not applied"
        if event.get("code"):
            what = f"{what} ({event['code']})"
        detail = event.get("reason") or event.get("error") or ""
        if event.get("reason"):
            self._reasons_shown.add(event["reason"].strip())
        if event.get("error"):
            self._failures_shown.add((event["hook"], event["error"]))
        body = Text.assemble(
            (f"{event['hook']} ", "bold"),
            (f"({event.get('system') or event['dialect']}, {_where(event)}): ", "dim"),
            (what, DECISION_STYLES.get(decision or "", "magenta")),
            (f" — {_short(detail, 300)}" if detail else "", ""),
        )
        if event.get("context"):
            body.append(f"\n+ context: {_short(event['context'], CONTEXT_CHARS)}", style="dim")
        stderr = event.get("stderr") or ""
        shown = " ".join(detail.split()) if len(detail) <= 300 else ""
        if " ".join(stderr.split()) not in shown:  # else said just above
            for line in _tail_lines(stderr, STDERR_LINES):
                body.append(f"\n  {line}", style="dim")
        if event.get("fix"):
            body.append(f"\n  fix: {event['fix']}", style="yellow")
        self._line(f"{prefix}⚑ {event.get('event_words') or event['event']} ", body, "magenta")

    def _permission(self, prefix: str, event: dict[str, Any]) -> None:
        reason = event["reason"]
        if reason.strip() in self._reasons_shown:
            reason = "reason above"
        else:
            self._reasons_shown.add(reason.strip())
        style = "green" if event["behavior"] == "allow" else "red"
        text = f"permission {event['tool']}: {event['behavior']} ({_short(reason, 300)})"
        self._line(f"{prefix}  ", Text(text, style=style), style)
        if event.get("unanswered") and not self._allow_hint_said:
            self._allow_hint_said = True
            self._line(f"{prefix}    ", Text(allow_hint(event), style="yellow"), "yellow")

    def _turn_end(self, event: dict[str, Any]) -> None:
        self._reasons_shown.clear()
        self._failures_shown.clear()
        if event["status"] != "completed":
            reason = f": {event['reason']}" if event.get("reason") else ""
            text = f"— turn ended ({event['status']}){reason}"
            self._line("", Text(text, style="yellow"))
        else:
            self._stop_spinner()
            self._end_stream()


def allow_hint(event: dict[str, Any]) -> str:
    """How to let a call run that the rules or mode wanted to ask about, in a run where no one
    can be asked: the flag, or an allow rule in the project's settings."""
    rule = json.dumps({"permissions": {"allow": [event.get("allow_rule") or event["tool"]]}})
    return (
        "hint: no one can answer a permission prompt here (stdin is not a terminal); to let "
        "such calls run, give --permission-mode bypassPermissions (acceptEdits: file edits "
        f"only), or allow them in .claude/settings.json: {rule}"
    )


def _where(event: dict[str, Any]) -> str:
    """A hook line's file (else its source), with its policy tier when it has one."""
    where = str(event.get("file") or event["source"])
    tier = event.get("tier")
    return f"{where}, tier {tier}" if tier else where
