"""The 10,000-character cap on hook output strings (spec §3).

`additionalContext`, `systemMessage` and plain stdout that becomes context are capped; a longer
text is saved under ``<home>/.hookwright/hook-output/`` and replaced by a preview and the path,
so neither Claude's context nor the transcript is flooded and nothing is lost.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

from hookwright.config.private_files import open_private
from hookwright.core.results import HookResult
from hookwright.dialects.claude_code.tables import OUTPUT_CAP

log = logging.getLogger("hookwright.claude_code")

PREVIEW_CHARS = 2_000
#: The most stdout a command hook's answer may have, in bytes; a JSON answer past it is an
#: error, not silently read as text.
MAX_ANSWER_BYTES = 10_000_000


def output_dir(home: Path) -> Path:
    return home / ".hookwright" / "hook-output"


def cap_text(text: str, directory: Path, *, limit: int = OUTPUT_CAP) -> str:
    """`text` itself when short enough, else a preview plus the path of the full text."""
    if len(text) <= limit:
        return text
    digest = hashlib.sha256(text.encode("utf-8", errors="replace")).hexdigest()[:16]
    path = directory / f"{digest}.txt"
    try:
        with open_private(path) as fh:
            fh.write(text)
        where = f"full output ({len(text)} characters) saved to {path}"
    except OSError as exc:
        log.warning("cannot save long hook output to %s: %s", path, exc)
        where = f"output of {len(text)} characters truncated; saving it failed: {exc}"
    return f"{text[:PREVIEW_CHARS]}\n\n[... {where}]"


def over_cap_answer(stdout: str, size: int, truncated: bool) -> str | None:
    """The error for a JSON answer cut at `MAX_ANSWER_BYTES`, or None."""
    if not truncated or not stdout.lstrip().startswith("{"):
        return None
    return f"JSON answer of {size} bytes is over the {MAX_ANSWER_BYTES}-byte limit; ignored"


def cap_result(result: HookResult, directory: Path) -> HookResult:
    if result.additional_context is not None:
        result.additional_context = cap_text(result.additional_context, directory)
    if result.system_message is not None:
        result.system_message = cap_text(result.system_message, directory)
    return result
