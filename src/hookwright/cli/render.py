"""How agent events look in a terminal (rich) or to scripts (`--json`: one JSON object a line)."""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.console import Console
from rich.status import Status
from rich.text import Text


class JsonRenderer:
    def __call__(self, event: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(event, ensure_ascii=False, default=str) + "\n")
        sys.stdout.flush()


def _short(value: Any, limit: int = 120) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class RichRenderer:
    """Streams assistant text, shows tool calls and results, and says which hook decided what."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(highlight=False)
        self._streaming = False
        self._status: Status | None = None

    def _session_header(self, event: dict[str, Any]) -> None:
        """Which model runs, and where the transcript and the audit trail go."""
        lines = [f"session {event['session_id']}"]
        if event.get("model"):
            lines.append(f"model       {event['model']}")
        lines.append(f"transcript  {event['transcript']}")
        lines.append(f"audit       {event.get('audit') or 'off'}")
        for line in lines:
            self.console.print(Text(line, style="dim"), soft_wrap=True)

    def _hooks_running(self, event: dict[str, Any]) -> None:
        """A spinner while hooks run, saying their status messages (Claude Code's
        ``statusMessage``); where no spinner can show, each message is a line."""
        messages = list(dict.fromkeys(event.get("status") or []))
        text = " · ".join(messages) or f"running {event['event']} hooks…"
        if messages and (not self.console.is_terminal or self.console.is_dumb_terminal):
            self._end_stream()
            self.console.print(Text(f"⋯ {text}", style="dim"))
        if self._status is None:
            self._status = self.console.status(Text(text))
            self._status.start()
        else:
            self._status.update(Text(text))

    def _end_stream(self) -> None:
        if self._streaming:
            self.console.print()
            self._streaming = False

    def __call__(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        prefix = f"[{event['agent_id']}] " if event.get("agent_id") else ""
        if kind == "text_delta":
            self.console.print(Text(event["text"]), end="")
            self._streaming = True
            return
        if kind == "hooks_running":
            self._hooks_running(event)
            return
        if kind == "hooks_done":
            if self._status is not None:
                self._status.stop()
                self._status = None
            return
        self._end_stream()
        if kind == "tool_call":
            self.console.print(
                Text.assemble(
                    (f"{prefix}⏺ ", "cyan"),
                    (event["name"], "bold cyan"),
                    f"({_short(event['input'])})",
                )
            )
        elif kind == "tool_result":
            style = "red" if event["is_error"] else "dim"
            note = f" [{event['skipped']}]" if event.get("skipped") else ""
            self.console.print(
                Text(f"{prefix}  ⎿ {_short(event['content'], 300)}{note}", style=style)
            )
        elif kind == "hook_result":
            decision = event.get("decision")
            style = {
                "deny": "bold red",
                "block": "bold red",
                "ask": "yellow",
                "allow": "green",
            }.get(decision or "", "magenta")
            what = event.get("effect") or decision or "note"
            if event.get("code"):
                what = f"{what} ({event['code']})"
            detail = event.get("reason") or event.get("error") or ""
            self.console.print(
                Text.assemble(
                    (f"{prefix}⚑ {event['event']} ", "magenta"),
                    (f"{event['hook']} ", "bold"),
                    (f"({event['dialect']}, {event['source']}): ", "dim"),
                    (what, style),
                    (f" — {_short(detail, 300)}" if detail else "", ""),
                )
            )
        elif kind == "permission":
            style = "green" if event["behavior"] == "allow" else "red"
            self.console.print(
                Text(
                    f"{prefix}  permission {event['tool']}: {event['behavior']} "
                    f"({event['reason']})",
                    style=style,
                )
            )
        elif kind == "notice":
            self.console.print(Text(f"{prefix}! {event['text']}", style="yellow"))
        elif kind == "hook":
            self.console.print(
                Text(
                    f"{prefix}✚ skill hook {event.get('name')} ({event.get('role')})", style="blue"
                )
            )
        elif kind == "compact":
            self.console.print(
                Text(
                    f"{prefix}⟳ context compacted ({event['trigger']}, "
                    f"{event['dropped']} messages summarized)",
                    style="blue",
                )
            )
        elif kind == "error":
            self.console.print(
                Text(f"{prefix}✗ {event['kind']}: {event['message']}", style="bold red")
            )
        elif kind == "prompt_blocked":
            self.console.print(Text(event["message"], style="bold red"))
        elif kind == "turn_end" and not prefix:
            if event["status"] != "completed":
                reason = f": {event['reason']}" if event.get("reason") else ""
                self.console.print(
                    Text(f"— turn ended ({event['status']}){reason}", style="yellow")
                )
        elif kind == "session_start" and not prefix:
            self._session_header(event)
