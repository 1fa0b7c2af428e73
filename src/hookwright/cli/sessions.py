"""`hookwright sessions`: the sessions of a project that `--resume ID` can continue."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.text import Text

from hookwright.core.home import user_home
from hookwright.core.words import counted
from hookwright.runtime.transcript import transcript_path

#: A transcript line longer than this is not read for the listing's first prompt.
LINE_LIMIT = 1_000_000


@dataclass(frozen=True, slots=True)
class SessionInfo:
    session_id: str
    modified: str
    prompts: int
    first_prompt: str


def _user_text(entry: Any) -> str | None:
    if not isinstance(entry, dict) or entry.get("type") != "user":
        return None
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, str) else None


def _describe(path: Path) -> SessionInfo | None:
    """What the listing says about one transcript; None when it holds no prompt."""
    prompts: list[str] = []
    try:
        with path.open(encoding="utf-8", errors="replace") as lines:
            for line in lines:
                if len(line) > LINE_LIMIT:
                    continue
                try:
                    text = _user_text(json.loads(line))
                except ValueError:
                    continue
                if text is not None:
                    prompts.append(text)
        modified = datetime.fromtimestamp(path.stat().st_mtime).astimezone()
    except OSError:
        return None
    if not prompts:
        return None
    first = " ".join(prompts[0].split())
    return SessionInfo(path.stem, modified.isoformat(timespec="seconds"), len(prompts), first)


def find_sessions(home: Path, project: Path) -> list[SessionInfo]:
    """The project's sessions with at least one prompt, newest first."""
    folder = transcript_path(home, project, "x").parent
    if not folder.is_dir():
        return []
    paths = sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True)
    return [info for info in map(_describe, paths) if info is not None]


def sessions(
    project: Annotated[
        Path, typer.Option("--project", "-p", help="Project directory.", metavar="DIR")
    ] = Path("."),
    json_out: Annotated[
        bool, typer.Option("--json", help="One JSON array of sessions.", metavar="")
    ] = False,
) -> None:
    """The project's sessions, newest first: continue one with run/chat --resume ID."""
    found = find_sessions(user_home(), project.resolve())
    if json_out:
        sys.stdout.write(json.dumps([asdict(s) for s in found], ensure_ascii=False) + "\n")
        return
    console = Console(highlight=False)
    if not found:
        console.print(f"no sessions for {project.resolve()}")
        return
    for info in found:
        console.print(
            Text.assemble(
                (info.session_id, "bold"),
                (f"  {info.modified}  {counted(info.prompts, 'prompt')}", "dim"),
            )
        )
        console.print(Text(f"  {info.first_prompt}"), no_wrap=True, overflow="ellipsis")
