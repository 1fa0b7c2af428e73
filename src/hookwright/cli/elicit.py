"""An MCP server's request for input, asked on the terminal (`run` and `chat`): the question,
then accept / decline / cancel, then one line per field of a form (typed as its schema says),
or the URL to visit. End of input cancels."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from rich.console import Console
from rich.text import Text

from hookwright.runtime.mcp.elicitation import ElicitationReply, ElicitationRequest

Readline = Callable[[], Awaitable[str | None]]

_CHOICES = {"y": "accept", "yes": "accept", "n": "decline", "no": "decline", "c": "cancel"}


def field_value(schema: Mapping[str, Any], text: str) -> Any:
    """`text` as the field's JSON type; raises ValueError when it does not fit."""
    kind = schema.get("type")
    if kind == "boolean":
        if text.lower() in ("y", "yes", "true"):
            return True
        if text.lower() in ("n", "no", "false"):
            return False
        raise ValueError("answer yes or no")
    if kind == "integer":
        return int(text)
    if kind == "number":
        return float(text)
    choices = schema.get("enum")
    if isinstance(choices, list) and choices and text not in choices:
        raise ValueError(f"one of: {', '.join(map(str, choices))}")
    return text


class TerminalElicitation:
    def __init__(self, console: Console, readline: Readline) -> None:
        self.console = console
        self.readline = readline

    async def _line(self, prompt: str) -> str | None:
        self.console.print(Text(prompt, style="bold"), end="")
        line = await self.readline()
        return None if line is None else line.strip()

    async def __call__(self, request: ElicitationRequest) -> ElicitationReply:
        self.console.print(Text(f"MCP server {request.server} asks: {request.message}"))
        if request.mode == "url" and request.url:
            self.console.print(Text(f"  open: {request.url}"))
        answer = await self._line("Answer? [y]es / [n]o (decline) / [c]ancel: ")
        action = _CHOICES.get((answer or "c").lower(), "decline")
        if action != "accept" or request.mode == "url":
            return ElicitationReply(action)
        content = await self._form(request.requested_schema or {})
        return (
            ElicitationReply("accept", content)
            if content is not None
            else ElicitationReply("cancel")
        )

    async def _form(self, schema: Mapping[str, Any]) -> dict[str, Any] | None:
        properties = schema.get("properties")
        required = set(schema.get("required") or ())
        content: dict[str, Any] = {}
        for name, field in (properties or {}).items():
            spec = field if isinstance(field, Mapping) else {}
            while True:
                title = spec.get("title") or name
                line = await self._line(f"  {title}{'' if name in required else ' (optional)'}: ")
                if line is None:
                    return None
                if not line and name not in required:
                    break
                try:
                    content[name] = field_value(spec, line)
                    break
                except ValueError as exc:
                    self.console.print(Text(f"  {exc}", style="red"))
        return content
