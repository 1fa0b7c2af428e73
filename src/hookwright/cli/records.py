"""Audit records in words: what one hook did to one call, for `hookwright audit` and the run
summary."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hookwright.core.systems import done_words, recorded_own_event
from hookwright.host.labels import short_name

#: Longest text shown for one value (a command, a reason, a context).
SHOWN = 100
#: A frame of a Python traceback, as a hook's `stderr_tail` keeps it.
_FRAME = re.compile(r'File "([^"\n]+)", line (\d+)')


def clip(text: str, limit: int = SHOWN) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def input_text(tool_input: Any) -> str:
    """A tool input as a person reads it: the command, the file path, else compact JSON."""
    if isinstance(tool_input, Mapping):
        for key in ("command", "file_path", "path", "url", "pattern", "query"):
            value = tool_input.get(key)
            if isinstance(value, str):
                return clip(value)
    return clip(json.dumps(tool_input, ensure_ascii=False, default=str))


def _call(record: Mapping[str, Any]) -> str:
    tool = record.get("tool_name")
    if not tool:
        return ""
    shown = record.get("tool_input")
    return f"{tool} {input_text(shown)}" if shown else str(tool)


def _rewrite(record: Mapping[str, Any]) -> str:
    before, after = record.get("tool_input"), record.get("executed_input")
    if before is not None and after is not None and before != after:
        return f"rewrote {record.get('tool_name')} {input_text(before)} → {input_text(after)}"
    return f"rewrote the input of {_call(record) or record.get('event')}"


def _raised_at(record: Mapping[str, Any]) -> str:
    """`` at .hookwright/guards.py:7``: where a hook that raised failed, from the last frame
    of the traceback its `stderr_tail` keeps (a Python hook's own frames), relative to the
    project when inside it; empty when there is none."""
    frames = _FRAME.findall(str(record.get("stderr_tail") or ""))
    if not frames:
        return ""
    file, line = frames[-1]
    project = record.get("project")
    if isinstance(project, str) and Path(file).is_relative_to(project):
        file = str(Path(file).relative_to(project))
    return f" at {file}:{line}"


def _done(effect: object, record: Mapping[str, Any]) -> str | None:
    """A decision done in the words of the hook's system at its own event (PicoClaw
    `deny_tool`, `not approved`), or in the word its answer said it in (Gemini CLI `block`);
    None for an effect that is not a decision."""
    if not isinstance(effect, str):
        return None
    dialect, event, word = record.get("dialect"), record.get("event"), record.get("own_word")
    dialect = dialect if isinstance(dialect, str) else None
    own = recorded_own_event(event, dialect) if isinstance(event, str) else None
    return done_words(effect, dialect, own, word if isinstance(word, str) else None)


def cut_text(record: Mapping[str, Any]) -> str:
    """A selected hook an earlier hook's answer kept from running (status ``cut``): ``cut by
    guard.sh's deny on Bash curl example.com``."""
    by = record.get("cut_by")
    by = by if isinstance(by, Mapping) else {}
    who = short_name(str(by.get("hook") or "an earlier hook"))
    target = _call(record) or str(record.get("event"))
    return f"cut by {who}'s {by.get('decision') or 'answer'} on {target}"


def describe(record: Mapping[str, Any]) -> str:
    """One phrase: `denied Bash rm -rf build/: no rm`, `added context: ...`."""
    # Records written before `effect` existed: their decision is the best summary.
    effect = record["effect"] if "effect" in record else record.get("decision")
    status = record.get("status")
    if status in ("error", "timeout") or effect in ("patch dropped", "decision ignored"):
        fix = f"; fix: {record['fix']}" if record.get("fix") else ""
        what = status if status != "ok" else effect
        return f"{what}: {clip(record.get('error') or '')}{_raised_at(record)}{fix}"
    if status == "not_loaded":  # a config file: its hooks did not load
        return f"did not load: {clip(record.get('error') or '')}"
    if status == "not_run":  # the reason names the file and hook first; the line names them
        why = str(record.get("reason") or record.get("error") or "").partition(" not run: ")
        return f"not run: {clip(why[2] or why[0])}"
    if status == "cut":
        return cut_text(record)
    reason = record.get("reason") or ""
    detail = f": {clip(reason)}" if reason else ""
    target = _call(record) or str(record.get("event"))
    verb = _done(effect, record)
    if verb is not None:
        return f"{verb} {target}{detail}"
    if effect == "rewrite input":
        return _rewrite(record)
    if effect in ("context", "prompt"):
        verb = "injected a prompt" if effect == "prompt" else "added context"
        return f"{verb}: {clip(record.get('context') or '')}"
    if effect == "rewrite output":
        tool = record.get("tool_name")
        return f"rewrote the {tool} result" if tool else "rewrote the output"
    if effect is None:
        # A hook that ran without effect may still say why (an answer that was not applied)
        error = record.get("error")
        return f"ran, no decision: {clip(error)}" if error else "ran, no decision"
    return f"{effect}{detail}"
