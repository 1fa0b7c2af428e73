"""An untrusted folder's hooks said once (the terminal's stderr, with `--json` too, and the
page's notices): one warning line per folder, with how many hooks will not run, which, and the
command that trusts it, instead of one near identical line per hook. The hook-by-hook records
stay in the audit and in `hooks list` (`--json` there too), where a program reads them."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from hookwright.core.words import counted
from hookwright.host.labels import short_name, system_name
from hookwright.host.not_run import NotRun

#: How many hooks a folder's line names before "and N more".
_NAMED = 4
_NAME_WIDTH = 40


class SkipUntrusted(logging.Filter):
    """Leaves out the `hookwright.open` record of each hook held back by an untrusted folder:
    `held_back_lines` says them once per folder."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else ()
        return not (args and isinstance(args[0], NotRun) and args[0].reason == "untrusted")


def held_back_lines(not_run: Sequence[NotRun]) -> list[str]:
    """``warning: /proj: 4 hooks not run: untrusted; trust the folder with: hookwright trust
    /proj, or run again with --trust (no_rm.py (Claude Code), facts (Python), …)``: one line
    per folder whose hooks are held back until it is trusted."""
    by_folder: dict[Path, list[NotRun]] = {}
    for item in not_run:
        if item.reason == "untrusted":
            folder = item.hook.trust_root or Path(item.file).parent
            by_folder.setdefault(folder, []).append(item)
    return [_line(folder, items) for folder, items in by_folder.items()]


def _line(folder: Path, items: list[NotRun]) -> str:
    names = [_named(item) for item in items[:_NAMED]]
    if len(items) > _NAMED:
        names.append(f"and {len(items) - _NAMED} more")
    count = counted(len(items), "hook")
    return f"warning: {folder}: {count} not run: untrusted; {items[0].fix} ({', '.join(names)})"


def _named(item: NotRun) -> str:
    name = short_name(item.hook.name)
    if len(name) > _NAME_WIDTH:
        name = name[: _NAME_WIDTH - 1] + "…"
    return f"{name} ({system_name(item.hook.dialect)})"
