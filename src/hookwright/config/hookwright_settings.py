"""One key of a `.hookwright/settings.json` file (the user's, or a trusted project's).

The file is capped, parsed as strict JSON and must hold an object; each key's meaning is its
reader's (`state_setting`, `claude_version_setting`).
"""

from __future__ import annotations

from pathlib import Path

from hookwright.config.safeparse import ParseError, load_json_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

SETTINGS_FILE: Final = Path(".hookwright") / "settings.json"
#: Larger settings files are refused, not read.
MAX_SETTINGS_BYTES: Final = 1 << 20


def read_setting(path: Path, key: str) -> tuple[object, str | None]:
    """`key`'s value in `path` (None when the file or key is absent), or a problem line
    naming the file."""
    try:
        if not path.is_file():
            return None, None
        data = path.read_bytes()[: MAX_SETTINGS_BYTES + 1]
    except OSError as exc:
        return None, f"{path}: cannot read: {exc.strerror}"
    if len(data) > MAX_SETTINGS_BYTES:
        return None, f"{path}: larger than {MAX_SETTINGS_BYTES} bytes; not read"
    try:
        parsed = load_json_text(data)
    except ParseError as exc:
        return None, f"{path}: {exc.reason}"
    if not isinstance(parsed, dict):
        return None, f"{path}: expected a JSON object"
    return parsed.get(key), None
